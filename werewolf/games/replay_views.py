"""The replay: a game walked through step by step after its end (by its organisers at any
time), on a page and on a projector for a classroom's debrief; and the organiser's switch
that keeps it private. Who may open it is `access.replay_for`'s to say; anyone else gets
the answer of a page that does not exist."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from . import access, replay, services, validators
from .views import public_game, speak


@require_GET
def replay_page(request: HttpRequest, key: str) -> HttpResponse:
    """One step of the game (`?step=`: 0 is the setup; the last step without it), with
    links to the step before and after and to every step, so that no script is needed;
    `?projector=1` shows it in type read from the back of a room."""
    game = access.replay_for(request.user, public_game(key))
    speak(request, game)
    context = replay.replay_context(game, validators.ascii_number(request.GET.get("step", "")))
    projector = request.GET.get("projector") == "1"
    context["projector"] = projector
    context["organiser"] = access.may(request.user, game, access.Action.VIEW)
    return render(request, "games/replay_projector.html" if projector else "games/replay.html", context)


@login_required
@require_POST
def replay_private(request: HttpRequest, pk: int) -> HttpResponse:
    """The organiser keeps the replay for the game's organisers, or lets its players and
    the public walk through it once the game is over."""
    game = access.game_for(request.user, pk, access.Action.RUN)
    services.keep_replay_private(game, request.POST.get("private") == "on")
    return redirect(reverse("games:dashboard", args=[pk]) + "#replay")
