"""The bots' public language: what a seat may say in the square, as data.

A small protocol in the spirit of the AIWolf contest's (its COMINGOUT, DIVINED, ESTIMATE
and VOTE): a seat claims a role (`COMING_OUT`), claims a result of its role's ("I inquired
Ada: werewolf", `DIVINED`), accuses a player (`ESTIMATE`) or says whom it will vote for
(`VOTE`); a suspect's defence is a claim of its role. A `Remark` carries no words: a page
or a mail words it, as it words an event. The `Square` is the whole public record of a
game's remarks, which every seat reads alike; `Claims` is what one seat makes of the
claims in it, given what it knows itself (its `Memory`): who claimed what, which claims
it has seen proven false, and which borne out.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .people import Memory

Kind = Literal["comingout", "divined", "estimate", "vote"]
COMING_OUT: Kind = "comingout"
DIVINED: Kind = "divined"
ESTIMATE: Kind = "estimate"
VOTE: Kind = "vote"


@dataclass(frozen=True, slots=True)
class Remark:
    """One thing a seat said in the square on day `day`: `speaker` claims `role`
    (COMING_OUT), says that `target` is a werewolf or not (DIVINED, `werewolf`; with the
    `role` read when that character wins alone, a foe though no wolf), suspects
    `target` (ESTIMATE), or will vote for `target` (VOTE)."""

    day: int
    speaker: int
    kind: Kind
    target: int | None = None
    role: str | None = None
    werewolf: bool | None = None

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"day": self.day, "speaker": self.speaker, "kind": self.kind}
        if self.target is not None:
            found["target"] = self.target
        if self.role is not None:
            found["role"] = self.role
        if self.werewolf is not None:
            found["werewolf"] = self.werewolf
        return found


@dataclass(slots=True)
class Square:
    """Every remark of a game, in the order said. `claimed` maps a seat to the role it
    claimed first (an empty role: it claimed two); `results` a claimant to its claimed
    results, in order; `said`, the results already claimed, so that nobody says one
    twice."""

    remarks: list[Remark] = field(default_factory=list)
    claimed: dict[int, str] = field(default_factory=dict)
    results: dict[int, list[tuple[int, bool]]] = field(default_factory=dict)
    said: set[tuple[int, int]] = field(default_factory=set)
    claims: int = 0
    """How many claims (of a role or a result) were made: what a seat reads of the
    square changes only when this does."""
    named_on: dict[tuple[int, int], int] = field(default_factory=dict)
    """The day each claimant first named each player a werewolf."""
    intended: dict[tuple[int, int], set[int]] = field(default_factory=dict)
    """Whom each seat said, on each day, it would vote for."""
    claimed_on: dict[int, int] = field(default_factory=dict)
    """The day each seat first claimed a role."""
    day: int = 0
    """The day of the last remark."""
    lies: dict[int, bool] = field(default_factory=dict)
    """`belied`'s answers, by claimant, as long as `claims` is `lies_at`: what it reads
    changes only with `claims` (a claim, a day ended), and every seat asks it alike."""
    lies_at: int = -1
    loners: set[tuple[int, int]] = field(default_factory=set)
    """The (claimant, player) results that named a character winning alone ("I read
    Ada: the Werehamster", a `DIVINED` remark with its `role`): no wolf, but a foe."""

    def say(self, remark: Remark) -> None:
        """Post `remark`; a claim of a role or a result is kept for everyone to read."""
        self.remarks.append(remark)
        if remark.day != self.day:
            self.day = remark.day
            self.claims += 1  # a day ended: its votes may now speak against a claim
        if remark.kind == VOTE and remark.target is not None:
            self.intended.setdefault((remark.speaker, remark.day), set()).add(remark.target)
        if remark.kind in (COMING_OUT, DIVINED):
            self.claims += 1
        if remark.kind == COMING_OUT and remark.role is not None:
            self.claimed.setdefault(remark.speaker, remark.role)
            self.claimed_on.setdefault(remark.speaker, remark.day)
            if self.claimed[remark.speaker] != remark.role:
                # A second, different role: the seat contradicted itself.
                self.claimed[remark.speaker] = ""
        elif remark.kind == DIVINED and remark.target is not None and remark.werewolf is not None:
            if remark.werewolf:
                self.named_on.setdefault((remark.speaker, remark.target), remark.day)
            elif remark.role is not None:
                self.loners.add((remark.speaker, remark.target))
            if (remark.speaker, remark.target) not in self.said:
                self.said.add((remark.speaker, remark.target))
                self.results.setdefault(remark.speaker, []).append((remark.target, remark.werewolf))

    def today(self, day: int, kind: Kind) -> Iterator[Remark]:
        """The remarks of `kind` said on `day`."""
        return (remark for remark in self.remarks if remark.day == day and remark.kind == kind)

    def belied(self, claimant: int) -> bool:
        """Whether `claimant`'s own votes deny its claims: on a day over since it named
        players werewolves, it said it would vote for none of those who still talked
        that day (a Seer votes for the wolves it found; a liar votes where the square
        goes)."""
        if self.lies_at != self.claims:
            self.lies_at = self.claims
            self.lies = {}
        found = self.lies.get(claimant)
        if found is None:
            found = self.lies[claimant] = self._belied(claimant)
        return found

    def _belied(self, claimant: int) -> bool:
        days: dict[int, set[int]] = {}
        for (speaker, target), day in self.named_on.items():
            if speaker == claimant:
                for later in range(day, self.day):
                    days.setdefault(later, set()).add(target)
        for day, named in days.items():
            said = self.intended.get((claimant, day))
            if said is None:
                continue
            talking = {target for target in named if (target, day) in self.intended}
            if talking and not talking & said:
                return True
        return False

    def claimants(self, role: str) -> list[int]:
        """The seats that claimed `role`, in seat order."""
        return sorted(seat for seat, claimed in self.claimed.items() if claimed == role)


@dataclass(frozen=True, slots=True)
class Claims:
    """What one seat makes of the square's claims: `liars`, claimants it has seen
    proven false (a result contradicted by what it knows, a role it knows they do not
    hold, two roles claimed); `proven`, claimants it has seen borne out (their card
    showed the role claimed, they are known to be no wolf, say killed by the pack, or a
    werewolf they named was one); `weight`, how far it
    trusts each claimant still open (a share of `trust` when more claim a role than the
    table holds); `contested`, each open claimant's chance, from the count alone, of
    being a false one."""

    liars: frozenset[int]
    proven: frozenset[int]
    weight: dict[int, float]
    contested: dict[int, float]


def read(square: Square, memory: Memory, trust: float) -> Claims:
    """The claims of `square` as the seat that remembers `memory` sees them, each open
    claim trusted up to `trust`. What a claimant the seat trusts (one borne out, or one
    nobody contests) said of a dead player whose card it has not seen is taken as a fact
    in judging claimants of other roles (the Medium's answer on a player a claimed Seer
    named), unless two such claimants disagree about that player."""
    known = _known(square, memory)
    claims = _read(square, memory, trust, {}, *known)
    said: dict[int, tuple[set[str], set[bool]]] = {}
    for seat, results in square.results.items():
        if seat in claims.proven or (seat in claims.weight and not claims.contested.get(seat)):
            for target, werewolf in results:
                if target in memory.dead and target not in memory.wolves and target not in memory.cleared:
                    roles, values = said.setdefault(target, (set(), set()))
                    roles.add(square.claimed.get(seat, ""))
                    values.add(werewolf)
    facts = {target: (roles, values.pop()) for target, (roles, values) in said.items() if len(values) == 1}
    return _read(square, memory, trust, facts, *known) if facts else claims


def grounds(memory: Memory) -> tuple[object, ...]:
    """All that `read` looks at of `memory`, as a value of its own: a memory whose
    grounds are equal to another's reads any square as the other did (the bots keep a
    reading while its grounds and the square's claims stay as they were:
    `talkers.Table.believes`). A field `read` comes to look at belongs here too
    (tests/engine/test_talkers.py checks it)."""
    return (
        memory.seat,
        memory.role,
        memory.inquiring,
        memory.copies,
        memory.copied_from,
        frozenset(memory.cleared),
        frozenset(memory.wolves),
        frozenset(memory.pack),
        frozenset(memory.dead),
        dict(memory.roles),
        dict(memory.counts),
    )


def _known(square: Square, memory: Memory) -> tuple[set[int], set[int], list[tuple[int, str]]]:
    """The claimants the seat that remembers `memory` judges by what it knows of them
    and by their own votes, whatever the facts: the liars, those borne out, and the
    others with the role each claimed, to be judged by their results (`_read`)."""
    liars: set[int] = set()
    proven: set[int] = set()
    others: list[tuple[int, str]] = []
    for seat, role in square.claimed.items():
        if not role:
            liars.add(seat)
            continue
        if seat == memory.seat:
            continue
        known = memory.roles.get(seat)
        if known == role or (known is None and seat in memory.cleared and seat not in memory.wolves):
            proven.add(seat)
        elif (
            known is not None
            or (seat in memory.wolves and seat not in memory.pack)
            or len(holders := _holders(memory, role)) >= memory.counts.get(role, len(holders) + 1)
        ):
            liars.add(seat)
        elif square.belied(seat):
            liars.add(seat)
        else:
            others.append((seat, role))
    return liars, proven, others


def _read(
    square: Square,
    memory: Memory,
    trust: float,
    facts: Mapping[int, tuple[set[str], bool]],
    known_liars: set[int],
    known_proven: set[int],
    others: list[tuple[int, str]],
) -> Claims:
    """`read`, given the `facts` taken from trusted claimants (for each dead player,
    the roles of the claimants who said it and whether it was a wolf) and the claimants
    already judged (`_known`): the `others` are judged by their results."""
    liars = set(known_liars)
    proven = set(known_proven)
    by_role: dict[str, list[int]] = {}
    for seat, role in others:
        for target, werewolf in square.results.get(seat, ()):
            if (werewolf and target in memory.cleared) or (not werewolf and target in memory.wolves):
                liars.add(seat)
                break
            if werewolf and target in memory.wolves and target not in memory.pack:
                proven.add(seat)
            fact = facts.get(target)
            if fact is not None and role not in fact[0]:
                if fact[1] != werewolf:
                    liars.add(seat)
                    break
                if werewolf:
                    proven.add(seat)
        else:
            by_role.setdefault(role, []).append(seat)
    weight: dict[int, float] = {}
    contested: dict[int, float] = {}
    for role, seats in by_role.items():
        open_ = [seat for seat in seats if seat not in proven]
        holders = _holders(memory, role)
        # A claimant borne out holds its place, dead or alive (the Seer the pack killed):
        # the others share what is left of the count, and of any the game may add.
        borne_out = [
            seat
            for seat, claimed in square.claimed.items()
            if claimed == role and seat in proven and seat not in holders and seat not in liars
        ]
        count = memory.counts.get(role, len(open_))
        places = count - len(holders) - len(borne_out)
        if role == memory.inquiring and memory.copies:
            # A second Seer the game may have made (Tabula's Mythomaniac) may be the one
            # borne out, leaving the others its place, but only a claimant from the day
            # it could be made may be that copy: one who claimed before holds a dealt
            # place, and when no dealt place is left, an earlier claimant has none.
            early = {seat for seat in (*open_, *borne_out) if square.claimed_on.get(seat, 0) < memory.copied_from}
            late = len(open_) + len(borne_out) - len(early)
            copies = min(memory.copies, len(borne_out), late)
            places += copies
            borne_early = len(early.intersection(borne_out))
            if count - len(holders) - borne_early - max(len(borne_out) - borne_early - copies, 0) <= 0:
                for seat in early.difference(borne_out):
                    weight[seat], contested[seat] = 0.0, 1.0
                open_ = [seat for seat in open_ if seat not in early]
        places = max(places, 0)
        for seat in open_:
            if places >= len(open_):
                weight[seat], contested[seat] = trust, 0.0
            else:
                weight[seat] = trust * places / len(open_)
                contested[seat] = 1 - places / len(open_)
    return Claims(frozenset(liars), frozenset(proven - liars), weight, contested)


def _holders(memory: Memory, role: str) -> set[int]:
    """The seats the seat that remembers `memory` knows hold `role`, its own among them."""
    holders = {other for other, held in memory.roles.items() if held == role} if memory.roles else set()
    if memory.role == role:
        holders.add(memory.seat)
    return holders
