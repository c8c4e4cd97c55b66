"""Rulings: why the resolution went as it did, for the moderator.

Each decision the rules make (whose list chose the pack's victim, a protection or an
immunity that held, a tie broken, a one-use power spent...) is recorded as a ruling when
the rule is applied, never reconstructed afterwards: an event of a kind starting with
`ruling_`, addressed to the moderator alone, whose data names seats (or houses) by
number and roles by id. Templates word each kind (templates/events/ruling_*.html, or a
ruleset's own folder for a kind only it has).

The kinds every ruleset may share are built here; a ruleset's own kinds (the Owl's
suspect, a bag draw...) are built where its rule is applied, with `ruling`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .events import Audience, Event

PREFIX = "ruling_"


def ruling(kind: str, data: Mapping[str, Any]) -> Event:
    """A ruling of `kind` (without its prefix), for the moderator alone."""
    return Event(PREFIX + kind, data, Audience.moderator())


def is_ruling(kind: str) -> bool:
    return kind.startswith(PREFIX)


def pack_choice(
    lists: Sequence[tuple[int, Sequence[int]]], victim: int | None, how: str, decided_by: int | None
) -> Event:
    """The wolves' lists as the rule merged them (each living wolf's that handed one in,
    illegal names already dropped, in order of succession), the name that won, and on
    which rule ("consensus", "rank", "random", "quiet", "no_lists")."""
    return ruling(
        "pack_choice",
        {
            "lists": [[seat, list(targets)] for seat, targets in lists],
            "victim": victim,
            "how": how,
            "decided_by": decided_by,
        },
    )


def protected(seat: int, by: int | None, rule: str) -> Event:
    """The pack's victim `seat` did not die, saved by `by` (a seat, or None where
    nobody acted) on `rule` (the protection's id: "guard", "herb", "doorstep", "portrait")."""
    return ruling("protected", {"seat": seat, "by": by, "rule": rule})


def immune(seat: int, role: str, rule: str) -> Event:
    """The pack's victim `seat`, holding `role`, did not die: the wolves cannot kill it
    ("unkillable"), or it rose again, once ("rises_once")."""
    return ruling("immune", {"seat": seat, "role": role, "rule": rule})


def frail(seat: int, role: str, by: int) -> Event:
    """`seat`, holding `role`, dies at dawn because `by` inquired about it."""
    return ruling("frail", {"seat": seat, "role": role, "by": by})


def power_spent(seat: int, power: str, targets: Sequence[int] = ()) -> Event:
    """`seat` used its one-use `power` (a card's or a block's id) on `targets`: it is
    gone for the rest of the game."""
    return ruling("power_spent", {"seat": seat, "power": power, "targets": list(targets)})


def tie_broken(
    step: str, among: Sequence[int], chosen: Sequence[int], how: str, origin: int | None = None, unit: str = "seat"
) -> Event:
    """A tie at `step` ("accusation", "ballot", "day", "tombstone", "welcome",
    "score") between `among` (seats, or houses when `unit` is "house"), settled for
    `chosen` by `how`: "clockwise" from `origin`, or "random"."""
    return ruling(
        "tie_broken",
        {"step": step, "among": list(among), "chosen": list(chosen), "how": how, "from": origin, "unit": unit},
    )


def cut_tie(
    ranked: Sequence[int], count: Callable[[int], int], picks: int, step: str, origin: int, unit: str = "seat"
) -> Event | None:
    """The ruling for the first `picks` of `ranked` (ordered by votes, ties clockwise
    from `origin`), when the clockwise order, not the votes, decided who is among them:
    the candidates with as many votes as the last picked, beyond the picks."""
    if not 0 < picks < len(ranked):
        return None
    last = count(ranked[picks - 1])
    if count(ranked[picks]) != last:
        return None
    tied = [one for one in ranked if count(one) == last]
    return tie_broken(step, tied, [one for one in ranked[:picks] if count(one) == last], "clockwise", origin, unit)
