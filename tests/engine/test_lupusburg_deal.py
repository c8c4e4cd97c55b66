"""The organiser's deal of Lupusburg, both editions: a table that dealt the printed cards
by hand enters each player's hand (the character under each of their two houses, the
house of their chest, their secret goal) and the first Burgomaster; the engine takes that
deal as it is, and refuses one the rules forbid with a code that names what is wrong."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from werewolf import engine
from werewolf.engine.rulesets.lupusburg.table import GOAL_DECK, GOAL_KINDS

BAG, GOALS = "lupusburg", "lupusburg-goals"
EDITIONS = (BAG, GOALS)
W, TH, T, M, F = "werewolf", "thief", "townsfolk", "man", "woman"

# Five players. Seat 0 holds the Werewolf under their second house, seat 2 the Thief under
# their first; every chest stands under a house that holds neither.
BAG_HANDS = [
    {"characters": [T, W], "chest": 0},
    {"characters": [T, T], "chest": 1},
    {"characters": [TH, T], "chest": 1},
    {"characters": [T, T], "chest": 0},
    {"characters": [T, T], "chest": 1},
]
GOALS_HANDS = [
    {"characters": [M, W], "chest": 0, "goal": "two_living"},
    {"characters": [F, F], "chest": 1, "goal": "eliminated_men"},
    {"characters": [TH, M], "chest": 1, "goal": "two_eliminated"},
    {"characters": [M, F], "chest": 0, "goal": "two_eliminated"},
    {"characters": [F, M], "chest": 1, "goal": "one_each"},
]


def hands_of(ruleset: str) -> list[dict[str, Any]]:
    return copy.deepcopy(BAG_HANDS if ruleset == BAG else GOALS_HANDS)


def options_of(ruleset: str, players: int = 5) -> dict[str, Any]:
    return engine.options(ruleset, {}, players)


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_the_deal_asks_for_what_the_edition_deals(ruleset: str) -> None:
    """The shape of a hand comes from the ruleset's own data: two characters from the
    edition's deck, the house of the chest, a goal from the goal deck (goals edition
    only); and the deal names the first Burgomaster, who must be given."""
    options = options_of(ruleset)
    shape = engine.deal_shape(ruleset, options, 5)
    parts = {part.name: part for part in shape.parts}
    assert parts["characters"].refers == "card" and parts["characters"].count == 2
    assert parts["characters"].pool == engine.deck(ruleset, options, 5)
    assert parts["chest"].refers == "own_house" and parts["chest"].count == 1
    if ruleset == GOALS:
        assert list(parts) == ["characters", "chest", "goal"]
        assert parts["goal"].pool == GOAL_DECK and parts["goal"].choices == GOAL_KINDS
    else:
        assert list(parts) == ["characters", "chest"]
    assert (shape.mark, shape.mark_required) == ("burgomaster", True)


@pytest.mark.parametrize("seed", [1, 2, 99])
@pytest.mark.parametrize("ruleset", EDITIONS)
def test_an_organisers_deal_is_taken_as_it_is(ruleset: str, seed: int) -> None:
    """Whatever the seed: every character under the house it was entered for, every
    chest, the Burgomaster and every goal as entered; each player told their own hand."""
    hands = hands_of(ruleset)
    options = options_of(ruleset)
    state, events = engine.setup(ruleset, options, 5, seed, engine.deal_from_hands(ruleset, options, hands, 3))
    rules = state.rules
    assert rules.characters == tuple(character for hand in hands for character in hand["characters"])
    assert rules.chests == tuple(2 * seat + hand["chest"] for seat, hand in enumerate(hands))
    assert rules.burgomaster == rules.first == 3
    burgomaster = [event for event in events if event.kind == "burgomaster_named"]
    assert [event.data for event in burgomaster] == [{"seat": 3}]
    for seat, hand in enumerate(hands):
        [dealt] = [event for event in events if event.kind == "characters_dealt" and event.data["seat"] == seat]
        assert dealt.audience == engine.Audience.of(seat)
        assert dealt.data["characters"] == hand["characters"]
        assert dealt.data["chest"] == 2 * seat + hand["chest"]
        assert engine.roles_of(state, seat) == tuple(hand["characters"])
    if ruleset == GOALS:
        assert rules.goals == tuple(hand["goal"] for hand in hands)
        assert sorted(rules.goals + rules.goal_deck) == sorted(GOAL_DECK)
        told = {event.data["seat"]: event.data["goal"] for event in events if event.kind == "goal_drawn"}
        assert told == {seat: hand["goal"] for seat, hand in enumerate(hands)}
    else:
        assert rules.goals == ()
    # The recorded deal sets the same table up again, as for any game.
    again, _ = engine.setup(ruleset, options, 5, seed + 1, engine.deal(state))
    assert again.rules == rules


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_placement_by_card_starts_from_the_organisers_deal(ruleset: str) -> None:
    """With placement by card, the hands entered are the characters as drawn: each player
    then places them, as with a deal of the server's."""
    hands = hands_of(ruleset)
    options = engine.options(ruleset, {"placement": "card"}, 5)
    state, events = engine.setup(ruleset, options, 5, 4, engine.deal_from_hands(ruleset, options, hands, 0))
    assert state.phase == "setup"
    drawn = {event.data["seat"]: event.data["characters"] for event in events if event.kind == "characters_drawn"}
    assert drawn == {seat: hand["characters"] for seat, hand in enumerate(hands)}


def test_the_one_role_rulesets_take_their_deal_from_hands_as_before() -> None:
    """Classic's hand is one role; the alpha is the deal's mark, and may be left out."""
    options = engine.options("classic", {"wolves": 2, "seers": 1}, 7)
    shape = engine.deal_shape("classic", options, 7)
    [part] = shape.parts
    assert (part.name, part.refers, part.count, part.choices) == ("role", "card", 1, ("wolf", "seer", "villager"))
    assert (shape.mark, shape.mark_required) == ("alpha", False)
    roles = ["villager", "wolf", "seer", "villager", "wolf", "villager", "villager"]
    hands = [{"role": role} for role in roles]
    assert engine.deal_from_hands("classic", options, hands, 4) == {"roles": roles, "alpha": 4}
    assert engine.deal_from_hands("classic", options, hands, None) == {"roles": roles}


def _two_werewolves(hands: list[dict[str, Any]]) -> None:
    hands[1]["characters"] = [W, T]


def _a_character_of_another_game(hands: list[dict[str, Any]]) -> None:
    hands[3]["characters"] = [T, "seer"]


def _six_townsmen(hands: list[dict[str, Any]]) -> None:
    hands[1]["characters"], hands[3]["characters"] = [M, F], [M, M]


def _werewolf_with_thief(hands: list[dict[str, Any]]) -> None:
    hands[0]["characters"], hands[2]["characters"] = [TH, W], [hands[2]["characters"][1]] * 2


def _chest_over_werewolf(hands: list[dict[str, Any]]) -> None:
    hands[0]["chest"] = 1


def _chest_over_thief(hands: list[dict[str, Any]]) -> None:
    hands[2]["chest"] = 0


def _four_of_a_goal(hands: list[dict[str, Any]]) -> None:
    hands[0]["goal"] = hands[4]["goal"] = "two_eliminated"  # with seats 2 and 3: four, in a deck of three


def _unknown_goal(hands: list[dict[str, Any]]) -> None:
    hands[1]["goal"] = "riches"


REFUSED = [
    # (edition, what the organiser got wrong, code, option)
    (BAG, _two_werewolves, "bad_characters", "characters"),
    (BAG, _a_character_of_another_game, "bad_characters", "characters"),
    (GOALS, _six_townsmen, "bad_characters", "characters"),
    (BAG, _werewolf_with_thief, "werewolf_with_thief", "characters"),
    (GOALS, _werewolf_with_thief, "werewolf_with_thief", "characters"),
    (BAG, _chest_over_werewolf, "chest_hidden", "chests"),
    (GOALS, _chest_over_werewolf, "chest_hidden", "chests"),
    (BAG, _chest_over_thief, "chest_hidden", "chests"),
    (GOALS, _chest_over_thief, "chest_hidden", "chests"),
    (GOALS, _four_of_a_goal, "goal_over", "goals"),
    (GOALS, _unknown_goal, "bad_goals", "goals"),
]


@pytest.mark.parametrize("ruleset,change,code,option", REFUSED)
def test_a_deal_the_rules_forbid_is_refused_naming_the_fault(ruleset: str, change: Any, code: str, option: str) -> None:
    hands = hands_of(ruleset)
    change(hands)
    options = options_of(ruleset)
    deal = engine.deal_from_hands(ruleset, options, hands, 0)
    with pytest.raises(engine.SetupError) as refused:
        engine.setup(ruleset, options, 5, 1, deal)
    assert (refused.value.code, refused.value.option) == (code, option)
    if code in ("werewolf_with_thief", "chest_hidden"):
        at_fault = next(seat for seat, hand in enumerate(hands) if hand != hands_of(ruleset)[seat])
        assert refused.value.value == at_fault
    if code == "goal_over":
        assert refused.value.value == "two_eliminated"


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_a_burgomaster_who_is_not_a_player_is_refused(ruleset: str) -> None:
    options = options_of(ruleset)
    with pytest.raises(engine.SetupError) as refused:
        engine.setup(ruleset, options, 5, 1, engine.deal_from_hands(ruleset, options, hands_of(ruleset), 5))
    assert (refused.value.code, refused.value.option, refused.value.value) == ("bad_burgomaster", "burgomaster", 5)


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_a_hand_left_incomplete_is_refused(ruleset: str) -> None:
    options = options_of(ruleset)
    for fault in ({"characters": [T]}, {"chest": None}, {"characters": [T, ""]}):
        hands = hands_of(ruleset)
        hands[4].update(fault)
        with pytest.raises(engine.SetupError) as refused:
            engine.deal_from_hands(ruleset, options, hands, 0)
        assert (refused.value.code, refused.value.value) == ("deal_incomplete", 4)
    if ruleset == GOALS:
        hands = hands_of(ruleset)
        del hands[2]["goal"]
        with pytest.raises(engine.SetupError) as refused:
            engine.deal_from_hands(ruleset, options, hands, 0)
        assert (refused.value.code, refused.value.option, refused.value.value) == ("deal_incomplete", "goal", 2)


def test_a_recorded_deal_that_breaks_the_rules_is_refused_too() -> None:
    """A deal given to `setup` directly (a recorded one) passes the same checks: a chest
    under another player's house, goals that do not make up the goal deck."""
    deal = engine.deal_from_hands(BAG, options_of(BAG), hands_of(BAG), 0)
    with pytest.raises(engine.SetupError) as refused:
        engine.setup(BAG, options_of(BAG), 5, 1, {**deal, "chests": [*deal["chests"][:4], 2]})
    assert (refused.value.code, refused.value.option, refused.value.value) == ("chest_not_own", "chests", 4)
    deal = engine.deal_from_hands(GOALS, options_of(GOALS), hands_of(GOALS), 0)
    with pytest.raises(engine.SetupError) as refused:
        engine.setup(GOALS, options_of(GOALS), 5, 1, {**deal, "goal_deck": ["two_living"] * 10})
    assert (refused.value.code, refused.value.option) == ("bad_goals", "goals")
