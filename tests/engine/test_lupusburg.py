"""Lupusburg, both editions: one scenario per rule of RULES.md's Lupusburg section, the
rulebooks' worked examples, and whole bot games (JSON round trips, determinism, replay
from the deal, every offered choice accepted, secrecy)."""

from __future__ import annotations

import json
from collections import Counter
from random import Random
from typing import Any

import pytest

from werewolf import engine
from werewolf.engine.bots import bot_card
from werewolf.engine.replay import replay
from werewolf.engine.rulesets.lupusburg.table import (
    ACCUSATION_STEP,
    BALLOT_STEP,
    BETS_STEP,
    ELIMINATED_MEN,
    GOALS_STEP,
    ONE_EACH,
    PRIVILEGE_STEP,
    SHOW_STEP,
    SWEEP_STEP,
    SWEEPER_STEP,
    TWO_ELIMINATED,
    TWO_LIVING,
)
from werewolf.engine.simulate import bot_orders, simulate

BAG, GOALS = "lupusburg", "lupusburg-goals"
EDITIONS = (BAG, GOALS)
Order = engine.Order
T = "townsfolk"
W, TH, M, F = "werewolf", "thief", "man", "woman"

# Five players: Andrew 0, Bea 1, Carl 2, David 3, Emma 4 (the rulebooks' table).
# Andrew holds the Werewolf under house 1 (his chest under house 0); Carl the Thief
# under house 4 (chest under 5).
BAG5 = {"characters": [T, W, T, T, TH, T, T, T, T, T], "chests": [0, 2, 5, 6, 8], "burgomaster": 0}
GOALS5 = {
    "characters": [M, W, F, F, TH, M, M, F, F, M],
    "chests": [0, 2, 5, 6, 8],
    "burgomaster": 0,
    "goals": [TWO_LIVING, ELIMINATED_MEN, TWO_ELIMINATED, TWO_ELIMINATED, ONE_EACH],
    "goal_deck": [TWO_LIVING, TWO_LIVING, TWO_ELIMINATED, ONE_EACH, ONE_EACH]
    + [ELIMINATED_MEN, ELIMINATED_MEN, "eliminated_women", "eliminated_women", "eliminated_women"],
}


def start(ruleset: str, deal: dict[str, Any] | None = None, players: int = 5, **options: Any) -> engine.State:
    state, _ = engine.setup(ruleset, options, players, 7, deal or (BAG5 if ruleset == BAG else GOALS5))
    return state


def at(state: engine.State, step: int, **rules: Any) -> engine.State:
    """The state moved to a day step, with fields of Lupusburg's own state changed."""
    return state.evolve(phase="day", step=step).with_rules(**rules)


def without(state: engine.State, *houses: int) -> engine.State:
    """The state with those houses' characters gone (and their owners, if both are)."""
    living = list(state.rules.living)
    for house in houses:
        living[house] = False
    alive = tuple(living[2 * seat] or living[2 * seat + 1] for seat in range(state.seats))
    return state.evolve(alive=alive).with_rules(living=tuple(living))


def kinds(events: list[engine.Event]) -> list[str]:
    return [event.kind for event in events]


def one(events: list[engine.Event], kind: str) -> engine.Event:
    found = [event for event in events if event.kind == kind]
    assert len(found) == 1, kinds(events)
    return found[0]


def refused(state: engine.State, seat: int, order: Order) -> str | None:
    checked = engine.validate(state, seat, order)
    return checked.code if isinstance(checked, engine.OrderError) else None


# Setup.


@pytest.mark.parametrize("ruleset", EDITIONS)
@pytest.mark.parametrize("players", range(4, 9))
def test_the_deal(ruleset: str, players: int) -> None:
    """Two characters each from the edition's deck; never both the Werewolf and the
    Thief in one hand; one chest per player, never over the Werewolf or the Thief; the
    coins; the goals; the deal sets the same table up again."""
    deck = engine.deck(ruleset, engine.options(ruleset, {}, players), players)
    rest = 2 * players - 2
    if ruleset == BAG:
        assert Counter(deck) == Counter({W: 1, TH: 1, T: rest})
    else:
        assert Counter(deck) == Counter({W: 1, TH: 1, M: rest // 2, F: rest // 2})
    for seed in range(20):
        state, events = engine.setup(ruleset, {}, players, seed)
        rules = state.rules
        assert sorted(rules.characters) == sorted(deck)
        for seat in range(players):
            hand = engine.roles_of(state, seat)
            assert set(hand) != {W, TH}
            assert rules.chests[seat] // 2 == seat
            assert rules.characters[rules.chests[seat]] not in (W, TH)
            dealt = one([e for e in events if e.data.get("seat") == seat], "characters_dealt")
            assert dealt.audience == engine.Audience.of(seat)
        if ruleset == BAG:
            assert rules.coins == (8, 7, 6, 5, 4, 3, 2, 2)
        else:
            assert sorted(rules.coins) == sorted([*range(3, players + 1), 2, 2])
            assert rules.coins[-1] == players
            assert len(rules.goals) == players and len(rules.goal_deck) == 15 - players
        again, _ = engine.setup(ruleset, {}, players, seed + 100, engine.deal(state))
        assert again.rules == rules


def test_a_deal_giving_one_player_the_werewolf_and_the_thief_is_refused() -> None:
    bad = {**BAG5, "characters": [W, TH, T, T, T, T, T, T, T, T], "chests": [0, 2, 4, 6, 8]}
    with pytest.raises(engine.SetupError):
        engine.setup(BAG, {}, 5, 1, bad)
    chest_on_wolf = {**BAG5, "chests": [1, 2, 5, 6, 8]}
    with pytest.raises(engine.SetupError):
        engine.setup(BAG, {}, 5, 1, chest_on_wolf)


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_table_sizes_and_options(ruleset: str) -> None:
    for players in (3, 9):
        with pytest.raises(engine.SetupError):
            engine.options(ruleset, {}, players)
    assert engine.options(ruleset, {}, 6) == {"placement": "random", "missing_claw": "random", "reveal_dead": False}
    assert engine.options(ruleset, {"placement": "card"}, 6)["placement"] == "card"


# Placement by card.


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_placement_by_card_each_player_places_their_characters_and_chest(ruleset: str) -> None:
    deal = BAG5 if ruleset == BAG else GOALS5
    state, events = engine.setup(ruleset, {"placement": "card"}, 5, 7, deal)
    spec = engine.phase(state)
    assert spec.name == "placement" and state.phase == "setup" and set(spec.slots) == set(range(5))
    assert "characters_dealt" not in kinds(events)
    drawn = [event for event in events if event.kind == "characters_drawn"]
    assert [event.data["seat"] for event in drawn] == list(range(5))
    assert all(event.audience.seats == frozenset({event.data["seat"]}) for event in drawn)
    first = deal["characters"]
    # Andrew puts his first character (drawn first: house 0's) under house 1 and his chest
    # under house 1 too; Carl asks for his chest over the Thief; David swaps his two; Bea
    # and Emma write nothing.
    cards = {
        0: Order("place", (1,), (("chest", (1,)),)),
        2: Order("place", (4,), (("chest", (4,)),)),
        3: Order("place", (7,)),
    }
    assert refused(state, 1, Order("place", (0,))) == "not_your_house"
    after, events = engine.resolve(state, cards)
    lb = after.rules
    assert after.phase == "night" and after.number == 1
    assert lb.characters[0:2] == (first[1], first[0])  # swapped: the first character under house 1
    assert lb.characters[0] == W and lb.chests[0] == 1  # the chest where he asked: over the townsperson
    assert lb.characters[4] == TH and lb.chests[2] == 5  # asked over the Thief: under the other house
    assert lb.characters[6:8] == (first[7], first[6]) and lb.chests[3] == deal["chests"][3]
    assert lb.characters[2:4] == tuple(first[2:4]) and lb.chests[1] == deal["chests"][1]  # no card: as drawn
    dealt = [event for event in events if event.kind == "characters_dealt"]
    assert [event.data["seat"] for event in dealt] == list(range(5))
    assert all(event.audience.seats == frozenset({event.data["seat"]}) for event in dealt)
    # The deal records the characters as drawn: the placement cards replay from it.
    assert engine.deal(after)["characters"] == list(first) and engine.deal(after)["chests"] == deal["chests"]


# The night.


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_night_everyone_writes_a_card_the_thief_peeks_the_werewolf_claws(ruleset: str) -> None:
    state = start(ruleset)
    spec = engine.phase(state)
    assert set(spec.slots) == set(range(5))
    assert spec.slots[2].kind == "peek" and spec.slots[0].kind == "claw"
    assert {spec.slots[seat].kind for seat in (1, 3, 4)} == {"sleep"}
    # Houses are named by number; the bound is the number of houses.
    assert refused(state, 2, Order("peek", (10,))) == "unknown_house"
    assert refused(state, 2, Order("peek", (4,))) == "own_house"
    after, events = engine.resolve(state, {2: Order("peek", (3,)), 0: Order("claw", (7,))})
    seen = one(events, "house_seen")
    assert seen.data == {"seat": 2, "house": 3, "chest": False, "by": "thief"}
    assert seen.audience == engine.Audience.of(2)
    killed = one(events, "killed")
    assert killed.data == {"seat": 3, "house": 7, "role": None} and killed.audience == engine.Audience.public()
    assert not after.rules.living[7] and after.alive[3]
    assert (after.phase, after.step) == ("day", PRIVILEGE_STEP if ruleset == BAG else GOALS_STEP)


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_the_werewolf_claws_his_own_house_only_while_he_holds_both(ruleset: str) -> None:
    state = start(ruleset)
    assert refused(state, 0, Order("claw", (0,))) is None
    after, _ = engine.resolve(state, {0: Order("claw", (0,))})
    assert after.rules.living[1] and not after.rules.living[0]
    night = without(start(ruleset), 0)
    assert refused(night, 0, Order("claw", (1,))) is not None
    assert 1 not in engine.phase(night).slots[0].choices


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_a_thief_without_a_living_character_is_called_like_anyone(ruleset: str) -> None:
    """He writes SLEEP like everyone else: nothing in what the seats are asked, or in
    the events, shows that he is gone."""
    state = without(start(ruleset), 4, 5)
    spec = engine.phase(state)
    assert set(spec.slots) == set(range(5)) and spec.slots[2].kind == "sleep"
    _, events = engine.resolve(state, {0: Order("claw", (8,))})
    assert "house_seen" not in kinds(events)


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_a_missing_claw_kills_a_random_house_or_with_the_option_nobody(ruleset: str) -> None:
    """The Werewolf kills every night: a claw missing at the deadline falls on a house
    drawn among those he could have named (the default), or, with `nobody`, on none."""
    _, events = engine.resolve(start(ruleset), {})
    assert one(events, "killed").data["seat"] in range(5)
    drawn = one(events, "ruling_drawn")
    assert drawn.data["what"] == "claw" and drawn.audience == engine.Audience.moderator()
    _, events = engine.resolve(start(ruleset, missing_claw="nobody"), {})
    assert "dawn_no_death" in kinds(events) and "killed" not in kinds(events)


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_the_werewolf_must_claw_every_night_sleep_and_an_empty_card_are_refused(ruleset: str) -> None:
    state = start(ruleset)
    assert refused(state, 0, engine.SLEEP_ORDER) == "must_claw"
    assert refused(state, 0, Order("claw")) == "must_claw"
    assert refused(state, 0, Order("claw", (2,))) is None


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_the_dead_character_is_revealed_only_with_reveal_dead(ruleset: str) -> None:
    _, events = engine.resolve(start(ruleset, reveal_dead=True), {0: Order("claw", (7,))})
    assert one(events, "killed").data["role"] == (T if ruleset == BAG else F)


# The day.


def test_goals_edition_each_player_with_a_living_character_may_redraw() -> None:
    state = without(start(GOALS), 6, 7)  # David has none left
    state = state.evolve(phase="day", step=GOALS_STEP)
    spec = engine.phase(state)
    assert spec.name == "goals" and set(spec.slots) == {0, 1, 2, 4}
    assert refused(state, 3, Order("redraw")) == "no_character"
    after, events = engine.resolve(state, {4: Order("redraw"), 1: Order("sleep")})
    assert after.rules.goals[4] == TWO_LIVING  # the top of the deck
    assert after.rules.goal_deck[-1] == ONE_EACH  # Emma's old goal, under the deck
    assert one(events, "goal_changed").audience == engine.Audience.public()
    drawn = one(events, "goal_drawn")
    assert drawn.audience == engine.Audience.of(4) and drawn.data["goal"] == TWO_LIVING


def test_bag_privilege_the_burgomaster_sees_a_character_and_shows_one_back() -> None:
    state = at(start(BAG), PRIVILEGE_STEP)
    spec = engine.phase(state)
    assert spec.name == "privilege" and set(spec.slots) == {0}
    assert refused(state, 0, Order("privilege", (4,), (("player", (2,)),))) == "not_in_this_edition"
    after, events = engine.resolve(state, {0: Order("privilege", (4,), (("back", (1,)),))})
    shown = [event for event in events if event.kind == "character_shown"]
    assert [(e.data["seat"], e.data["role"], e.data["to"]) for e in shown] == [(2, TH, 0), (0, W, 2)]
    assert all(e.audience == engine.Audience.of(0, 2) for e in shown)
    assert one(events, "privilege_used").data == {"burgomaster": 0, "house": 4, "player": 2}
    assert after.step == BETS_STEP
    # Unused: a blank card.
    _, events = engine.resolve(state, {})
    assert "privilege_unused" in kinds(events)


def test_goals_privilege_naming_a_player_who_shows_his_choice() -> None:
    state = at(start(GOALS), PRIVILEGE_STEP)
    after, events = engine.resolve(state, {0: Order("privilege", (), (("player", (3,)),))})
    assert (after.step, after.rules.shower) == (SHOW_STEP, 3)
    spec = engine.phase(after)
    assert set(spec.slots) == {3} and spec.slots[3].choices == (6, 7)
    after, events = engine.resolve(after, {3: Order("show", (7,))})
    shown = one(events, "character_shown")
    assert shown.data == {"seat": 3, "house": 7, "role": F, "to": 0} and shown.audience == engine.Audience.of(0, 3)
    assert after.rules.shower is None and after.step == BETS_STEP  # 5 players: no Chimney Sweeper


def test_goals_privilege_may_not_name_a_players_only_character() -> None:
    state = at(without(start(GOALS), 6), PRIVILEGE_STEP)
    assert refused(state, 0, Order("privilege", (7,))) == "only_character"
    assert refused(state, 0, Order("privilege", (8,))) is None
    # Named as a player, David shows his only character at once.
    after, events = engine.resolve(state, {0: Order("privilege", (), (("player", (3,)),))})
    assert one(events, "character_shown").data["house"] == 7 and after.step == BETS_STEP


@pytest.mark.parametrize(("players", "swept"), [(5, False), (6, True)])
def test_the_chimney_sweeper_from_six_players_with_a_living_character(players: int, swept: bool) -> None:
    state, _ = engine.setup(GOALS, {}, players, 3)
    after, _ = engine.resolve(at(state, PRIVILEGE_STEP), {})
    assert (after.step == SWEEPER_STEP) is swept
    if not swept:
        return
    mayor = state.rules.burgomaster
    assert set(engine.phase(after).slots) == {mayor}
    other = (mayor + 1) % players
    assert refused(after, mayor, Order("broom", (mayor,))) == "target_self"
    after, events = engine.resolve(after, {mayor: Order("broom", (other,))})
    assert one(events, "sweeper_named").audience == engine.Audience.public()
    assert after.step == SWEEP_STEP and set(engine.phase(after).slots) == {other}
    house = 2 * mayor
    after, events = engine.resolve(after, {other: Order("peek", (house,))})
    seen = one(events, "house_seen")
    assert seen.audience == engine.Audience.of(other) and seen.data["by"] == "sweeper"
    assert seen.data["chest"] == (house in state.rules.chests)
    assert after.step == BETS_STEP
    # Five players holding a living character: no broom.
    fewer = at(without(state, 2 * other, 2 * other + 1), SWEEPER_STEP)
    assert engine.phase(fewer).slots == {}


def test_goals_bets_take_the_top_coin_of_the_stack_first_come_first_served() -> None:
    state = at(start(GOALS), BETS_STEP)
    spec = engine.phase(state)
    assert spec.slots[2].card.instant and set(spec.slots) == set(range(5))
    state, events = engine.act(state, 3, Order("bet", (0,)), 1)
    assert one(events, "bet_placed").data == {"seat": 3, "target": 0}
    assert one(events, "bet_placed").audience == engine.Audience.public()
    kept = one(events, "coin_kept")
    assert kept.data["coin"] == 5 and kept.audience == engine.Audience.of(3)
    state, events = engine.act(state, 1, Order("bet", (2,)), 2)
    assert one(events, "coin_kept").data["coin"] == 4
    assert refused(state, 3, Order("bet", (1,))) == "already_bet"  # once per game
    assert state.rules.bets == ((3, 0, 5), (1, 2, 4))


def test_a_blank_bet_keeps_the_seal_and_is_no_act() -> None:
    state = at(start(GOALS), BETS_STEP)
    assert engine.validate(state, 2, engine.SLEEP_ORDER) == engine.SLEEP_ORDER
    assert not engine.acts_at_once(state, 2, engine.SLEEP_ORDER)
    assert engine.acts_at_once(state, 2, Order("bet", (0,)))
    # Kept to the deadline, it places no bet and draws no coin.
    after, events = engine.resolve(state, {2: engine.SLEEP_ORDER})
    assert not after.rules.has_bet(2) and not [event for event in events if event.kind == "coin_kept"]


def test_goals_only_players_with_a_living_character_bet() -> None:
    state = at(without(start(GOALS), 6, 7), BETS_STEP)
    assert 3 not in engine.phase(state).slots and refused(state, 3, Order("bet", (0,))) == "no_character"


def test_bag_bets_draw_three_coins_and_keep_one_by_rank() -> None:
    state = at(without(start(BAG), 6, 7), BETS_STEP)
    assert 3 in engine.phase(state).slots  # anyone may bet in the coin-bag edition
    after, events = engine.act(state, 3, Order("bet", (0,), (("keep", (2,)),)), 1)
    kept = one(events, "coin_kept")
    drawn = kept.data["drawn"]
    assert len(drawn) == 3 and drawn == sorted(drawn, reverse=True) and kept.data["coin"] == drawn[2]
    assert Counter(after.rules.coins) + Counter([drawn[2]]) == Counter(state.rules.coins)
    again, events = engine.act(state, 3, Order("bet", (0,)), 1)
    assert one(events, "coin_kept").data == {**kept.data, "coin": drawn[0]}  # the same draw replays; default highest
    # Fewer than three coins left: all are drawn.
    low = state.with_rules(coins=(2, 5))
    _, events = engine.act(low, 1, Order("bet", (0,)), 1)
    assert one(events, "coin_kept").data["drawn"] == [5, 2]


def test_the_bets_step_closes_when_everyone_has_bet_and_late_cards_count_at_the_deadline() -> None:
    state = at(start(GOALS), BETS_STEP)
    for number, seat in enumerate(range(5), start=1):
        assert state.step == BETS_STEP
        state, _ = engine.act(state, seat, Order("bet", ((seat + 1) % 5,)), number)
    assert state.step == ACCUSATION_STEP
    state = at(start(GOALS), BETS_STEP)
    after, events = engine.resolve(state, {2: Order("bet", (0,)), 0: Order("bet", (1,))})
    # From the Burgomaster (Andrew) clockwise: Andrew takes the 5, Carl the 4.
    assert after.rules.bets == ((0, 1, 5), (2, 0, 4)) and after.step == ACCUSATION_STEP


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_accusation_two_votes_each_may_fall_on_one_character(ruleset: str) -> None:
    state = at(start(ruleset), ACCUSATION_STEP)
    spec = engine.phase(state)
    assert set(spec.slots) == set(range(5))
    assert refused(state, 1, Order("accuse", (4,), (("also", (4,)),))) is None
    dead = without(state, 8, 9)
    assert refused(dead, 1, Order("accuse", (9,))) == "house_gone"
    # A player with no living character still places two votes.
    assert 4 in engine.phase(dead).slots and refused(dead, 4, Order("accuse", (0,), (("also", (2,)),))) is None


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_accusation_worked_example_ties_go_to_the_character_closer_to_the_burgomaster(ruleset: str) -> None:
    """Second turn, Andrew is Burgomaster: Bea's character has 4 votes; David's and
    Emma's have 2 each, and David's is the suspect, closer clockwise to Andrew."""
    state = at(start(ruleset), ACCUSATION_STEP)
    cards = {
        0: Order("accuse", (2,), (("also", (6,)),)),
        1: Order("accuse", (6,), (("also", (8,)),)),
        2: Order("accuse", (2,), (("also", (2,)),)),
        3: Order("accuse", (8,), (("also", (4,)),)),
        4: Order("accuse", (2,), (("also", (0,)),)),
    }
    after, events = engine.resolve(state, cards)
    named = one(events, "suspects_named")
    assert named.data["suspects"] == [2, 6] and named.data["owners"] == [1, 3]
    assert after.rules.suspects == (2, 6) and after.step == BALLOT_STEP


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_ballot_worked_example_lost_three_to_two(ruleset: str) -> None:
    """Andrew 1 vote, Bea 1 (for her unsuspected character), Carl 2, David 0, Emma 1:
    Bea's suspected character loses 3-2 and is lynched."""
    state = without(start(ruleset), 0, 7, 8)
    state = at(state, BALLOT_STEP, suspects=(2, 6))
    spec = engine.phase(state)
    assert set(spec.slots) == {0, 1, 2, 4}
    assert spec.slots[2].choices_for("also") == (2, 6) and spec.slots[1].choices_for("also") == ()
    assert refused(state, 1, Order("ballot", (6,), (("also", (6,)),))) == "one_vote"
    assert refused(state, 3, Order("ballot", (2,))) == "no_ballot_vote"
    assert refused(state, 0, Order("ballot", (4,))) == "not_a_suspect"
    cards = {
        0: Order("ballot", (2,)),
        1: Order("ballot", (6,)),
        2: Order("ballot", (2,), (("also", (2,)),)),
        4: Order("ballot", (6,)),
    }
    after, events = engine.resolve(state, cards)
    revealed = one(events, "ballot_revealed")
    assert revealed.data["tally"] == [[2, 3], [6, 2]] and revealed.data["lynched"] == 2
    assert one(events, "lynched").data == {"seat": 1, "house": 2, "role": None}
    assert not after.rules.living[2] and after.phase == "night" and after.number == 2


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_a_ballot_tie_goes_to_the_suspect_closer_to_the_burgomaster_and_the_burgomaster_passes(ruleset: str) -> None:
    state = at(start(ruleset), BALLOT_STEP, suspects=(8, 2), burgomaster=3)
    after, events = engine.resolve(state, {0: Order("ballot", (2,)), 1: Order("ballot", (8,))})
    assert one(events, "ballot_revealed").data["lynched"] == 8  # house 8 is closer to house 6
    assert after.rules.burgomaster == 4


def test_a_ballot_nobody_may_vote_in_is_counted_at_once() -> None:
    # Goals edition: the Werewolf has one character left, and so has Bea: both suspected.
    state = without(start(GOALS), 0, 3, 4, 5, 6, 7, 8, 9)
    state = at(state, ACCUSATION_STEP)
    after, events = engine.resolve(state, {})
    assert "suspects_named" in kinds(events) and "ballot_revealed" in kinds(events)
    assert one(events, "ballot_revealed").data["lynched"] == 1  # closest to Andrew's house 0
    assert after.over and engine.outcome(after).winner == "score"


@pytest.mark.parametrize(("ruleset", "passed_to"), [(BAG, 1), (GOALS, 2)])
def test_the_burgomaster_passes_clockwise_by_edition(ruleset: str, passed_to: int) -> None:
    state = at(without(start(ruleset), 2, 3), BALLOT_STEP, suspects=(4, 6))
    after, events = engine.resolve(state, {})
    assert one(events, "burgomaster_passed").data == {"seat": passed_to}
    assert after.rules.burgomaster == passed_to


# The end.


def test_bag_the_werewolf_wins_with_as_many_characters_as_everyone_else() -> None:
    state = without(start(BAG), 3, 4, 5, 6, 7)  # Andrew 2 against Bea 1 and Emma 2
    after, _ = engine.resolve(state, {0: Order("claw", (2,))})  # 2 against 2
    outcome = engine.outcome(after)
    assert outcome is not None and outcome.winner == "werewolf" and outcome.winners == (0,)
    assert outcome.scores[0] == 5 and outcome.scores[1] == 0  # a winning Werewolf scores the table's size
    more = without(start(BAG), 4, 5, 6, 7)  # Andrew 2 against 4
    after, _ = engine.resolve(more, {0: Order("claw", (2,))})
    assert not after.over


def test_goals_the_werewolf_wins_only_when_he_alone_holds_a_character() -> None:
    state = without(start(GOALS, missing_claw="nobody"), 0, 2, 3, 4, 5, 6, 7, 8)  # Andrew 1, Emma 1
    after, _ = engine.resolve(state, {})
    assert not after.over
    after, _ = engine.resolve(state, {0: Order("claw", (9,))})
    assert after.over and after.winner == "werewolf"


def test_bag_final_scoring_worked_example() -> None:
    """Andrew the Werewolf is lynched. Bea 3 (a living character, her chest), Carl 9
    (two characters, chest, a bet of 4), David 7 (a bet of 7), Emma 3 (a living
    character, her unused seal): Carl wins."""
    state = without(start(BAG), 0, 3, 6, 7, 8)
    bets = ((3, 0, 7), (2, 0, 4), (1, 3, 6))
    state = at(state, BALLOT_STEP, suspects=(1, 9), bets=bets)
    after, events = engine.resolve(state, {2: Order("ballot", (1,), (("also", (1,)),))})
    outcome = engine.outcome(after)
    assert outcome is not None and outcome.winner == "score"
    assert dict(outcome.scores) == {0: 0, 1: 3, 2: 9, 3: 7, 4: 3}
    assert outcome.winners == (2,)
    over = one(events, "game_over")
    assert over.audience == engine.Audience.public() and over.data["scores"] == [0, 3, 9, 7, 3]
    assert events[-1] is over


def test_goals_final_scoring_worked_example() -> None:
    """Bea 4 (a living woman in her chest's house, one living woman for her goal), Carl
    7 (two characters, chest, a bet of 2), David 11 (goal: both gone, and a bet of 5),
    Emma 6 (a living character, goal: one of each, her unused seal): David wins."""
    state = without(start(GOALS), 0, 3, 6, 7, 8)
    bets = ((3, 0, 5), (1, 2, 4), (0, 1, 3), (2, 0, 2))
    state = at(state, BALLOT_STEP, suspects=(1, 9), bets=bets)
    after, _ = engine.resolve(state, {2: Order("ballot", (1,), (("also", (1,)),))})
    outcome = engine.outcome(after)
    assert outcome is not None
    assert dict(outcome.scores) == {0: 0, 1: 4, 2: 7, 3: 11, 4: 6}
    assert outcome.winners == (3,)


@pytest.mark.parametrize(("burgomaster", "winner"), [(1, 1), (2, 2), (3, 1), (0, 1)])
def test_score_ties_go_to_the_player_closest_clockwise_to_the_burgomaster(burgomaster: int, winner: int) -> None:
    """Bea and Carl both score 6 (two characters, the chest, the seal)."""
    state = without(start(BAG), 0, 6, 7, 8, 9)
    state = at(state, BALLOT_STEP, suspects=(1, 4), burgomaster=burgomaster)
    after, _ = engine.resolve(state, {1: Order("ballot", (1,), (("also", (1,)),))})
    outcome = engine.outcome(after)
    assert outcome is not None and outcome.scores[1] == outcome.scores[2] == 6
    assert outcome.winners == (winner,)


# Whole games.


def bot_game(ruleset: str, players: int, seed: int, deal: dict[str, Any] | None = None):
    """Every resolution and act of a bot game: (state before, orders, state after, events).
    Half the time, some bettors bet at once, in a random order, the others at the deadline."""
    state, events = engine.setup(ruleset, {}, players, seed, deal)
    trail = [(state, {}, state, events)]
    rng = Random(seed)
    while not state.over:
        assert state.index < 300, "the game does not end"
        spec = engine.phase(state)
        if spec.name == "bets" and rng.random() < 0.5:
            index = state.index
            seats = list(spec.slots)
            rng.shuffle(seats)
            for number, seat in enumerate(seats[: rng.randrange(len(seats) + 1)], start=1):
                slot = engine.phase(state).slots[seat]
                assert slot.card.instant
                order = bot_card(slot, seat, rng)
                before = state
                state, events = engine.act(state, seat, order, number)
                trail.append((before, {seat: order}, state, events))
            if state.index != index:
                continue
        before = state
        orders = bot_orders(state, rng)
        state, events = engine.resolve(state, orders)
        trail.append((before, orders, state, events))
    return trail


SECRET_KINDS = {
    "characters_drawn",
    "characters_dealt",
    "goal_drawn",
    "house_seen",
    "character_shown",
    "coin_kept",
    "claw_fell",
}


@pytest.mark.parametrize("ruleset", EDITIONS)
@pytest.mark.parametrize("players", range(4, 9))
def test_bot_games_keep_the_rules_and_the_secrets(ruleset: str, players: int) -> None:
    for seed in range(4):
        endings = 0
        houses_gone: set[int] = set()
        for before, _, after, events in bot_game(ruleset, players, seed):
            assert engine.State.from_json(json.loads(json.dumps(after.to_json()))) == after
            for event in events:
                assert engine.Event.from_json(json.loads(json.dumps(event.to_json()))).to_json() == event.to_json()
                if event.kind in ("killed", "lynched"):
                    house = event.data["house"]
                    assert house not in houses_gone and before.rules.living[house]
                    houses_gone.add(house)
                    assert event.data["role"] is None
                elif event.kind == "game_over":
                    endings += 1
                    assert event is events[-1]
                elif event.kind in SECRET_KINDS:
                    assert event.audience.scope == "seats" and len(event.audience.seats) <= 2, event
                else:
                    assert event.audience.scope in ("public", "moderator"), event
                    if event.audience.scope == "public":  # (a moderator's ruling may name a coin)
                        assert "role" not in event.data and "coin" not in event.data and "goal" not in event.data
        assert endings == 1
        outcome = engine.outcome(after)
        assert outcome is not None and len(outcome.winners) == 1 and set(outcome.scores) == set(range(players))


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_a_seed_gives_the_same_game_and_the_deal_sets_the_same_table(ruleset: str) -> None:
    def flat(trail):
        return [(after.to_json(), [event.to_json() for event in events]) for _, _, after, events in trail]

    first = bot_game(ruleset, 7, 5)
    assert flat(first) == flat(bot_game(ruleset, 7, 5))
    assert flat(first) != flat(bot_game(ruleset, 7, 6))
    dealt = engine.deal(first[-1][2])
    again, _ = engine.setup(ruleset, {}, 7, 99, dealt)
    assert again.rules == first[0][2].rules


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_every_choice_offered_is_accepted(ruleset: str) -> None:
    for before, _, _, _ in bot_game(ruleset, 6, 3)[1:]:
        if before.over:
            continue
        for seat, slot in engine.phase(before).slots.items():
            if not slot.card.fields:
                assert refused(before, seat, Order(slot.kind)) is None
                continue
            for field, choices in slot.pairs():
                for choice in choices:
                    if field.name == "keep":
                        continue
                    main = field.name == "targets"
                    order = Order(slot.kind, (choice,)) if main else Order(slot.kind, (), ((field.name, (choice,)),))
                    assert refused(before, seat, order) is None, (seat, order)


@pytest.mark.parametrize("ruleset", EDITIONS)
@pytest.mark.parametrize("players", [4, 8])
def test_simulate_plays_whole_games(ruleset: str, players: int) -> None:
    result = simulate(ruleset, players, {}, 60, 1)
    assert sum(result.wins.values()) == 60 and set(result.wins) <= {"werewolf", "score"}


@pytest.mark.parametrize("ruleset", EDITIONS)
@pytest.mark.parametrize("placement", ["random", "card"])
def test_an_export_replays_from_its_deal(ruleset: str, placement: str) -> None:
    """Counted cards (bets among them, placed at the deadline; the placement cards)
    replay the same events from the recorded deal, whatever the export's seed deals."""
    players, seed = 6, 11
    options = engine.options(ruleset, {"placement": placement}, players)
    state, events = engine.setup(ruleset, options, players, seed)
    export: dict[str, Any] = {
        "ruleset": ruleset,
        "options": options,
        "seed": 1234,
        "players": [{"seat": seat} for seat in range(players)],
        "deal": engine.deal(state),
        "phases": [],
    }
    state = engine.State.from_json({**state.to_json(), "seed": 1234})
    _, recorded_setup = engine.setup(ruleset, options, players, 1234, export["deal"])
    recorded = [(None, event.to_json()) for event in recorded_setup]
    rng = Random(seed)
    while not state.over:
        orders = bot_orders(state, rng)
        export["phases"].append({"index": state.index, "orders": {str(s): o.to_json() for s, o in orders.items()}})
        index = state.index
        state, events = engine.resolve(state, orders)
        recorded += [(index, event.to_json()) for event in events]
    assert [(index, event.to_json()) for index, event in replay(export)] == recorded
