"""The Lupus in Tabula family: what Lupus in Tabula (`tabula`) and its Luna Piena edition
(`lunapiena`) play alike, written once for both.

Both deal one card a seat (a table of seven sets one aside), draw the alpha of the pack,
and play the same two-step day (engine/tribunal.py): an open accusation, the ghosts
voting too, that names two suspects (the night's marked seat first), then a secret
ballot among the living who are not suspected. Every tie counts clockwise from the seat
holding a card that changes hands (Tabula's Welcome!, Luna Piena's tombstone). Both judge
the end alike: the village when no wolf lives, the wolves when they are as many as the
rest, but a living sole winner (the Werehamster) instead of either.

An edition subclasses `TabulaFamily` and gives what is its own: its cast, options, deck
and deal, its night (the slots it asks, why a night card is refused, the pipeline), its
groups, and the few named hooks below. Its state keeps the fields `FamilyState` names and
builds its own copies (`moved`), so this base never drops a field only one edition has.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Mapping, Sequence
from random import Random
from typing import Any, ClassVar, Protocol

from .. import abilities, rulings, talk, tribunal
from .. import pack as wolfpack
from ..cards import Card, Field, Slot
from ..characters import KNOW_GROUP, Character
from ..errors import SetupError
from ..events import Audience, Event
from ..night import Death, Night, Pipeline
from ..options import gettext_noop as _
from ..orders import Order
from ..pack import succession
from ..people import AIMS, ALLY, ALONE, LESSONS, Aim, Lesson, Memory, died, found, inquired
from ..random import setup_rng
from ..state import PhaseSpec, RulesetState, Stage, State
from ..table import Role
from ..talk import Channel
from .base import DealShape, EventKinds, JudgedBySides, Timing, one_role_deal, one_role_shape

MIN_PLAYERS = 7
MAX_PLAYERS = 24
VILLAGE = "village"
WOLVES = "wolves"

HOLDER = "holder"
"""The night's note naming who holds the card ties count from after the night's deaths
(a night without one leaves it where it was)."""

_LIST = Field(most=None, ranked=True, optional=True, count_error="empty_list", prune=True)
_ALSO = Field("also", least=1, most=1, optional=True, word="ALSO", prune=True)
KILL = Card("kill", "KILL", (_LIST,), empty_error="empty_list")
KILL_AND_SLAY = Card("kill", "KILL", (_LIST, _ALSO), empty_error="empty_list")
"""The pack's list of a wolf with a one-shot kill among the pack: ALSO and a fellow wolf."""
INQUIRE = Card("inquire", "INQUIRE", (Field(),))
PROTECT = Card("protect", "PROTECT", (Field(),))
OWL = Card("owl", "OWL", (Field(),))
DEADLY_OWL_FROM = 21
"""With more than 20 players the Owl's choice dies at dawn, unless a Werewolf or the
Werehamster (both editions' rulebooks)."""
ACCUSE = Card("vote", "VOTE", (Field(least=0),), blank=False)
BALLOT = Card("ballot", "LYNCH", (Field(least=0),), blank=False)

NIGHT = Stage("night", "night")
ACCUSATION = Stage("accusation", "day", cards="public")
BALLOT_STAGE = Stage("ballot", "day", cards="revealed")
TIMINGS = (
    Timing(
        "accusation",
        (ACCUSATION.name,),
        short=False,
        label=_("Accusation length (minutes)"),
        help=_("Empty: as long as a day."),
    ),
    Timing(
        "ballot",
        (BALLOT_STAGE.name,),
        short=True,
        label=_("Ballot length (minutes)"),
        help=_("Empty: a third of a day, at least ten minutes."),
    ),
)
"""The day's two steps, each of its own length on the New game form."""
OVER_STAGE = Stage("over", "over")


class FamilyCast(Protocol):
    """What the base reads of one game's cast: its `rows` by role name, the roles that
    count as wolves at the end (`wolfish`), the sole winners with the side each wins as
    (`solo`), and the `characters` built from blocks, as definitions."""

    @property
    def rows(self) -> Mapping[str, Role]: ...

    @property
    def wolfish(self) -> frozenset[str]: ...

    @property
    def solo(self) -> Mapping[str, str]: ...

    @property
    def characters(self) -> Mapping[str, Character]: ...


class FamilyState(RulesetState, Protocol):
    """What the base reads of an edition's own state: the role each seat holds, the pack
    in order of succession, the card set aside, the night's mark (`owl`), the open
    ballot's `suspects`, the last player `lynched`, the passed `tokens`, and the `holder`
    of the card ties count from (None before anyone holds it)."""

    def __init__(self, roles: tuple[str, ...], pack: tuple[int, ...] = (), set_aside: str | None = None) -> None: ...

    @property
    def roles(self) -> tuple[str, ...]: ...

    @property
    def pack(self) -> tuple[int, ...]: ...

    @property
    def set_aside(self) -> str | None: ...

    @property
    def owl(self) -> int | None: ...

    @property
    def suspects(self) -> tuple[int, ...]: ...

    @property
    def lynched(self) -> int | None: ...

    @property
    def tokens(self) -> tuple[tuple[str, str, int, int], ...]: ...

    @property
    def holder(self) -> int | None: ...

    def moved(
        self,
        holder: int | None,
        owl: int | None,
        suspects: tuple[int, ...],
        lynched: int | None,
        tokens: tuple[tuple[str, str, int, int], ...],
    ) -> FamilyState:
        """This state with the parts the family's steps move, the rest kept as it was."""
        ...


def owl_ruling(owl: int | None, target: int, rule: str, role: str | None) -> Event:
    """The Owl's choice `target` (of `owl`, where the night knows it) ruled: at a deadly
    table "struck" (it dies at dawn) or "spared" (its `role` is proof against it); by day
    "suspect" (it is one) or "dead" (it died, so the votes alone name the suspects)."""
    return rulings.ruling("owl", {"owl": owl, "target": target, "rule": rule, "role": role})


def origin(state: State) -> int:
    """Where ties count from: the card's holder, or seat 0 while nobody holds it."""
    holder = state.rules.holder
    return 0 if holder is None else int(holder)


FAMILY_EVENTS: EventKinds = {
    "alpha_passed": ("pack",),
    "ballot_revealed": (),
    "character_read": ("seat", "target"),
    "dawn_no_death": (),
    "game_over": (),
    "game_set_up": (),
    "killed": ("seat",),
    "lynched": ("seat",),
    "medium_saw": ("seat",),
    "owl_chose": (),
    "pack_chose": (),
    "pack_formed": ("pack",),
    "pack_known": ("pack",),
    "power_used": (),
    "revived": (),
    "role_dealt": (),
    "role_set_aside": (),
    "rose_again": (),
    "ruling_frail": (),
    "ruling_immune": (),
    "ruling_owl": (),
    "ruling_pack_choice": (),
    "ruling_power_spent": (),
    "ruling_protected": (),
    "ruling_tie_broken": (),
    "seer_saw": ("target",),
    "suspects_named": (),
    "taken": (),
    "token_given": ("giver",),
}
"""The kinds of event both editions write (`Ruleset.events`); each adds its own. (The
ability blocks' events are here: Tabula's organiser's characters are made of them too.)"""


class TabulaFamily(JudgedBySides, ABC):
    """The day, the deal, the deaths and the end of the Lupus in Tabula family; an
    edition gives the abstract hooks and overrides what else it plays otherwise."""

    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    state_type: type[FamilyState]
    LAST_SOLO_WINS: ClassVar[bool] = False
    """When two sole winners of different sides both live at the end, whether the one in
    the later seat wins (Tabula) or the one in the first (Luna Piena); the rulebooks deal
    only one, so it matters only with an organiser's characters."""

    id: str

    # The hooks an edition gives.

    @abstractmethod
    def game_cast(self, options: Mapping[str, Any]) -> FamilyCast:
        """The cast a game's checked options deal."""

    @abstractmethod
    def deck(self, options: Mapping[str, Any], players: int) -> tuple[str, ...]: ...

    @abstractmethod
    def counts(self, options: Mapping[str, Any], deck: Sequence[str]) -> dict[str, Any]:
        """What the game's set-up says of the deck besides its size: `wolves`, `seers`
        and `specials`."""

    @abstractmethod
    def groups(self, options: Mapping[str, Any], roles: Sequence[str]) -> dict[str, list[int]]:
        """The groups whose members know each other (the Freemasons), by name, with
        their seats: they meet at the start and have a channel of their own."""

    @abstractmethod
    def met(self, group: str, members: list[int]) -> Event:
        """What the members of a group are told at the start."""

    @abstractmethod
    def night_phase(self, state: State) -> PhaseSpec:
        """The night's slots: the card each living seat writes tonight."""

    @abstractmethod
    def night_refusal(self, state: State, seat: int, field: Field, value: int) -> str:
        """Why `value` may not stand in `field` of `seat`'s night card."""

    @abstractmethod
    def open_night(
        self, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]
    ) -> tuple[Night, Pipeline]:
        """The night to resolve with its notes, and the steps it runs. A step leaves the
        Owl's choice in the note `owl` and the card's new holder in `HOLDER`."""

    def lynching(self, state: State, lynched: int, deaths: Sequence[Death], events: list[Event]) -> int | None:
        """Who holds the card ties count from after the ballot's deaths (`deaths`, the
        lynched first); by default a lynching leaves it where it was."""
        holder: int | None = state.rules.holder
        return holder

    # The deal.

    def setup(
        self, options: Mapping[str, Any], players: int, seed: int, deal: Mapping[str, Any] | None = None
    ) -> tuple[State, list[Event]]:
        """Deal the cards (or take the given deal: each seat's role, the alpha's seat
        and, at seven, the card set aside), draw the alpha, and tell each seat its role,
        the wolves their pack, each group its members, and whoever knows the pack (an
        organiser's character) who the wolves are."""
        rng = setup_rng(seed)
        table = self.game_cast(options)
        full = list(self.deck(options, players))
        dealt, set_aside = _dealt(list(full), players, deal or {}, rng)
        wolves = [seat for seat, role in enumerate(dealt) if table.rows[role].pack]
        pack = succession(wolves, (deal or {}).get("alpha"), players, rng)
        state = State(
            ruleset=self.id,
            options=dict(options),
            seed=seed,
            alive=(True,) * players,
            revealed=(False,) * players,
            phase="night",
            number=1,
            rules=self.state_type(tuple(dealt), pack, set_aside),
        )
        summary = {"players": players, **self.counts(options, full), "set_aside": len(full) - players}
        events = [Event("game_set_up", summary, Audience.public())]
        if set_aside is not None:
            events.append(Event("role_set_aside", {"role": set_aside}, Audience.moderator()))
        events += [
            Event("role_dealt", {"seat": seat, "role": role}, Audience.of(seat)) for seat, role in enumerate(dealt)
        ]
        events.append(Event("pack_formed", {"pack": list(pack)}, Audience.of(*pack)))
        for group, members in self.groups(options, dealt).items():
            if len(members) > 1:
                events.append(self.met(group, members))
        for seat, role in enumerate(dealt):
            character = table.characters.get(role)
            known = character.block(KNOW_GROUP) if character is not None else None
            if known is not None and known.group == "pack":
                events.append(Event("pack_known", {"seat": seat, "pack": list(pack)}, Audience.of(seat)))
        return state, events

    def deal_shape(self, options: Mapping[str, Any], players: int) -> DealShape:
        """One role a seat from the table's deck, and the alpha if the organiser likes."""
        return one_role_shape(self.deck(options, players))

    def deal_from_hands(self, hands: Sequence[Mapping[str, Any]], mark: int | None) -> dict[str, Any]:
        return one_role_deal(hands, mark)

    def lessons(self) -> Mapping[str, Lesson]:
        """The shared lessons and the family's own, for the bots (engine/people.py): a
        death (the card known only where the game shows it; a player killed at night is
        no wolf, whatever it shows), the Medium's answer kept for it to claim, the
        setup's counts of Werewolves, Seers and specials (and how many of those win
        alone: the Werehamster, `alone`), a seat's own stance (the
        Possessed sides with a pack it does not know, the Werehamster with nobody), a
        lodge's members known to each other by role (the Freemasons: each may vouch for
        the others in the square), the accusation's and the ballot's public votes, and an
        exact reading (the Fortune-teller's): the
        character read, kept as a result to claim as the Seer claims its own (a
        character that wins alone, the Werehamster, is no wolf but a foe: `loners`)."""
        rows = self.roles

        def wolfish(role: str) -> bool:
            return role in rows and rows[role].seen_as_wolf

        def alone(role: str) -> bool:
            """A role that wins alone, no pack's and neither side's (the Werehamster)."""
            row = rows.get(role)
            return row is not None and not row.pack and row.side not in (VILLAGE, WOLVES)

        def dealt(memory: Memory, data: Mapping[str, Any]) -> None:
            if data["seat"] == memory.seat:
                memory.role = role = data["role"]
                row = rows.get(role)
                if row is not None and not row.pack and row.side == WOLVES:
                    memory.stance = ALLY
                elif alone(role):
                    memory.stance = ALONE

        def read(memory: Memory, data: Mapping[str, Any]) -> None:
            if data["seat"] == memory.seat:
                target, role = data["target"], data["role"]
                memory.roles[target] = role
                if alone(role):  # no wolf, but a foe: it wins alone, and is hunted
                    memory.loners.add(target)
                else:
                    found(memory, target, wolfish(role))
                memory.results.append((target, wolfish(role)))

        def counted(memory: Memory, data: Mapping[str, Any]) -> None:
            _counted(memory, data)
            memory.alone = sum(1 for name in data.get("specials", ()) if alone(str(name)))

        return {
            **LESSONS,
            "role_dealt": dealt,
            "character_read": read,
            "masons_met": _lodge("masons"),
            "group_met": _lodge("members"),
            "game_set_up": counted,
            "owl_chose": _marked,
            "medium_saw": inquired("seat"),
            "suspects_named": _accused,
            "ballot_revealed": _accused,
            "killed": died(wolfish, prey=True),
            **{cause: died(wolfish) for cause in ("lynched", "taken")},
        }

    def aims(self) -> Mapping[str, Aim]:
        """The shared aims, and the Owl's card: the player it names is made a suspect."""
        return _AIMS

    def cast(self, options: Mapping[str, Any]) -> Mapping[str, Role]:
        """The rows of a game's roles: the edition's, and the organiser's characters."""
        return self.game_cast(options).rows

    def characters(self, options: Mapping[str, Any]) -> Mapping[str, Character]:
        """A game's characters built from blocks, as definitions."""
        return self.game_cast(options).characters

    def channels(self, state: State) -> tuple[Channel, ...]:
        """The square, the den (the wolves meet at night only), each group's own, and
        the ghosts' corner (nothing a ghost writes reaches the living)."""
        rules: FamilyState = state.rules
        groups = self.groups(state.options, rules.roles)
        return talk.standard(state, groups=groups, den_open=state.phase == "night", pack=rules.pack)

    def roles_of(self, state: State, seat: int) -> tuple[str, ...]:
        return (state.rules.roles[seat],)

    # The steps and their cards.

    def phase(self, state: State) -> PhaseSpec:
        """The night's slots, or the day's: every seat, ghosts too, accuses one of the
        living; then the living who are not suspects choose between the two."""
        if state.over:
            return PhaseSpec(OVER_STAGE, state.number, {})
        if state.phase != "day":
            return self.night_phase(state)
        living = state.living()
        if state.step == 1:
            vote = Slot(ACCUSE, (tuple(living),))
            return PhaseSpec(ACCUSATION, state.number, dict.fromkeys(range(state.seats), vote), step=1)
        suspects = state.rules.suspects
        ballot = Slot(BALLOT, (suspects,))
        return PhaseSpec(BALLOT_STAGE, state.number, {seat: ballot for seat in living if seat not in suspects}, step=2)

    def bound(self, state: State, field: Field) -> int:
        return state.seats

    def misfit(self, state: State, seat: int, order: Order) -> str:
        return "wrong_order"

    def unasked(self, state: State, seat: int) -> str:
        """In the ballot, a ghost and a suspect are told why they have no vote."""
        if state.phase == "day" and state.step == 2:
            if not state.alive[seat]:
                return "ghost_ballot"
            if seat in state.rules.suspects:
                return "suspect_ballot"
        return "not_asked"

    def refusal(self, state: State, seat: int, field: Field, value: int) -> str:
        """At night, the edition's reasons; by day, a dead name, a name on a ballot who
        is not a suspect, or the writer's own name."""
        if state.phase == "night":
            return self.night_refusal(state, seat, field, value)
        if not state.alive[value]:
            return "target_dead"
        if state.phase == "day" and state.step == 2:
            return "not_a_suspect"
        if value == seat:
            return "target_self"
        return "not_a_choice"

    def decisive(self, state: State, cards: Mapping[int, Order]) -> bool:
        """No step ends before its deadline on the cards alone: the accusation counts
        every vote to find two suspects, and the ballot is revealed all at once."""
        return False

    # Resolution: the night, the accusation, the ballot.

    def resolve(self, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> State:
        """Resolve the open step with the checked cards."""
        if state.phase == "night":
            return self._night(state, cards, rng, events)
        if state.step == 1:
            return self._accusation(state, cards, events)
        return self._ballot(state, cards, events)

    def _night(self, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> State:
        """Run the edition's night; the Owl's choice and the card's holder are kept at
        dawn, and the day opens unless the game is over."""
        night, steps = self.open_night(state, cards, rng, events)
        state = steps.run(night, self)
        old: FamilyState = state.rules
        owl = night.notes.get("owl")
        holder = night.notes.get(HOLDER, old.holder)
        new = old
        if owl != old.owl or holder != old.holder:
            new = old.moved(holder, owl, old.suspects, old.lynched, old.tokens)
        if state.over:
            return state.evolve(index=state.index + 1, rules=new)
        return state.evolve(phase="day", step=1, index=state.index + 1, rules=new)

    def _accusation(self, state: State, cards: Mapping[int, Order], events: list[Event]) -> State:
        """Name the suspects: the Owl's choice first when it lives, then the players with
        most votes, ties going to the closest clockwise from the card's holder. When
        nobody is accused at all, the day ends without a ballot."""
        rules: FamilyState = state.rules
        data = tribunal.suspects(state, cards, origin(state), rules.owl, events)
        if rules.owl is not None:
            suspected = data["owl"] is not None
            events.append(owl_ruling(None, rules.owl, "suspect" if suspected else "dead", None))
        if data["owl"] is not None:
            events.append(Event("owl_chose", {"seat": data["owl"]}, Audience.public()))
        events.append(Event("suspects_named", data, Audience.public()))
        suspects = tuple(data["suspects"])
        new = rules.moved(rules.holder, None, suspects, rules.lynched, rules.tokens)
        if not suspects:
            return _nightfall(state, new)
        return state.evolve(step=2, index=state.index + 1, rules=new)

    def _ballot(self, state: State, cards: Mapping[int, Order], events: list[Event]) -> State:
        """Reveal the ballots together; the suspect with more is lynched, a tie going to
        the suspect closest clockwise from the card's holder; the edition passes the
        card (`lynching`), an organiser's Skull moves on, and the end is judged."""
        old: FamilyState = state.rules
        data = tribunal.ballot(state, old.suspects, cards, origin(state), events)
        lynched = data["lynched"]
        events.append(Event("ballot_revealed", data, Audience.public()))
        deaths = self.mourned(state, [(lynched, "lynched")])
        state = self.bury(state, deaths, events)
        holder = self.lynching(state, lynched, deaths, events)
        tokens = abilities.skull_moves(state, events) if old.tokens else old.tokens
        state = self.judge(state, events)
        return _nightfall(state, old.moved(holder, None, (), lynched, tokens))

    # Deaths and the end.

    def mourned(self, state: State, deaths: Sequence[Death]) -> list[Death]:
        """The deaths of one moment in order, every seat once and only a living one; a
        giver of a Skull (an organiser's character, Luna Piena's Hamlet) takes its holder
        along."""
        dying: list[Death] = []
        gone: set[int] = set()
        if not state.rules.tokens:
            for seat, cause in deaths:
                if seat not in gone and state.alive[seat]:
                    dying.append((seat, cause))
                    gone.add(seat)
            return dying
        queue = list(deaths)
        while queue:
            seat, cause = queue.pop(0)
            if seat not in gone and state.alive[seat]:
                dying.append((seat, cause))
                gone.add(seat)
                queue += abilities.taken_along(state, seat)
        return dying

    def bury(self, state: State, deaths: Sequence[Death], events: list[Event]) -> State:
        """Apply and announce the deaths of one moment (engine/pack.py), with the ruling
        for each holder a Skull's giver took along (`mourned`)."""
        taken = abilities.taken_rulings(state, deaths) if state.rules.tokens else []
        state = wolfpack.bury(state, deaths, events)
        events += taken
        return state

    def winner(self, state: State) -> str | None:
        """The village when no wolf lives; the wolves when the living wolves are at least
        as many as the other living players (those who side with the wolves but do not
        count as one, such as the Possessed, count as the others); but whichever side
        wins, a living sole winner wins alone instead."""
        table = self.game_cast(state.options)
        wolfish, solos = table.wolfish, table.solo
        last = self.LAST_SOLO_WINS
        wolves = others = 0
        solo = None
        for role, alive in zip(state.rules.roles, state.alive, strict=True):
            if alive:
                if role in wolfish:
                    wolves += 1
                else:
                    others += 1
                if role in solos and (solo is None or last):
                    solo = solos[role]
        if wolves and wolves < others:
            return None
        return solo or (WOLVES if wolves else VILLAGE)

    def winners(self, state: State, side: str) -> tuple[int, ...]:
        """The seats on the winning side, its dead included."""
        rows = self.game_cast(state.options).rows
        return tuple(seat for seat, role in enumerate(state.rules.roles) if rows[role].side == side)


_AIMS: Mapping[str, Aim] = {**AIMS, "owl": "hostile"}


def _counted(memory: Memory, data: Mapping[str, Any]) -> None:
    """The setup's counts, by role: the Werewolves and Seers, one of each special."""
    counts = Counter(str(name) for name in data.get("specials", ()))
    counts.update({"wolf": int(data["wolves"]), "seer": int(data["seers"])})
    memory.counts.update(counts)
    memory.inquiring = "seer"
    if int(data.get("players", 0)) >= DEADLY_OWL_FROM:
        memory.deadly = OWL.kind


def _marked(memory: Memory, data: Mapping[str, Any]) -> None:
    """The Owl's choice named a suspect: at a table where the Owl's choice dies unless
    it is a Werewolf or the Werehamster (`Memory.deadly`), one who lives to be named is
    one of those."""
    if memory.deadly == OWL.kind and data.get("seat") is not None:
        found(memory, data["seat"], True)


def _accused(memory: Memory, data: Mapping[str, Any]) -> None:
    """The accusation's votes and the ballot's, both shown to everyone: each (voter,
    named) is kept, so that a vote once cast for a player later known to be a wolf may
    speak for its voter."""
    for voter, named in data.get("votes", data.get("ballots", ())):
        if named is not None:
            memory.votes.append((voter, named))


def _lodge(key: str) -> Lesson:
    """A known group's members (the Freemasons' lodge): each is cleared, and known to
    hold the seat's own role. A group other than the lodge (an organiser's character
    who knows the pack is told so otherwise) is no lodge."""

    def lesson(memory: Memory, data: Mapping[str, Any]) -> None:
        if data.get("group", "lodge") != "lodge":
            return
        members = set(data[key])
        memory.cleared |= members
        if memory.role is not None:
            for seat in members - {memory.seat}:
                memory.roles.setdefault(seat, memory.role)

    return lesson


def _dealt(cards: list[str], players: int, deal: Mapping[str, Any], rng: Random) -> tuple[list[str], str | None]:
    """The roles dealt and the card set aside: `cards` shuffled, the last set aside when
    there is one too many; or the given deal's roles, which must be the deck's cards, the
    one left being the card set aside (and the deal's own, if it names one)."""
    roles = deal.get("roles")
    if roles is None:
        rng.shuffle(cards)
        set_aside = cards.pop() if len(cards) > players else None
        return cards, set_aside
    dealt = list(roles)
    if len(dealt) != players:
        raise SetupError("bad_roles", "roles", roles)
    for role in dealt:
        if role not in cards:
            raise SetupError("bad_roles", "roles", roles)
        cards.remove(role)
    set_aside = cards[0] if cards else None
    given = deal.get("set_aside")
    if given is not None and given != set_aside:
        raise SetupError("bad_roles", "set_aside", given)
    return dealt, set_aside


def _nightfall(state: State, rules: FamilyState) -> State:
    """Close the day: the next night opens, unless the game is over."""
    if state.over:
        return state.evolve(index=state.index + 1, rules=rules)
    return state.evolve(phase="night", number=state.number + 1, step=1, index=state.index + 1, rules=rules)
