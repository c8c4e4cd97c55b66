"""Characters an organiser builds, in every ruleset that takes specials: Luna Piena
(tests/engine/test_lunapiena.py) and Lupus in Tabula, here. Whole bot games with the
characters of fixtures/characters/ among Tabula's specials keep the rules: JSON round
trips, one end, every offered choice accepted, a replay from the deal, and nothing of a
character's secret told to anyone but its audience."""

from __future__ import annotations

import json
from pathlib import Path
from random import Random
from typing import Any

import pytest

from werewolf import engine
from werewolf.engine.rulesets import get
from werewolf.engine.rulesets.tabula import reachable
from werewolf.engine.simulate import bot_orders, simulate

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "characters"
CUSTOM = [json.loads(path.read_text()) for path in sorted(FIXTURES.glob("*.json"))]
SECRET = {"role_dealt", "seer_saw", "character_read", "power_used", "rose_again", "pack_known"}


def options_for(players: int) -> dict[str, Any]:
    """Every special the table reaches that fits, and as many of the organiser's
    characters as the deck has room for."""
    specials = list(reachable(players))
    room = max(players, 8) - (3 if players >= 16 else 2) - 1 - len(specials) - specials.count("freemasons")
    own = [raw["name"] for raw in CUSTOM][: max(room, 0)]
    return {"characters": CUSTOM, "specials": specials + own, "first_night": "normal"}


def bot_game(players: int, seed: int) -> list[tuple[engine.State, dict[int, engine.Order], engine.State, list[Any]]]:
    state, events = engine.setup("tabula", options_for(players), players, seed)
    trail = [(state, {}, state, events)]
    rng = Random(seed)
    while not state.over:
        assert state.index < 300
        orders = bot_orders(state, rng)
        before = state
        state, events = engine.resolve(state, orders)
        trail.append((before, orders, state, events))
    return trail


@pytest.mark.parametrize("players", [8, 9, 13, 16, 24])
def test_tabula_bot_games_with_the_organisers_characters_keep_the_rules(players: int) -> None:
    dealt_custom = set()
    for seed in range(8):
        trail = bot_game(players, seed)
        endings = 0
        for before, _, after, events in trail:
            assert engine.State.from_json(json.loads(json.dumps(after.to_json()))) == after
            for event in events:
                if event.kind == "role_dealt" and event.data["role"] in {raw["name"] for raw in CUSTOM}:
                    dealt_custom.add(event.data["role"])
                if event.kind in SECRET:
                    assert event.audience.scope != "public", event
                if event.kind == "game_over":
                    endings += 1
            spec = engine.phase(before)
            for seat, slot in spec.slots.items():
                for choice in slot.choices:
                    assert not isinstance(
                        engine.validate(before, seat, engine.Order(slot.kind, (choice,))), engine.OrderError
                    )
        assert endings == 1
    assert dealt_custom  # the organiser's characters were dealt and played


def test_a_tabula_game_with_the_organisers_characters_replays_from_its_deal() -> None:
    trail = bot_game(13, 3)
    first = trail[0][0]
    rules = get("tabula")
    again, _ = rules.setup(engine.options("tabula", options_for(13), 13), 13, 99, engine.deal(first))
    assert again.rules == first.rules
    state = again.evolve(seed=first.seed)
    for _, orders, after, _ in trail[1:]:
        state, _ = engine.resolve(state, orders)
        assert state == after


def test_a_tabula_game_without_them_keeps_its_options_and_state_as_before() -> None:
    """Games without an organiser's characters write no new keys: saved games and
    exports read the same."""
    state, _ = engine.setup("tabula", {}, 9, 1)
    assert "characters" not in state.options
    assert "spent" not in state.rules.to_json() and "tokens" not in state.rules.to_json()


def test_simulate_takes_the_organisers_characters() -> None:
    result = simulate("tabula", 13, options_for(13), 50, 2).to_json()
    assert sum(result["wins"].values()) == 50
