"""Where a game's deadline lands, read from its calendar (the Django side of `calendar`).

`settle` is called under the game's row lock by every writer that sets a deadline: a phase
that opens (`services._open_phase`), a deadline extended (`services.extend_deadline`), a
game resumed (`pauses.resume`) and an absence declared (`absences.declare`). It moves the
deadline off the game's days off and, when the game's absence policy says so, past the
absences of living seats that still have days to spend, and charges those days to the
absences. A game with no days off and the default policy costs no query.

Which absences count is public knowledge: those of living seats (who is alive is shown to
everyone), never "the seats this step asks", which in some rulesets would tell who holds
a role that acts. The event that tells the table (`moved_event`) names no seat.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import F, Sum

from werewolf import engine

from . import calendar
from .models import Absence, AbsencePolicy, Game


def zone_of(game: Game) -> ZoneInfo:
    """The game's clock: its time zone (`Game.timezone`), else the site's (TIME_ZONE)."""
    try:
        return ZoneInfo(game.timezone or settings.TIME_ZONE)
    except (ValueError, KeyError):
        return ZoneInfo(settings.TIME_ZONE)


def days_off(game: Game) -> calendar.DaysOff:
    return calendar.DaysOff.from_json(game.days_off)


def days_left(game: Game) -> dict[int, int]:
    """What each seat may still have absences move deadlines by, in days (by seat)."""
    used: dict[int, int] = defaultdict(int)
    rows = Absence.objects.filter(game=game).values("player__seat").annotate(used=Sum("moved_days"))
    for row in rows:
        if row["player__seat"] is not None:
            used[row["player__seat"]] += row["used"] or 0
    seats = game.players.exclude(seat=None).values_list("seat", flat=True)
    return {seat: max(0, game.absence_days - used[seat]) for seat in seats if seat is not None}


def settle(game: Game, state: engine.State, proposed: datetime) -> calendar.Placed:
    """Where a deadline `proposed` for the game as `state` stands lands, the days each
    absence moved it charged to that absence (call it under the game's lock)."""
    zone = zone_of(game)
    off = days_off(game)
    aways: list[calendar.Away] = []
    left: dict[int, int] = {}
    if game.absence_policy == AbsencePolicy.MOVE and game.absence_days:
        living = [seat for seat in range(state.seats) if state.alive[seat]]
        first = calendar.local(proposed, zone).date()
        rows = Absence.objects.filter(
            game=game, withdrawn_at=None, player__seat__in=living, end__gte=first
        ).select_related("player")
        aways = [calendar.Away(row.player.occupied_seat, row.start, row.end, row.pk) for row in rows]
        if aways:
            left = days_left(game)
    placed = calendar.place(proposed, zone, off, aways, left)
    for key, days in placed.charged.items():
        Absence.objects.filter(pk=key).update(moved_days=F("moved_days") + days)
    return placed


def wall_clock(game: Game, deadline: datetime) -> dict[str, str]:
    """A deadline as an event writes it: the instant, and as the game's clock reads it."""
    local = deadline.astimezone(zone_of(game)).replace(tzinfo=None)
    return {"deadline": deadline.isoformat(), "local": local.isoformat(timespec="minutes"), "zone": game.timezone}


def moved_event(game: Game, deadline: datetime) -> engine.Event:
    """What everyone is told when an absence moved a deadline: the new deadline, and
    nothing of whose absence it was."""
    return engine.Event("deadline_moved_away", wall_clock(game, deadline), engine.Audience.public())
