"""Luna Piena and characters built from ability blocks: what the scenarios in
fixtures/scenarios/lunapiena/ cannot say alone.

Whole bot games at every table size (JSON round trips, determinism, replay from the
deal, every offered choice accepted, the secrets kept, one end); the definitions, built
in or the organiser's, as data: checked, refused with a reason, and the same blocks
whichever way they come."""

from __future__ import annotations

import json
from pathlib import Path
from random import Random
from typing import Any

import pytest

from werewolf import engine
from werewolf.engine import characters
from werewolf.engine.rulesets import get
from werewolf.engine.rulesets.lunapiena import cast as deck_table
from werewolf.engine.rulesets.lunapiena import cast_of
from werewolf.engine.simulate import bot_orders, simulate

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "characters"
RULES = get("lunapiena")
SECRET_KINDS = {"role_dealt", "seer_saw", "character_read", "medium_saw", "pack_chose", "power_used", "rose_again"}


def bot_game(players: int, seed: int, options: dict[str, Any] | None = None):
    state, events = engine.setup("lunapiena", options or {}, players, seed)
    trail = [(state, {}, state, events)]
    rng = Random(seed)
    while not state.over:
        assert state.index < 300, "the game does not end"
        orders = bot_orders(state, rng)
        before = state
        state, events = engine.resolve(state, orders)
        trail.append((before, orders, state, events))
    return trail


def every_character(players: int) -> list[str]:
    """As many of the specials (built in and the organiser's) as the table holds."""
    names = [name for name in deck_table.BUILT_IN if name not in ("wolf", "villager", "seer")]
    names += [path.stem for path in sorted(FIXTURES.glob("*.json"))]
    return names[: max(players, 8) - len(deck_table.base(players))]


def custom() -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted(FIXTURES.glob("*.json"))]


@pytest.mark.parametrize("players", range(7, 24))
def test_bot_games_keep_the_rules(players: int) -> None:
    for seed in range(4):
        options: dict[str, Any] = {}
        if seed % 2:
            options = {"characters": custom(), "cards": every_character(players)}
        endings = 0
        for before, orders, after, events in bot_game(players, seed, options):
            assert engine.State.from_json(json.loads(json.dumps(after.to_json()))) == after
            for event in events:
                assert engine.Event.from_json(json.loads(json.dumps(event.to_json()))).to_json() == event.to_json()
                if event.kind in ("killed", "lynched", "taken"):
                    assert event.data["role"] is None  # the card of the dead stays hidden
                if event.kind in SECRET_KINDS:
                    assert event.audience.scope != "public", event
                if event.kind == "game_over":
                    endings += 1
                    assert event is events[-1]
            if before.phase == "day" and before.step == 2:
                assert all(before.alive[seat] and seat not in before.rules.suspects for seat in orders)
        assert endings == 1
        assert after.over and engine.outcome(after) is not None


@pytest.mark.parametrize("players", [7, 9, 16, 21, 23])
def test_every_choice_offered_is_accepted(players: int) -> None:
    options = {"characters": custom(), "cards": every_character(players)}
    for before, _, _, _ in bot_game(players, 5, options)[1:]:
        spec = engine.phase(before)
        for seat, slot in spec.slots.items():
            for choice in slot.choices:
                order = engine.Order(slot.kind, (choice,))
                assert not isinstance(engine.validate(before, seat, order), engine.OrderError), (seat, order)


@pytest.mark.parametrize("players", [7, 12, 23])
def test_a_game_replays_from_its_deal(players: int) -> None:
    options = {"characters": custom(), "cards": every_character(players)}
    trail = bot_game(players, 11, options)
    first = trail[0][0]
    checked = engine.options("lunapiena", options, players)
    again, _ = RULES.setup(checked, players, 999, engine.deal(first))
    assert again.rules == first.rules
    state = again.evolve(seed=first.seed)
    for _, orders, after, _ in trail[1:]:
        state, _ = engine.resolve(state, orders)
        assert state == after


def test_the_deal_is_the_rulebooks_table() -> None:
    for players in range(7, 24):
        state, _ = engine.setup("lunapiena", {}, players, 1)
        full = engine.deck("lunapiena", state.options, players)
        assert len(full) == max(players, 8)
        assert full.count("wolf") == (3 if players >= 16 else 2)
        assert sorted(state.rules.roles + ((state.rules.set_aside,) if state.rules.set_aside else ())) == sorted(full)


def test_every_built_in_character_is_a_definition() -> None:
    """A built-in character is a saved definition: its JSON reads back to itself, and an
    organiser who saves the same JSON gets the same character."""
    for name, character in deck_table.BUILT_IN.items():
        raw = json.loads(json.dumps(character.to_json()))
        assert characters.parse(raw) == character, name
    options = engine.options("lunapiena", {"characters": [c.to_json() for c in deck_table.BUILT_IN.values()]}, 9)
    assert cast_of(options).characters == dict(deck_table.BUILT_IN)


def test_the_readings_are_the_projects_and_the_unwritten_have_none() -> None:
    assert set(deck_table.READINGS) == {
        "inquisitor",
        "fortune_teller",
        "undead",
        "lara",
        "jekyll",
        "dorian",
        "necromancer",
        "werecow",
        "hamlet",
    }
    for name in deck_table.UNWRITTEN:
        assert name not in deck_table.BUILT_IN


REFUSED = sorted((FIXTURES / "refused").glob("*.json"))


@pytest.mark.parametrize("path", REFUSED, ids=[path.stem for path in REFUSED])
def test_a_definition_the_engine_cannot_run_is_refused_with_its_reason(path: Path) -> None:
    case = json.loads(path.read_text())
    with pytest.raises(characters.DefinitionError) as refused:
        characters.parse(case["definition"])
    assert [refused.value.code, refused.value.detail] == case["expect"]
    with pytest.raises(engine.SetupError) as setup:
        engine.options("lunapiena", {"characters": [case["definition"]]}, 9)
    assert setup.value.code == "bad_definition"


def test_the_organisers_definitions_run() -> None:
    for raw in custom():
        assert characters.parse(raw).to_json() == characters.parse(characters.parse(raw).to_json()).to_json()


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("[{", "bad_definition"),
        ({"not": "a list"}, "bad_definition"),
        ([{"name": "seer", "side": "village"}, {"name": "seer", "side": "wolves"}], "bad_definition"),
    ],
)
def test_definitions_that_are_not_a_list_of_definitions_are_refused(raw: Any, code: str) -> None:
    with pytest.raises(engine.SetupError) as refused:
        engine.options("lunapiena", {"characters": raw}, 9)
    assert refused.value.code == code


def test_a_night_card_comes_from_the_block() -> None:
    """The card a character writes, its nights and whom it may name come from its
    blocks alone: the Bodyguard sleeps on the first night, protects from the second."""
    deal = {"roles": ["villager", "wolf", "villager", "seer", "wolf", "villager", "villager", "villager", "bodyguard"]}
    state, _ = engine.setup("lunapiena", {"cards": ["bodyguard"]}, 9, 1, {**deal, "alpha": 1})
    assert engine.phase(state).asks(8).kind == "sleep"
    assert engine.phase(state).asks(3).kind == "inquire"
    assert 3 not in engine.phase(state).asks(3).choices


def test_the_ghosts_may_not_speak_to_the_living_and_groups_have_their_channel() -> None:
    deal = {
        "roles": ["villager", "wolf", "villager", "seer", "wolf", "villager", "villager", "villager"]
        + ["freemason", "freemason", "medium", "bodyguard", "possessed"],
        "alpha": 1,
    }
    cards = ["freemason", "freemason", "medium", "bodyguard", "possessed"]
    state, _ = engine.setup("lunapiena", {"cards": cards}, 13, 1, deal)
    names = {channel.name: channel for channel in engine.talk.channels(state)}
    assert names["lodge"].readers == frozenset({8, 9})
    assert names["den"].readers == frozenset({1, 4})
    state, _ = engine.resolve(state, {1: engine.Order("kill", (0,)), 4: engine.Order("kill", (0,))})
    assert engine.talk.refusal(state, 0, "square", "hello") is not None


def test_simulate_reports_wins_by_side() -> None:
    result = simulate("lunapiena", 23, {}, 40, 3).to_json()
    assert sum(result["wins"].values()) == 40
    assert set(result["wins"]) <= {"village", "wolves", "werehamster"}
