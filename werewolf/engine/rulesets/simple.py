"""Simple rulesets: what classic plays and any one-role ruleset of its kind needs (a
Mafia: a faction that kills together, a Detective, a Doctor, an open day vote), written
once, as `TabulaFamily` is for Lupus in Tabula's editions.

Such a ruleset deals one role a seat from its deck (or takes the organiser's deal), draws
the alpha of its pack (the faction that chooses one victim a night from its members'
ranked lists, engine/pack.py), tells each seat its role and the pack its members, runs its
night as a pipeline (engine/night.py) at dawn, and votes by day in the open: the day ends
as soon as a strict majority of the living names one player, or at the deadline by the
game's rule (nobody, or the player with most votes; a tie: nobody, or one drawn). Nights and
days alternate from the game's first phase; a death is announced by its cause, its card
shown if the game says so, the alpha's role passing down the succession; the end is judged
once per moment: the pack's side wins when its wolves are at least as many as the other
living players, the other side when no wolf lives.

A ruleset subclasses `SimpleFamily` and gives its cast (`roles`), cards, state class,
options (`options`), `deck`, `set_up_summary` and its night (`night_steps`, built in its
`__init__` from its own steps and the base's `choose_victim` / `kill_victim`); it overrides
a named hook where it plays otherwise (classic: Cupid's Lovers die together and may win
alone, Dark City hides the dead's cards, "Thing" tests by day and converts by night).

Where the ruleset says `NO_ELIMINATION_VOTE` (Mafia), the day may also vote NO ELIMINATION
(a card its day slot offers `instead` of VOTE): a candidate like a player, which names
nobody when it wins; the day's death is `DAY_DEATH` ("lynched"; Mafia's "eliminated").

The options the base reads by key, which a simple ruleset's options must hold: `start`
("night" or "day"), `day_deadline` ("no-lynch" or "plurality"), `tie` ("none" or "random")
and `reveal_dead`. Its state keeps `roles`, `pack`, `spent` and `unmet` (`SimpleState`)
and builds its own copies (`with_rules`), so the base never drops a field of its own.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any, ClassVar, Protocol

from .. import rulings
from ..abilities import BLOCK
from ..cards import SLEEPER, Card, Field, Slot
from ..errors import SetupError
from ..events import Audience, Event
from ..night import Death, Night, Pipeline
from ..orders import Order
from ..pack import alpha, succession
from ..pack import victim as pack_victim
from ..people import LESSONS, Lesson, died
from ..random import setup_rng
from ..state import PhaseKind, PhaseSpec, RulesetState, Stage, State
from ..table import Role
from ..voting import leaders, majority_of, strict_majority
from ..voting import tally as counts_of
from .base import Advice, DealShape, JudgedBySides, one_role_deal, one_role_shape

LIST = Field(most=None, ranked=True, optional=True, count_error="empty_list", prune=True)
"""A pack member's ranked list of victims (the pack's own members refused)."""
KILL = Card("kill", "KILL", (LIST,), empty_error="empty_list")
INQUIRE = Card("inquire", "INQUIRE", (Field(),))
PROTECT = Card("protect", "PROTECT", (Field(),))
SHOOT = Card("shoot", "SHOOT", (Field(),))
VOTE = Card("vote", "VOTE", (Field(least=0),), blank=False)
"""The day's open vote; a blank one abstains."""
NO_ELIMINATION = Card("no_elimination", "NO ELIMINATION", blank=False)
"""A day's vote for no elimination, handed in instead of a VOTE where a ruleset offers it
(`Slot.instead`): it counts like a vote for a player, and if it wins nobody dies. A blank
VOTE (NO VOTE) is an abstention, which counts for nobody."""
NOBODY = -1
"""In a count, a vote for no elimination (never a seat)."""

NIGHT = Stage("night", "night")
DAY = Stage("day", "day", cards="public", decisive=True)
OVER_STAGE = Stage("over", "over")


class SimpleState(RulesetState, Protocol):
    """What the base reads of a simple ruleset's own state: each seat's role, the pack in
    order of succession (the alpha first), the seats that spent a once-a-game power, and
    the pack members who have not met the pack yet (`unmet`: told of it at nightfall)."""

    def __init__(self, roles: tuple[str, ...], pack: tuple[int, ...] = (), *, unmet: tuple[int, ...] = ()) -> None: ...

    @property
    def roles(self) -> tuple[str, ...]: ...

    @property
    def pack(self) -> tuple[int, ...]: ...

    @property
    def spent(self) -> tuple[int, ...]: ...

    @property
    def unmet(self) -> tuple[int, ...]: ...


@dataclass(frozen=True, slots=True)
class Tally:
    """A day's open vote counted: each voter's choice, the player it names (None:
    nobody), how (`majority`, `plurality`, `tie_drawn`, or why nobody: `no_majority`,
    `tie`, `no_votes`), and the players tied at the top where a tie mattered."""

    ballots: dict[int, int]
    named: int | None
    how: str
    tied: list[int]
    more: Mapping[str, Any] = field(default_factory=dict)
    """What else the ruleset's count tells `day_ended` (Mafia: who voted for no
    elimination)."""


class SimpleFamily(JudgedBySides, ABC):
    """The deal, the open day, the phases, the deaths and the end of a simple ruleset; a
    ruleset gives the abstract hooks and overrides what else it plays otherwise."""

    id: str
    roles: Mapping[str, Role]
    state_type: type[SimpleState]
    night_steps: Pipeline
    """The night's steps in call order (set in the ruleset's `__init__`, where its steps
    may be the base's bound methods)."""
    SIDES: ClassVar[tuple[str, str]] = ("village", "wolves")
    """The side that wins when no wolf lives, and the pack's side."""
    MEET_AT_NIGHTFALL: ClassVar[bool] = True
    """In a game that opens with a day, the pack meets at the first nightfall (classic);
    False: the pack knows its members from the deal, whichever phase comes first."""
    NO_ELIMINATION_VOTE: ClassVar[bool] = False
    """Whether the day may vote for no elimination (its `day_ended` then names those who
    did, as `no_elimination`)."""
    DAY_DEATH: ClassVar[str] = "lynched"
    """The cause of the death the day's vote deals (Mafia's "eliminated")."""
    CAUSES: ClassVar[tuple[str, ...]] = ("lynched",)
    """The public deaths a bot learns a card from besides the night's kill (`lessons`)."""

    # The hooks a ruleset gives.

    @abstractmethod
    def deck(self, options: Mapping[str, Any], players: int) -> tuple[str, ...]: ...

    @abstractmethod
    def set_up_summary(self, options: Mapping[str, Any], players: int) -> dict[str, Any]:
        """What everyone is told of the game's set-up (`game_set_up`): the table's size and
        what its deck holds."""

    def power_slot(self, state: State, seat: int, row: Role, living: list[int]) -> Slot:
        """The night card of a living seat outside the pack whose role acts at night:
        an inquiry, a roleblock (engine/abilities.py) or a one-shot shot (once a game) at
        another living player, a protection of anyone living; nothing for another power (a
        ruleset names its own)."""
        if row.night in ("inquire", "block"):
            return Slot(INQUIRE if row.night == "inquire" else BLOCK, (others(living, seat),))
        if row.night == "protect":
            return Slot(PROTECT, (tuple(living),))
        if row.night == "shoot" and seat not in state.rules.spent:
            return Slot(SHOOT, (others(living, seat),))
        return SLEEPER

    def pack_slot(self, state: State, prey: tuple[int, ...]) -> Slot:
        """A pack member's card: a ranked list of the players it may kill (none on a quiet
        night)."""
        return SLEEPER if self.quiet(state) else Slot(KILL, (prey,))

    def quiet(self, state: State) -> bool:
        """Whether tonight the pack meets and kills nobody; never, by default."""
        return False

    def random_victim(self, state: State) -> bool:
        """Whether the pack kills a player drawn at random when no member hands in a list;
        by default it kills nobody."""
        return False

    def shot_hits(self, state: State, target: int) -> bool:
        """Whether a one-shot shot (`shoot_once`) kills its target: always, by default."""
        return True

    def victim_falls(self, night: Night, victim: int) -> None:
        """What the pack's victim suffers at dawn when nothing saved it: it is killed."""
        night.kills.append((victim, "killed"))

    def taken_with(self, state: State, seat: int) -> list[Death]:
        """Who dies with `seat` in the same moment (classic's Lover); nobody by default."""
        return []

    def announce(self, state: State, seat: int, cause: str, events: list[Event]) -> State:
        """One death, announced by its cause, its card shown if the game reveals the dead."""
        reveal = bool(state.options["reveal_dead"])
        state = state.with_death(seat, reveal=reveal)
        events.append(
            Event(cause, {"seat": seat, "role": state.rules.roles[seat] if reveal else None}, Audience.public())
        )
        return state

    def meets_tonight(self, state: State) -> bool:
        """Whether the pack meets at this nightfall (the day `state` closes): in a game
        that opened with a day, at the first one."""
        return self.MEET_AT_NIGHTFALL and state.options["start"] == "day" and state.number == 1

    def resolve_day(
        self, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]
    ) -> tuple[State, bool]:
        """End the open vote: the player it names dies of `DAY_DEATH` (is lynched).
        Returns the state and whether the same day votes again (never, by default)."""
        tally = self.tally(state, cards, rng, events)
        data = {
            "ballots": [[voter, tally.ballots[voter]] for voter in sorted(tally.ballots)],
            **tally.more,
            "lynched": tally.named,
            "how": tally.how,
            "tied": tally.tied,
        }
        events.append(Event("day_ended", data, Audience.public()))
        if tally.named is None:
            return state, False
        return self.die(state, tally.named, self.DAY_DEATH, events), False

    # The deal.

    def advice(self, options: Mapping[str, Any], players: int) -> tuple[Advice, ...]:
        """No advice, unless the ruleset has some."""
        return ()

    def setup(
        self, options: Mapping[str, Any], players: int, seed: int, deal: Mapping[str, Any] | None = None
    ) -> tuple[State, list[Event]]:
        """Deal the roles (or take the given deal: each seat's role and the alpha's
        seat), choose the alpha, and tell each seat its role and the pack its members
        (at the first nightfall, in a game that opens with a day and `MEET_AT_NIGHTFALL`)."""
        rng = setup_rng(seed)
        rows = self.roles
        roles = (deal or {}).get("roles")
        alpha = (deal or {}).get("alpha")
        if roles is None:
            deck = list(self.deck(options, players))
            rng.shuffle(deck)
        else:
            deck = list(roles)
            if len(deck) != players or any(role not in rows for role in deck):
                raise SetupError("bad_roles", "roles", roles)
            wanted = self.deck(options, players)
            if any(deck.count(role) != wanted.count(role) for role in rows):
                raise SetupError("bad_roles", "roles", roles)
        pack = succession([seat for seat, role in enumerate(deck) if rows[role].pack], alpha, players, rng)
        meet_later = self.MEET_AT_NIGHTFALL and options["start"] == "day"
        state = State(
            ruleset=self.id,
            options=dict(options),
            seed=seed,
            alive=(True,) * players,
            revealed=(False,) * players,
            phase=options["start"],
            number=1,
            rules=self.state_type(tuple(deck), pack, unmet=pack if meet_later else ()),
        )
        events = [Event("game_set_up", self.set_up_summary(options, players), Audience.public())]
        events += [
            Event("role_dealt", {"seat": seat, "role": role}, Audience.of(seat)) for seat, role in enumerate(deck)
        ]
        if not meet_later:
            events.append(self.pack_formed(state))
        return state, events

    def deal(self, state: State) -> dict[str, Any]:
        """Each seat's role and the alpha's seat. Asked of a state fresh from `setup`
        (the server records it when the game starts), it sets the same game up again."""
        return {"roles": list(state.rules.roles), "alpha": state.rules.pack[0]}

    def deal_shape(self, options: Mapping[str, Any], players: int) -> DealShape:
        """One role a seat from the table's deck, and the alpha if the organiser likes."""
        return one_role_shape(self.deck(options, players))

    def deal_from_hands(self, hands: Sequence[Mapping[str, Any]], mark: int | None) -> dict[str, Any]:
        return one_role_deal(hands, mark)

    def roles_of(self, state: State, seat: int) -> tuple[str, ...]:
        return (state.rules.roles[seat],)

    def pack_formed(self, state: State) -> Event:
        """The living pack learns its members, the alpha first and then the succession."""
        pack = [seat for seat in state.rules.pack if state.alive[seat]]
        return Event("pack_formed", {"pack": pack}, Audience.of(*pack))

    # The steps and their cards.

    @property
    def night_order(self) -> tuple[str, ...]:
        """The night's steps in call order (the moderator's script reads them)."""
        return self.night_steps.names

    def phase(self, state: State) -> PhaseSpec:
        """By day every living player votes for one of the living (or abstains); by
        night the pack writes its list, each power its card, everyone else a blank card."""
        if state.over:
            return PhaseSpec(OVER_STAGE, state.number, {})
        living = state.living()
        if state.phase == "day":
            ballot = Slot(VOTE, (tuple(living),))
            return PhaseSpec(DAY, state.number, dict.fromkeys(living, ballot), step=state.step)
        rows, roles = self.roles, state.rules.roles
        prey = tuple(seat for seat in living if rows[roles[seat]].prey)
        hunt = self.pack_slot(state, prey)
        slots: dict[int, Slot] = {}
        for seat in living:
            row = rows[roles[seat]]
            if row.pack:
                slots[seat] = hunt
            elif row.night is None:
                slots[seat] = SLEEPER
            else:
                slots[seat] = self.power_slot(state, seat, row, living)
        return PhaseSpec(NIGHT, state.number, slots)

    def bound(self, state: State, field: Field) -> int:
        return state.seats

    def misfit(self, state: State, seat: int, order: Order) -> str:
        return "wrong_order"

    def unasked(self, state: State, seat: int) -> str:
        return "not_asked"

    def refusal(self, state: State, seat: int, field: Field, value: int) -> str:
        """A dead name, a pack member on a pack member's list, or the writer's own name."""
        if not state.alive[value]:
            return "target_dead"
        if field.prune and not self.roles[state.rules.roles[value]].prey:
            return "target_wolf"
        if value == seat:
            return "target_self"
        return "not_a_choice"

    def decisive(self, state: State, cards: Mapping[int, Order]) -> bool:
        """A day ends as soon as a strict majority of the living vote for one player."""
        needed = self.majority(state)
        nobody = NOBODY if self.NO_ELIMINATION_VOTE else None
        return needed is not None and any(count >= needed for count in counts_of(ballots(cards, nobody)).values())

    def majority(self, state: State) -> int | None:
        """By day, more than half of the living; a night is never settled by votes."""
        return majority_of(len(state.living())) if state.phase == "day" else None

    # Resolution: the night, the day, the next phase.

    def resolve(self, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> State:
        """Resolve the open step with the checked cards: the night's pipeline, or the
        day's vote (again if the ruleset's day says so), then the next phase."""
        if state.phase == "night":
            return self.advance(self.night_steps.run(Night(state, cards, rng, events), self))
        state, again = self.resolve_day(state, cards, rng, events)
        if again:
            return state.evolve(step=state.step + 1, index=state.index + 1)
        if not state.over and self.meets_tonight(state):
            events.append(self.pack_formed(state))
            state = state.with_rules(unmet=())
        return self.advance(state)

    def tally(self, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> Tally:
        """Count the open vote, a vote for no elimination (where the ruleset takes one) as
        one more candidate: a strict majority decides; else, as the game's `day_deadline`
        says, nobody or the plurality. No elimination alone at the top, or tied there,
        names nobody; a tie between players names nobody or one of them drawn at random
        (`tie`)."""
        votes = ballots(cards, NOBODY if self.NO_ELIMINATION_VOTE else None)
        named = strict_majority(votes, len(state.living()))
        how = "majority"
        tied: list[int] = []
        if named is None:
            top = leaders(votes)
            if state.options["day_deadline"] == "no-lynch":
                how = "no_majority"
            elif top == [NOBODY]:
                how = "no_elimination"
            elif len(top) == 1:
                named, how = top[0], "plurality"
            elif NOBODY in top:
                how, tied = "tie", [seat for seat in top if seat != NOBODY]
            elif top and state.options["tie"] == "random":
                named, how, tied = rng.choice(top), "tie_drawn", top
                events.append(rulings.tie_broken("day", top, (named,), "random"))
            else:
                how, tied = ("tie", top) if top else ("no_votes", [])
        elif named == NOBODY:
            named, how = None, "no_elimination"
        if not self.NO_ELIMINATION_VOTE:
            return Tally(votes, named, how, tied)
        players = {voter: choice for voter, choice in votes.items() if choice != NOBODY}
        nobody = sorted(voter for voter, choice in votes.items() if choice == NOBODY)
        return Tally(players, named, how, tied, {"no_elimination": nobody})

    def advance(self, state: State) -> State:
        """Open the next phase: nights and days alternate; the cycle number counts from
        the game's first phase."""
        if state.over:
            return state.evolve(index=state.index + 1)
        starts_at_night = state.options["start"] == "night"
        phase: PhaseKind
        if state.phase == "night":
            number = state.number + (0 if starts_at_night else 1)
            phase = "day"
        else:
            number = state.number + (1 if starts_at_night else 0)
            phase = "night"
        return state.evolve(phase=phase, number=number, index=state.index + 1, step=1)

    # The pack's night, as steps a ruleset's pipeline names.

    def choose_victim(self, night: Night) -> None:
        """The pack's victim, how it was chosen, and whose list decided (None by
        consensus): told to the living pack."""
        state = night.state
        pack = [seat for seat in state.rules.pack if state.alive[seat]]
        night.notes["pack"] = pack
        prey = None
        if self.random_victim(state):
            prey = [seat for seat in state.living() if self.roles[state.rules.roles[seat]].prey]
        victim, how, decided_by = pack_victim(
            pack, night.cards, quiet=self.quiet(state), prey=prey, rng=night.rng, events=night.events
        )
        night.notes["victim"] = victim
        night.tell("pack_chose", {"victim": victim, "how": how, "decided_by": decided_by}, Audience.of(*pack))

    def shoot_once(self, night: Night) -> None:
        """A one-shot shot (a Vigilante's): it kills its target if it hits (`shot_hits`),
        and is spent whatever it hit; the shooter learns whether it hit."""
        for seat, card in night.written("shoot"):
            target = card.targets[0]
            hit = self.shot_hits(night.state, target)
            night.state = night.state.with_rules(spent=tuple(sorted({*night.state.rules.spent, seat})))
            night.tell("vigilante_fired", {"target": target, "hit": hit}, Audience.of(seat))
            night.events.append(rulings.power_spent(seat, "shoot", (target,)))
            if hit:
                night.kills.append((target, "shot"))

    def kill_victim(self, night: Night) -> None:
        """The pack's victim falls (`victim_falls`) after the night's earlier kills, unless
        they took it already, or they settled the game (say, they killed the last wolf)."""
        victim = night.notes["victim"]
        if victim is None:
            return
        state = night.state
        dying = [seat for seat, _ in self.mourned(state, night.kills)]
        after = state.evolve(alive=tuple(alive and seat not in dying for seat, alive in enumerate(state.alive)))
        if not after.alive[victim] or self.winner(after) is not None:
            rule = "died_first" if not after.alive[victim] else "game_decided"
            night.events.append(rulings.ruling("kill_void", {"seat": victim, "rule": rule}))
            night.notes["victim"] = None
        else:
            self.victim_falls(night, victim)

    # Deaths and the end.

    def die(self, state: State, seat: int, cause: str, events: list[Event]) -> State:
        """A death by day with what it takes along, then the end judged once after all."""
        return self.judge(self.bury(state, self.mourned(state, [(seat, cause)]), events), events)

    def mourned(self, state: State, deaths: Sequence[Death]) -> list[Death]:
        """The deaths of one moment, in order, each followed by those it takes along
        (`taken_with`): every seat once, and only a living seat."""
        dying: list[Death] = []
        gone: set[int] = set()
        for seat, cause in deaths:
            if seat in gone or not state.alive[seat]:
                continue
            dying.append((seat, cause))
            gone.add(seat)
            for other, why in self.taken_with(state, seat):
                if state.alive[other] and other not in gone:
                    dying.append((other, why))
                    gone.add(other)
        return dying

    def bury(self, state: State, deaths: Sequence[Death], events: list[Event]) -> State:
        """Apply the deaths of one moment (from `mourned`), each announced once; then,
        if the alpha was among them, the role passes on and the members who know the pack
        are told. The end of the game is judged after everything of that moment."""
        old_alpha = alpha(state)
        for seat, cause in deaths:
            state = self.announce(state, seat, cause, events)
        new_alpha = alpha(state)
        if old_alpha is not None and not state.alive[old_alpha] and new_alpha is not None:
            living_pack = [seat for seat in state.rules.pack if state.alive[seat]]
            # A member who has not met the pack yet (before the first night of a game that
            # opened with a day) learns it at nightfall.
            told = [seat for seat in living_pack if seat not in state.rules.unmet]
            if told:
                events.append(Event("alpha_passed", {"alpha": new_alpha, "pack": living_pack}, Audience.of(*told)))
        return state

    def winner(self, state: State) -> str | None:
        """The first of `SIDES` when no wolf lives; the pack's when the living wolves are
        at least as many as the other living players; else nobody yet."""
        rows, roles = self.roles, state.rules.roles
        wolves = others = 0
        for seat, alive in enumerate(state.alive):
            if alive:
                if rows[roles[seat]].counts_as_wolf:
                    wolves += 1
                else:
                    others += 1
        if wolves == 0:
            return self.SIDES[0]
        if wolves >= others:
            return self.SIDES[1]
        return None

    def winners(self, state: State, side: str) -> tuple[int, ...]:
        """The seats that win with `side`: the whole side, its dead included."""
        rows = self.roles
        return tuple(seat for seat, role in enumerate(state.rules.roles) if rows[role].side == side)

    def lessons(self) -> Mapping[str, Lesson]:
        """The shared lessons, and a death's: its card shown tells its role and whether it
        was a wolf's; a player killed at night was none, card shown or not."""
        rows = self.roles

        def seen_as_wolf(role: str) -> bool:
            return rows[role].seen_as_wolf

        return {
            **LESSONS,
            "killed": died(seen_as_wolf, prey=True),
            **{cause: died(seen_as_wolf) for cause in self.CAUSES},
        }


def ballots(cards: Mapping[int, Order], nobody: int | None = None) -> dict[int, int]:
    """Voter to named seat; a vote naming nobody is an abstention. With `nobody`, a vote
    for no elimination counts too, as that value."""
    counted = {seat: card.targets[0] for seat, card in cards.items() if card.kind == "vote" and card.targets}
    if nobody is not None:
        counted.update((seat, nobody) for seat, card in cards.items() if card.kind == NO_ELIMINATION.kind)
    return counted


def others(living: Sequence[int], seat: int) -> tuple[int, ...]:
    return tuple(other for other in living if other != seat)
