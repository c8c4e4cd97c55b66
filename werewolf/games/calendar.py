"""Deadline arithmetic for slow games: days off, pauses and absences, as pure functions.

Everything here is computed on the game's wall clock (its time zone, `Game.timezone`): a
deadline that falls on a day off, or inside a seat's absence, moves to a later day at the
same hour, so a player who writes their card at breakfast keeps doing so. The Django side
(`deadlines.py`) reads the game's settings and absences and calls these; nothing here
reads the database.

- `DaysOff`: weekdays and dates that take no deadline (weekends, holidays).
- `working`: a deadline moved off the days off, to the next allowed day at the same hour.
- `place`: `working`, then past the absences of seats that still have days to spend,
  again and again until the deadline is on a working day that no absence moves.
- `resumed`: a deadline moved by the time a game was paused.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

MAX_DAYS_AHEAD = 400
"""How far a deadline may be carried by days off before they are ignored (a calendar that
takes no day at all, say): a deadline is never lost in a loop."""


@dataclass(frozen=True)
class DaysOff:
    """The days that take no deadline: `weekdays` (0 Monday .. 6 Sunday) and `dates`."""

    weekdays: frozenset[int] = frozenset()
    dates: frozenset[date] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.weekdays or self.dates)

    def off(self, day: date) -> bool:
        return day.weekday() in self.weekdays or day in self.dates

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> DaysOff:
        """As `Game.days_off` keeps it: {"weekdays": [5, 6], "dates": ["2026-12-25"]}.
        Anything unreadable is left out."""
        data = data or {}
        weekdays = frozenset(day for day in data.get("weekdays", ()) if isinstance(day, int) and 0 <= day <= 6)
        dates = set()
        for text in data.get("dates", ()):
            try:
                dates.add(date.fromisoformat(str(text)))
            except ValueError:
                continue
        return cls(weekdays, frozenset(dates))

    def to_json(self) -> dict[str, list[Any]]:
        return {"weekdays": sorted(self.weekdays), "dates": [day.isoformat() for day in sorted(self.dates)]}


@dataclass(frozen=True)
class Away:
    """A seat's absence, `start` to `end` inclusive (dates on the game's clock); `key`
    names it to charge the days it moves a deadline (the `Absence` row)."""

    seat: int
    start: date
    end: date
    key: int = 0

    def covers(self, day: date) -> bool:
        return self.start <= day <= self.end


@dataclass(frozen=True)
class Placed:
    """Where a deadline landed: the `deadline`, and the days each absence (by key) moved it."""

    deadline: datetime
    charged: Mapping[int, int] = field(default_factory=dict)

    @property
    def by_absence(self) -> bool:
        return any(self.charged.values())


def local(moment: datetime, zone: ZoneInfo) -> datetime:
    return moment.astimezone(zone)


def on_day(moment: datetime, day: date, zone: ZoneInfo) -> datetime:
    """`moment`'s wall-clock time on `day`, in `zone`, as an aware datetime (a time that
    a change to summer time skips is read as the zone reads it: an hour on)."""
    wall = local(moment, zone)
    return datetime.combine(day, wall.timetz().replace(tzinfo=None), tzinfo=zone).astimezone(moment.tzinfo)


def working(deadline: datetime, zone: ZoneInfo, off: DaysOff) -> datetime:
    """The deadline, or if it falls on a day off, the next day that is not one, at the
    same hour on the game's clock."""
    if not off:
        return deadline
    day = local(deadline, zone).date()
    for step in range(MAX_DAYS_AHEAD):
        if not off.off(day + timedelta(days=step)):
            return deadline if step == 0 else on_day(deadline, day + timedelta(days=step), zone)
    return deadline  # every day is off: the calendar is ignored rather than the game stopped


def place(
    deadline: datetime,
    zone: ZoneInfo,
    off: DaysOff,
    aways: Sequence[Away] = (),
    left: Mapping[int, int] | None = None,
) -> Placed:
    """Where a deadline goes: off the days off, and past every absence that covers its
    day while the absent seat has days left (`left`, by seat: what the game's cap leaves
    it). A move past an absence goes to the day after it (at the same hour), or as far as
    the seat's days left allow; each day moved is charged to that absence. Days off are
    avoided again after every move. Absences are taken in order of start, then seat, so
    the same calendar always gives the same deadline."""
    remaining = dict(left or {})
    charged: dict[int, int] = {}
    ordered = sorted(aways, key=lambda away: (away.start, away.seat, away.key))
    moved = working(deadline, zone, off)
    for _ in range(len(ordered) * MAX_DAYS_AHEAD + 1):
        day = local(moved, zone).date()
        away = next(
            (away for away in ordered if away.covers(day) and remaining.get(away.seat, 0) > 0),
            None,
        )
        if away is None:
            break
        days = min((away.end - day).days + 1, remaining[away.seat])
        remaining[away.seat] -= days
        charged[away.key] = charged.get(away.key, 0) + days
        moved = working(on_day(moved, day + timedelta(days=days), zone), zone, off)
    return Placed(moved, charged)


def resumed(deadline: datetime, paused_at: datetime, now: datetime) -> datetime:
    """A paused phase's deadline after the pause: as far on as the game was paused, in
    whole minutes (`pause_minutes`), so that what the log says moved is what moved."""
    return deadline + timedelta(minutes=pause_minutes(paused_at, now))


def pause_minutes(paused_at: datetime, now: datetime) -> int:
    """How long a pause lasted, in whole minutes, a part of one counting as one: a pause
    of 35 seconds is a minute, as the deadline it moves (which is read to the minute)."""
    return math.ceil(max((now - paused_at).total_seconds(), 0) / 60)
