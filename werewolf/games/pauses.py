"""The organiser pauses a game, and resumes it.

A paused game stands still: its open step takes no card (`acceptance`'s `game_paused`
rule, at every door), never resolves (`services.resolve_phase` returns at once while
`Game.paused_at` is set, whoever calls it: the beat's sweep, an ETA task scheduled for
the old deadline, the organiser's "resolve now"), and reminds nobody. Resuming moves the
open step's deadline on by the time the game was paused, then off the game's days off
and past absences as a new deadline would be (`deadlines.settle`), and schedules it; the
step then resolves once, at that deadline, as any other. Both are in the public log
(`game_paused`, `game_resumed` with the pause's length and how far the deadline moved)
and every player is mailed.

Only those who run the game (its organiser and co-organisers: `access.Action.RUN`) reach
these; no player's door does.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from werewolf import engine

from . import calendar, deadlines
from .models import Game, Player
from .outbox import outbox
from .services import ServiceError, _locked, _mail, _record, _schedule


def _mailed(game: Game) -> list[Player]:
    return list(game.players.exclude(seat=None).filter(is_bot=False).exclude(email=""))


def pause(game: Game) -> Game:
    """Stop the game's clock: `game_not_running`, or `already_paused`."""
    with transaction.atomic():
        game = _locked(game)
        if not game.is_running:
            raise ServiceError("game_not_running")
        if game.paused_at is not None:
            raise ServiceError("already_paused")
        game.paused_at = timezone.now()
        game.save(update_fields=["paused_at"])
        phase = game.current_phase()
        _record(game, phase, [engine.Event("game_paused", {}, engine.Audience.public())])
        _mail([outbox().queue_paused(game, phase, _mailed(game))])
    return game


def resume(game: Game) -> Game:
    """Start the game's clock again, the open step's deadline moved on by the pause:
    `game_not_running`, or `not_paused`."""
    with transaction.atomic():
        game = _locked(game)
        if not game.is_running:
            raise ServiceError("game_not_running")
        paused_at = game.paused_at
        if paused_at is None:
            raise ServiceError("not_paused")
        now = timezone.now()
        game.paused_at = None
        game.save(update_fields=["paused_at"])
        minutes = calendar.pause_minutes(paused_at, now)
        phase = game.current_phase()
        if phase is None:
            _record(game, None, [engine.Event("game_resumed", {"minutes": minutes}, engine.Audience.public())])
            return game
        placed = deadlines.settle(game, game.engine_state, calendar.resumed(phase.deadline, paused_at, now))
        # How far the deadline moved, which is the pause's minutes unless the calendar
        # moved it on again (a day off, an absence), or nothing (a pause of no time).
        moved = round((placed.deadline - phase.deadline).total_seconds() / 60)
        phase.deadline = placed.deadline
        phase.save(update_fields=["deadline"])
        data = {"minutes": minutes, "moved": moved, **deadlines.wall_clock(game, placed.deadline)}
        events = [engine.Event("game_resumed", data, engine.Audience.public())]
        if placed.by_absence:
            events.append(deadlines.moved_event(game, placed.deadline))
        _record(game, phase, events)
        _schedule(phase)
        reason = "resumed_unmoved" if moved == 0 else "resumed" if moved == minutes else "resumed_further"
        _mail([outbox().queue_deadline_moved(phase, _mailed(game), reason=reason)])
    return game


def set_calendar(
    game: Game, off: calendar.DaysOff, policy: str, days: int, vote_count_hours: int | None = None
) -> Game:
    """The game's days off, what an absence does and how often the square is told the
    vote count (None: as it was). Deadlines already set stay where they are; the next one
    set (a step that opens, an extension, a resume) follows them."""
    with transaction.atomic():
        game = _locked(game)
        if game.status not in (Game.Status.DRAFT, Game.Status.RUNNING):
            raise ServiceError("game_not_running")
        game.days_off = off.to_json()
        game.absence_policy = policy
        game.absence_days = days
        if vote_count_hours is not None:
            game.vote_count_hours = vote_count_hours
        game.save(update_fields=["days_off", "absence_policy", "absence_days", "vote_count_hours"])
    return game
