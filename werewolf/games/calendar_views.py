"""The calendar's pages: the organiser's (days off, what an absence does, pause and
resume; `access.Action.RUN`, so no player can pause a game) and a seat's absences (by its
link, like the seat's page; a GET never changes anything)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods

from . import absences, access, calendar, dates, deadlines, links, pauses, services, validators
from .calendar_forms import AwayForm, CalendarForm
from .models import Absence, AbsencePolicy, Game
from .views import link_error, speak

DONE = {
    "paused": _("The game is paused: no deadline runs and no card is taken. Every player has been told."),
    "resumed": _("The game has resumed: the deadline moved on by the pause. Every player has been told."),
    "calendar": _("The calendar is saved. Deadlines already set stay; the next ones follow it."),
    "withdrawn": _(
        "The absence is withdrawn. A seat a standby played for it is back with its player, mailed a new link."
    ),
}
"""What the organiser is told after an action went through (shown by base.html)."""

SEAT_DONE = ("declared", "withdrawn")


@login_required
@require_http_methods(["GET", "POST"])
def game_calendar(request: HttpRequest, pk: int) -> HttpResponse:
    """The game's calendar: its settings, the absences declared, pause and resume."""
    posted = request.method == "POST"
    game = access.game_for(request.user, pk, access.Action.RUN if posted else access.Action.VIEW)
    action = request.POST.get("action", "calendar") if posted else ""
    form = CalendarForm.for_game(game, request.POST if action == "calendar" else None)
    error = None
    if posted:
        try:
            if action == "pause":
                pauses.pause(game)
                messages.success(request, DONE["paused"])
                return redirect("games:dashboard", pk=pk)
            if action == "withdraw":
                absences.withdraw_for_player(game, validators.ascii_number(request.POST.get("absence", "")) or 0)
                messages.success(request, DONE["withdrawn"])
                return redirect("games:game_calendar", pk=pk)
            if action == "resume":
                pauses.resume(game)
                messages.success(request, DONE["resumed"])
                return redirect("games:dashboard", pk=pk)
            if form.is_valid():
                data = form.cleaned_data
                pauses.set_calendar(
                    game, form.days_off(), data["absence_policy"], data["absence_days"], data["vote_count_hours"]
                )
                messages.success(request, DONE["calendar"])
                return redirect("games:game_calendar", pk=pk)
        except services.ServiceError as refusal:
            error = refusal
        game.refresh_from_db()
    context = {
        "game": game,
        "form": form,
        "error": error,
        "absences": absences.of_game(game),
        "days_left": _days_left_by_name(game),
        "days_off": calendar.DaysOff.from_json(game.days_off),
        "names": [],  # (the refusals' words name no seat here)
    }
    return render(request, "games/calendar.html", context, status=400 if error or form.errors else 200)


def _days_left_by_name(game: Game) -> list[tuple[str, int]]:
    """Each seated player's days absences may still move deadlines (the `move` policy)."""
    if game.absence_policy != AbsencePolicy.MOVE:
        return []
    left = deadlines.days_left(game)
    return [(player.name, left.get(player.occupied_seat, 0)) for player in game.players.exclude(seat=None)]


@require_http_methods(["GET", "POST"])
def seat_away(request: HttpRequest, token: str) -> HttpResponse:
    """A seat's absences: declare one, withdraw one. Seen by this seat (and its organisers)."""
    try:
        player = links.player_for(token)
    except links.LinkError as problem:
        return link_error(request, problem)
    game = player.game
    speak(request, game)
    posted = request.method == "POST"
    withdrawing = posted and request.POST.get("action") == "withdraw"
    form = AwayForm(request.POST if posted and not withdrawing else None)
    error = None
    if posted:
        try:
            if withdrawing:
                absences.withdraw(player, absence_id=validators.ascii_number(request.POST.get("absence", "")) or 0)
                return redirect(f"{request.path}?done=withdrawn")
            if form.is_valid():
                absences.declare(player, form.span(), Absence.Source.WEB)
                return redirect(f"{request.path}?done=declared")
        except dates.DateError as problem:
            error = services.ServiceError(problem.code)
        except services.ServiceError as refusal:
            error = refusal
    done = request.GET.get("done", "")
    left = deadlines.days_left(game).get(player.occupied_seat) if game.absence_policy == AbsencePolicy.MOVE else None
    context = {
        "game": game,
        "player": player,
        "form": form,
        "error": error,
        "done": done if done in SEAT_DONE and not posted else "",
        "absences": absences.upcoming(player),
        "days_left": left,
        "days_off": calendar.DaysOff.from_json(game.days_off),
        "max_days": dates.MAX_DAYS,
        "names": [],  # (the refusals' words name no seat here)
    }
    return render(request, "games/away.html", context, status=400 if error or form.errors else 200)
