"""Bots that talk as players do: they claim, accuse and follow the square before voting.

Each seat keeps its `Memory` (engine/people.py: what the events it may see taught it,
through its ruleset's `lessons`) and reads the public `Square` of remarks
(engine/speech.py). From both it keeps a suspicion of every other living seat
(`suspicion`): a wolf it knows of, or a claimant it has seen lie, is all but certain; a
player cleared or a claimant borne out, all but trusted; a result claimed by a claimant
still open counts as far as the seat trusts the claim, and so does the claim itself
for its claimant's innocence; a counter-claim makes each claimant suspect by `doubt`
times the chance, from the count alone, that it is the false one; a vote
once cast for a player later shown to be a wolf speaks for its voter.

A day is talked before anyone votes (`day_talk`): an inquirer who found a wolf (or saw
its role claimed by another) reveals itself, with its results, at a chance; a pack whose
member was named by a claimant counter-claims the role at a chance, naming the claimant
instead; then every seat says whom it will vote for, three times, each time following the
square's leaders a little (`Temper.follow`) unless its own evidence weighs more, and the
leading suspect, if it is the hidden inquirer, defends itself by revealing. Its last word
is its vote. A wolf speaks as an uninformed villager would (the square's public view) and
never names its pack. At night the pack hunts the open claimant of an inquiring role first,
then the player the square trusts most; an inquirer looks at the most suspect player it
knows nothing of (where the setup deals a Werehamster, whom only an inquiry kills at
night, the Seer looks at one named so, else at any such player drawn at random); a
protector guards the player it trusts most.

Every choice draws from the game's seeded `Random`, in seat order, so a game replays
identically from its seed. The handful of numbers that shape the play are `Temper`'s,
documented in docs/lab.md with the figures they were calibrated on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from random import Random

from .abilities import BLOCK
from .bots import named_card
from .cards import SLEEP, SLEEP_ORDER, Slot
from .orders import TARGETS, Order
from .people import ALLY, Aim, Memory, found, people_card
from .speech import COMING_OUT, DIVINED, ESTIMATE, VOTE, Claims, Kind, Remark, Square, grounds, read
from .state import PhaseSpec

PUBLIC_SEAT = -1
"""The memory of nobody in particular: what every seat knows (public events only), the
view a wolf speaks from."""

CERTAIN = 10.0
"""The suspicion of a wolf known for one (minus: a player known to be innocent)."""

ROUNDS = 3
"""How many times each seat says whom it will vote for before it votes."""


@dataclass(frozen=True, slots=True)
class Temper:
    """The few numbers that shape how the bots talk (docs/lab.md gives each value and
    why): `reveal`, the chance, each day, that an inquirer with a reason to come out
    (a wolf found alive, its role claimed by another) does so; `trust`, how far a seat
    trusts a claim nobody contests, as the suspicion one claimed result moves; `bluff`,
    the chance that a pack named by a claimant counter-claims the claimant's role;
    `hide`, the chance, each day, that a wolf votes with the square even when its
    leading suspect is a packmate (a wolf who never votes for a packmate gives itself
    away once that packmate's card is shown); `follow`, how far a seat without stronger
    evidence follows the square's leading suspect (the weight of a whole square's
    votes); `votes`, how far a vote once cast for a player later shown to be a wolf
    clears its voter; `hunch`, the largest private hunch a seat holds about another;
    `doubt`, how far a counter-claimed claimant is suspect, times the chance, from the
    count alone, that it is the false one."""

    reveal: float = 0.7
    trust: float = 0.7
    bluff: float = 0.5
    hide: float = 0.5
    follow: float = 0.8
    votes: float = 0.1
    hunch: float = 0.2
    doubt: float = 0.5


TEMPER = Temper()
"""The bots' temper, calibrated on classic's suggested tables, `doubt` on Lupus in
Tabula's at 12 and 16 players (docs/lab.md)."""


@dataclass(slots=True)
class Table:
    """What the talking bots of one game share: the square, each seat's memory (and
    the public one, `PUBLIC_SEAT`), the seats that came out, the packs' false claims,
    and the last intentions said (for the day's rounds)."""

    memories: dict[int, Memory]
    square: Square = field(default_factory=Square)
    out: set[int] = field(default_factory=set)
    intentions: dict[int, int] = field(default_factory=dict)
    talked: int = 0
    """The last day talked over (its second step talks without claiming anew)."""
    weighed: set[tuple[int, int]] = field(default_factory=set)
    """The (claimant, wolf named) pairs a pack has weighed a bluff against, once each."""
    temper: Temper = TEMPER
    hunches: dict[int, dict[int, float]] = field(default_factory=dict)
    """Each seat's own hunch about each other seat, drawn once a game (`seated`)."""
    step: int = 0
    """How many steps the bots have written cards for: memories change only between
    steps, so a seat's beliefs are kept (`believed`) until the step or the square's
    claims change, and past the step while what they were drawn from stays as it was."""
    believed: dict[int, Belief] = field(default_factory=dict)
    blocks: dict[int, int] = field(default_factory=dict)
    """The last night's roleblocks, as (blocker, blocked), and `dead_at_dusk`, how many
    the public knew dead before that night (`_read_blocks`)."""
    dead_at_dusk: int = 0
    last_day: tuple[tuple[int, ...], tuple[tuple[int, int], ...]] = ((), ())
    """The living and their votes at the end of the last day talked (`_unstall`)."""

    @classmethod
    def seated(cls, players: int, rng: Random, temper: Temper = TEMPER) -> Table:
        """The table of a game of `players` seats, with the public memory, and each
        seat's hunches drawn up to `temper.hunch`, seat by seat."""
        memories = {seat: Memory(seat) for seat in (PUBLIC_SEAT, *range(players))}
        hunches = {
            seat: {other: rng.random() * temper.hunch for other in range(players) if other != seat}
            for seat in range(players)
        }
        return cls(memories, temper=temper, hunches=hunches)

    def believes(self, seat: int, living: Sequence[int]) -> tuple[Claims, dict[int, float]]:
        """How `seat` reads the square's claims, and its suspicion of each living seat,
        its hunches included (kept until the step or the square's claims change; not
        to be changed by the caller)."""
        square = self.square
        key = (self.step, square.claims)
        kept = self.believed.get(seat)
        if kept is not None and kept.key == key:
            return kept.claims, kept.score
        memory = self.memories[seat]
        known, alive, votes = grounds(memory), tuple(living), len(memory.votes)
        if kept is not None and kept.key[1] == square.claims and kept.grounds == known:
            # A step later, with no claim and nothing learnt that the reading looks at
            # (the day's votes, say): the same reading, and the same suspicion unless
            # the living or the votes it weighs changed (those for a known wolf).
            claims = kept.claims
            if kept.living == alive and (kept.votes == votes or not memory.wolves - memory.pack):
                score = kept.score
            else:
                score = self._suspects(seat, claims, living)
        else:
            claims = read(square, memory, self.temper.trust)
            score = self._suspects(seat, claims, living)
        self.believed[seat] = Belief(key, known, alive, votes, claims, score)
        return claims, score

    def _suspects(self, seat: int, claims: Claims, living: Sequence[int]) -> dict[int, float]:
        """`seat`'s suspicion of each living seat, its hunches included."""
        score = suspicion(self.memories[seat], claims, self.square, living, self.temper)
        hunches = self.hunches.get(seat)
        if hunches:
            for other in score:
                score[other] += hunches[other]
        return score


@dataclass(slots=True)
class Belief:
    """A seat's beliefs as `Table.believes` keeps them: its reading of the square's
    claims and its suspicion of each living seat, at `key` (the bots' step, the square's
    claims), with what they were drawn from: the `grounds` of the seat's memory
    (`speech.grounds`), the living, and how many votes the seat had seen (`suspicion`
    weighs those cast for a wolf it knows). `suspicion` reads the memory's `loners`
    too, which are learnt only with their role (`roles`, among the grounds)."""

    key: tuple[int, int]
    grounds: tuple[object, ...]
    living: tuple[int, ...]
    votes: int
    claims: Claims
    score: dict[int, float]


def suspicion(
    memory: Memory, claims: Claims, square: Square, living: Sequence[int], temper: Temper
) -> dict[int, float]:
    """How far the seat that remembers `memory` suspects each other living seat (more
    is more), from what it knows and from the square's claims as it reads them."""
    seat = memory.seat
    score = {other: 0.0 for other in living if other != seat}
    loner_claims = square.loners
    for claimant, results in square.results.items():
        if claimant in claims.liars or claimant == seat:
            continue
        weight = 1.0 if claimant in claims.proven else claims.weight.get(claimant, 0.0)
        for target, werewolf in results:
            if target in score:
                # A Werehamster named counts as a werewolf named (a foe, though no wolf).
                score[target] += (
                    weight if werewolf or (loner_claims and (claimant, target) in loner_claims) else -weight
                )
    for claimant, chance in claims.contested.items():
        if claimant in score:
            score[claimant] += temper.doubt * chance - claims.weight[claimant]
    wolves = memory.wolves - memory.pack if memory.votes else None
    if wolves:
        for voter, named in memory.votes:
            if named in wolves and voter in score:
                score[voter] -= temper.votes
    loners = memory.loners
    for other in score:
        if (
            other in claims.liars
            or (other in memory.wolves and other not in memory.pack)
            or (loners and other in loners)
        ):
            score[other] += CERTAIN
        elif other in memory.cleared or other in claims.proven:
            score[other] -= CERTAIN
    return score


def _best(values: Mapping[int, float], order: Sequence[int]) -> int:
    """The seat of the highest value, ties going to the first in `order`."""
    top = max(values.values())
    return next(seat for seat in order if values.get(seat) == top)


def _inquirer(memory: Memory) -> bool:
    return bool(memory.results)


def _claim(table: Table, day: int, seat: int, memory: Memory) -> None:
    """The inquirer `seat` comes out: its role, then every result it has not said."""
    square = table.square
    if seat not in table.out:
        table.out.add(seat)
        square.say(Remark(day, seat, COMING_OUT, role=memory.role))
    for target, werewolf in memory.results:
        if (seat, target) not in square.said:
            role = memory.roles.get(target) if target in memory.loners else None
            square.say(Remark(day, seat, DIVINED, target, role=role, werewolf=werewolf))


def _reason_to_reveal(memory: Memory, square: Square, living: Sequence[int]) -> bool:
    """An inquirer comes out when it found a living wolf, another claims its role, or
    one of its results bears on a living claimant's (the Medium's answer on a player a
    claimed Seer named)."""
    alive = set(living)
    if any((werewolf or target in memory.loners) and target in alive for target, werewolf in memory.results):
        return True
    if any(role == memory.role and seat != memory.seat for seat, role in square.claimed.items()):
        return True
    mine = {target for target, _werewolf in memory.results}
    return any(
        target in mine
        for claimant, results in square.results.items()
        if claimant != memory.seat and claimant in alive
        for target, _werewolf in results
    )


def _last_chance(memory: Memory, living: Sequence[int]) -> bool:
    """Whether the village can no longer afford to wait: one wrong lynch and one night
    kill would leave the wolves as many as the others, counting every wolf the setup
    announced as alive but those known dead. An inquirer with a reason then comes out
    whatever its temper."""
    wolves = (memory.foes or memory.counts.get("wolf", 0)) - len(memory.wolves & memory.dead)
    return len(living) - 2 * wolves <= 2


def _lodge(memory: Memory, living: Sequence[int]) -> list[int]:
    """The living seats this one knows hold its own role (the Freemasons of its
    lodge), when it hunts with no pack."""
    if memory.pack or memory.role is None:
        return []
    alive = set(living)
    return sorted(
        seat for seat, role in memory.roles.items() if role == memory.role and seat != memory.seat and seat in alive
    )


def _claimed_by_another(memory: Memory, square: Square, fellows: Sequence[int]) -> bool:
    """Whether a seat outside the lodge claimed the lodge's role: its members then come
    out (at the `reveal` chance) to say who they are."""
    lodge = {memory.seat, *fellows}
    return any(role == memory.role and seat not in lodge for seat, role in square.claimed.items())


def _vouch(table: Table, day: int, seat: int, memory: Memory, fellows: Sequence[int]) -> None:
    """A member of a lodge comes out with its role and vouches for each fellow it
    knows ("not a werewolf"): the members confirm each other."""
    square = table.square
    table.out.add(seat)
    square.say(Remark(day, seat, COMING_OUT, role=memory.role))
    for fellow in fellows:
        if (seat, fellow) not in square.said:
            square.say(Remark(day, seat, DIVINED, fellow, werewolf=False))


def _answer(table: Table, day: int, role: str, living: Sequence[int]) -> None:
    """The real holders of `role`, hidden until a liar claimed it, come out at once with
    their results (a role of no results, the seat's `defence`, with its claim alone):
    each knows the claim is false."""
    for seat in living:
        memory = table.memories[seat]
        if memory.role == role and _inquirer(memory) and seat not in table.out:
            _claim(table, day, seat, memory)
        elif memory.role == role == memory.defence and seat not in table.out:
            _plead(table, day, seat, role)


def _plead(table: Table, day: int, seat: int, role: str) -> None:
    """`seat` claims its role, which has no result to give (Mafia's Doctor): in its own
    defence, or against a liar who claimed it."""
    table.out.add(seat)
    table.square.say(Remark(day, seat, COMING_OUT, role=role))


def _turncoat(table: Table, day: int, seat: int, living: Sequence[int], rng: Random) -> None:
    """A seat on the pack's side that does not know the pack (the Possessed) claims the
    inquiring role, at the temper's `bluff` chance and once a game, and names as a wolf
    the first claimant of that role (the likeliest true one: a pack claims in answer),
    else the player the square trusts most: a lie that spends a villager's lynch or the
    Seer's credit."""
    if (seat, seat) in table.weighed:
        return
    table.weighed.add((seat, seat))
    memory = table.memories[seat]
    role = memory.inquiring
    if not role or rng.random() >= table.temper.bluff:
        return
    square = table.square
    others = [other for other in living if other != seat]
    claimants = [other for other, claimed in square.claimed.items() if claimed == role and other in others]
    if claimants:
        target = claimants[0]
    else:
        score = table.believes(PUBLIC_SEAT, living)[1]
        least = min(score.get(other, 0.0) for other in others)
        trusted = [other for other in others if score.get(other, 0.0) == least]
        target = trusted[int(rng.random() * len(trusted))]
    square.say(Remark(day, seat, COMING_OUT, role=role))
    square.say(Remark(day, seat, DIVINED, target, werewolf=True))
    table.out.add(seat)
    _answer(table, day, role, living)


def _bluff(table: Table, day: int, living: Sequence[int], rng: Random) -> None:
    """A pack whose member a claimant named counter-claims that claimant's role, at the
    temper's chance, once a game: its least suspect member (not the named one, if it
    can) claims the role and names the claimant as a wolf."""
    square = table.square
    alive = set(living)
    for claimant, results in sorted(square.results.items()):
        role = square.claimed.get(claimant)
        if not role or claimant not in alive:
            continue
        named = [target for target, werewolf in results if werewolf and target in alive]
        for target in named:
            pack = table.memories[target].pack
            if not pack or claimant in pack or any(wolf in square.claimed for wolf in pack):
                continue
            if (claimant, target) in table.weighed:
                continue
            table.weighed.add((claimant, target))
            if rng.random() >= table.temper.bluff:
                continue
            others = [wolf for wolf in sorted(pack) if wolf in alive and wolf not in named]
            bluffer = others[0] if others else target
            square.say(Remark(day, bluffer, COMING_OUT, role=role))
            square.say(Remark(day, bluffer, DIVINED, claimant, werewolf=True))
            table.out.add(bluffer)
            _answer(table, day, role, living)


def _defend(
    table: Table, day: int, wolf: int, intentions: Mapping[int, int], living: Sequence[int], rng: Random
) -> None:
    """A wolf leading the square defends itself, at the temper's `bluff` chance and once
    a game: it claims the inquiring role the setup announced and names as a wolf the
    first who said they would vote for it (where the setup deals none, it claims the
    role of no results the setup announces, its `defence`: Mafia's Doctor); the real
    holder of that role, if hidden, answers at once (`_answer`)."""
    table.weighed.add((wolf, wolf))
    memory = table.memories[wolf]
    square = table.square
    role = memory.inquiring or memory.defence or None
    accusers = [seat for seat, target in intentions.items() if target == wolf and seat not in memory.pack]
    if role is None or not accusers or rng.random() >= table.temper.bluff:
        return
    square.say(Remark(day, wolf, COMING_OUT, role=role))
    if role == memory.inquiring:
        square.say(Remark(day, wolf, DIVINED, accusers[0], werewolf=True))
    table.out.add(wolf)
    _answer(table, day, role, living)


def day_talk(
    table: Table, day: int, living: Sequence[int], rng: Random, among: Collection[int] | None = None
) -> dict[int, int]:
    """The day's talk, and whom each living seat then votes for (`among` those, when
    the step names its candidates: a ballot between suspects): the inquirers who have
    a reason come out (at the temper's chance), the packs named may counter-claim, and
    three rounds of intentions, each said in the square, follow it; after the first,
    the leading suspect, when it is a hidden inquirer, comes out in its defence (a wolf
    may bluff instead, `_defend`). A second step of the same day (the ballot) talks
    again without claiming or accusing anew."""
    temper, memories, square = table.temper, table.memories, table.square
    again = table.talked == day
    table.talked = day
    if not again:
        for seat in living:
            memory = memories[seat]
            if _inquirer(memory):
                if seat in table.out or (
                    _reason_to_reveal(memory, square, living)
                    and (rng.random() < temper.reveal or _last_chance(memory, living))
                ):
                    _claim(table, day, seat, memory)
            elif seat not in table.out:
                fellows = _lodge(memory, living)
                if fellows and _claimed_by_another(memory, square, fellows) and rng.random() < temper.reveal:
                    _vouch(table, day, seat, memory, fellows)
        _bluff(table, day, living, rng)
        for seat in living:
            if memories[seat].stance == ALLY:
                _turncoat(table, day, seat, living, rng)
    order = list(living)
    rng.shuffle(order)
    hiding = {seat for seat in living if memories[seat].pack and rng.random() < temper.hide}
    if not again:
        _estimates(table, day, living, hiding, rng)
    named = set(living) if among is None else set(among)
    intentions: dict[int, int] = {}
    accused: Counter[int] = Counter(
        remark.target for remark in square.today(day, ESTIMATE) if remark.target is not None
    )
    heard: tuple[dict[int, int], int] | None = None
    for round_ in range(ROUNDS):
        said: dict[int, int]
        if heard == (intentions, square.claims):
            # The round before heard the same intentions, and nothing was claimed since:
            # each seat weighs all as it did then, and says again what it said.
            said = dict(intentions)
        else:
            heard = (intentions, square.claims)
            pulls = _pulls(Counter(intentions.values()) if intentions else accused, order, named, temper)
            said = {}
            for seat in living:
                if seat in hiding:
                    choice = _intention(
                        table, seat, living, pulls, True, _lost(memories[seat].pack, intentions, living)
                    )
                else:
                    choice = _intention(table, seat, living, pulls, False)
                if choice is not None:
                    said[seat] = choice
        intentions = said
        for seat, target in said.items():
            square.say(_pointed(day, seat, VOTE, target))
        if round_ == 0:
            tally = Counter(intentions.values())
            leader = _best({seat: float(tally[seat]) for seat in living}, order)
            memory = memories[leader]
            if _inquirer(memory) and leader not in table.out:
                _claim(table, day, leader, memory)
            elif _lodge(memory, living) and leader not in table.out:
                # A lodge comes out in its member's defence, all of it at once.
                for mason in (leader, *_lodge(memory, living)):
                    if mason not in table.out:
                        _vouch(table, day, mason, memories[mason], _lodge(memories[mason], living))
            elif memory.defence and memory.role == memory.defence and leader not in table.out:
                _plead(table, day, leader, memory.role)
            elif memory.pack and leader not in square.claimed and (leader, leader) not in table.weighed:
                _defend(table, day, leader, intentions, living, rng)
    if not again:
        _unstall(table, day, living, intentions, rng)
    table.intentions = intentions
    return intentions


_POINTED: dict[tuple[int, int, Kind, int], Remark] = {}
"""The remarks naming one player (an accusation, an intention to vote), by day, seat,
kind and player, made once: remarks are immutable, each day's three rounds say most
intentions again, and every game says the same few hundred."""


def _pointed(day: int, seat: int, kind: Kind, target: int) -> Remark:
    """`seat`'s remark of `kind` (ESTIMATE, VOTE) on `day` naming `target`."""
    key = (day, seat, kind, target)
    remark = _POINTED.get(key)
    if remark is None:
        remark = _POINTED[key] = Remark(day, seat, kind, target)
    return remark


def _unstall(table: Table, day: int, living: Sequence[int], intentions: dict[int, int], rng: Random) -> None:
    """A table that would end a day exactly as it ended the last one, with the same
    players alive and the lead tied, breaks the tie: one voter on a tied player, drawn
    at random, joins another tied player (never its own packmate). Nothing else could
    change the day (the bots' beliefs are the same, no death came between), and a tie
    that eliminates nobody would repeat for ever."""
    seen = (tuple(living), tuple(sorted(intentions.items())))
    repeated, table.last_day = seen == table.last_day, seen
    if not repeated:
        return
    tally = Counter(intentions.values())
    top = max(tally.values(), default=0)
    leaders = sorted(seat for seat, count in tally.items() if count == top)
    if len(leaders) < 2:
        return
    movers = [
        seat
        for seat in sorted(intentions)
        if intentions[seat] in leaders
        and any(other not in (seat, intentions[seat]) and other not in table.memories[seat].pack for other in leaders)
    ]
    if not movers:
        return
    mover = movers[int(rng.random() * len(movers))]
    pack = table.memories[mover].pack
    target = next(other for other in leaders if other not in (mover, intentions[mover]) and other not in pack)
    intentions[mover] = target
    table.square.say(_pointed(day, mover, VOTE, target))


def _intention(
    table: Table,
    seat: int,
    living: Sequence[int],
    pulls: Sequence[tuple[int, float]],
    hiding: bool,
    lost: Collection[int] = frozenset(),
) -> int | None:
    """Whom `seat` says it will vote for among the players `pulls` names (`_pulls`):
    its suspicion (a wolf's or a turncoat's, the square's, its pack left out unless it
    hides, and the pack's spared prey turned on) plus the square's pull towards each,
    the first in the day's order among equals; None when it has nobody to name. A
    hiding wolf names a packmate only when it is `lost` anyway (`_lost`): it never
    gives the vote that would lynch one."""
    memory = table.memories[seat]
    if memory.pack or memory.stance:
        public_score = table.believes(PUBLIC_SEAT, living)[1]
        if memory.pack and hiding:
            shunned = {seat} | {mate for mate in memory.pack if mate not in lost}
        else:
            shunned = memory.pack if memory.pack else {seat}
        values = {other: public_score[other] for other, _pull in pulls if other not in shunned}
        for other in _spared(memory, values, table.square):
            values[other] += CERTAIN
    else:
        values = table.believes(seat, living)[1]
    best, top = None, 0.0
    for other, pull in pulls:
        value = values.get(other)
        if value is None:
            continue
        value += pull
        if best is None or value > top:
            best, top = other, value
    return best


def _pulls(
    tally: Mapping[int, int], order: Sequence[int], named: Collection[int], temper: Temper
) -> list[tuple[int, float]]:
    """The players of `order` a seat may name (`named`), in that order, each with how
    far the square's `tally` of intentions pulls a seat towards it: `follow` of a whole
    square's votes for its leader, in proportion for the others."""
    share = temper.follow / max(tally.values(), default=1)
    return [(other, share * tally.get(other, 0)) for other in order if other in named]


def _lost(pack: Collection[int], intentions: Mapping[int, int], living: Sequence[int]) -> frozenset[int]:
    """The members of `pack` whom the square's last `intentions` lynch without a vote
    of the pack's: more than half the living, the pack left out, said they would vote
    for each. A wolf who hides may vote for such a packmate (it is lost anyway, and the
    vote will speak for the voter once its card shows), never for another: a pack that
    can save its member does."""
    needed = len(living) // 2 + 1
    votes = Counter(target for voter, target in intentions.items() if voter not in pack)
    return frozenset(mate for mate in pack if votes[mate] >= needed)


def _estimates(table: Table, day: int, living: Sequence[int], hiding: set[int], rng: Random) -> None:
    """Each seat that knows a wolf alive accuses it in the square; a hiding wolf accuses
    too, as a villager would: the player who accused its pack most, else anyone outside
    its pack."""
    square = table.square
    for seat in living:
        memory = table.memories[seat]
        if memory.pack:
            for target in _spared(memory, living, square):
                square.say(_pointed(day, seat, ESTIMATE, target))
            if seat not in hiding:
                continue
            prey = [other for other in living if other not in memory.pack]
            targets = _accusers(square, memory.pack, prey) or prey
            if targets:
                square.say(_pointed(day, seat, ESTIMATE, targets[int(rng.random() * len(targets))]))
            continue
        if memory.stance:
            _feign(table, day, seat, memory, living, rng)
            continue
        foes = memory.wolves | memory.loners if memory.loners else memory.wolves
        known = [target for target in sorted(foes) if target in living and target != seat]
        for target in known:
            square.say(_pointed(day, seat, ESTIMATE, target))
        if not known:
            score = table.believes(seat, living)[1]
            if score:
                top = max(score.values())
                likely = [other for other in living if score.get(other) == top]
                square.say(_pointed(day, seat, ESTIMATE, likely[int(rng.random() * len(likely))]))


def _spared(memory: Memory, living: Collection[int], square: Square | None = None) -> list[int]:
    """The players the pack (of `memory`) chose at night who are still alive among
    `living`: the Werehamster, whom only a lynch or the Seer kills, or a player
    guarded. The pack hunts others; by day (`square` given) it turns the square on
    those who claimed no role (a claimant spared is the guarded Seer, whom the square
    trusts)."""
    return [
        seat
        for seat in dict.fromkeys(memory.chosen)
        if seat in living and seat not in memory.pack and (square is None or seat not in square.claimed)
    ]


def _feign(table: Table, day: int, seat: int, memory: Memory, living: Sequence[int], rng: Random) -> None:
    """A seat on no side of the village's accuses as a villager would, from the
    square's view: the Possessed the open claimant of the inquiring role first (the
    Seer is its side's greatest threat), else the square's top suspect."""
    others = [other for other in living if other != seat]
    square = table.square
    targets = [other for other in others if memory.stance == ALLY and square.claimed.get(other) == memory.inquiring]
    if not targets:
        score = table.believes(PUBLIC_SEAT, living)[1]
        top = max((score.get(other, 0.0) for other in others), default=0.0)
        targets = [other for other in others if score.get(other, 0.0) == top]
    if targets:
        square.say(_pointed(day, seat, ESTIMATE, targets[int(rng.random() * len(targets))]))


def _night_choice(
    table: Table, seat: int, slot: Slot, aim: Aim | None, living: Sequence[int], rng: Random
) -> int | None:
    """The one player a seat names on a night card of `aim`, or None to leave the card
    to the bots that play like people."""
    memory = table.memories[seat]
    choices = slot.options[0]
    square = table.square
    if aim == "hostile" and memory.pack:
        prey = [choice for choice in choices if choice not in memory.pack]
        if not prey:
            return None
        spared = _spared(memory, prey)
        if spared and len(spared) == len(prey):
            # Every player left lived through the pack's choice once: the pack tries
            # the one it chose longest ago (a guard that never moves is a guard found).
            last = {victim: number for number, victim in enumerate(memory.chosen)}
            return min(prey, key=lambda choice: last[choice])
        prey = [choice for choice in prey if choice not in spared]
        witnesses = [choice for choice in prey if choice in memory.exposed]
        if witnesses:
            return witnesses[int(rng.random() * len(witnesses))]
        claimants = [choice for choice in prey if square.claimed.get(choice) and choice in square.results]
        claimants = [choice for choice in claimants if square.claimed[choice] == memory.inquiring] or claimants
        claimants = [choice for choice in claimants if not _false_to(memory, square.results[choice])]
        if claimants:
            return claimants[int(rng.random() * len(claimants))]
        accusers = _accusers(square, memory.pack, prey)
        if accusers:
            return accusers[int(rng.random() * len(accusers))]
        score = table.believes(PUBLIC_SEAT, living)[1]
        least = min(score.get(choice, 0.0) for choice in prey)
        trusted = [choice for choice in prey if score.get(choice, 0.0) == least]
        return trusted[int(rng.random() * len(trusted))]
    if aim is None or memory.pack or memory.stance:
        return None
    claims, score = table.believes(seat, living)
    if aim == "probe":
        known = memory.wolves | memory.cleared | memory.loners | claims.liars | claims.proven
        unknown = [choice for choice in choices if choice not in known and choice != seat]
        if not unknown:
            return None
        if memory.alone and memory.role == memory.inquiring:
            # A player who wins alone (the Werehamster) plays as a villager and is never
            # suspected, and only an inquiry kills it at night: the Seer inquires one a
            # claimant it does not know false named so, else spreads its inquiries over
            # the players it knows nothing of, the square's suspects no likelier than
            # the rest.
            named = [
                choice
                for claimant, choice in sorted(square.loners)
                if choice in unknown and claimant not in claims.liars and claimant != choice
            ]
            unknown = named or unknown
            return unknown[int(rng.random() * len(unknown))]
        top = max(score.get(choice, 0.0) for choice in unknown)
        likely = [choice for choice in unknown if score.get(choice, 0.0) == top]
        return likely[int(rng.random() * len(likely))]
    if aim == "friendly":
        # The pack hunts the open inquirers first: guard the one this seat trusts most.
        inquirers = [
            choice
            for choice in choices
            if square.claimed.get(choice) == memory.inquiring
            and choice not in claims.liars
            and (choice in claims.proven or claims.weight.get(choice, 0.0) > 0)
        ]
        if inquirers:
            choices = tuple(inquirers)
        least = min(score.get(choice, 0.0) for choice in choices)
        trusted = [choice for choice in choices if score.get(choice, 0.0) == least]
        return trusted[int(rng.random() * len(trusted))]
    if aim == "hostile":
        top = max(score.get(choice, 0.0) for choice in choices)
        if top <= 0:
            return None
        likely = [choice for choice in choices if score.get(choice, 0.0) == top]
        return likely[int(rng.random() * len(likely))]
    return None


def _deadly_choice(table: Table, seat: int, choices: Sequence[int], living: Sequence[int], rng: Random) -> int | None:
    """The player a seat names on a card whose choice dies unless it is a wolf
    (`Memory.deadly`: Tabula's Owl above 20 players): its top suspect, only when
    something besides its hunch speaks against that player (a result claimed, a
    contested claim, a wolf known); None, a blank card, when nothing does: a guess
    would kill a villager more often than not."""
    score = table.believes(seat, living)[1]
    hunches = table.hunches.get(seat, {})
    evidence = {choice: score.get(choice, 0.0) - hunches.get(choice, 0.0) for choice in choices if choice != seat}
    top = max(evidence.values(), default=0.0)
    if top <= 0:
        return None
    likely = [choice for choice in choices if evidence.get(choice) == top]
    return likely[int(rng.random() * len(likely))]


def _false_to(memory: Memory, results: Sequence[tuple[int, bool]]) -> bool:
    """Whether a pack (of `memory`) knows `results` false: they name a wolf who is none
    of it. Their claimant is on its side without knowing it (the Possessed), or wrong
    (a Roleblocker whose quiet night was a Doctor's): the pack spares it, and hunts the
    claimant whose word it cannot fault. (A packmate called innocent proves nothing: a
    Godfather is seen so.)"""
    return any(werewolf and target not in memory.pack for target, werewolf in results)


def _accusers(square: Square, pack: set[int], prey: Sequence[int]) -> list[int]:
    """The players of `prey` who accused a member of `pack` in the square, most often
    first (ties in seat order)."""
    count = Counter(remark.speaker for remark in square.remarks if remark.kind == ESTIMATE and remark.target in pack)
    most = max((count[seat] for seat in prey), default=0)
    return [seat for seat in prey if most and count[seat] == most]


def _housed(slot: Slot, houses: Mapping[int, int], suspect: int | None) -> Order | None:
    """A card naming houses (Lupusburg's accusation and ballot), written against the
    player `suspect`: each of its votes on one of that player's houses among the
    choices (the second on the other house, when it has two), or None when it has
    none to name."""
    if suspect is None:
        return None
    fields = slot.card.fields
    mine = [house for house in slot.options[0] if houses.get(house) == suspect]
    if not mine:
        return None
    extra: tuple[tuple[str, tuple[int, ...]], ...] = ()
    if len(fields) > 1 and slot.options[1]:
        also = [house for house in slot.options[1] if houses.get(house) == suspect]
        if also:
            extra = ((fields[1].name, (also[-1],)),)
    return Order(slot.card.kind, (mine[0],), extra)


def _house_card(
    table: Table, seat: int, slot: Slot, aim: Aim | None, living: Sequence[int], rng: Random
) -> Order | None:
    """A card naming houses other than the day's votes (Lupusburg's claw, the
    Burgomaster's look, a character shown), written as the seat's player would: a house
    of the player `_night_choice` names for the card's aim (a wolf never claws its own
    while another is left, and hunts first whoever saw its wolf's character; a
    Burgomaster looks under a house it has not seen of the player it suspects most);
    of its own houses (a character shown back or asked for), one whose character gives
    no wolf away. Any other field is left blank; None when the seat has nothing of its
    own to write (the bots that play like people write the card)."""
    memory = table.memories[seat]
    houses = memory.houses or table.memories[PUBLIC_SEAT].houses
    written: list[tuple[str, tuple[int, ...]]] = []
    for number, (asked, choices) in enumerate(slot.pairs()):
        if asked.refers != "house" or not choices:
            continue
        if all(houses.get(house) == seat for house in choices):
            innocent = [house for house in choices if memory.characters.get(house) is False]
            written.append((asked.name, ((innocent or list(choices))[0],)))
            continue
        if number:
            continue
        unseen = list(choices)
        if aim == "probe":
            unseen = [house for house in choices if house not in memory.characters] or unseen
        owners = tuple(dict.fromkeys(houses[house] for house in unseen if house in houses))
        if aim == "probe" and memory.pack:
            owner = owners[int(rng.random() * len(owners))] if owners else None
        else:
            owner = _night_choice(table, seat, Slot(slot.card, (owners,)), aim, living, rng) if owners else None
        theirs = [house for house in unseen if houses.get(house) == owner]
        if theirs:
            written.append((asked.name, (theirs[int(rng.random() * len(theirs))],)))
    if not written:
        return None
    main = next((values for name, values in written if name == TARGETS), ())
    return Order(slot.card.kind, main, tuple((name, values) for name, values in written if name != TARGETS))


def _read_blocks(table: Table, living: Collection[int]) -> None:
    """A roleblocker who blocked a player on a night that ended without a death takes
    that player for the one who was to kill (a forum Roleblocker's "I blocked Ada and
    nobody died"): it learns it as a result of its own, which it claims as a Cop claims
    a check. It may be wrong (a Doctor's save also leaves the night quiet); a card shown
    then proves it so."""
    if table.blocks and len(table.memories[PUBLIC_SEAT].dead) == table.dead_at_dusk:
        for blocker, blocked in table.blocks.items():
            memory = table.memories[blocker]
            if blocker in living and blocked in living and blocked not in memory.cleared:
                found(memory, blocked, True)
                if (blocked, True) not in memory.results:
                    memory.results.append((blocked, True))
    table.blocks = {}


def talking_cards(table: Table, spec: PhaseSpec, aims: Mapping[str, Aim], rng: Random) -> dict[int, Order]:
    """Every card `spec` asks, written by bots that talk: a day's talk first, whose last
    intentions are the day's votes; at night, the choices `_night_choice` makes; any
    other card as the bots that play like people write it."""
    table.step += 1
    dead = table.memories[PUBLIC_SEAT].dead
    living = sorted(seat for seat in table.memories if seat >= 0 and seat not in dead)
    cards: dict[int, Order] = {}
    intentions: dict[int, int] = {}
    houses = table.memories[PUBLIC_SEAT].houses
    if table.blocks:
        _read_blocks(table, living)
    if spec.kind == "day":
        talkers = [seat for seat in living if seat in spec.slots]
        # Each slot looked at once, however many seats share it (a day's vote).
        slots = {id(slot): slot for slot in (spec.slots[seat] for seat in talkers)}.values()
        among = {
            houses.get(choice, choice) if slot.card.fields[0].refers == "house" else choice
            for slot in slots
            if aims.get(slot.card.kind) == "hostile" and slot.card.fields
            for choice in slot.options[0]
        }
        # The candidates talk too (a suspect in Tabula's ballot writes no card, but it
        # speaks, and the voters' beliefs must weigh it).
        speakers = [seat for seat in living if seat in spec.slots or seat in among]
        intentions = day_talk(table, spec.number, speakers, rng, among)
    for seat, slot in spec.slots.items():
        card = slot.card
        memory = table.memories[seat]
        if spec.kind == "day" and houses and card.fields and card.fields[0].refers == "house":
            if aims.get(card.kind) == "hostile":
                cards[seat] = _housed(slot, houses, intentions.get(seat)) or people_card(slot, memory, aims, rng)
                continue
        if houses and spec.kind in ("day", "night") and any(asked.refers == "house" for asked in card.fields):
            written = _house_card(table, seat, slot, aims.get(card.kind), living, rng)
            cards[seat] = written or people_card(slot, memory, aims, rng)
            continue
        if card is SLEEP or not card.fields or card.fields[0].refers != "seat":
            cards[seat] = people_card(slot, memory, aims, rng)
            continue
        aim = aims.get(card.kind)
        choices = slot.options[0]
        choice: int | None
        if spec.kind == "day" and aim == "hostile":
            choice = intentions.get(seat)
            if choice is None and seat in dead:
                # A ghost who still votes (Tabula's accusation) votes as it would say.
                pulls = _pulls(Counter(intentions.values()), living, choices, table.temper)
                choice = _intention(table, seat, living, pulls, False)
        elif card.kind == memory.deadly and not memory.pack:
            choice = _deadly_choice(table, seat, choices, living, rng)
            if choice is None:
                cards[seat] = SLEEP_ORDER
                continue
        else:
            choice = _night_choice(table, seat, slot, aim, living, rng)
        if choice is not None and choice in choices:
            cards[seat] = named_card(slot, choice, seat, rng)
        else:
            cards[seat] = people_card(slot, memory, aims, rng)
        if card.kind == BLOCK.kind and cards[seat].targets:
            table.blocks[seat] = cards[seat].targets[0]
            table.dead_at_dusk = len(dead)
    return cards
