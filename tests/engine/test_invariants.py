"""Rules that hold in every game, checked over many bot games with the variants mixed:
a seat dies once, the dead are never converted, the game ends once, Cupid pairs on the
first night only, and only wolves who have met the pack hear about it."""

from __future__ import annotations

from itertools import product
from random import Random
from typing import Any

import pytest

from werewolf import engine
from werewolf.engine.simulate import bot_orders

DEATHS = {"killed", "lynched", "shot", "heartbroken", "exposed"}
PACK_NEWS = {"alpha_passed", "pack_chose", "converted", "cards_swapped", "swap_skipped"}
VARIANTS = [
    {"thing": thing, "cupid": cupid, "vigilante": vigilante, "start": start, "dark_city": dark}
    for thing, cupid, vigilante, start, dark in product(
        (False, True), (False, True), (False, True), ("night", "day"), (False, True)
    )
]


def bot_game(seed: int, options: dict[str, Any]) -> list[tuple[engine.State, engine.State, list[engine.Event]]]:
    """Every resolution of a bot game: the state before, the state after, the events."""
    raw = {"seers": 1, "day_deadline": "plurality", "tie": "random", **options}
    state, events = engine.setup("classic", raw, 9, seed)
    trail = [(state, state, events)]
    rng = Random(seed)
    while not state.over:
        assert state.index < 200, "the game does not end"
        before = state
        state, events = engine.resolve(state, bot_orders(state, rng))
        trail.append((before, state, events))
    return trail


@pytest.mark.parametrize("options", VARIANTS, ids=lambda options: "-".join(k for k, v in options.items() if v is True))
def test_every_game_keeps_the_rules(options: dict[str, Any]) -> None:
    for seed in range(25):
        dead: set[int] = set()
        met: set[int] = set()
        endings = 0
        for before, after, events in bot_game(
            seed, {**options, "thing_free": ("first_test", "first_innocent")[seed % 2]}
        ):
            for event in events:
                seats = event.audience.seats
                if event.kind in DEATHS:
                    seat = event.data["seat"]
                    assert seat not in dead and before.alive[seat], (seed, event)
                    dead.add(seat)
                elif event.kind == "converted":
                    assert after.alive[event.data["seat"]] and event.data["seat"] not in dead, (seed, event)
                elif event.kind == "lovers_paired":
                    assert before.phase == "night" and before.number == 1, (seed, event)
                elif event.kind == "pack_formed":
                    met |= seats
                elif event.kind in PACK_NEWS:
                    assert seats <= met, (seed, event, met)
                elif event.kind == "game_over":
                    endings += 1
                    assert event is events[-1], (seed, events)
            assert all(not after.alive[seat] for seat in dead), seed
        assert endings == 1, seed
