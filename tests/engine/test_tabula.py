"""Lupus in Tabula: what the scenarios in fixtures/scenarios/tabula/ cannot say alone.

Whole bot games at every table size: JSON round trips, determinism, replay from the
deal, every offered choice accepted, secrecy of the cards, a seat dying once, one end;
and the deck, the options and the stages as data."""

from __future__ import annotations

import json
from collections import Counter
from random import Random
from typing import Any

import pytest

from werewolf import engine
from werewolf.engine.replay import replay
from werewolf.engine.rulesets import get
from werewolf.engine.rulesets.tabula import ROLES, SPECIALS, TabulaState
from werewolf.engine.simulate import bot_orders, simulate

RULES = get("tabula")
DEATHS = {"killed", "lynched"}


def bot_game(players: int, seed: int, options: dict[str, Any] | None = None, deal: dict[str, Any] | None = None):
    """Every resolution of a bot game: (state before, orders, state after, events)."""
    state, events = engine.setup("tabula", options or {}, players, seed, deal)
    trail = [(state, {}, state, events)]
    rng = Random(seed)
    while not state.over:
        assert state.index < 200, "the game does not end"
        orders = bot_orders(state, rng)
        before = state
        state, events = engine.resolve(state, orders)
        trail.append((before, orders, state, events))
    return trail


SIZES = range(7, 25)


@pytest.mark.parametrize("players", SIZES)
def test_bot_games_keep_the_rules(players: int) -> None:
    for seed in range(6):
        dead: set[int] = set()
        endings = 0
        for before, orders, after, events in bot_game(players, seed, {"first_night": ("quiet", "normal")[seed % 2]}):
            assert engine.State.from_json(json.loads(json.dumps(after.to_json()))) == after
            for event in events:
                assert engine.Event.from_json(json.loads(json.dumps(event.to_json()))).to_json() == event.to_json()
                if event.kind in DEATHS:
                    seat = event.data["seat"]
                    assert seat not in dead and before.alive[seat], (seed, event)
                    dead.add(seat)
                    # The card of the dead stays hidden by default.
                    assert event.data["role"] is None
                elif event.kind == "game_over":
                    endings += 1
                    assert event is events[-1]
            if before.phase == "day" and before.step == 2:
                suspects = set(before.rules.suspects)
                assert all(before.alive[seat] and seat not in suspects for seat in orders)
        assert endings == 1
        assert after.over and engine.outcome(after) is not None


@pytest.mark.parametrize("players", [7, 9, 13, 16, 21, 24])
def test_every_choice_offered_is_accepted(players: int) -> None:
    for before, _, _, _ in bot_game(players, 3)[1:]:
        spec = engine.phase(before)
        for seat, slot in spec.slots.items():
            if not slot.card.fields:
                assert not isinstance(engine.validate(before, seat, engine.Order("sleep")), engine.OrderError)
                continue
            for choice in slot.choices:
                order = engine.Order(slot.kind, (choice,))
                assert not isinstance(engine.validate(before, seat, order), engine.OrderError), (seat, order)


def test_a_seed_gives_the_same_game_and_the_deal_replays_it() -> None:
    def flat(trail):
        return [(after.to_json(), [event.to_json() for event in events]) for _, _, after, events in trail]

    first = bot_game(24, 5)
    assert flat(first) == flat(bot_game(24, 5))
    assert flat(first) != flat(bot_game(24, 6))
    dealt = engine.deal(first[0][2])
    # The deal sets the same table whatever the seed.
    again, _ = engine.setup("tabula", {}, 24, 99, dealt)
    assert again.rules == first[0][2].rules


@pytest.mark.parametrize("players", [7, 16])
def test_an_export_replays_from_its_deal(players: int) -> None:
    seed = 11
    options = engine.options("tabula", {}, players)
    state, events = engine.setup("tabula", options, players, seed)
    export: dict[str, Any] = {
        "ruleset": "tabula",
        "options": options,
        "seed": 1234,  # not the dealing seed: the deal alone must set the table
        "players": [{"seat": seat} for seat in range(players)],
        "deal": engine.deal(state),
        "phases": [],
    }
    recorded = [(None, event.to_json()) for event in events]
    rng = Random(seed)
    state = engine.State.from_json({**state.to_json(), "seed": 1234})
    while not state.over:
        orders = bot_orders(state, rng)
        export["phases"].append({"index": state.index, "orders": {str(s): o.to_json() for s, o in orders.items()}})
        index = state.index
        state, events = engine.resolve(state, orders)
        recorded += [(index, event.to_json()) for event in events]
    assert [(index, event.to_json()) for index, event in replay(export)] == recorded


def test_the_deal_after_the_mythomaniac_changed_is_the_deal_at_the_start() -> None:
    roles = ["villager", "wolf", "seer", "villager", "villager", "villager", "wolf", "villager"]
    roles += ["villager", "villager", "villager", "mythomaniac", "wolf", "villager", "villager", "villager"]
    state, _ = engine.setup("tabula", {"specials": ["mythomaniac"]}, 16, 1, {"roles": roles, "alpha": 1})
    state, _ = engine.resolve(state, {})
    state, _ = engine.resolve(state, {})
    assert (state.phase, state.number) == ("night", 2)
    state, events = engine.resolve(state, {11: engine.Order("mimic", (6,))})
    assert engine.roles_of(state, 11) == ("wolf",)
    assert state.rules.pack == (1, 6, 12, 11)
    assert engine.deal(state) == {"roles": roles, "alpha": 1, "set_aside": None}


@pytest.mark.parametrize("players", SIZES)
def test_the_deck(players: int) -> None:
    options = engine.options("tabula", {}, players)
    wanted = Counter({"wolf": 3 if players >= 16 else 2, "seer": 1})
    for name in options["specials"]:
        assert players >= SPECIALS[name][0]
        wanted.update(SPECIALS[name][1])
    assert sorted(options["specials"], key=list(SPECIALS).index) == options["specials"]
    assert set(options["specials"]) == {name for name, (least, _) in SPECIALS.items() if players >= least}
    for seed in range(5):
        state, _ = engine.setup("tabula", options, players, seed)
        dealt = Counter(state.rules.roles)
        if players == 7:
            dealt[state.rules.set_aside] += 1
            assert sum(dealt.values()) == 8
        else:
            assert state.rules.set_aside is None
        villagers = dealt.pop("villager", 0)
        assert dealt == wanted
        assert villagers == max(players, 8) - sum(wanted.values())


def test_the_card_set_aside_at_seven_is_drawn() -> None:
    aside = Counter(engine.setup("tabula", {}, 7, seed)[0].rules.set_aside for seed in range(200))
    assert set(aside) == {"villager", "wolf", "seer"}


@pytest.mark.parametrize(
    ("options", "players", "code", "option", "value"),
    [
        ({}, 6, "player_count", "players", 6),
        ({}, 25, "player_count", "players", 25),
        ({"specials": ["cupid"]}, 12, "bad_option_value", "specials", ["cupid"]),
        ({"first_night": "loud"}, 12, "bad_option_value", "first_night", "loud"),
        ({"wolves": 3}, 12, "unknown_option", "wolves", 3),
    ],
)
def test_bad_setups_are_named(options, players, code, option, value) -> None:
    with pytest.raises(engine.SetupError) as refused:
        engine.options("tabula", options, players)
    assert (refused.value.code, refused.value.option) == (code, option)


def test_a_special_below_its_suggested_number_is_taken_with_advice() -> None:
    """The rulebook's numbers are suggested minimums: a special below its number is
    taken, and named as advice with the number it suggests."""
    checked = engine.options("tabula", {"specials": "medium,possessed,werehamster"}, 9)
    assert checked["specials"] == ["medium", "possessed", "werehamster"]
    advice = engine.advice("tabula", checked, 9)
    assert [(item.code, item.option, item.value, item.count) for item in advice] == [
        ("below_suggestion", "specials", "possessed", 10),
        ("below_suggestion", "specials", "werehamster", 15),
    ]
    assert engine.advice("tabula", engine.options("tabula", {}, 24), 24) == ()
    assert engine.advice("classic", engine.options("classic", {}, 9), 9) == ()


def test_options_defaults_and_choices() -> None:
    assert engine.options("tabula", {}, 12) == {
        "specials": ["medium", "possessed", "bodyguard", "owlman"],
        "first_night": "quiet",
        "missing_wolves": "nobody",
        "reveal_dead": False,
    }
    assert engine.options("tabula", {"specials": ""}, 12)["specials"] == []
    assert engine.options("tabula", {"specials": "owlman, medium"}, 12)["specials"] == ["medium", "owlman"]


def test_a_bad_deal_is_refused() -> None:
    with pytest.raises(engine.SetupError) as refused:
        engine.setup("tabula", {"specials": []}, 8, 1, {"roles": ["villager"] * 8})
    assert refused.value.code == "bad_roles"
    roles = ["villager", "wolf", "villager", "seer", "wolf", "villager", "villager", "villager"]
    with pytest.raises(engine.SetupError) as refused:
        engine.setup("tabula", {}, 8, 1, {"roles": roles, "alpha": 0})
    assert refused.value.code == "bad_alpha"
    with pytest.raises(engine.SetupError) as refused:
        engine.setup("tabula", {}, 7, 1, {"roles": roles[:7], "alpha": 1, "set_aside": "wolf"})
    assert refused.value.code == "bad_roles"


def test_stages_say_who_sees_the_cards() -> None:
    trail = bot_game(12, 2)
    seen = {}
    for before, _, _, _ in trail[1:]:
        spec = engine.phase(before)
        seen[spec.name] = (spec.kind, spec.stage.cards, spec.public_orders, spec.step)
    assert seen["night"] == ("night", "secret", False, 1)
    assert seen["accusation"] == ("day", "public", True, 1)
    assert seen["ballot"] == ("day", "revealed", False, 2)


def test_ghosts_are_asked_in_the_accusation_only() -> None:
    for before, _, _, _ in bot_game(16, 4)[1:]:
        spec = engine.phase(before)
        asked = set(spec.slots)
        living = set(before.living())
        if spec.name == "accusation":
            assert asked == set(range(before.seats))
        elif spec.name == "ballot":
            assert asked == living - set(before.rules.suspects)
        else:
            assert asked == living


def test_nothing_secret_reaches_a_seat_before_the_end() -> None:
    """Before the end, a seat sees no event that names another seat's card, except the
    pack's and the Freemasons' knowledge of each other and what the Mythomaniac took."""
    for players in (9, 16, 24):
        for seed in range(4):
            for _, _, _, events in bot_game(players, seed):
                for event in events:
                    if event.kind == "game_over":
                        continue
                    if event.audience.scope == "public":
                        assert "role" not in event.data or event.data["role"] is None, event
                    if event.kind == "role_dealt":
                        assert event.audience.seats == {event.data["seat"]}
                    if event.kind in ("seer_saw", "medium_saw"):
                        assert event.audience.scope == "seats"
                    if event.kind == "role_set_aside" or event.kind.startswith("ruling_"):
                        assert event.audience.scope == "moderator"


def test_the_welcome_is_drawn_among_two_deaths() -> None:
    roles = ["villager", "wolf", "seer", "medium", "possessed", "bodyguard", "wolf", "owlman", "freemason"]
    roles += ["freemason", "werehamster", "mythomaniac", "wolf", "villager", "villager", "villager"]
    holders = Counter()
    for seed in range(40):
        state, _ = engine.setup("tabula", {"first_night": "normal"}, 16, seed, {"roles": roles, "alpha": 1})
        state, _ = engine.resolve(state, {2: engine.Order("inquire", (10,)), 1: engine.Order("kill", (13,))})
        holders[state.rules.welcome] += 1
    assert set(holders) == {10, 13}


def test_outcome_names_the_whole_side() -> None:
    for players, seed in ((10, 1), (15, 2), (16, 3), (24, 4)):
        final = bot_game(players, seed)[-1][2]
        outcome = engine.outcome(final)
        assert outcome is not None and outcome.winner == final.winner
        sides = {ROLES[role].side for role in (final.rules.roles[seat] for seat in outcome.winners)}
        assert sides == {outcome.winner}
        if outcome.winner == "hamster":
            assert len(outcome.winners) == 1 and final.alive[outcome.winners[0]]
        else:
            everyone = [seat for seat, role in enumerate(final.rules.roles) if ROLES[role].side == outcome.winner]
            assert list(outcome.winners) == everyone


def test_the_state_reads_back_with_its_version() -> None:
    state = bot_game(16, 8)[5][2]
    raw = state.to_json()
    assert raw["rules"]["v"] == TabulaState.VERSION
    assert TabulaState.from_json(raw["rules"]) == state.rules


@pytest.mark.parametrize("players", [7, 8, 12, 15, 16, 21, 24])
def test_every_side_wins_sometimes(players: int) -> None:
    wins = simulate("tabula", players, {}, 400, 1).wins
    assert wins.get("village") and wins.get("wolves")
    if players >= 15:
        assert wins.get("hamster")
