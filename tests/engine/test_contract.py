"""The engine's contract: JSON round trips, determinism for a seed, clear setup errors."""

from __future__ import annotations

import json
from random import Random

import pytest

from werewolf import engine
from werewolf.engine.simulate import bot_orders


def bot_game(seed: int, **options):
    """A whole bot game through the public API, with every state, card and event."""
    state, events = engine.setup("classic", {"seers": 1, **options}, 9, seed)
    trail = [(state, {}, events)]
    rng = Random(seed)
    while not state.over:
        orders = bot_orders(state, rng)
        state, events = engine.resolve(state, orders)
        trail.append((state, orders, events))
    return trail


def test_state_orders_and_events_survive_json() -> None:
    for state, orders, events in bot_game(3):
        assert engine.State.from_json(json.loads(json.dumps(state.to_json()))) == state
        for order in orders.values():
            assert engine.Order.from_json(json.loads(json.dumps(order.to_json()))) == order
        for event in events:
            assert engine.Event.from_json(json.loads(json.dumps(event.to_json()))).to_json() == event.to_json()


def test_a_seed_gives_the_same_game() -> None:
    def flat(trail):
        return [(state.to_json(), [event.to_json() for event in events]) for state, _, events in trail]

    assert flat(bot_game(8, day_deadline="plurality", tie="random")) == flat(
        bot_game(8, day_deadline="plurality", tie="random")
    )
    assert flat(bot_game(8)) != flat(bot_game(9))


def test_validate_never_changes_the_state() -> None:
    state, _ = engine.setup("classic", {}, 7, 1)
    before = state.to_json()
    for seat in range(7):
        engine.validate(state, seat, engine.Order("kill", (0, 1, 2)))
        engine.validate(state, seat, engine.Order("vote", (99,)))
    assert state.to_json() == before


@pytest.mark.parametrize(
    ("options", "players", "code", "option"),
    [
        ({}, 4, "player_count", "players"),
        ({}, 31, "player_count", "players"),
        ({"wolves": 3}, 6, "too_many_wolves", "wolves"),
        ({"wolves": 0}, 7, "no_wolves", "wolves"),
        ({"seers": 9}, 9, "too_many_seers", "seers"),
        ({"tie": "coin"}, 7, "bad_option_value", "tie"),
        ({"wolfs": 2}, 7, "unknown_option", "wolfs"),
        ({"public_seer": "maybe"}, 7, "bad_option_value", "public_seer"),
        ({"wolves": 2, "seers": 3, "wolfsbane": "herb", "vigilante": True}, 6, "too_many_roles", "players"),
        ({"wolfsbane": "garlic"}, 7, "bad_option_value", "wolfsbane"),
        ({"thing": True, "thing_free": "second_test"}, 9, "bad_option_value", "thing_free"),
        ({}, 5, "decided_before_vote", None),
        ({"wolves": 3}, 7, "decided_before_vote", None),
        ({"cupid": True, "dark_city": True}, 5, "decided_before_vote", None),
        ({"thing": True}, 6, "decided_before_vote", None),
    ],
)
def test_bad_setups_are_named(options, players, code, option) -> None:
    with pytest.raises(engine.SetupError) as refused:
        engine.options("classic", options, players)
    assert (refused.value.code, refused.value.option) == (code, option)


@pytest.mark.parametrize(
    ("options", "players"),
    [
        ({}, 6),
        ({"wolves": 3}, 8),
        ({"start": "day"}, 5),
        ({"first_night": "quiet"}, 5),
        ({"wolfsbane": "herb"}, 5),
        ({"wolfsbane": "doorstep"}, 5),
        ({"vigilante": True}, 5),
        ({"thing": True}, 7),
        ({"thing": True, "start": "day"}, 6),
    ],
)
def test_a_first_night_that_cannot_decide_alone_is_a_game(options, players) -> None:
    assert engine.options("classic", options, players)["wolves"] == options.get("wolves", 2)


def test_options_from_the_command_line_are_typed() -> None:
    options = engine.options("classic", {"wolves": "2", "seers": "0", "public_seer": "yes"}, 9)
    assert options["wolves"] == 2 and options["seers"] == 0 and options["public_seer"] is True


def test_audiences() -> None:
    seats = engine.Audience.of(2, 5)
    assert seats.admits(2) and seats.admits(engine.MODERATOR)
    assert not seats.admits(3) and not seats.admits(engine.PUBLIC)
    assert engine.Audience.public().admits(4) and engine.Audience.public().admits(engine.PUBLIC)
    assert not engine.Audience.moderator().admits(0)


@pytest.mark.parametrize("ruleset", sorted(engine.rulesets.RULESETS))
def test_every_deal_is_made_of_the_deck(ruleset) -> None:
    """The deck is what an organiser deals by hand: any arrangement of it is taken, and a
    random deal draws only from it."""
    rules = engine.rulesets.get(ruleset)
    tables = {rules.min_players, rules.min_players + 1, (rules.min_players + rules.max_players) // 2, rules.max_players}
    for players in sorted(tables):
        try:
            options = engine.options(ruleset, {}, players)
        except engine.SetupError:
            continue  # the defaults refuse the smallest classic table (decided before a vote)
        deck = engine.deck(ruleset, options, players)
        assert len(deck) >= players
        for seed in range(3):
            state, _ = engine.setup(ruleset, options, players, seed)
            dealt = engine.deal(state)
            roles = dealt.get("roles")
            if roles is None:
                continue
            left = list(deck)
            for role in roles:
                left.remove(role)
            shuffled = list(deck)
            Random(seed).shuffle(shuffled)
            hand = {"roles": shuffled[:players]}
            if "set_aside" in dealt:
                hand["set_aside"] = shuffled[players] if len(shuffled) > players else None
            engine.setup(ruleset, options, players, seed, hand)
