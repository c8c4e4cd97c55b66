"""Replaying a game from its export: setup, then each phase's instant acts in the order
they were applied and its counted orders."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import act as play
from . import resolve, setup
from .events import Event
from .orders import Order


def replay(export: Mapping[str, Any]) -> list[tuple[int | None, Event]]:
    """The engine's events of an exported game, each with the index of the phase that
    produced it (None for the setup). The export's `deal` (who was dealt what, as
    `engine.deal` gave it at the start) sets the same table up; without one (an older
    export of a dealt game) the seed deals it again."""
    state, events = setup(
        export["ruleset"], export["options"], len(export["players"]), int(export["seed"]), export.get("deal")
    )
    produced: list[tuple[int | None, Event]] = [(None, event) for event in events]
    for phase in export["phases"]:
        index = phase["index"]
        for number, act in enumerate(phase.get("acts", ())):
            state, events = play(state, int(act["seat"]), Order.from_json(act["order"]), number)
            produced += [(index, event) for event in events]
        if phase.get("resolution") in ("ended", "") or state.index != index:
            if phase.get("resolution") == "ended":
                break
            continue  # still open, or closed by its last act
        orders = {int(seat): Order.from_json(order) for seat, order in phase["orders"].items()}
        state, events = resolve(state, orders)
        produced += [(index, event) for event in events]
    return produced
