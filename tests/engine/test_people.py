"""Bots that play like people (engine/people.py): each seat plays from what it was told."""

from __future__ import annotations

from random import Random

import pytest

from werewolf import engine
from werewolf.engine import rulesets
from werewolf.engine.cards import Field, Slot
from werewolf.engine.people import Memory, people_card, people_cards, remember
from werewolf.engine.simulate import PEOPLE, simulate

VOTE = engine.Card("vote", "VOTE", (Field(least=0),), blank=False)
INQUIRE = engine.Card("inquire", "INQUIRE", (Field(),))
BET = engine.Card("bet", "BET", (Field(),), instant=True)
AIMS = rulesets.get("classic").aims()


def memory_of(seat: int, events: list[engine.Event], lessons) -> Memory:
    """The memory a seat builds from the events as its own page shows them."""
    memory = {seat: Memory(seat)}
    remember(memory, [event for event in events if event.visible_to(seat)], lessons)
    return memory[seat]


def test_a_seat_learns_only_what_it_may_see() -> None:
    """Every seat's memory from the whole log equals its memory from the events it may
    see: what the moderator or other seats were told never reaches it."""
    for ruleset, players in [("classic", 9), ("tabula", 12), ("lunapiena", 12), ("lupusburg-goals", 8)]:
        rules = rulesets.get(ruleset)
        options = rules.options({}, players)
        for seed in range(5):
            rng = Random(seed)
            state, log = rules.setup(options, players, rng.getrandbits(64))
            memories = {seat: Memory(seat) for seat in range(players)}
            remember(memories, log, rules.lessons())
            while state.winner is None:
                cards = people_cards(engine.phase(state).slots, memories, rules.aims(), rng)
                state, events = engine.resolve(state, cards, rng, checked=True)
                remember(memories, events, rules.lessons())
                log += events
            for seat in range(players):
                assert memories[seat] == memory_of(seat, log, rules.lessons()), (ruleset, seed, seat)


def test_a_choice_does_not_change_when_hidden_facts_do() -> None:
    """A villager on a day-first table sees the same events whoever the wolves are, so
    writes the very same vote from the same draws; a wolf's pack changes its vote."""
    options = {"wolves": 2, "seers": 0, "start": "day"}
    lessons, aims = rulesets.get("classic").lessons(), rulesets.get("classic").aims()
    votes = []
    for roles in (
        ["villager", "wolf", "wolf", "villager", "villager", "villager", "villager"],
        ["villager", "villager", "villager", "wolf", "villager", "wolf", "villager"],
    ):
        state, events = engine.setup("classic", options, 7, 3, {"roles": roles})
        seen = [event.to_json() for event in events if event.visible_to(0) and event.kind != "role_dealt"]
        memory = memory_of(0, events, lessons)
        slot = engine.phase(state).asks(0)
        assert slot is not None
        votes.append((seen, memory, [people_card(slot, memory, aims, Random(seed)) for seed in range(50)]))
    assert votes[0] == votes[1]


def test_wolves_never_name_a_packmate() -> None:
    """In whole games of people bots, no wolf's card (a vote, the pack's list) names a
    wolf of its pack."""
    for ruleset, players in [("classic", 9), ("tabula", 14), ("lunapiena", 12)]:
        rules = rulesets.get(ruleset)
        options = rules.options({}, players)
        named = 0
        for seed in range(30):
            rng = Random(seed)
            state, events = rules.setup(options, players, rng.getrandbits(64))
            memories = {seat: Memory(seat) for seat in range(players)}
            remember(memories, events, rules.lessons())
            while state.winner is None:
                cards = people_cards(engine.phase(state).slots, memories, rules.aims(), rng)
                for seat, card in cards.items():
                    pack = memories[seat].pack
                    if pack and card.kind in ("vote", "ballot", "kill"):
                        named += 1
                        assert not set(card.targets) & pack, (ruleset, seed, seat, card, pack)
                state, events = engine.resolve(state, cards, rng, checked=True)
                remember(memories, events, rules.lessons())
        assert named > 100


def test_an_inquirer_votes_for_the_wolf_it_found_and_never_for_one_it_cleared() -> None:
    slot = Slot(VOTE, ((1, 2, 3, 4, 5, 6),))
    seer = Memory(0, wolves={4}, cleared={2})
    assert {people_card(slot, seer, AIMS, Random(seed)).targets for seed in range(40)} == {(4,)}
    seer = Memory(0, cleared={2, 3})
    assert {people_card(slot, seer, AIMS, Random(seed)).targets[0] for seed in range(200)} == {1, 4, 5, 6}


def test_an_inquirer_looks_at_someone_it_knows_nothing_of() -> None:
    slot = Slot(INQUIRE, ((1, 2, 3, 4),))
    seer = Memory(0, wolves={4}, cleared={2})
    assert {people_card(slot, seer, AIMS, Random(seed)).targets[0] for seed in range(100)} == {1, 3}


def test_a_rule_leaving_no_choice_leaves_them_all() -> None:
    slot = Slot(VOTE, ((1, 2),))
    seer = Memory(0, cleared={1, 2})
    assert {people_card(slot, seer, AIMS, Random(seed)).targets[0] for seed in range(100)} == {1, 2}


@pytest.mark.parametrize("ruleset", ["lupusburg", "lupusburg-goals"])
def test_a_lupusburg_bettor_bets_on_its_top_suspect(ruleset: str) -> None:
    rules = rulesets.get(ruleset)
    slot = Slot(BET, ((1, 2, 3, 4),))
    memory = Memory(0)
    shown = [
        engine.Event("character_shown", {"seat": 1, "house": 2, "role": "thief", "to": 0}, engine.Audience.of(0, 1)),
        engine.Event("lynched", {"seat": 2, "house": 4, "role": None}, engine.Audience.public()),
        engine.Event("character_shown", {"seat": 3, "house": 6, "role": "thief", "to": 0}, engine.Audience.of(0, 3)),
        engine.Event("character_shown", {"seat": 4, "house": 8, "role": "thief", "to": 5}, engine.Audience.of(5, 4)),
    ]
    remember({0: memory}, shown, rules.lessons())
    assert {people_card(slot, memory, rules.aims(), Random(seed)).targets[0] for seed in range(50)} == {4}
    found = engine.Event("character_shown", {"seat": 2, "house": 5, "role": "werewolf", "to": 0}, engine.Audience.of(0))
    remember({0: memory}, [found], rules.lessons())
    assert {people_card(slot, memory, rules.aims(), Random(seed)).targets[0] for seed in range(50)} == {2}


def test_every_ruleset_plays_whole_games_like_people() -> None:
    for ruleset in engine.listed():
        rules = rulesets.get(ruleset)
        run = simulate(ruleset, rules.min_players + 1, {}, 40, 2, strategy=PEOPLE)
        assert sum(run.wins.values()) == 40
        assert run.wins == simulate(ruleset, rules.min_players + 1, {}, 40, 2, strategy=PEOPLE).wins


def test_an_unknown_strategy_is_refused() -> None:
    with pytest.raises(ValueError):
        simulate("classic", 7, {}, 1, 1, strategy="psychic")
