"""Mafia's rules (docs/rules.md, Mafia), one test per rule sentence, through the engine's
public calls; its scenarios (fixtures/scenarios/mafia/) run in the catalogue,
tests/engine/test_scenarios.py."""

from __future__ import annotations

from collections import Counter
from random import Random
from typing import Any

import pytest

from werewolf import engine
from werewolf.engine import grammar, lab
from werewolf.engine.rulesets import mafia
from werewolf.engine.rulesets.mafia import (
    COP,
    DOCTOR,
    GODFATHER,
    GOON,
    MAFIA,
    ROLEBLOCKER,
    TOWN,
    TOWNSPERSON,
    VIGILANTE,
)
from werewolf.engine.simulate import STRATEGIES, bot_orders, simulate
from werewolf.engine.state import State

from .test_cards import offered

ID = mafia.ID
RULESET = mafia.RULESET

POWER = {
    "roles": [GODFATHER, COP, DOCTOR, VIGILANTE, ROLEBLOCKER, GOON, TOWNSPERSON, TOWNSPERSON, TOWNSPERSON],
    "alpha": 5,
}
"""Nine seats of the power setup: the Godfather at 0, the Cop at 1, the Doctor at 2, the
Vigilante at 3, the Roleblocker at 4, a goon at 5 (ranked first), townspeople at 6 to 8."""


def start(**options: Any) -> State:
    return engine.setup(ID, {"preset": "power", "start": "night", **options}, 9, 1, deal=POWER)[0]


def play(state: State, **cards: Any) -> tuple[State, list[engine.Event]]:
    """Resolve the open step with cards given as `s<seat>=(kind, targets...)`; a card's
    carrier as `("kill", target, "by", carrier)`."""
    orders = {}
    for key, (kind, *rest) in cards.items():
        more: tuple[tuple[str, tuple[int, ...]], ...] = ()
        if "by" in rest:
            at = rest.index("by")
            rest, more = rest[:at], (("by", tuple(rest[at + 1 :])),)
        orders[int(key[1:])] = engine.Order(kind, tuple(rest), more)
    return engine.resolve(state, orders)


def kinds(events: list[engine.Event]) -> list[str]:
    return [event.kind for event in events]


def event(events: list[engine.Event], kind: str) -> engine.Event:
    return next(found for found in events if found.kind == kind)


# The setup.


@pytest.mark.parametrize(
    ("preset", "players", "dealt"),
    [
        ("vanilla", 7, {GOON: 2, TOWNSPERSON: 5}),
        ("vanilla", 13, {GOON: 3, TOWNSPERSON: 10}),
        ("mini_cop", 7, {GOON: 2, COP: 1, TOWNSPERSON: 4}),
        ("mini_doctor", 7, {GOON: 2, DOCTOR: 1, TOWNSPERSON: 4}),
        ("normal", 13, {GOON: 3, COP: 1, DOCTOR: 1, TOWNSPERSON: 8}),
        (
            "power",
            13,
            {GODFATHER: 1, GOON: 2, COP: 1, DOCTOR: 1, VIGILANTE: 1, ROLEBLOCKER: 1, TOWNSPERSON: 6},
        ),
    ],
)
def test_each_preset_deals_what_it_says(preset: str, players: int, dealt: dict[str, int]) -> None:
    options = engine.options(ID, {"preset": preset}, players)
    assert Counter(engine.deck(ID, options, players)) == Counter(dealt)
    state, events = engine.setup(ID, options, players, 3)
    assert Counter(state.rules.roles) == Counter(dealt)
    summary = event(events, "game_set_up").data
    assert summary["preset"] == preset and summary["players"] == players
    assert summary["townspeople"] == dealt[TOWNSPERSON]


def test_a_count_given_overrides_the_preset() -> None:
    options = engine.options(ID, {"preset": "mini_cop", "cops": 2, "goons": 1}, 7)
    assert Counter(engine.deck(ID, options, 7)) == Counter({GOON: 1, COP: 2, TOWNSPERSON: 4})


@pytest.mark.parametrize(
    ("raw", "players", "code"),
    [
        ({"goons": 0}, 7, "no_mafia"),
        ({"goons": 4}, 8, "too_many_mafia"),
        ({"preset": "power", "goons": 1}, 5, "too_many_roles"),
        ({"preset": "vanilla", "start": "night", "goons": 2}, 5, "decided_before_vote"),
        ({"preset": "open"}, 7, "bad_option_value"),
        ({}, 4, "player_count"),
    ],
)
def test_a_setup_that_cannot_play_is_refused(raw: dict[str, Any], players: int, code: str) -> None:
    with pytest.raises(engine.SetupError) as error:
        engine.options(ID, raw, players)
    assert error.value.code == code


def test_a_preset_below_its_table_is_advised_against() -> None:
    options = engine.options(ID, {"preset": "power"}, 7)
    assert [advice.code for advice in engine.advice(ID, options, 7)] == ["below_suggestion"]
    assert engine.advice(ID, engine.options(ID, {"preset": "power"}, 13), 13) == ()


def test_the_game_starts_with_a_day_by_default_and_the_mafia_know_each_other_at_once() -> None:
    state, events = engine.setup(ID, {"preset": "power"}, 9, 1, deal=POWER)
    assert (state.phase, state.number) == ("day", 1)
    met = event(events, "mafia_met")
    assert met.data == {"mafia": [5, 0], "roles": [GOON, GODFATHER]}
    assert met.audience.seats == frozenset({0, 5})
    dealt = [found for found in events if found.kind == "role_dealt"]
    assert [(found.data["seat"], found.audience.seats) for found in dealt] == [
        (seat, frozenset({seat})) for seat in range(9)
    ]
    assert engine.deal(state) == POWER


def test_a_night_start_opens_with_the_mafias_kill() -> None:
    state = start()
    assert (state.phase, state.number) == ("night", 1)
    slots = engine.phase(state).slots
    assert slots[0].card is mafia.KILL and slots[0].options == ((1, 2, 3, 4, 6, 7, 8), (0, 5))
    state, _ = play(state, s5=("kill", 6))
    assert not state.alive[6] and (state.phase, state.number) == ("day", 1)


# The night.


def test_the_cop_sees_a_goon_as_mafia_and_the_godfather_as_town() -> None:
    _, events = play(start(), s1=("inquire", 5))
    checked = event(events, "cop_checked")
    assert checked.data == {"seat": 1, "target": 5, "mafia": True} and checked.audience.seats == frozenset({1})
    _, events = play(start(), s1=("inquire", 0))
    assert event(events, "cop_checked").data["mafia"] is False


def test_the_mafia_kill_together_and_the_sender_carries_it_out() -> None:
    state, events = play(start(), s5=("kill", 6), s0=("kill", 6))
    chose = event(events, "mafia_chose")
    assert chose.data == {"target": 6, "by": 5, "how": "consensus"}
    assert chose.audience.seats == frozenset({0, 5})
    assert event(events, "killed").data == {"seat": 6, "role": TOWNSPERSON}
    assert not state.alive[6]


def test_disagreeing_cards_follow_the_highest_ranked_mafioso_and_its_carrier() -> None:
    state, events = play(start(), s0=("kill", 7, "by", 0), s5=("kill", 6, "by", 0))
    assert event(events, "mafia_chose").data == {"target": 6, "by": 0, "how": "rank"}
    assert not state.alive[6] and state.alive[7]


def test_a_blocked_mafioso_s_kill_fails() -> None:
    state, events = play(start(), s4=("block", 0), s5=("kill", 6, "by", 0))
    assert state.alive[6] and "dawn_no_death" in kinds(events)
    assert event(events, "mafia_chose").data == {"target": 6, "by": 0, "how": "consensus"}
    assert event(events, "ruling_kill_blocked").data == {"seat": 6, "by": 0, "blockers": [4]}
    assert "roleblocked" not in kinds(events), "as the forums do, the carrier is not told"
    _, events = play(start(tell_blocked=True), s4=("block", 0), s5=("kill", 6, "by", 0))
    told = event(events, "roleblocked")
    assert told.data == {"seat": 0} and told.audience.seats == frozenset({0})


def test_a_blocked_cop_is_told_its_check_gave_no_result_and_a_blocked_doctor_nothing() -> None:
    state, events = play(start(), s4=("block", 1), s1=("inquire", 0))
    assert "cop_checked" not in kinds(events)
    assert event(events, "roleblocked").audience.seats == frozenset({1})
    state, events = play(start(), s4=("block", 2), s2=("protect", 6), s5=("kill", 6))
    assert not state.alive[6] and "roleblocked" not in kinds(events)
    assert event(events, "ruling_roleblocked").data == {"seat": 2, "by": [4], "card": "protect"}


def test_a_blocked_mafioso_s_own_card_does_not_count() -> None:
    state, events = play(start(), s4=("block", 5), s5=("kill", 6))
    assert state.alive[6] and "mafia_chose" not in kinds(events)
    state, _ = play(start(), s4=("block", 5), s5=("kill", 6), s0=("kill", 7))
    assert state.alive[6] and not state.alive[7], "the other mafioso's card carries the kill"


def test_the_doctor_saves_the_mafias_target_and_is_not_told() -> None:
    state, events = play(start(), s5=("kill", 6), s2=("protect", 6))
    assert all(state.alive) and "dawn_no_death" in kinds(events)
    assert event(events, "ruling_protected").data == {"seat": 6, "by": 2, "rule": "doctor"}
    assert not [found for found in events if 2 in found.audience.seats and found.kind != "card_missing"]


def test_the_doctor_protects_others_only_unless_the_game_allows_themself() -> None:
    refused = engine.validate(start(), 2, engine.Order("protect", (2,)))
    assert isinstance(refused, engine.OrderError) and refused.code == "target_self"
    assert engine.validate(start(doctor_self=True), 2, engine.Order("protect", (2,))) == engine.Order("protect", (2,))


def test_the_doctor_may_protect_the_same_player_twice_running_unless_the_game_forbids_it() -> None:
    state, _ = play(start(), s2=("protect", 6), s5=("kill", 7))
    state, _ = play(state)
    assert engine.validate(state, 2, engine.Order("protect", (6,))) == engine.Order("protect", (6,))
    state, _ = play(start(doctor_repeat=False), s2=("protect", 6), s5=("kill", 7))
    state, _ = play(state)
    refused = engine.validate(state, 2, engine.Order("protect", (6,)))
    assert isinstance(refused, engine.OrderError) and refused.code == "protected_last_night"
    state, _ = play(state, s2=("protect", 8))
    state, _ = play(state)
    assert engine.validate(state, 2, engine.Order("protect", (6,))) == engine.Order("protect", (6,))


def test_the_vigilante_shoots_once_and_kills_whoever_it_names() -> None:
    state, events = play(start(), s3=("shoot", 7))
    assert not state.alive[7] and event(events, "shot").data == {"seat": 7, "role": TOWNSPERSON}
    assert event(events, "vigilante_fired").audience.seats == frozenset({3})
    state, _ = play(state)
    assert engine.phase(state).slots[3].card.kind == "sleep", "the shot is spent"
    state, _ = play(start(), s3=("shoot", 0))
    assert not state.alive[0], "a Godfather dies of it too"


def test_the_doctor_also_stops_the_vigilantes_shot() -> None:
    state, _ = play(start(), s3=("shoot", 7), s2=("protect", 7))
    assert state.alive[7]


# The day.


def day(**options: Any) -> State:
    return engine.setup(ID, {"preset": "power", **options}, 9, 1, deal=POWER)[0]


def vote(state: State, votes: dict[int, int | None]) -> dict[int, engine.Order]:
    """Each voter's card: a player's seat, or None for no elimination."""
    return {
        voter: engine.Order("vote", (named,)) if named is not None else engine.Order("no_elimination")
        for voter, named in votes.items()
    }


def test_a_strict_majority_ends_the_day_early() -> None:
    state = day()
    cards = vote(state, dict.fromkeys((1, 2, 3, 4), 5))
    assert not engine.decisive(state, cards)
    cards[6] = engine.Order("vote", (5,))
    assert engine.decisive(state, cards)
    state, events = engine.resolve(state, cards)
    assert event(events, "day_ended").data["how"] == "majority"
    assert event(events, "eliminated").data == {"seat": 5, "role": GOON}
    assert (state.phase, state.number) == ("night", 1)


def test_a_vote_for_no_elimination_that_wins_eliminates_nobody() -> None:
    state = day()
    state, events = engine.resolve(state, vote(state, {1: None, 2: None, 3: None, 4: 6, 5: 6}))
    ended = event(events, "day_ended").data
    assert ended["lynched"] is None and ended["how"] == "no_elimination"
    assert ended["no_elimination"] == [1, 2, 3] and ended["ballots"] == [[4, 6], [5, 6]]
    assert all(state.alive) and state.phase == "night"


def test_a_majority_for_no_elimination_ends_the_day_early() -> None:
    state = day()
    assert engine.decisive(state, vote(state, dict.fromkeys(range(5), None)))


def test_an_abstention_is_not_a_vote_for_no_elimination() -> None:
    state = day()
    cards = {1: engine.Order("vote"), 2: engine.Order("vote"), 3: engine.Order("vote", (6,))}
    assert engine.validate(state, 1, engine.Order("vote")) == engine.Order("vote")
    state, events = engine.resolve(state, cards)
    assert event(events, "day_ended").data["how"] == "plurality" and not state.alive[6]


def test_a_tie_with_no_elimination_eliminates_nobody() -> None:
    state = day(tie="random")
    state, events = engine.resolve(state, vote(state, {1: None, 2: 6}))
    assert event(events, "day_ended").data["how"] == "tie" and all(state.alive)


def test_no_elimination_is_refused_where_the_game_does_not_allow_it() -> None:
    state = day(no_elimination=False)
    refused = engine.validate(state, 1, engine.Order("no_elimination"))
    assert isinstance(refused, engine.OrderError) and refused.code == "wrong_order"
    assert engine.validate(day(), 1, engine.Order("no_elimination")) == engine.Order("no_elimination")


@pytest.mark.parametrize(("deadline", "eliminated"), [("plurality", 6), ("no-lynch", None)])
def test_the_deadline_takes_the_plurality_or_only_a_majority(deadline: str, eliminated: int | None) -> None:
    state = day(day_deadline=deadline)
    _, events = engine.resolve(state, vote(state, {1: 6, 2: 6, 3: 7}))
    assert event(events, "day_ended").data["lynched"] == eliminated


def test_roles_are_revealed_on_death_unless_the_game_hides_them() -> None:
    state = day(reveal_dead=False)
    state, events = engine.resolve(state, vote(state, dict.fromkeys(range(1, 6), 0)))
    assert event(events, "eliminated").data == {"seat": 0, "role": None} and not state.revealed[0]


# The end.


def test_the_town_wins_when_no_mafioso_lives() -> None:
    state = day()
    state, _ = engine.resolve(state, vote(state, dict.fromkeys(range(1, 6), 0)))
    state, _ = play(state, s5=("kill", 6))
    state, events = engine.resolve(state, vote(state, dict.fromkeys((1, 2, 3, 4, 7), 5)))
    assert state.over and engine.outcome(state) == engine.rulesets.Outcome(TOWN, (1, 2, 3, 4, 6, 7, 8))
    assert "game_over" in kinds(events)


def test_the_mafia_win_at_parity() -> None:
    deal = {"roles": [GOON, TOWNSPERSON, TOWNSPERSON, TOWNSPERSON, GOON], "alpha": 0}
    state, _ = engine.setup(ID, {"preset": "vanilla", "goons": 2}, 5, 1, deal=deal)
    state, _ = engine.resolve(state, vote(state, {0: None, 4: None, 2: 3}))
    assert all(state.alive) and not state.over, "two mafiosi against three"
    state, _ = play(state, s0=("kill", 2))
    assert state.over and state.winner == MAFIA
    assert engine.outcome(state) == engine.rulesets.Outcome(MAFIA, (0, 4))


# The cards as written.


def test_a_written_card_names_its_carrier_and_no_elimination_is_its_own_word() -> None:
    names = ["Ada", "Bruno", "Carla", "Dario", "Elsa", "Fabio", "Gina", "Ivo", "Lia"]
    night = start()
    slot = engine.phase(night).slots[5]
    order = grammar.read_card("KILL Gina BY Ada", names, slot, ID)
    assert order == engine.Order("kill", (6,), (("by", (0,)),))
    assert engine.validate(night, 5, order) == order
    refused = engine.validate(night, 5, grammar.read_card("KILL Gina BY Bruno", names, slot, ID))
    assert isinstance(refused, engine.OrderError) and refused.code == "carrier_not_mafia"
    ballot = engine.phase(day()).slots[1]
    assert grammar.read_card("NO ELIMINATION", names, ballot, ID) == engine.Order("no_elimination")
    assert grammar.read_card("NO VOTE", names, ballot, ID) == engine.Order("vote")
    assert grammar.read_card("UCCIDI Gina PER MANO DI Ada", names, slot, ID) == order
    assert grammar.read_card("NESSUNA ELIMINAZIONE", names, ballot, ID) == engine.Order("no_elimination")
    assert grammar.spoken("NO ELIMINATION", "it") == "NESSUNA ELIMINAZIONE"


def test_the_mafia_remember_whom_they_chose_and_hunt_another_who_survived() -> None:
    """A victim who lived through the night was guarded: the bots' Mafia try another
    door the next night rather than the same one forever (a Doctor on a claimed Cop and a
    tied day each day once kept a bot game going without end)."""
    from werewolf.engine.people import Memory
    from werewolf.engine.talkers import _spared

    memory = Memory(0)
    mafia.RULESET.lessons()["mafia_met"](memory, {"mafia": [0, 1], "roles": ["goon", "goon"]})
    mafia.RULESET.lessons()["mafia_chose"](memory, {"target": 5, "by": 0, "how": "consensus"})
    assert memory.chosen == [5]
    assert _spared(memory, [2, 3, 5]) == [5]


def _taught(preset: str, players: int) -> Any:
    """A townsperson's memory after the game's setup (seat 6 of `players`), as the
    bots learn it."""
    from werewolf.engine.people import Memory, remember

    _state, events = engine.setup("mafia", {"preset": preset}, players, 3)
    memory = Memory(players - 1)
    remember({memory.seat: memory}, [event for event in events if event.kind == "game_set_up"], RULESET.lessons())
    return memory


def test_the_bots_learn_the_open_setups_role_list_the_mafias_size_and_the_cop_a_mafioso_fakes() -> None:
    """The setup's role list is open: each seat learns every role's count (none dealt is
    a count too), how many the Mafia are, and, where a Cop is dealt, that its checks are
    the results a claim gives (the role a mafioso fake-claims)."""
    power = _taught("power", 13)
    assert (power.counts[GODFATHER], power.counts[GOON], power.counts[COP], power.counts[DOCTOR]) == (1, 2, 1, 1)
    assert power.foes == 3 and power.inquiring == COP
    vanilla = _taught("vanilla", 7)
    assert vanilla.counts[COP] == 0 and vanilla.foes == 2 and vanilla.inquiring == ""


def test_a_cop_claimed_where_the_setup_deals_none_is_a_lie() -> None:
    from werewolf.engine.speech import COMING_OUT, Remark, Square, read

    memory = _taught("mini_doctor", 7)
    square = Square()
    square.say(Remark(1, 2, COMING_OUT, role=COP))
    assert 2 in read(square, memory, 0.7).liars


def test_the_cop_who_found_a_mafioso_comes_out_surely_when_the_town_cannot_wait() -> None:
    """One wrong elimination and one kill would give the Mafia parity: the Cop's reason
    to come out outweighs its temper (the Mafia's size read from the role list)."""
    from werewolf.engine.talkers import _last_chance

    memory = _taught("mini_cop", 7)
    assert not _last_chance(memory, list(range(7)))
    assert _last_chance(memory, list(range(5)))


def test_a_mafioso_leading_the_square_may_fake_claim_cop_and_the_real_cop_answers() -> None:
    """A mafioso the town is about to eliminate claims the Cop and names its first
    accuser (at the `bluff` chance); the hidden Cop, who knows the claim false, comes out
    at once with its checks."""
    from werewolf.engine.people import Memory, remember
    from werewolf.engine.talkers import PUBLIC_SEAT, Table, Temper, _defend

    _state, events = engine.setup("mafia", {"preset": "mini_cop"}, 7, 3)
    roles = _state.rules.roles
    mafioso = roles.index(GOON)
    cop = roles.index(COP)
    table = Table({seat: Memory(seat) for seat in (PUBLIC_SEAT, *range(7))}, temper=Temper(bluff=1.0))
    remember(table.memories, events, RULESET.lessons())
    innocent = next(seat for seat in range(7) if roles[seat] == TOWNSPERSON)
    table.memories[cop].results.append((innocent, False))
    accuser = next(seat for seat in range(7) if roles[seat] == TOWNSPERSON and seat != innocent)
    _defend(table, 1, mafioso, {accuser: mafioso}, list(range(7)), Random(0))
    assert table.square.claimed == {mafioso: COP, cop: COP}
    assert table.square.results[mafioso] == [(accuser, True)]
    assert table.square.results[cop] == [(innocent, False)]


def _talking(preset: str, players: int, temper: Any = None) -> tuple[list[str], Any]:
    """A dealt game of `preset` and its table of talking bots, each seat taught the
    setup."""
    from werewolf.engine.people import Memory, remember
    from werewolf.engine.talkers import PUBLIC_SEAT, TEMPER, Table

    state, events = engine.setup("mafia", {"preset": preset}, players, 3)
    table = Table({seat: Memory(seat) for seat in (PUBLIC_SEAT, *range(players))}, temper=temper or TEMPER)
    remember(table.memories, events, RULESET.lessons())
    return list(state.rules.roles), table


def test_a_doctor_leading_the_square_claims_the_doctor_in_its_defence() -> None:
    """The Doctor has no check to show, but the square's leading suspect, if it is the
    hidden Doctor, claims its role: the town, trusting the claim, looks elsewhere."""
    from werewolf.engine.speech import COMING_OUT
    from werewolf.engine.talkers import day_talk

    roles, table = _talking("mini_doctor", 7)
    doctor = roles.index(DOCTOR)
    table.hunches = {seat: {other: 0.0 for other in range(7) if other != seat} for seat in range(7)}
    for seat in range(7):
        if seat != doctor:
            table.hunches[seat][doctor] = 0.2
    day_talk(table, 1, list(range(7)), Random(0))
    assert table.square.claimed.get(doctor) == DOCTOR
    assert [remark.kind for remark in table.square.remarks if remark.speaker == doctor].count(COMING_OUT) == 1


def test_where_no_cop_is_dealt_a_mafioso_fakes_the_doctor_and_the_doctor_counter_claims() -> None:
    """A mafioso leading the square claims the Doctor (a setup without a Cop has no
    check to fake), at the `bluff` chance; the hidden Doctor, who knows the claim false,
    counter-claims at once, and reads the mafioso a liar."""
    from werewolf.engine.speech import read
    from werewolf.engine.talkers import Temper, _defend

    roles, table = _talking("mini_doctor", 7, Temper(bluff=1.0))
    mafioso, doctor = roles.index(GOON), roles.index(DOCTOR)
    accuser = roles.index(TOWNSPERSON)
    _defend(table, 1, mafioso, {accuser: mafioso}, list(range(7)), Random(0))
    assert table.square.claimed == {mafioso: DOCTOR, doctor: DOCTOR}
    assert mafioso not in table.square.results
    assert mafioso in read(table.square, table.memories[doctor], 0.7).liars


def test_a_roleblocker_whose_block_left_the_night_quiet_takes_its_target_for_the_killer() -> None:
    """A Roleblocker who blocked a player on a night that ended without a death says so
    the next day, as a Cop says a check ("I blocked Ada and nobody died"; at the `reveal`
    chance, here 1): the blocked player is its suspect, and a claim the town weighs. (Without it, a lone mafioso
    blocked every night and a day tied every day kept a bot game open for ever.)"""
    from werewolf.engine.people import remember
    from werewolf.engine.simulate import phase
    from werewolf.engine.speech import COMING_OUT, DIVINED
    from werewolf.engine.talkers import Temper, talking_cards

    state, events = engine.setup("mafia", {"preset": "power", "start": "night"}, 13, 3)
    roles = list(state.rules.roles)
    blocker, carrier = roles.index(ROLEBLOCKER), roles.index(GOON)
    table = _talking("power", 13, Temper(reveal=1.0))[1]
    table.memories = {seat: type(memory)(seat) for seat, memory in table.memories.items()}
    remember(table.memories, events, RULESET.lessons())
    mafia_seats = [seat for seat, role in enumerate(roles) if role in (GOON, GODFATHER)]
    cards = {seat: engine.Order("sleep", ()) for seat in phase(state).slots}
    prey = roles.index(TOWNSPERSON)
    for seat in mafia_seats:
        cards[seat] = engine.Order("kill", (prey,), (("by", (carrier,)),))
    cards[blocker] = engine.Order("block", (carrier,))
    table.blocks, table.dead_at_dusk = {blocker: carrier}, 0
    state, events = engine.resolve(state, cards, Random(0), checked=True)
    remember(table.memories, events, RULESET.lessons())
    assert all(state.alive)
    talking_cards(table, phase(state), RULESET.aims(), Random(0))
    memory = table.memories[blocker]
    assert carrier in memory.wolves and (carrier, True) in memory.results
    assert table.square.claimed.get(blocker) == ROLEBLOCKER
    assert any(
        remark.kind == DIVINED and remark.speaker == blocker and remark.target == carrier and remark.werewolf
        for remark in table.square.remarks
    )
    assert [remark.kind for remark in table.square.remarks if remark.speaker == blocker][0] == COMING_OUT


# Whole games.


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(
    ("preset", "players"), [("vanilla", 7), ("mini_cop", 7), ("mini_doctor", 7), ("normal", 13), ("power", 13)]
)
def test_bots_play_each_preset_to_the_end(strategy: str, preset: str, players: int) -> None:
    result = simulate(ID, players, {"preset": preset}, 20, 4, strategy=strategy)
    assert sum(result.wins.values()) == 20 and set(result.wins) <= {TOWN, MAFIA}


def test_the_lab_studies_a_preset_and_its_neighbours() -> None:
    study = lab.study(ID, 7, {"preset": "mini_cop"}, games=6)
    assert study.sides == (MAFIA, TOWN) and {figure.players for figure in study.figures} == {6, 7, 8}
    assert ("doctors", 1) in lab.changes(ID, 7, {"preset": "mini_cop"})


@pytest.mark.parametrize("raw", [{"preset": "power"}, {"preset": "power", "start": "night", "doctor_repeat": False}])
def test_every_card_a_slot_offers_is_accepted(raw: dict[str, Any]) -> None:
    for seed in range(4):
        state, _ = engine.setup(ID, raw, 13, seed)
        rng = Random(seed)
        while not state.over:
            for seat, slot in engine.phase(state).slots.items():
                for card in [*offered(slot), *(engine.Order(other.kind) for other in slot.instead)]:
                    checked = engine.validate(state, seat, card)
                    assert isinstance(checked, engine.Order), (state.phase, seat, card, checked)
            state, _ = engine.resolve(state, bot_orders(state, rng))


def test_a_game_survives_json_and_replays_from_its_seed() -> None:
    def game(seed: int) -> list[dict[str, Any]]:
        state, _ = engine.setup(ID, engine.options(ID, {"preset": "power", "start": "night"}, 13), 13, seed)
        trail = [state.to_json()]
        rng = Random(seed)
        while not state.over:
            state, _ = engine.resolve(state, bot_orders(state, rng))
            assert engine.State.from_json(state.to_json()) == state
            trail.append(state.to_json())
        return trail

    assert game(5) == game(5)


def test_every_event_it_writes_is_declared_and_every_role_telling_one_is_written() -> None:
    seen: set[str] = set()
    rng = Random(2)
    for seed in range(20):
        state, events = engine.setup(ID, engine.options(ID, {"preset": "power"}, 13), 13, seed)
        seen.update(found.kind for found in events)
        while not state.over:
            state, events = engine.resolve(state, bot_orders(state, rng))
            seen.update(found.kind for found in events)
    assert seen <= set(engine.event_kinds(ID))
    for kind, keys in mafia.RULESET.events.items():
        if keys:
            assert kind in seen, kind
