"""Replaying a game from its export: setup, then each phase's counted orders."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import resolve, setup
from .events import Event
from .orders import Order


def replay(export: Mapping[str, Any]) -> list[tuple[int | None, Event]]:
    """The engine's events of an exported game, each with the index of the phase that
    produced it (None for the setup). A game the organiser dealt carries its `deal` (the
    role of each seat and the alpha's seat); a dealt game replays its deal from the seed."""
    deal = export.get("deal") or {}
    state, events = setup(
        export["ruleset"],
        export["options"],
        len(export["players"]),
        int(export["seed"]),
        roles=deal.get("roles"),
        alpha=deal.get("alpha"),
    )
    produced: list[tuple[int | None, Event]] = [(None, event) for event in events]
    for phase in export["phases"]:
        if phase.get("resolution") == "ended":
            break
        orders = {int(seat): Order.from_json(order) for seat, order in phase["orders"].items()}
        state, events = resolve(state, orders)
        produced += [(phase["index"], event) for event in events]
    return produced
