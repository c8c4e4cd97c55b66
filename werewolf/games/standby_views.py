"""Thin views for standbys, the missed-cards policy and the late list: a standby's own
page, and the organiser's panel on the dashboard (`games/standbys.html`)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import translation
from django.views.decorators.http import require_http_methods, require_POST

from werewolf import engine

from . import access, attendance, services, standbys, validators
from .forms import SeatPolicyForm, words
from .models import Game, Player, SeatPolicy


def panel(game: Game, form: SeatPolicyForm | None = None) -> dict[str, Any]:
    """What the dashboard's panel shows: the policy (and its form), each seat's missed
    cards, the late list once the reminder time has come, and the standbys."""
    policy = attendance.policy_of(game)
    phase = game.current_phase() if game.is_running else None
    late = attendance.late_seats(phase, game.engine_state) if phase is not None and phase.reminded_at else []
    row = SeatPolicy.objects.filter(game=game).first()
    return {
        "policy": policy,
        "policy_form": form or SeatPolicyForm(instance=row or SeatPolicy(game=game)),
        "late": late,
        "missing": list(game.players.exclude(seat=None).filter(missed_cards__gt=0).order_by("seat")),
        "standbys": list(game.standbys.filter(seated_at=None).order_by("joined_at", "pk")),
        "seated_standbys": list(game.standbys.exclude(seated_at=None).select_related("player")),
    }


@login_required
@require_POST
def dashboard_standbys(request: HttpRequest, pk: int) -> HttpResponse:
    """The organiser's acts on the panel: the policy, the standby list, seating one."""
    game = access.game_for(request.user, pk, access.Action.RUN)
    action = request.POST.get("action")
    try:
        if action == "policy":
            row = SeatPolicy.objects.filter(game=game).first() or SeatPolicy(game=game)
            form = SeatPolicyForm(request.POST, instance=row)
            if not form.is_valid():
                raise services.ServiceError("stale_form")
            with transaction.atomic():  # under the game's lock, as every change to a game
                Game.objects.select_for_update().get(pk=game.pk)
                form.save()
        elif action == "open_standbys":
            if game.status == Game.Status.DRAFT:
                services.open_signup(game)
            else:
                standbys.open_list(game)
        elif action == "close_standbys":
            standbys.close_list(game)
        elif action == "remove_standby":
            standbys.remove(game, validators.ascii_number(request.POST.get("standby", "")))
        elif action == "seat_standby":
            seat = validators.ascii_number(request.POST.get("seat", ""))
            player = get_object_or_404(Player, game=game, seat=-1 if seat is None else seat)
            chosen = validators.ascii_number(request.POST.get("standby", ""))
            standby = game.standbys.filter(pk=chosen).first() if chosen is not None else None
            seated = standbys.seat(player, standby)
            messages.success(request, words("games/standby_seated.html", {"standby": seated, "seat": seat}))
    except services.ServiceError as refusal:
        refused = {"game": game, "error": refusal, "organiser": True, "names": []}
        messages.error(request, words("includes/service_error.html", refused))
    return redirect(reverse("games:dashboard", args=[pk]) + "#standbys")


@require_http_methods(["GET", "POST"])
def standby_page(request: HttpRequest, token: str) -> HttpResponse:
    """A standby's own page: the confirmation, then their place in the line. It shows
    nothing secret: the game's name, the standby's own name and place. GET changes
    nothing (mail scanners open links)."""
    standby = standbys.for_token(token)
    if standby is None:
        return render(request, "games/join_closed.html", {"problem": "unknown"}, status=404)
    # In the game's language, as its other pages (views.speak).
    translation.activate(standby.game.language)
    request.game_language = standby.game.language  # type: ignore[attr-defined]
    error = None
    if request.method == "POST":
        try:
            if request.POST.get("action") == "leave":
                standbys.leave(standby)
                return render(request, "games/standby.html", {"game": standby.game, "standby": standby, "left": True})
            standby = standbys.confirm(standby)
        except services.ServiceError as refusal:
            error = refusal
    context = {
        "game": standby.game,
        "standby": standby,
        "place": standbys.place_in_line(standby),
        "handed_back": standbys.handed_back(standby),
        "error": error,
        "names": [],
        "viewer": engine.PUBLIC,
    }
    return render(request, "games/standby.html", context, status=400 if error else 200)
