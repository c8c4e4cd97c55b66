"""Bots that talk (engine/talkers.py, engine/speech.py), rule by rule: what each seat
says in the square, what it believes of the others from it, and how it then votes and
hunts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from random import Random

from werewolf import engine
from werewolf.engine import rulesets
from werewolf.engine.events import Audience, Event
from werewolf.engine.people import ALLY, ALONE, Memory, remember
from werewolf.engine.rulesets.lupusburg.table import PRIVILEGE, SHOW, WEREWOLF
from werewolf.engine.simulate import TALK, simulate
from werewolf.engine.speech import COMING_OUT, DIVINED, ESTIMATE, VOTE, Remark, Square, read
from werewolf.engine.state import State
from werewolf.engine.talkers import (
    CERTAIN,
    PUBLIC_SEAT,
    TEMPER,
    Table,
    Temper,
    _house_card,
    _intention,
    _lost,
    _night_choice,
    _pulls,
    suspicion,
    talking_cards,
)

CLASSIC = rulesets.get("classic")
SEER, WOLF, VILLAGER = "seer", "wolf", "villager"
ROLES = [SEER, WOLF, WOLF, *[VILLAGER] * 6]
"""Nine seats: the Seer at 0, the wolves at 1 and 2 (1 the alpha), villagers 3 to 8."""


def vote(*targets: int) -> engine.Order:
    return engine.Order("vote", targets)


def started(
    temper: Temper, roles: list[str] = ROLES, ruleset: str = "classic", options: dict[str, object] | None = None
) -> tuple[State, Table]:
    """A game of `roles` (by default classic's: a night first, no lynch without a
    majority) and its table of talking bots, each seat taught what the setup told it."""
    state, events = engine.setup(ruleset, options or {}, len(roles), 7, {"roles": roles, "alpha": 1})
    table = Table({seat: Memory(seat) for seat in (PUBLIC_SEAT, *range(len(roles)))}, temper=temper)
    remember(table.memories, events, rulesets.get(ruleset).lessons())
    return state, table


def resolved(state: State, table: Table, cards: dict[int, engine.Order]) -> State:
    state, events = engine.resolve(state, cards, Random(0))
    remember(table.memories, events, rulesets.get(state.ruleset).lessons())
    return state


def night_one(state: State, table: Table) -> State:
    """The Seer looks at wolf 1; the pack kills villager 3."""
    return resolved(state, table, {0: engine.Order("inquire", (1,)), 1: engine.Order("kill", (3,))})


def test_a_seer_who_found_a_wolf_comes_out_and_the_village_lynches_that_wolf() -> None:
    """A Seer who will reveal (`reveal` 1) claims its role and its result in the square;
    every villager then votes for the wolf named, and the day lynches it."""
    for seed in range(10):
        state, table = started(Temper(reveal=1.0, bluff=0.0, hide=0.0))
        state = night_one(state, table)
        cards = talking_cards(table, engine.phase(state), CLASSIC.aims(), Random(seed))
        said = table.square.remarks
        assert Remark(1, 0, COMING_OUT, role=SEER) in said
        assert Remark(1, 0, DIVINED, 1, werewolf=True) in said
        assert {seat: cards[seat] for seat in (0, 4, 5, 6, 7, 8)} == dict.fromkeys((0, 4, 5, 6, 7, 8), vote(1))
        assert not {cards[1].targets[0], cards[2].targets[0]} & {1, 2}
        day = resolved(state, table, cards)
        assert not day.alive[1] and day.alive[0]


def test_a_hiding_wolf_never_gives_the_vote_that_lynches_its_packmate() -> None:
    """A wolf who hides (`hide` 1) votes for a packmate the square leads against only
    when the village alone has the votes to lynch it (more than half the living, the
    pack left out): then the packmate is lost anyway, and the vote will speak for the
    voter. Otherwise it votes for the square's next suspect: a pack that can save its
    member does."""
    state, table = started(Temper(reveal=1.0, bluff=0.0, hide=1.0))
    state = night_one(state, table)
    table.square.say(Remark(1, 0, COMING_OUT, role=SEER))
    table.square.say(Remark(1, 0, DIVINED, 1, werewolf=True))
    living = state.living()
    pack = table.memories[2].pack
    few = {seat: 1 for seat in (0, 4, 5)}
    assert _lost(pack, few, living) == frozenset()
    said = _intention(
        table, 2, living, _pulls(Counter(few.values()), living, living, table.temper), True, _lost(pack, few, living)
    )
    assert said not in (None, 1, 2)
    enough = {seat: 1 for seat in (0, 4, 5, 6, 7)}
    assert _lost(pack, {**enough, 2: 1}, living) == {1}
    said = _intention(
        table,
        2,
        living,
        _pulls(Counter(enough.values()), living, living, table.temper),
        True,
        _lost(pack, enough, living),
    )
    assert said == 1
    for seed in range(5):
        state, table = started(Temper(reveal=1.0, bluff=0.0, hide=1.0))
        state = night_one(state, table)
        cards = talking_cards(table, engine.phase(state), CLASSIC.aims(), Random(seed))
        assert cards[2] == vote(1)


def test_a_seer_who_will_not_reveal_keeps_quiet_until_it_leads_the_square() -> None:
    """A Seer who does not come out (`reveal` 0) says nothing of its role unless the
    square's first votes turn on it: then it claims its role and results in its
    defence, and no villager votes for it at the end."""
    outcomes = set()
    for seed in range(30):
        state, table = started(Temper(reveal=0.0, bluff=0.0, hide=0.0))
        state = resolved(state, table, {0: engine.Order("inquire", (4,)), 1: engine.Order("kill", (3,))})
        cards = talking_cards(table, engine.phase(state), CLASSIC.aims(), Random(seed))
        remarks = table.square.remarks
        votes = [number for number, remark in enumerate(remarks) if remark.kind == VOTE]
        first = Counter(remarks[number].target for number in votes[:8])
        came_out = Remark(1, 0, COMING_OUT, role=SEER) in remarks
        if came_out:
            assert first[0] == max(first.values())
            assert remarks.index(Remark(1, 0, COMING_OUT, role=SEER)) > votes[7]
            assert all(cards[seat].targets != (0,) for seat in (4, 5, 6, 7, 8))
        else:
            assert first[0] < max(first.values())
        outcomes.add(came_out)
    assert outcomes == {True, False}


def test_a_wolf_claiming_seer_falsely_is_caught_by_the_seers_card_and_lynched() -> None:
    """The pack counter-claims (`bluff` 1): wolf 2 claims to be the Seer and names the
    real one (wolf 1, named by the Seer and leading the square, claims it too in its
    defence). Once the real Seer's card is shown (the village lynched it), everyone
    knows wolf 2 lied: it is all but certain to be a wolf, and the next day lynches a
    liar."""
    state, table = started(Temper(reveal=1.0, bluff=1.0, hide=0.0))
    state = night_one(state, table)
    talking_cards(table, engine.phase(state), CLASSIC.aims(), Random(1))
    said = table.square.remarks
    assert Remark(1, 2, COMING_OUT, role=SEER) in said and Remark(1, 2, DIVINED, 0, werewolf=True) in said
    villager = table.memories[5]
    assert read(table.square, villager, TEMPER.trust).contested == dict.fromkeys((0, 1, 2), 1 - 1 / 3)
    state = resolved(state, table, {seat: vote(0) for seat in (1, 2, 4, 5, 6, 7, 8)})
    assert not state.alive[0] and table.memories[PUBLIC_SEAT].roles[0] == SEER
    state = resolved(state, table, {1: engine.Order("kill", (4,))})
    for seat in (PUBLIC_SEAT, 5, 6, 7, 8):
        claims = read(table.square, table.memories[seat], TEMPER.trust)
        assert 2 in claims.liars and 0 in claims.proven
        assert suspicion(table.memories[seat], claims, table.square, state.living(), TEMPER)[2] >= CERTAIN
    liars = read(table.square, table.memories[PUBLIC_SEAT], TEMPER.trust).liars
    assert liars == {1, 2}
    cards = talking_cards(table, engine.phase(state), CLASSIC.aims(), Random(2))
    (liar,) = {cards[seat].targets[0] for seat in (5, 6, 7, 8)}
    assert liar in liars
    state = resolved(state, table, cards)
    assert not state.alive[liar]


def test_a_result_contradicted_by_a_card_shown_makes_its_claimant_a_liar() -> None:
    """A claimant who called a player innocent is caught when that player's card shows
    a wolf; two claimants of the one Seer each get half the trust and each is suspect by
    half; a claimant whose card shows the role claimed is borne out."""
    square = Square()
    for remark in (
        Remark(1, 3, COMING_OUT, role=SEER),
        Remark(1, 3, DIVINED, 1, werewolf=False),
        Remark(1, 4, COMING_OUT, role=SEER),
        Remark(1, 4, DIVINED, 3, werewolf=True),
    ):
        square.say(remark)
    memory = Memory(6, counts={SEER: 1, WOLF: 2})
    claims = read(square, memory, 0.7)
    assert claims.weight == {3: 0.35, 4: 0.35} and claims.contested == {3: 0.5, 4: 0.5} and not claims.liars
    memory.roles[1] = WOLF
    memory.wolves.add(1)
    claims = read(square, memory, 0.7)
    assert claims.liars == {3} and claims.weight == {4: 0.7} and claims.contested == {4: 0.0}
    memory = Memory(6, counts={SEER: 1, WOLF: 2}, roles={4: SEER})
    assert read(square, memory, 0.7).proven == {4} and read(square, memory, 0.7).liars == {3}


def test_the_pack_hunts_the_player_who_claimed_the_seer() -> None:
    """Once a Seer has come out, the pack's lists name it first."""
    state, table = started(Temper(reveal=1.0, bluff=0.0, hide=0.0))
    state = night_one(state, table)
    talking_cards(table, engine.phase(state), CLASSIC.aims(), Random(3))
    state = resolved(state, table, {})
    assert state.phase == "night" and state.alive[0]
    for seed in range(10):
        cards = talking_cards(table, engine.phase(state), CLASSIC.aims(), Random(seed))
        assert cards[1].targets == (0,) and cards[2].targets == (0,)


def test_a_seat_believes_only_what_it_may_see() -> None:
    """The public memory the wolves speak from is the memory of a seat told only the
    public events; a villager's memory holds nothing of the pack's or the Seer's."""
    for seed in range(3):
        rng = Random(seed)
        state, log = CLASSIC.setup(CLASSIC.options({}, 10), 10, rng.getrandbits(64))
        table = Table({seat: Memory(seat) for seat in (PUBLIC_SEAT, *range(10))})
        remember(table.memories, log, CLASSIC.lessons())
        while state.winner is None:
            cards = talking_cards(table, engine.phase(state), CLASSIC.aims(), rng)
            state, events = engine.resolve(state, cards, rng, checked=True)
            remember(table.memories, events, CLASSIC.lessons())
            log += events
        public = {PUBLIC_SEAT: Memory(PUBLIC_SEAT)}
        remember(public, [event for event in log if event.audience.scope == "public"], CLASSIC.lessons())
        assert table.memories[PUBLIC_SEAT] == public[PUBLIC_SEAT]
        for seat in range(10):
            alone = {seat: Memory(seat)}
            remember(alone, [event for event in log if event.visible_to(seat)], CLASSIC.lessons())
            assert table.memories[seat] == alone[seat]


def test_talking_games_replay_identically_from_their_seed() -> None:
    """The same seed gives the same games and the same talk; another seed, others."""

    def talk(seed: int) -> list[dict[str, object]]:
        rng = Random(seed)
        state, events = CLASSIC.setup(CLASSIC.options({}, 12), 12, rng.getrandbits(64))
        table = Table({seat: Memory(seat) for seat in (PUBLIC_SEAT, *range(12))})
        remember(table.memories, events, CLASSIC.lessons())
        while state.winner is None:
            state, events = engine.resolve(state, talking_cards(table, engine.phase(state), CLASSIC.aims(), rng), rng)
            remember(table.memories, events, CLASSIC.lessons())
        return [remark.to_json() for remark in table.square.remarks]

    assert talk(5) == talk(5)
    assert talk(5) != talk(6)
    first = simulate("classic", 10, {}, 60, 3, strategy=TALK)
    assert first.wins == simulate("classic", 10, {}, 60, 3, strategy=TALK).wins


def test_every_ruleset_plays_whole_games_with_talking_bots() -> None:
    """Every ruleset's games end with the talking bots, the same from the same seed."""
    for ruleset in engine.listed():
        rules = rulesets.get(ruleset)
        run = simulate(ruleset, rules.min_players + 1, {}, 20, 2, strategy=TALK)
        assert sum(run.wins.values()) == 20
        assert run.wins == simulate(ruleset, rules.min_players + 1, {}, 20, 2, strategy=TALK).wins


def test_a_player_the_pack_killed_is_no_wolf_even_with_its_card_hidden() -> None:
    """Lupus in Tabula hides the dead's cards: a seat still learns that the night's
    victim was no wolf (the pack kills outside itself), and a Seer claimant so killed is
    borne out; a lynched player's hidden card clears nobody."""
    rules = rulesets.get("tabula")
    memory = Memory(5)
    remember(
        {5: memory},
        [
            engine.Event(
                "game_set_up", {"players": 8, "wolves": 2, "seers": 1, "specials": []}, engine.Audience.public()
            ),
            engine.Event("killed", {"seat": 1, "role": None}, engine.Audience.public()),
            engine.Event("lynched", {"seat": 2, "role": None}, engine.Audience.public()),
        ],
        rules.lessons(),
    )
    assert memory.dead == {1, 2} and memory.cleared == {1} and memory.counts == {"wolf": 2, "seer": 1}
    square = Square()
    square.say(Remark(1, 1, COMING_OUT, role=SEER))
    square.say(Remark(1, 1, DIVINED, 4, werewolf=True))
    claims = read(square, memory, TEMPER.trust)
    assert claims.proven == {1}
    assert suspicion(memory, claims, square, [0, 3, 4, 5, 6, 7], TEMPER)[4] >= 1


TABULA = rulesets.get("tabula")
POSSESSED, MASON, BODYGUARD, MEDIUM, HAMSTER = "possessed", "freemason", "bodyguard", "medium", "werehamster"
THIRTEEN = [SEER, WOLF, WOLF, POSSESSED, MASON, MASON, BODYGUARD, MEDIUM, *[VILLAGER] * 5]
"""Thirteen Tabula seats: the Seer at 0, the wolves at 1 and 2 (1 the alpha), the
Possessed at 3, the Freemasons at 4 and 5, the Bodyguard at 6, the Medium at 7,
villagers 8 to 12."""


def tabula_started(temper: Temper, roles: list[str] = THIRTEEN, specials: str = "") -> tuple[State, Table]:
    """A Tabula game of `roles` (a quiet first night) and its table of talking bots."""
    return started(temper, roles, "tabula", {"specials": specials or "medium,possessed,bodyguard,freemasons"})


def tabula_day(state: State, table: Table, lynched: int) -> State:
    """A day whose accusation and ballot all name `lynched`, written by hand."""
    living = state.living()
    state = resolved(state, table, {seat: vote(lynched) for seat in living if seat != lynched})
    return resolved(state, table, {seat: engine.Order("ballot", (lynched,)) for seat in engine.phase(state).slots})


def test_the_tabula_family_tells_each_seat_its_stance_and_its_lodge() -> None:
    """The Possessed knows it sides with a pack it does not know, the Werehamster that
    it is alone; each Freemason knows the other holds its role (and is no wolf)."""
    _state, table = tabula_started(TEMPER)
    memories = table.memories
    assert memories[3].stance == ALLY and not memories[3].pack
    assert all(memories[seat].stance == "" for seat in (0, 1, 4, 6, 7, 8))
    assert memories[4].roles == {5: MASON} and 5 in memories[4].cleared
    assert memories[5].roles == {4: MASON} and not memories[8].roles
    assert memories[8].inquiring == SEER and memories[8].copies == 0
    roles = [SEER, WOLF, WOLF, HAMSTER, *[VILLAGER] * 5]
    _state, table = tabula_started(TEMPER, roles, "werehamster")
    assert table.memories[3].stance == ALONE


def test_the_possessed_claims_the_seer_falsely_and_the_real_seer_answers_at_once() -> None:
    """A Possessed who bluffs (`bluff` 1) claims the Seer on the first day and names a
    player as a wolf; the real Seer, though it would not come out (`reveal` 0), answers
    the false claim at once with its own results."""
    state, table = tabula_started(Temper(reveal=0.0, bluff=1.0, hide=0.0))
    state = resolved(state, table, {0: engine.Order("inquire", (1,))})
    talking_cards(table, engine.phase(state), TABULA.aims(), Random(1))
    said = table.square.remarks
    claim = said.index(Remark(1, 3, COMING_OUT, role=SEER))
    named = said[claim + 1]
    assert named.kind == DIVINED and named.speaker == 3 and named.werewolf and named.target != 3
    assert said.index(Remark(1, 0, COMING_OUT, role=SEER)) > claim
    assert Remark(1, 0, DIVINED, 1, werewolf=True) in said
    assert 3 in read(table.square, table.memories[0], TEMPER.trust).liars


def test_a_possessed_who_named_the_seer_is_caught_when_the_pack_kills_the_seer() -> None:
    """The Seer comes out naming wolf 1; the Possessed counter-claims, naming the Seer.
    The pack kills the Seer: its card stays hidden, but a player the pack killed is no
    wolf, so every seat now knows the Possessed lied (and the wolf who counter-claimed
    too), and votes for one of them."""
    state, table = tabula_started(Temper(reveal=1.0, bluff=1.0, hide=0.0))
    state = resolved(state, table, {0: engine.Order("inquire", (1,))})
    talking_cards(table, engine.phase(state), TABULA.aims(), Random(2))
    said = table.square.remarks
    assert Remark(1, 0, DIVINED, 1, werewolf=True) in said
    assert Remark(1, 3, COMING_OUT, role=SEER) in said and Remark(1, 3, DIVINED, 0, werewolf=True) in said
    state = tabula_day(state, table, 12)
    state = resolved(state, table, {1: engine.Order("kill", (0,)), 2: engine.Order("kill", (0,))})
    assert not state.alive[0]
    for seat in (PUBLIC_SEAT, 4, 6, 8, 9):
        claims = read(table.square, table.memories[seat], TEMPER.trust)
        assert 3 in claims.liars and 0 in claims.proven
        assert suspicion(table.memories[seat], claims, table.square, state.living(), TEMPER)[3] >= CERTAIN
    liars = read(table.square, table.memories[PUBLIC_SEAT], TEMPER.trust).liars  # the pack's bluffer 2 too
    cards = talking_cards(table, engine.phase(state), TABULA.aims(), Random(3))
    assert all(cards[seat].targets[0] in liars for seat in (4, 5, 6, 7, 8, 9, 10, 11))


def test_the_freemasons_keep_quiet_until_one_of_them_leads_the_square() -> None:
    """A lodge has no result to give the village: it comes out, as an inquirer does,
    only with a reason. With nobody suspecting them, the Freemasons say nothing of
    their role."""
    state, table = tabula_started(Temper(reveal=1.0, bluff=0.0, hide=0.0))
    state = resolved(state, table, {0: engine.Order("inquire", (8,))})
    for seat in range(13):
        table.hunches[seat] = {other: 5.0 if other == 10 else 0.0 for other in range(13) if other != seat}
    talking_cards(table, engine.phase(state), TABULA.aims(), Random(4))
    assert not {4, 5} & set(table.square.claimed)


def test_the_freemasons_come_out_together_and_vouch_for_each_other() -> None:
    """When the square's first round leads on Freemason 4, both Freemasons (`reveal`
    1) claim their role in its defence and each says the other is no wolf; a villager
    then trusts both more than a player nobody spoke for."""
    state, table = tabula_started(Temper(reveal=1.0, bluff=0.0, hide=0.0))
    state = resolved(state, table, {0: engine.Order("inquire", (8,))})
    for seat in range(13):
        table.hunches[seat] = {other: 5.0 if other == 4 else 0.0 for other in range(13) if other != seat}
    talking_cards(table, engine.phase(state), TABULA.aims(), Random(4))
    said = table.square.remarks
    for mason, other in ((4, 5), (5, 4)):
        assert Remark(1, mason, COMING_OUT, role=MASON) in said
        assert Remark(1, mason, DIVINED, other, werewolf=False) in said
    villager = table.memories[9]
    score = suspicion(villager, read(table.square, villager, TEMPER.trust), table.square, state.living(), TEMPER)
    assert score[4] - table.hunches[9][4] < score[10] and score[5] < score[10]


def test_the_bodyguard_guards_the_seer_who_came_out() -> None:
    """Once the Seer has come out (and nobody contests it), the Bodyguard's card
    protects the Seer, whom the pack hunts first."""
    state, table = tabula_started(Temper(reveal=1.0, bluff=0.0, hide=0.0))
    state = resolved(state, table, {0: engine.Order("inquire", (1,))})
    talking_cards(table, engine.phase(state), TABULA.aims(), Random(5))
    state = tabula_day(state, table, 12)
    for seed in range(5):
        cards = talking_cards(table, engine.phase(state), TABULA.aims(), Random(seed))
        assert cards[6] == engine.Order("protect", (0,))
        assert cards[1].targets[0] == 0


def test_the_pack_turns_the_day_on_the_player_it_could_not_kill() -> None:
    """The pack chose the Werehamster and nobody died: the wolves then accuse it and
    vote for it by day (only a lynch or the Seer kills it), and hunt others at night."""
    roles = [SEER, WOLF, WOLF, HAMSTER, *[VILLAGER] * 5]
    state, table = tabula_started(Temper(reveal=0.0, bluff=0.0, hide=0.0), roles, "werehamster")
    state = resolved(state, table, {0: engine.Order("inquire", (8,))})
    state = tabula_day(state, table, 8)
    state = resolved(state, table, {1: engine.Order("kill", (3,)), 2: engine.Order("kill", (3,))})
    assert state.alive[3] and len(state.living()) == 8
    cards = talking_cards(table, engine.phase(state), TABULA.aims(), Random(6))
    assert {Remark(2, 1, ESTIMATE, 3), Remark(2, 2, ESTIMATE, 3)} <= set(table.square.remarks)
    assert cards[1] == vote(3) and cards[2] == vote(3)
    state = tabula_day(state, table, 7)
    for seed in range(5):
        cards = talking_cards(table, engine.phase(state), TABULA.aims(), Random(seed))
        assert 3 not in cards[1].targets


def test_a_mythomaniac_who_became_the_seer_holds_the_seer_role() -> None:
    """The Mythomaniac's change is a lesson: one who became the Seer claims the Seer."""
    memory = Memory(4, role="mythomaniac")
    remember(
        {4: memory},
        [engine.Event("mythomaniac_became", {"seat": 4, "target": 0, "role": SEER}, engine.Audience.of(4))],
        TABULA.lessons(),
    )
    assert memory.role == SEER


def test_a_mythomaniac_dealt_tells_every_seat_a_second_seer_may_claim_from_the_second_day() -> None:
    """Where Tabula deals the Mythomaniac, every seat knows the game may make one more
    Seer, from its one night (the second): a claim on the first day is no copy's."""
    roles = [SEER, WOLF, WOLF, "mythomaniac", *[VILLAGER] * 5]
    _state, table = tabula_started(TEMPER, roles, "mythomaniac")
    assert all(memory.copies == 1 and memory.copied_from == 2 for memory in table.memories.values())


def possessed_named_a_villager():
    """A Tabula first day where the Possessed (seat 3) claimed the Seer and named a wolf
    a player outside the pack and the Medium (seat 7): the state, the table, the player."""
    for seed in range(7, 40):
        state, table = tabula_started(Temper(reveal=1.0, bluff=1.0, hide=0.0))
        state = resolved(state, table, {0: engine.Order("inquire", (8,))})
        talking_cards(table, engine.phase(state), TABULA.aims(), Random(seed))
        named = next(target for target, _werewolf in table.square.results[3])
        if named not in (1, 2, 3, 7):
            return state, table, named
    raise AssertionError("no seed gave the Possessed a villager to name")


def test_the_medium_comes_out_when_its_answer_bears_on_a_claim() -> None:
    """The Possessed claimed the Seer and named a player a wolf; the village lynched
    that player; the Medium, told it was no wolf, comes out the next day with its answer
    (`reveal` 1), and knows the Possessed lied."""
    state, table, named = possessed_named_a_villager()
    state = tabula_day(state, table, named)
    state = resolved(state, table, {1: engine.Order("kill", (9,))})
    assert table.memories[7].results == [(named, False)]
    talking_cards(table, engine.phase(state), TABULA.aims(), Random(8))
    said = table.square.remarks
    assert Remark(2, 7, COMING_OUT, role=MEDIUM) in said and Remark(2, 7, DIVINED, named, werewolf=False) in said
    assert 3 in read(table.square, table.memories[7], TEMPER.trust).liars


def test_the_mediums_answer_settles_a_claim_war_for_every_seat_that_trusts_it() -> None:
    """The Possessed claimed the Seer and named a player a wolf, the real Seer answered:
    a claim war nobody can settle from the count. The village lynched the player named;
    the Medium, whose claim nobody contests, comes out with "no wolf": every seat that
    trusts it (all but the pack, which knew already) now knows the Possessed lied, and
    the real Seer is the one claimant left."""
    state, table, named = possessed_named_a_villager()
    before = read(table.square, table.memories[PUBLIC_SEAT], TEMPER.trust)
    assert {0, 3} <= set(before.contested) and not before.liars
    state = tabula_day(state, table, named)
    state = resolved(state, table, {1: engine.Order("kill", (9,))})
    talking_cards(table, engine.phase(state), TABULA.aims(), Random(8))
    assert Remark(2, 7, DIVINED, named, werewolf=False) in table.square.remarks
    for seat in (PUBLIC_SEAT, 4, 6, 10, 11):
        claims = read(table.square, table.memories[seat], TEMPER.trust)
        assert 3 in claims.liars and 0 not in claims.liars and not claims.contested.get(0)


def test_the_pack_hunts_the_claimant_whose_results_it_cannot_fault() -> None:
    """The Possessed claimed the Seer, naming a villager a wolf; the real Seer answered
    with a villager it found no wolf. The pack knows which claim is false (the Possessed
    is on its side, though neither knows the other): it spares that claimant and hunts
    the real Seer, so that a claimant the pack killed is the true one."""
    for seed in range(7, 40):
        state, table = tabula_started(Temper(reveal=0.0, bluff=1.0, hide=0.0))
        state = resolved(state, table, {0: engine.Order("inquire", (8,))})
        talking_cards(table, engine.phase(state), TABULA.aims(), Random(seed))
        named = next(target for target, _werewolf in table.square.results[3])
        if named not in (1, 2):
            break
    assert table.square.claimed.get(0) == table.square.claimed.get(3) == SEER
    state = tabula_day(state, table, 12)
    for seed in range(10):
        cards = talking_cards(table, engine.phase(state), TABULA.aims(), Random(seed))
        assert cards[1].targets[0] == 0 and cards[2].targets[0] == 0


OWLMAN = "owlman"
TWENTY_ONE = [SEER, WOLF, WOLF, WOLF, OWLMAN, *[VILLAGER] * 16]
"""Twenty-one Tabula seats, where the Owl-man's choice dies unless a wolf: the Seer at 0,
the wolves at 1, 2 and 3 (1 the alpha), the Owl-man at 4, villagers 5 to 20."""


def test_at_a_deadly_owls_table_the_owls_choice_who_lives_is_a_wolf() -> None:
    """Above 20 players the Owl-man's choice dies at dawn unless it is a Werewolf or the
    Werehamster: a player it chose who lives to be named a suspect is one of those, and
    every seat takes it for a wolf. At 20 players the choice is only a suspect."""
    for players, deadly in ((21, True), (20, False)):
        memory = Memory(5)
        remember(
            {5: memory},
            [
                engine.Event(
                    "game_set_up",
                    {"players": players, "wolves": 3, "seers": 1, "specials": [OWLMAN]},
                    engine.Audience.public(),
                ),
                engine.Event("owl_chose", {"seat": 9}, engine.Audience.public()),
            ],
            TABULA.lessons(),
        )
        assert (9 in memory.wolves) is deadly


def test_a_deadly_owl_marks_only_a_player_something_speaks_against() -> None:
    """At 21 players the Owl-man's guess would kill a villager more often than not: with
    nothing but its hunches to go on it hands in a blank card; once a Seer claimant named
    a player a wolf, it marks that player."""
    state, table = started(Temper(reveal=0.0, bluff=0.0, hide=0.0), TWENTY_ONE, "tabula", {"specials": OWLMAN})
    spec = engine.phase(state)
    assert spec.kind == "night" and spec.slots[4].card.kind == "owl"
    for seed in range(5):
        assert talking_cards(table, spec, TABULA.aims(), Random(seed))[4] == engine.SLEEP_ORDER
    table.square.say(Remark(1, 0, COMING_OUT, role=SEER))
    table.square.say(Remark(1, 0, DIVINED, 2, werewolf=True))
    for seed in range(5):
        assert talking_cards(table, spec, TABULA.aims(), Random(seed))[4] == engine.Order("owl", (2,))


def test_a_ghost_votes_in_the_accusation_as_it_would_have_said() -> None:
    """Tabula's ghosts vote in the accusation: the Seer, killed before it came out
    (`reveal` 0), still names the wolf it found."""
    state, table = tabula_started(Temper(reveal=0.0, bluff=0.0, hide=0.0))
    state = resolved(state, table, {0: engine.Order("inquire", (1,))})
    talking_cards(table, engine.phase(state), TABULA.aims(), Random(9))
    assert COMING_OUT not in {remark.kind for remark in table.square.remarks if remark.speaker == 0}
    state = tabula_day(state, table, 12)
    state = resolved(state, table, {1: engine.Order("kill", (0,)), 2: engine.Order("kill", (0,))})
    assert not state.alive[0]
    for seed in range(5):
        cards = talking_cards(table, engine.phase(state), TABULA.aims(), Random(seed))
        assert cards[0] == vote(1)


def test_lupusburgs_accusations_and_ballots_name_the_houses_of_the_player_the_talk_settled_on() -> None:
    """Lupusburg's cards name houses: each talking seat's votes go on the living houses
    of the player it said it would vote for (never its own), so the talk decides."""
    rules = rulesets.get("lupusburg")
    checked = 0
    for seed in range(4):
        rng = Random(seed)
        state, events = rules.setup(rules.options({}, 6), 6, rng.getrandbits(64))
        table = Table.seated(6, rng)
        remember(table.memories, events, rules.lessons())
        assert table.memories[PUBLIC_SEAT].houses == {house: house // 2 for house in range(12)}
        while state.winner is None:
            spec = engine.phase(state)
            cards = talking_cards(table, spec, rules.aims(), rng)
            if spec.kind == "day" and any(card.kind in ("accuse", "ballot") for card in cards.values()):
                for seat, card in cards.items():
                    if card.kind in ("accuse", "ballot") and seat in table.intentions:
                        houses = {*card.targets, *(value for _name, values in card.more for value in values)}
                        assert {house // 2 for house in houses} == {table.intentions[seat]} != {seat}
                        checked += 1
            state, events = engine.resolve(state, cards, rng, checked=True)
            remember(table.memories, events, rules.lessons())
    assert checked > 50


def test_a_counter_claim_makes_each_claimant_suspect_by_doubt() -> None:
    """Two claim the one Seer: each is trusted by half of `trust` and suspect by `doubt`
    times the chance, from the count alone, that it is the false one (a half)."""
    square = Square()
    for seat in (3, 4):
        square.say(Remark(1, seat, COMING_OUT, role=SEER))
    memory = Memory(6, counts={SEER: 1, WOLF: 2})
    for doubt in (0.0, 0.5, 1.0):
        temper = Temper(doubt=doubt)
        score = suspicion(memory, read(square, memory, temper.trust), square, [3, 4, 5, 6], temper)
        assert score[3] == score[4] == doubt * 0.5 - temper.trust / 2 and score[5] == 0.0


def test_a_claimant_borne_out_holds_its_place_and_leaves_its_rival_none() -> None:
    """Wolf 3 claimed the Seer in its own defence, naming villager 5; the real Seer 0
    answered, clearing villager 4. The pack killed the Seer: a player the pack killed is
    no wolf, so its claim is borne out, and with one Seer dealt, the other claimant has
    no place left (it is the false one by the count alone) and its word counts for
    nothing, whether or not its card is ever shown."""
    square = Square()
    square.say(Remark(1, 3, COMING_OUT, role=SEER))
    square.say(Remark(1, 3, DIVINED, 5, werewolf=True))
    square.say(Remark(1, 0, COMING_OUT, role=SEER))
    square.say(Remark(1, 0, DIVINED, 4, werewolf=False))
    memory = Memory(6, counts={SEER: 1, WOLF: 2}, dead={0}, cleared={0}, inquiring=SEER)
    claims = read(square, memory, TEMPER.trust)
    assert claims.proven == {0} and claims.weight[3] == 0.0 and claims.contested[3] == 1.0
    score = suspicion(memory, claims, square, [1, 2, 3, 4, 5, 6, 7], TEMPER)
    assert score[3] == TEMPER.doubt and score[5] == 0.0 and score[4] == -1.0
    # Where a Mythomaniac is dealt, it may have become a second Seer: the rival keeps
    # that place.
    memory.copies = 1
    claims = read(square, memory, TEMPER.trust)
    assert claims.proven == {0} and claims.weight[3] == TEMPER.trust and not claims.contested[3]


def test_a_claim_made_before_the_game_could_make_a_second_seer_holds_a_dealt_place() -> None:
    """Tabula's Mythomaniac may become a second Seer on the second night, so a Seer
    borne out may be that copy and leave its rival a place; but not one who claimed on
    the first day, before the copy could be made: the Possessed 3 who claimed beside
    the real Seer 0 that day has no place once the pack killed the Seer, while a rival
    who first claimed from the second day on (7) keeps the place the copy may hold."""
    square = Square()
    square.say(Remark(1, 3, COMING_OUT, role=SEER))
    square.say(Remark(1, 3, DIVINED, 5, werewolf=True))
    square.say(Remark(1, 0, COMING_OUT, role=SEER))
    square.say(Remark(1, 0, DIVINED, 4, werewolf=False))
    memory = Memory(6, counts={SEER: 1, WOLF: 3}, dead={0}, cleared={0}, inquiring=SEER, copies=1, copied_from=2)
    assert square.claimed_on == {3: 1, 0: 1}
    claims = read(square, memory, TEMPER.trust)
    assert claims.proven == {0} and claims.weight[3] == 0.0 and claims.contested[3] == 1.0
    square.say(Remark(3, 7, COMING_OUT, role=SEER))
    assert square.claimed_on == {3: 1, 0: 1, 7: 3}
    claims = read(square, memory, TEMPER.trust)
    assert claims.weight[3] == 0.0 and claims.contested[3] == 1.0
    assert claims.weight[7] == TEMPER.trust and not claims.contested[7]
    late = Square()
    late.say(Remark(2, 0, COMING_OUT, role=SEER))
    late.say(Remark(2, 3, COMING_OUT, role=SEER))
    assert late.claimed_on == {0: 2, 3: 2}
    claims = read(late, memory, TEMPER.trust)
    assert claims.proven == {0} and claims.weight[3] == TEMPER.trust and not claims.contested[3]
    # Nobody borne out: a late claim against a living one is a counter-claim, not a
    # copy's place taken (the Seer and a wolf who named it share one place).
    both = Square()
    both.say(Remark(1, 0, COMING_OUT, role=SEER))
    both.say(Remark(2, 3, COMING_OUT, role=SEER))
    alive = Memory(6, counts={SEER: 1, WOLF: 3}, inquiring=SEER, copies=1, copied_from=2)
    claims = read(both, alive, TEMPER.trust)
    assert claims.contested == {0: 0.5, 3: 0.5}


def test_a_fortune_tellers_reading_is_a_result_it_may_claim() -> None:
    """Luna Piena's Fortune-teller learns a character: the seat knows that role, whether
    it is a wolf, and keeps the answer to claim as the Seer claims its own."""
    memory = Memory(4, role="fortune_teller")
    remember(
        {4: memory},
        [engine.Event("character_read", {"seat": 4, "target": 2, "role": WOLF}, engine.Audience.of(4))],
        rulesets.get("lunapiena").lessons(),
    )
    assert memory.roles == {2: WOLF} and memory.wolves == {2} and memory.results == [(2, True)]


FORTUNE_TELLER = "fortune_teller"
READ_TEN = [SEER, WOLF, WOLF, FORTUNE_TELLER, HAMSTER, *[VILLAGER] * 5]
"""Ten Luna Piena seats: the Seer at 0, the wolves at 1 and 2 (1 the alpha), the
Fortune-teller at 3, the Werehamster at 4, villagers 5 to 9."""


def test_a_fortune_teller_who_read_the_werehamster_knows_a_foe_not_a_villager() -> None:
    """The Werehamster is no wolf, but it wins alone: the Fortune-teller who reads it
    does not clear it (it would vouch for the one player who beats both sides) but
    keeps it as a foe (`loners`), its top suspect, and the answer to claim."""
    memory = Memory(3, role=FORTUNE_TELLER)
    remember(
        {3: memory},
        [engine.Event("character_read", {"seat": 3, "target": 4, "role": HAMSTER}, engine.Audience.of(3))],
        rulesets.get("lunapiena").lessons(),
    )
    assert memory.roles == {4: HAMSTER} and memory.loners == {4}
    assert 4 not in memory.cleared and not memory.wolves and memory.results == [(4, False)]
    claims = read(Square(), memory, TEMPER.trust)
    assert suspicion(memory, claims, Square(), [0, 4, 5], TEMPER)[4] == CERTAIN


def test_a_fortune_teller_names_the_werehamster_it_read_and_the_village_lynches_it() -> None:
    """A Fortune-teller who read the Werehamster has a reason to come out (`reveal` 1):
    it claims its role and says which character it read ("no werewolf: the
    Werehamster", a `DIVINED` with the role), and the village, trusting the claim,
    accuses and votes for the Werehamster as it would for a wolf named. The Medium's
    "no werewolf" on it once lynched agrees with the claim: nobody takes the
    Fortune-teller for a liar."""
    lunapiena = rulesets.get("lunapiena")
    options = {"cards": [FORTUNE_TELLER, HAMSTER]}
    for seed in range(5):
        state, table = started(Temper(reveal=1.0, bluff=0.0, hide=0.0), READ_TEN, "lunapiena", options)
        state = resolved(
            state,
            table,
            {0: engine.Order("inquire", (5,)), 1: engine.Order("kill", (6,)), 3: engine.Order("read", (4,))},
        )
        cards = talking_cards(table, engine.phase(state), lunapiena.aims(), Random(seed))
        said = table.square.remarks
        assert Remark(1, 3, COMING_OUT, role=FORTUNE_TELLER) in said
        assert Remark(1, 3, DIVINED, 4, role=HAMSTER, werewolf=False) in said
        assert (3, 4) in table.square.loners
        for seat in (0, 5, 7, 8, 9):
            assert cards[seat].targets == (4,), (seed, seat, cards[seat])
        medium = Memory(7, counts={FORTUNE_TELLER: 1, SEER: 1}, dead={4})
        medium.results.append((4, False))
        medium.cleared.add(4)
        assert 3 not in read(table.square, medium, TEMPER.trust).liars


def test_a_seer_in_a_deck_with_the_werehamster_spreads_its_inquiries() -> None:
    """Where the setup announces a Werehamster (`alone`), which plays as a villager and
    dies only of a lynch or an inquiry, the Seer inquires a player it knows nothing of
    drawn at random, its top suspect no likelier than the rest; where it announces
    none, the Seer inquires its top suspect."""
    hamster_deck = [SEER, WOLF, WOLF, HAMSTER, *[VILLAGER] * 5]
    for roles, specials, alone in ((hamster_deck, "werehamster", 1), (THIRTEEN, "", 0)):
        chosen = set()
        for seed in range(20):
            state, table = tabula_started(TEMPER, roles, specials)
            assert table.memories[0].alone == alone and table.memories[5].alone == alone
            table.hunches[0] = {other: 0.2 if other == 5 else 0.0 for other in range(1, len(roles))}
            cards = talking_cards(table, engine.phase(state), TABULA.aims(), Random(seed))
            chosen.add(cards[0].targets[0])
        if alone:
            assert len(chosen) > 3 and 3 in chosen
        else:
            assert chosen == {5}


def test_a_seer_who_trusts_a_werehamster_named_inquires_it() -> None:
    """A Seer who heard the Fortune-teller name the Werehamster, and knows nothing of
    it, inquires it rather than spread its inquiries: the inquiry kills the
    Werehamster at dawn."""
    options = {"cards": [FORTUNE_TELLER, HAMSTER]}
    state, table = started(Temper(reveal=1.0, bluff=0.0, hide=0.0), READ_TEN, "lunapiena", options)
    inquiry = engine.phase(state).slots[0].card
    state = resolved(
        state, table, {0: engine.Order("inquire", (5,)), 1: engine.Order("kill", (6,)), 3: engine.Order("read", (4,))}
    )
    assert table.memories[0].alone == 1
    table.square.say(Remark(1, 3, COMING_OUT, role=FORTUNE_TELLER))
    table.square.say(Remark(1, 3, DIVINED, 4, role=HAMSTER, werewolf=False))
    table.step += 1
    slot = engine.Slot(inquiry, ((1, 2, 3, 4, 7, 8, 9),))
    for seed in range(10):
        assert _night_choice(table, 0, slot, "probe", state.living(), Random(seed)) == 4


def test_a_claimant_whose_votes_deny_its_claim_is_caught() -> None:
    """A claimant who named a player a werewolf, then on a day over said it would vote
    for someone else while that player still talked, is read as a liar; one who voted
    for the wolf it named is not, nor is anyone while the day is still talked."""
    square = Square()
    square.say(Remark(1, 0, COMING_OUT, role=SEER))
    square.say(Remark(1, 0, DIVINED, 1, werewolf=True))
    square.say(Remark(1, 2, COMING_OUT, role=SEER))
    square.say(Remark(1, 2, DIVINED, 0, werewolf=True))
    for seat, target in ((0, 1), (1, 0), (2, 5), (5, 1)):
        square.say(Remark(1, seat, VOTE, target))
    assert not square.belied(2)
    square.say(Remark(2, 4, ESTIMATE, 1))
    assert square.belied(2) and not square.belied(0)
    memory = Memory(5)
    memory.counts.update({SEER: 1})
    claims = read(square, memory, TEMPER.trust)
    assert 2 in claims.liars and 0 not in claims.liars


def test_the_ballot_between_two_suspects_follows_the_days_talk() -> None:
    """Tabula's ballot: the suspects write no card but still weigh in the voters'
    beliefs, and each voter picks between them as the talk settled: after the Seer
    named wolf 1 (`reveal` 1), every villager's ballot names wolf 1."""
    for seed in range(5):
        state, table = tabula_started(Temper(reveal=1.0, bluff=0.0, hide=0.0))
        state = resolved(state, table, {0: engine.Order("inquire", (1,))})
        state = resolved(state, table, talking_cards(table, engine.phase(state), TABULA.aims(), Random(seed)))
        slots = engine.phase(state).slots
        assert 1 not in slots and len(slots) == len(state.living()) - 2
        cards = talking_cards(table, engine.phase(state), TABULA.aims(), Random(seed))
        for seat in set(slots) - {1, 2, 3}:
            assert cards[seat] == engine.Order("ballot", (1,)), (seed, seat)


def test_a_seer_who_found_a_wolf_comes_out_when_the_village_cannot_wait() -> None:
    """A Seer that would keep quiet (`reveal` 0) holds its wolf back while the village
    can afford a wrong lynch; once one wrong lynch and one night kill would leave the
    wolves as many as the others (six alive, two wolves), it comes out before anyone
    votes."""
    state, table = started(Temper(reveal=0.0, bluff=0.0, hide=0.0))
    state = night_one(state, table)
    talking_cards(table, engine.phase(state), CLASSIC.aims(), Random(3))
    remarks = table.square.remarks
    first_vote = next(number for number, remark in enumerate(remarks) if remark.kind == VOTE)
    assert Remark(1, 0, COMING_OUT, role=SEER) not in remarks[:first_vote]
    state, table = started(Temper(reveal=0.0, bluff=0.0, hide=0.0))
    state = night_one(state, table)
    state = resolved(state, table, {seat: vote(5 if seat == 4 else 4) for seat in state.living()})
    state = resolved(state, table, {0: engine.Order("inquire", (6,)), 1: engine.Order("kill", (5,))})
    assert len(state.living()) == 6
    talking_cards(table, engine.phase(state), CLASSIC.aims(), Random(3))
    remarks = table.square.remarks
    first_vote = next(number for number, remark in enumerate(remarks) if remark.kind == VOTE)
    assert Remark(2, 0, COMING_OUT, role=SEER) in remarks[:first_vote]
    assert Remark(2, 0, DIVINED, 1, werewolf=True) in remarks


LUPUSBURG = rulesets.get("lupusburg")


def lupusburg(seed: int, players: int = 6) -> tuple[State, Table]:
    """A Lupusburg game dealt from `seed` (a night first) and its talking table."""
    state, events = LUPUSBURG.setup(LUPUSBURG.options({}, players), players, seed)
    table = Table.seated(players, Random(seed))
    remember(table.memories, events, LUPUSBURG.lessons())
    return state, table


def werewolfs_houses(state: State) -> tuple[int, int, int]:
    """The Werewolf's seat, the house of his Werewolf and that of his other character."""
    wolf = state.rules.seat_of(WEREWOLF)
    mark = state.rules.characters.index(WEREWOLF)
    return wolf, mark, 4 * wolf + 1 - mark


def test_a_lupusburg_player_learns_the_characters_it_sees_and_the_werewolf_who_saw_his() -> None:
    """Each player knows its own characters under their houses (whether each is the
    Werewolf); a character shown to a player is known under its house; the Werewolf
    learns who was shown his Werewolf."""
    state, table = lupusburg(3)
    wolf, mark, other = werewolfs_houses(state)
    assert table.memories[wolf].characters == {mark: True, other: False}
    seer = (wolf + 1) % 6
    shown = Event(
        "character_shown", {"seat": wolf, "house": mark, "role": WEREWOLF, "to": seer}, Audience.of(seer, wolf)
    )
    remember(table.memories, [shown], LUPUSBURG.lessons())
    assert table.memories[seer].characters[mark] is True and wolf in table.memories[seer].wolves
    assert table.memories[wolf].exposed == {seer}
    assert not table.memories[PUBLIC_SEAT].characters and not table.memories[PUBLIC_SEAT].exposed


def lupusburg_played(seed: int) -> Iterator[tuple[State, engine.PhaseSpec, dict[int, engine.Order], int]]:
    """A whole Lupusburg game of talking bots: each step's state, its spec, the cards the
    bots wrote for it (before it resolves) and the Werewolf's seat."""
    state, table = lupusburg(seed)
    wolf = state.rules.seat_of(WEREWOLF)
    while state.winner is None:
        spec = engine.phase(state)
        cards = talking_cards(table, spec, LUPUSBURG.aims(), Random(seed))
        yield state, spec, cards, wolf
        state, events = engine.resolve(state, cards, Random(seed), checked=True)
        remember(table.memories, events, LUPUSBURG.lessons())


def test_the_werewolf_never_claws_his_own_house_while_another_is_left() -> None:
    """A person holding the Werewolf slaughters others' characters, not his own: every
    claw falls on another player's house."""
    for seed in range(20):
        for state, spec, cards, wolf in lupusburg_played(seed):
            if spec.kind == "night" and len(state.rules.alive_houses(wolf)) < sum(state.rules.living):
                assert cards[wolf].kind == "claw" and cards[wolf].targets[0] // 2 != wolf, seed


def test_the_werewolf_claws_first_the_player_who_saw_his_werewolf() -> None:
    """A Burgomaster shown the Werewolf knows who holds it: the Werewolf slaughters that
    player's characters first."""
    for seed in range(10):
        state, table = lupusburg(seed)
        wolf, mark, _other = werewolfs_houses(state)
        seer = (wolf + 2) % 6
        data = {"seat": wolf, "house": mark, "role": WEREWOLF, "to": seer}
        remember(table.memories, [Event("character_shown", data, Audience.of(seer, wolf))], LUPUSBURG.lessons())
        cards = talking_cards(table, engine.phase(state), LUPUSBURG.aims(), Random(seed))
        assert cards[wolf].targets[0] // 2 == seer


def test_the_werewolf_shows_his_other_character_never_his_werewolf() -> None:
    """Asked to show one of his characters (the Burgomaster's back, or the goals
    edition's player asked), the Werewolf shows the one that gives nothing away."""
    for seed in range(10):
        state, table = lupusburg(seed)
        wolf, mark, other = werewolfs_houses(state)
        others = tuple(house for house in range(12) if house // 2 != wolf)
        living = list(range(6))
        for slot in (engine.Slot(PRIVILEGE, (others, (), (mark, other))), engine.Slot(SHOW, ((mark, other),))):
            card = _house_card(table, wolf, slot, LUPUSBURG.aims().get(slot.card.kind), living, Random(seed))
            assert card is not None
            shown = card.field("back") if slot.card is PRIVILEGE else card.targets
            assert shown == (other,), seed


def test_the_burgomaster_looks_under_an_unseen_house_of_the_player_it_suspects_most() -> None:
    """The Burgomaster's privilege goes where it learns most: a house of its top
    suspect whose character it has not seen yet."""
    state, table = lupusburg(4)
    wolf = state.rules.seat_of(WEREWOLF)
    mayor, suspect = [seat for seat in range(6) if seat != wolf][:2]
    table.hunches[mayor] = {other: (0.2 if other == suspect else 0.0) for other in range(6) if other != mayor}
    table.memories[mayor].characters[2 * suspect] = False
    others = tuple(house for house in range(12) if house // 2 != mayor)
    slot = engine.Slot(PRIVILEGE, (others, (), (2 * mayor, 2 * mayor + 1)))
    for seed in range(5):
        card = _house_card(table, mayor, slot, "probe", list(range(6)), Random(seed))
        assert card is not None and card.targets == (2 * suspect + 1,)


def test_the_werewolf_turns_the_days_votes_on_others_houses() -> None:
    """The Werewolf talks and votes as an innocent player would: his accusation and his
    ballot go on another player's houses, never his own, and when one of his houses is
    a suspect his ballot goes on the other suspect."""
    checked = suspected = 0
    for seed in range(20):
        for state, _spec, cards, wolf in lupusburg_played(seed):
            card = cards.get(wolf)
            if card is not None and card.kind in ("accuse", "ballot"):
                named = {*card.targets, *card.field("also")}
                assert named and all(house // 2 != wolf for house in named), seed
                if card.kind == "ballot" and any(house // 2 == wolf for house in state.rules.suspects):
                    assert named == {house for house in state.rules.suspects if house // 2 != wolf}
                    suspected += 1
                checked += 1
    assert checked > 40 and suspected > 3


def test_a_day_that_would_repeat_the_last_tied_one_breaks_its_tie() -> None:
    """The same players alive and the same votes, tied, as the day before: one voter on
    a tied player joins the other, so a tie that eliminates nobody cannot repeat for
    ever; a day unlike the last is left as said."""
    from werewolf.engine.talkers import _unstall

    _state, table = started(TEMPER)
    living = [0, 3, 4, 5]
    votes = {0: 3, 3: 0, 4: 0, 5: 3}
    _unstall(table, 2, living, dict(votes), Random(0))
    again = dict(votes)
    _unstall(table, 3, living, again, Random(0))
    assert Counter(again.values()).most_common(1)[0][1] == 3
    assert sum(1 for seat in votes if again[seat] != votes[seat]) == 1


def test_a_pack_whose_every_prey_lived_through_its_choice_tries_the_one_chosen_longest_ago() -> None:
    """A guard that never moves is a guard found: when every player left lived through
    the pack's choice once, the pack hunts the one it chose longest ago."""
    from werewolf.engine.cards import Slot
    from werewolf.engine.rulesets.classic import KILL
    from werewolf.engine.talkers import _night_choice

    _state, table = started(TEMPER)
    memory = table.memories[1]
    memory.chosen.extend([4, 3, 4])
    choice = _night_choice(table, 1, Slot(KILL, ((3, 4),)), "hostile", [1, 2, 3, 4], Random(0))
    assert choice == 3


# Each decision of docs/lab.md's "How a seat decides" not tested above, one by one.


def test_a_seer_who_came_out_says_each_new_result_whatever_its_temper() -> None:
    """Once out, the Seer says each new result the next day, a "no wolf" too, though it
    found no living wolf then and would not come out anew (`reveal` 0)."""
    state, table = started(Temper(reveal=1.0, bluff=0.0, hide=0.0))
    state = night_one(state, table)
    state = resolved(state, table, talking_cards(table, engine.phase(state), CLASSIC.aims(), Random(0)))
    assert not state.alive[1] and 0 in table.out
    state = resolved(state, table, {0: engine.Order("inquire", (4,)), 2: engine.Order("kill", (5,))})
    table.temper = Temper(reveal=0.0, bluff=0.0, hide=0.0)
    talking_cards(table, engine.phase(state), CLASSIC.aims(), Random(0))
    assert Remark(2, 0, DIVINED, 4, werewolf=False) in table.square.remarks
    assert Remark(2, 0, COMING_OUT, role=SEER) not in table.square.remarks


def test_the_freemasons_come_out_when_another_claims_their_role() -> None:
    """A seat outside the lodge claims to be a Freemason: each Freemason (`reveal` 1)
    comes out and vouches for its fellow, and knows the claimant lied (the lodge is
    two, and it knows both)."""
    state, table = tabula_started(Temper(reveal=1.0, bluff=0.0, hide=0.0))
    state = resolved(state, table, {0: engine.Order("inquire", (8,))})
    table.square.say(Remark(1, 9, COMING_OUT, role=MASON))
    talking_cards(table, engine.phase(state), TABULA.aims(), Random(4))
    said = table.square.remarks
    for mason, other in ((4, 5), (5, 4)):
        assert Remark(1, mason, COMING_OUT, role=MASON) in said
        assert Remark(1, mason, DIVINED, other, werewolf=False) in said
        assert 9 in read(table.square, table.memories[mason], TEMPER.trust).liars


def test_a_hiding_wolf_accuses_whoever_accused_its_pack_most() -> None:
    """The Seer came out naming wolf 1 and accused it; each wolf who hides (`hide` 1)
    accuses the Seer, the one who accused its pack; with nobody accusing the pack, it
    accuses a player outside it."""
    state, table = started(Temper(reveal=1.0, bluff=0.0, hide=1.0))
    state = night_one(state, table)
    talking_cards(table, engine.phase(state), CLASSIC.aims(), Random(0))
    said = table.square.remarks
    assert Remark(1, 0, ESTIMATE, 1) in said
    assert Remark(1, 1, ESTIMATE, 0) in said and Remark(1, 2, ESTIMATE, 0) in said
    for seed in range(5):
        state, table = started(Temper(reveal=0.0, bluff=0.0, hide=1.0))
        state = resolved(state, table, {0: engine.Order("inquire", (4,)), 1: engine.Order("kill", (3,))})
        talking_cards(table, engine.phase(state), CLASSIC.aims(), Random(seed))
        accused = [remark.target for remark in table.square.today(1, ESTIMATE) if remark.speaker in (1, 2)]
        assert len(accused) == 2 and not {1, 2} & set(accused)


def test_the_possessed_accuses_the_seer_who_came_out_and_the_werehamster_the_squares_suspect() -> None:
    """The Possessed (not bluffing, `bluff` 0) accuses the open Seer claimant, its side's
    greatest threat; the Werehamster accuses the square's top suspect, the wolf the Seer
    named."""
    state, table = tabula_started(Temper(reveal=1.0, bluff=0.0, hide=0.0))
    state = resolved(state, table, {0: engine.Order("inquire", (1,))})
    talking_cards(table, engine.phase(state), TABULA.aims(), Random(1))
    assert [remark.target for remark in table.square.today(1, ESTIMATE) if remark.speaker == 3] == [0]
    roles = [SEER, WOLF, WOLF, HAMSTER, *[VILLAGER] * 5]
    state, table = tabula_started(Temper(reveal=1.0, bluff=0.0, hide=0.0), roles, "werehamster")
    state = resolved(state, table, {0: engine.Order("inquire", (1,))})
    talking_cards(table, engine.phase(state), TABULA.aims(), Random(1))
    assert [remark.target for remark in table.square.today(1, ESTIMATE) if remark.speaker == 3] == [1]


def test_the_pack_neither_accuses_nor_hunts_again_the_guarded_seer_it_could_not_kill() -> None:
    """The Bodyguard guarded the Seer who came out and the pack's kill failed: the pack
    does not turn the square on it (the square trusts a claimant) and hunts others."""
    state, table = tabula_started(Temper(reveal=1.0, bluff=0.0, hide=0.0))
    state = resolved(state, table, {0: engine.Order("inquire", (1,))})
    talking_cards(table, engine.phase(state), TABULA.aims(), Random(5))
    state = tabula_day(state, table, 12)
    night = {6: engine.Order("protect", (0,)), 1: engine.Order("kill", (0,)), 2: engine.Order("kill", (0,))}
    state = resolved(state, table, {**night, 0: engine.Order("inquire", (2,))})
    assert state.alive[0] and len(state.living()) == 12
    talking_cards(table, engine.phase(state), TABULA.aims(), Random(5))
    assert not [remark for remark in table.square.today(2, ESTIMATE) if remark.speaker in (1, 2) and remark.target == 0]
    state = tabula_day(state, table, 11)
    for seed in range(5):
        cards = talking_cards(table, engine.phase(state), TABULA.aims(), Random(seed))
        assert cards[1].targets[0] != 0 and cards[2].targets[0] != 0


def test_a_wolf_leading_the_square_claims_the_seer_and_names_its_first_accuser() -> None:
    """Wolf 1 leads the square's first round (every seat's hunch is on it): it bluffs
    (`bluff` 1), claiming the Seer and naming as a wolf the first who said they would
    vote for it; the real Seer, hidden (`reveal` 0), answers at once. Before that, every
    villager accused its own top suspect, wolf 1."""
    state, table = started(Temper(reveal=0.0, bluff=1.0, hide=0.0))
    state = night_one(state, table)
    for seat in range(9):
        table.hunches[seat] = {other: 5.0 if other == 1 else 0.0 for other in range(9) if other != seat}
    talking_cards(table, engine.phase(state), CLASSIC.aims(), Random(6))
    said = table.square.remarks
    assert all(Remark(1, seat, ESTIMATE, 1) in said for seat in (0, 4, 5, 6, 7, 8))
    claim = said.index(Remark(1, 1, COMING_OUT, role=SEER))
    first = next(remark.speaker for remark in said if remark.kind == VOTE and remark.target == 1)
    assert said[claim + 1] == Remark(1, 1, DIVINED, first, werewolf=True)
    assert said.index(Remark(1, 0, COMING_OUT, role=SEER)) > claim


def pack_at_night(roles: list[str] = ROLES) -> tuple[State, Table]:
    """A classic game at its second night, after a first night (the Seer looked at
    villager 4, the pack killed villager 3) and a day whose votes were written by hand
    (no lynch), and nothing said in the square."""
    state, table = started(Temper(reveal=0.0, bluff=0.0, hide=0.0), roles)
    state = resolved(state, table, {0: engine.Order("inquire", (4,)), 1: engine.Order("kill", (3,))})
    state = resolved(state, table, {seat: vote(seat) for seat in state.living()})
    assert engine.phase(state).kind == "night" and len(state.living()) == 8
    return state, table


def test_the_pack_hunts_its_most_insistent_accuser_then_the_player_the_square_trusts_most() -> None:
    """With no claimant to hunt, the pack chooses whoever accused its members most;
    with no accuser, the player the square trusts most (a player a claimant, now dead,
    called no wolf, its lynched card hidden)."""
    state, table = pack_at_night()
    for speaker, target in ((6, 1), (6, 2), (7, 1), (5, 8)):
        table.square.say(Remark(1, speaker, ESTIMATE, target))
    for seed in range(5):
        cards = talking_cards(table, engine.phase(state), CLASSIC.aims(), Random(seed))
        assert cards[1].targets[0] == 6 and cards[2].targets[0] == 6
    state, table = tabula_started(Temper(reveal=0.0, bluff=0.0, hide=0.0))
    state = resolved(state, table, {0: engine.Order("inquire", (8,))})
    table.square.say(Remark(1, 12, COMING_OUT, role=SEER))
    table.square.say(Remark(1, 12, DIVINED, 9, werewolf=False))
    state = tabula_day(state, table, 12)
    for seed in range(5):
        cards = talking_cards(table, engine.phase(state), TABULA.aims(), Random(seed))
        assert cards[1].targets[0] == 9 and cards[2].targets[0] == 9


def test_the_pack_hunts_a_claimant_of_another_role_when_nobody_claims_the_seer() -> None:
    """The Freemasons came out in their defence; nobody claims the Seer: the pack hunts
    one of them (a claimant whose word it cannot fault), not whoever else."""
    state, table = tabula_started(Temper(reveal=1.0, bluff=0.0, hide=0.0))
    state = resolved(state, table, {0: engine.Order("inquire", (8,))})
    for seat in range(13):
        table.hunches[seat] = {other: 5.0 if other == 4 else 0.0 for other in range(13) if other != seat}
    talking_cards(table, engine.phase(state), TABULA.aims(), Random(4))
    assert {4, 5} <= set(table.square.claimed) and SEER not in table.square.claimed.values()
    state = tabula_day(state, table, 12)
    for seed in range(5):
        cards = talking_cards(table, engine.phase(state), TABULA.aims(), Random(seed))
        assert cards[1].targets[0] in (4, 5)


def test_the_seer_looks_at_the_most_suspect_player_it_knows_nothing_of() -> None:
    """The Seer's inquiry goes to its top suspect among the players it knows nothing
    of: a player it cleared is passed over, however suspect it seems."""
    state, table = started(Temper(reveal=0.0, bluff=0.0, hide=0.0))
    table.hunches[0] = {other: 0.0 for other in range(1, 9)} | {6: 0.2, 7: 0.1}
    for seed in range(5):
        assert talking_cards(table, engine.phase(state), CLASSIC.aims(), Random(seed))[0].targets == (6,)
    table.memories[0].cleared.add(6)
    table.step += 1
    for seed in range(5):
        assert talking_cards(table, engine.phase(state), CLASSIC.aims(), Random(seed))[0].targets == (7,)


def test_a_bodyguard_with_no_seer_to_guard_guards_the_player_it_trusts_most() -> None:
    """Nobody claims the Seer: the Bodyguard guards the player it suspects least."""
    state, table = tabula_started(Temper(reveal=0.0, bluff=0.0, hide=0.0))
    state = resolved(state, table, {0: engine.Order("inquire", (8,))})
    state = tabula_day(state, table, 12)
    assert not table.square.claimed
    table.hunches[6] = {other: 0.2 for other in range(13) if other != 6} | {9: 0.0}
    for seed in range(5):
        assert talking_cards(table, engine.phase(state), TABULA.aims(), Random(seed))[6] == engine.Order(
            "protect", (9,)
        )


def test_the_mythomaniac_points_at_the_seer_who_came_out() -> None:
    """Tabula's Mythomaniac (its card friendly) points on its night at the Seer who came
    out, the player it trusts most, whose role it would take."""
    roles = [SEER, WOLF, WOLF, "mythomaniac", *[VILLAGER] * 5]
    state, table = tabula_started(Temper(reveal=1.0, bluff=0.0, hide=0.0), roles, "mythomaniac")
    state = resolved(state, table, {0: engine.Order("inquire", (1,))})
    talking_cards(table, engine.phase(state), TABULA.aims(), Random(1))
    assert table.square.claimed.get(0) == SEER
    state = tabula_day(state, table, 8)
    spec = engine.phase(state)
    assert spec.slots[3].card.kind == "mimic"
    for seed in range(5):
        assert talking_cards(table, spec, TABULA.aims(), Random(seed))[3].targets == (0,)


def test_the_owlman_marks_its_top_suspect_at_a_table_where_its_choice_does_not_die() -> None:
    """At 12 players the Owl-man's choice is only made a suspect: it marks its top
    suspect, the wolf a Seer claimant named."""
    roles = [SEER, WOLF, WOLF, OWLMAN, *[VILLAGER] * 8]
    state, table = started(Temper(reveal=0.0, bluff=0.0, hide=0.0), roles, "tabula", {"specials": OWLMAN})
    spec = engine.phase(state)
    assert spec.slots[3].card.kind == "owl" and not table.memories[3].deadly
    table.square.say(Remark(1, 0, COMING_OUT, role=SEER))
    table.square.say(Remark(1, 0, DIVINED, 2, werewolf=True))
    for seed in range(5):
        assert talking_cards(table, spec, TABULA.aims(), Random(seed))[3] == engine.Order("owl", (2,))


def test_a_one_shot_shooter_fires_at_its_top_suspect() -> None:
    """Classic's Vigilante shoots the player it suspects most: the wolf the Seer
    claimant named."""
    roles = [SEER, WOLF, WOLF, VILLAGER, "vigilante", *[VILLAGER] * 4]
    state, table = started(Temper(reveal=0.0, bluff=0.0, hide=0.0), roles, "classic", {"vigilante": True})
    state = night_one(state, table)
    state = resolved(state, table, {seat: vote(seat) for seat in state.living()})
    table.square.say(Remark(1, 0, COMING_OUT, role=SEER))
    table.square.say(Remark(1, 0, DIVINED, 2, werewolf=True))
    spec = engine.phase(state)
    assert spec.slots[4].card.kind == "shoot"
    for seed in range(5):
        assert talking_cards(table, spec, CLASSIC.aims(), Random(seed))[4].targets == (2,)


def test_a_vote_once_cast_for_a_wolf_speaks_for_its_voter() -> None:
    """Each vote a seat once cast for a player later shown a wolf lowers its voter's
    suspicion by `votes`; a vote for anyone else counts for nothing."""
    memory = Memory(5, wolves={1}, votes=[(6, 1), (6, 1), (7, 3)])
    score = suspicion(memory, read(Square(), memory, TEMPER.trust), Square(), [0, 2, 3, 4, 5, 6, 7], TEMPER)
    assert score[6] == -2 * TEMPER.votes and score[7] == 0.0


def test_a_claimant_of_two_roles_is_a_liar() -> None:
    """Whoever claims two roles lies in one of them: every seat reads it so."""
    square = Square()
    square.say(Remark(1, 3, COMING_OUT, role=SEER))
    square.say(Remark(2, 3, COMING_OUT, role=MEDIUM))
    assert 3 in read(square, Memory(6, counts={SEER: 1, MEDIUM: 1}), TEMPER.trust).liars


def test_a_claimant_whose_named_wolf_is_shown_a_wolf_is_borne_out() -> None:
    """A claimant who named a player a werewolf is borne out once that player is known
    to be one (its card shown); its rival, who called that player innocent, lied."""
    square = Square()
    square.say(Remark(1, 3, COMING_OUT, role=SEER))
    square.say(Remark(1, 3, DIVINED, 1, werewolf=True))
    square.say(Remark(1, 4, COMING_OUT, role=SEER))
    square.say(Remark(1, 4, DIVINED, 1, werewolf=False))
    memory = Memory(6, counts={SEER: 1, WOLF: 2}, wolves={1}, roles={1: WOLF})
    claims = read(square, memory, TEMPER.trust)
    assert claims.proven == {3} and claims.liars == {4}


def test_the_possessed_and_the_werehamster_vote_from_the_squares_view_not_their_own() -> None:
    """A seat outside the village's side votes as the square's view says, never from a
    hunch of its own: the Possessed and the Werehamster, each privately sure of villager
    7, vote for the wolf the Seer named, as the square does."""
    for roles, specials in ((THIRTEEN, ""), ([SEER, WOLF, WOLF, HAMSTER, *[VILLAGER] * 5], "werehamster")):
        state, table = tabula_started(Temper(reveal=1.0, bluff=0.0, hide=0.0), roles, specials)
        table.hunches[3] = {other: 5.0 if other == 7 else 0.0 for other in range(len(roles)) if other != 3}
        state = resolved(state, table, {0: engine.Order("inquire", (1,))})
        cards = talking_cards(table, engine.phase(state), TABULA.aims(), Random(1))
        assert table.intentions[3] == 1 and cards[3].targets == (1,), specials


def test_with_no_seer_claimed_the_possessed_names_the_player_the_square_trusts_most() -> None:
    """The Possessed claims the Seer (`bluff` 1) on a day nobody claimed it: it names as
    a wolf a player the square trusts most, here the Medium claimant 7 or the player 8
    the Medium called no wolf, never anyone else."""
    named = set()
    for seed in range(8):
        state, table = tabula_started(Temper(reveal=0.0, bluff=1.0, hide=0.0))
        state = resolved(state, table, {0: engine.Order("inquire", (9,))})
        table.square.say(Remark(1, 7, COMING_OUT, role=MEDIUM))
        table.square.say(Remark(1, 7, DIVINED, 8, werewolf=False))
        talking_cards(table, engine.phase(state), TABULA.aims(), Random(seed))
        assert table.square.claimed.get(3) == SEER
        ((target, werewolf),) = table.square.results[3]
        assert werewolf and target in (7, 8), seed
        named.add(target)
    assert named == {7, 8}


class _Recorded:
    """A memory that notes each of its fields looked at."""

    def __init__(self, memory: Memory) -> None:
        self.memory, self.looked = memory, set[str]()

    def __getattr__(self, name: str) -> object:
        self.looked.add(name)
        return getattr(self.memory, name)


def test_a_reading_looks_at_nothing_of_a_memory_but_its_grounds(monkeypatch) -> None:
    """`speech.grounds` holds all that `read` looks at of a memory: a seat keeps its
    reading past the step while its grounds and the square's claims stay as they were
    (`Table.believes`), so a field `read` looked at beyond them would leave a seat
    believing what it no longer reads so. Whole games of the rulesets whose bots talk."""
    from werewolf.engine import talkers
    from werewolf.engine.speech import grounds

    looked: set[str] = set()
    grounded: set[str] = set()

    def recorded(square: Square, memory: Memory, trust: float):  # type: ignore[no-untyped-def]
        reading, ground = _Recorded(memory), _Recorded(memory)
        grounds(ground)  # type: ignore[arg-type]
        claims = read(square, reading, trust)  # type: ignore[arg-type]
        looked.update(reading.looked)
        grounded.update(ground.looked)
        return claims

    monkeypatch.setattr(talkers, "read", recorded)
    for ruleset, players in [("tabula", 12), ("tabula", 24), ("lunapiena", 12), ("classic", 12), ("mafia", 13)]:
        simulate(ruleset, players, {}, 10, 1, strategy=TALK)
    assert {"dead", "roles", "cleared", "wolves", "counts"} <= looked
    assert looked <= grounded, looked - grounded
