"""Replaying a game from its export: setup, then each phase's instant acts in the order
they were applied and its counted orders."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from . import act as play
from . import resolve, setup
from .events import Event
from .orders import Order
from .state import State


@dataclass(frozen=True)
class Step:
    """One step of a replayed game: the setup (`index` None) or a phase, the state as the
    step opened (`before`; the setup's is its own result) and as it left it (`after`),
    and the engine's events it produced, in order."""

    index: int | None
    before: State
    after: State
    events: tuple[Event, ...]


def walk(export: Mapping[str, Any]) -> Iterator[Step]:
    """The steps of an exported game, one by one: the setup, then each exported phase.
    The export's `deal` (who was dealt what, as `engine.deal` gave it at the start) sets
    the same table up; without one (an older export of a dealt game) the seed deals it
    again. A phase still open, or closed by its last act, leaves the state as its acts
    left it; a phase the organiser ended is the last."""
    state, events = setup(
        export["ruleset"], export["options"], len(export["players"]), int(export["seed"]), export.get("deal")
    )
    yield Step(None, state, state, tuple(events))
    for phase in export["phases"]:
        index = phase["index"]
        before = state
        produced: list[Event] = []
        for number, act in enumerate(phase.get("acts", ())):
            state, events = play(state, int(act["seat"]), Order.from_json(act["order"]), number)
            produced += events
        if phase.get("resolution") not in ("ended", "") and state.index == index:
            orders = {int(seat): Order.from_json(order) for seat, order in phase["orders"].items()}
            state, events = resolve(state, orders)
            produced += events
        yield Step(index, before, state, tuple(produced))
        if phase.get("resolution") == "ended":
            break


def replay(export: Mapping[str, Any]) -> list[tuple[int | None, Event]]:
    """The engine's events of an exported game, each with the index of the phase that
    produced it (None for the setup)."""
    return [(step.index, event) for step in walk(export) for event in step.events]
