"""What every ruleset provides (the engine contract; docs/architecture.md)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, Protocol

from ..cards import Card, Field
from ..characters import Character
from ..events import Event, Viewer
from ..night import Death
from ..options import OptionSpec
from ..orders import Order
from ..outcome import Outcome, finish
from ..people import AIMS, LESSONS, Aim, Lesson
from ..state import PhaseSpec, RulesetState, State
from ..table import Role
from ..talk import Channel, standard


@dataclass(frozen=True, slots=True)
class Advice:
    """Advice on checked options, which the organiser may follow or not (never a
    refusal): `code` says what ("below_suggestion"), `option` and `value` what it is
    about, `count` the number it suggests (players)."""

    code: str
    option: str
    value: str
    count: int


@dataclass(frozen=True, slots=True)
class HandPart:
    """One thing the organiser's deal gives every seat, as a table deals it by hand:
    `name` is its key in a hand; `refers` says what its values are: "card" (a card of
    `pool`, the cards the part is dealt from, each as often as the box holds it),
    "own_house" (one of the seat's two houses: 0 the first, 1 the second) or "goal" (a
    secret goal of `pool`); `count` how many values a hand holds (two characters, one
    under each house), in order."""

    name: str
    refers: str
    pool: tuple[str, ...] = ()
    count: int = 1

    @property
    def choices(self) -> tuple[str, ...]:
        """Each value a hand may hold, once, in the pool's order."""
        return tuple(dict.fromkeys(self.pool))


@dataclass(frozen=True, slots=True)
class DealShape:
    """What the organiser's deal asks: the `parts` of every seat's hand, and the one seat
    the deal names besides (`mark`: "alpha", the wolf who leads the pack, drawn among the
    wolves when left out; "burgomaster", who must be given)."""

    parts: tuple[HandPart, ...]
    mark: str
    mark_required: bool = False


@dataclass(frozen=True, slots=True)
class Timing:
    """Steps of a day that a game may time apart from the day itself, as one length: the
    New game form's field `<family>_<name>_minutes`, with its label and help (message
    ids). Left empty, the steps last a day, or (`short`) a third of a day, at least ten
    minutes and never longer than the day."""

    name: str
    steps: tuple[str, ...]
    short: bool
    label: str
    help: str = ""


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What the pages, mails and printed documents need to know of a ruleset beyond its
    cards, asked by name instead of by the ruleset's id:

    - `family`: the folder of the ruleset's own words among the templates (events/<family>/,
      ...), shared by the editions of one game (both Lupusburgs: "lupusburg").
    - `houses`: a seat plays houses on a ring (a board to draw; cards name a house; a
      tally counts houses, and the bets show as they are placed).
    - `scores`: points are kept, so a game's page shows the scores and games follow one
      another as a series, each adding its points.
    - `paper_pack`: the whole game can be printed for a table (characters, houses, coins,
      seals...), and its score sheet.
    - `rank`: where the family stands in the lists of rulesets (the New game form's, the
      print page's), lowest first; its editions follow one another by id.
    - `typical_table`: the players a game open to sign-up is checked for before they are
      known (0: the ruleset's least).
    - `timings`: the day's steps a game may give their own length (`Timing`).
    - `lineage`: the folders of words the family's own falls back on, nearest first,
      before the shared tree's neutral words: a family of the werewolf games says
      `("werewolf",)`, whose folder words the pack, the village and their roles once for
      them all; a game of another world (Mafia) names its own, or none.
    - `vote_counts`: the hours between the vote counts a new game posts in the square
      during an open vote until its organiser chooses otherwise (0: none, the default; a
      ruleset played as forums play it may count by default)."""

    family: str
    houses: bool = False
    scores: bool = False
    paper_pack: bool = False
    rank: int = 0
    typical_table: int = 0
    timings: tuple[Timing, ...] = ()
    vote_counts: int = 0
    lineage: tuple[str, ...] = ()


EventKinds = Mapping[str, tuple[str, ...]]
"""A ruleset's `events`: each kind of event it writes, with the fields of its data that
name seats whose role its audience learns, or narrows down ("target" of `seer_saw`,
"pack" of `pack_formed`); () where it tells none."""


@dataclass(frozen=True, slots=True)
class HouseSeen:
    """One house of a ring as a viewer sees it: `seat` owns it; `character` is the one
    under it where the viewer may know it (its own, one shown to it, one turned face up,
    every one at the end), else None; `chest` whether the chest is under it, where the
    viewer knows, else None."""

    number: int
    seat: int
    living: bool
    character: str | None
    chest: bool | None


@dataclass(frozen=True, slots=True)
class BetSeen:
    """A bet on the table: who placed it, on whom, and its coin where the viewer may know
    it (its own; every one at the end), else None."""

    seat: int
    target: int
    coin: int | None


@dataclass(frozen=True, slots=True)
class Ring:
    """What a viewer sees of a table of houses (a ruleset whose capabilities say
    `houses`), as a real table shows it: the houses, the bets, who holds the Burgomaster's
    and the Chimney Sweeper's cards, the viewer's own goal (everyone's at the end), and
    which of a seat's characters rules its hand (`ruling`: what its page's help is about)."""

    houses: tuple[HouseSeen, ...]
    bets: tuple[BetSeen, ...]
    burgomaster: int
    sweeper: int | None
    goal: str | None
    goals: tuple[str, ...]
    ruling: str | None


def one_role_shape(deck: tuple[str, ...]) -> DealShape:
    """The deal of a ruleset whose seats hold one role each, from `deck`, and whose pack
    has an alpha (classic, Tabula, Luna Piena)."""
    return DealShape((HandPart("role", "card", deck),), mark="alpha")


def one_role_deal(hands: Sequence[Mapping[str, Any]], mark: int | None) -> dict[str, Any]:
    """`setup`'s deal from one-role hands: each seat's role, and the alpha if named."""
    deal: dict[str, Any] = {"roles": [str(hand["role"]) for hand in hands]}
    if mark is not None:
        deal["alpha"] = mark
    return deal


class Ruleset(Protocol):
    """A ruleset: its cast, its cards and its own state as data, and a few named hooks.

    The engine (`werewolf.engine`) checks cards against the slots `phase` asks, with
    `refusal` for the precise reason a value is refused, and hands `resolve` only
    checked cards; the night runs as the ruleset's `Pipeline` (engine/night.py)."""

    @property
    def id(self) -> str: ...

    @property
    def capabilities(self) -> Capabilities:
        """What the web side asks of the ruleset by name (never by its id)."""
        ...

    @property
    def events(self) -> EventKinds:
        """Every kind of event the ruleset writes (besides the engine's own,
        `engine.ENGINE_EVENTS`), and which of them tell a role (`EventKinds`): what the
        guard tests check its games against, and what the secrecy sweep counts as known."""
        ...

    @property
    def min_players(self) -> int: ...

    @property
    def max_players(self) -> int: ...

    @property
    def roles(self) -> Mapping[str, Role]:
        """The cast, by role name."""
        ...

    @property
    def cards(self) -> tuple[Card, ...]:
        """Every card schema the ruleset uses."""
        ...

    @property
    def state_type(self) -> type[RulesetState]:
        """The class of the ruleset's own part of the state."""
        ...

    extra_options: tuple[OptionSpec, ...]
    """The options `options` reads beside its dataclass (the organiser's own characters,
    Luna Piena's list of cards), described for a form as the dataclass's are."""

    @property
    def options_type(self) -> type[Any]:
        """The dataclass of the options the ruleset reads (`options.parse_options`), which
        `options.describe` reads for a form; options it reads apart (the organiser's own
        characters, Luna Piena's list of cards) are not in it."""
        ...

    @property
    def night_order(self) -> tuple[str, ...]:
        """The night's named steps in call order: a step calls the roles whose name,
        night card kind or `called_at` is its name (and `pack` calls the pack)."""
        ...

    def options(self, raw: Mapping[str, Any], players: int) -> dict[str, Any]:
        """Check `raw` options for a table of `players`, defaults filled in (SetupError)."""
        ...

    def advice(self, options: Mapping[str, Any], players: int) -> tuple[Advice, ...]:
        """What the rulebook suggests against checked `options` for `players`, as advice
        (a special below its suggested number of players)."""
        ...

    def setup(
        self, options: Mapping[str, Any], players: int, seed: int, deal: Mapping[str, Any] | None = None
    ) -> tuple[State, list[Event]]:
        """The opening state: cards dealt from the seed, or as `deal` says (the
        organiser's deal, or a recorded one)."""
        ...

    def deck(self, options: Mapping[str, Any], players: int) -> tuple[str, ...]:
        """The cards a deal of `players` seats uses, for checked `options`, in the order
        the rulebook lists them: the organiser's own deal gives each seat one of them (a
        deck longer than the table leaves the rest out, as Tabula's at seven); the
        printed role cards are these."""
        ...

    def deal(self, state: State) -> dict[str, Any]:
        """Who was dealt what, as `setup` takes it back, so that any game replays."""
        ...

    def deal_shape(self, options: Mapping[str, Any], players: int) -> DealShape:
        """What the organiser's own deal gives each seat (checked `options`), so that a
        table that dealt the printed cards by hand can say who holds what."""
        ...

    def deal_from_hands(self, hands: Sequence[Mapping[str, Any]], mark: int | None) -> dict[str, Any]:
        """`setup`'s deal from complete hands in seat order, shaped as `deal_shape` says,
        and the seat of the mark (None: not named). `setup` checks it."""
        ...

    def phase(self, state: State) -> PhaseSpec: ...

    def bound(self, state: State, field: Field) -> int:
        """How many things a field's numbers may name (seats; Lupusburg's houses)."""
        ...

    def unasked(self, state: State, seat: int) -> str:
        """Why the open step asks `seat` for no card (a refusal code: "not_asked", or
        more precise, such as a ghost's or a suspect's ballot)."""
        ...

    def refusal(self, state: State, seat: int, field: Field, value: int) -> str:
        """Why `value` may not stand in `field` of `seat`'s card (a refusal code)."""
        ...

    def misfit(self, state: State, seat: int, order: Order) -> str:
        """Why a card of the wrong kind for the seat's slot is refused: "wrong_order", or
        a reason of the ruleset's own (a Tabula wolf's KILL on the quiet first night)."""
        ...

    def resolve(self, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> State:
        """Resolve the open step with the checked cards (in seat order); append the
        events."""
        ...

    def act(self, state: State, seat: int, card: Order, rng: Random) -> tuple[State, list[Event]]:
        """Apply an instant card at once (only for cards with `instant`)."""
        ...

    def decisive(self, state: State, cards: Mapping[int, Order]) -> bool:
        """Whether the cards already settle the open step before its deadline."""
        ...

    def majority(self, state: State) -> int | None:
        """How many votes for one choice settle the open step before its deadline (what
        `decisive` counts to), or None when no number of votes does."""
        ...

    def outcome(self, state: State) -> Outcome | None: ...

    def roles_of(self, state: State, seat: int) -> tuple[str, ...]:
        """What the seat holds now (one role; two Lupusburg characters)."""
        ...

    def mourned(self, state: State, deaths: Sequence[Death]) -> list[Death]: ...

    def bury(self, state: State, deaths: Sequence[Death], events: list[Event]) -> State: ...

    def judge(self, state: State, events: list[Event]) -> State: ...

    def channels(self, state: State) -> tuple[Channel, ...]:
        """The game's talk channels now (who reads and who writes each)."""
        ...

    def cast(self, options: Mapping[str, Any]) -> Mapping[str, Role]:
        """The roles a game with these checked options may deal."""
        ...

    def characters(self, options: Mapping[str, Any]) -> Mapping[str, Character]:
        """The characters an organiser built that these options deal, by role name."""
        ...

    def ring(self, state: State, viewer: Viewer, seen: Sequence[tuple[str, Mapping[str, Any]]]) -> Ring | None:
        """What `viewer` sees of the table's houses, from the events it has seen (`seen`:
        each one's kind and data), or None for a ruleset without houses."""
        ...

    def paper_pack(self, players: int) -> tuple[tuple[str, str], ...]:
        """The pieces a table of `players` needs to play on paper beyond the role cards,
        each as its kind and its value ("coin", "5"; "seal", ""), in the order they print."""
        ...

    def score_parts(self) -> tuple[str, ...]:
        """The sources of a player's points, as `Outcome`'s points name them, in the order
        a score sheet writes them."""
        ...

    def lessons(self) -> Mapping[str, Lesson]:
        """What each event kind tells a seat who sees it, for the bots that play like
        people (engine/people.py), by kind."""
        ...

    def aims(self) -> Mapping[str, Aim]:
        """What each card kind does to the player it names, for the same bots, by kind."""
        ...


class BaseRuleset:
    """The hooks a ruleset may leave out, with what they do when it does: every ruleset
    class derives from it and overrides what it has of its own (so the engine calls
    each hook, never `getattr` with a fallback)."""

    id: str
    roles: Mapping[str, Role]
    events: EventKinds
    """Declared by every ruleset, with no default (`Ruleset.events`)."""
    extra_options: tuple[OptionSpec, ...] = ()
    """None: the options dataclass holds every option."""

    def act(self, state: State, seat: int, card: Order, rng: Random) -> tuple[State, list[Event]]:
        """None: only a ruleset with instant cards (`Card.instant`) acts at once."""
        raise ValueError(f"{self.id} has no instant cards")

    def majority(self, state: State) -> int | None:
        """None: only a ruleset whose vote a majority settles early (`decisive`) needs one."""
        return None

    def channels(self, state: State) -> tuple[Channel, ...]:
        """The standard square, den and ghosts' corner (`engine.talk.standard`)."""
        return standard(state)

    def cast(self, options: Mapping[str, Any]) -> Mapping[str, Role]:
        """The ruleset's own table of roles, whatever the options."""
        return self.roles

    def characters(self, options: Mapping[str, Any]) -> Mapping[str, Character]:
        """None: only rulesets that deal built characters have any."""
        return {}

    def ring(self, state: State, viewer: Viewer, seen: Sequence[tuple[str, Mapping[str, Any]]]) -> Ring | None:
        """None: only a ruleset whose seats play houses has a ring to show."""
        return None

    def paper_pack(self, players: int) -> tuple[tuple[str, str], ...]:
        """Nothing beyond the role cards: only a ruleset with `capabilities.paper_pack` has
        more pieces to print."""
        return ()

    def score_parts(self) -> tuple[str, ...]:
        """None: only a ruleset that keeps scores counts points by source."""
        return ()

    def lessons(self) -> Mapping[str, Lesson]:
        """The lessons of the event kinds the rulesets share (`people.LESSONS`)."""
        return LESSONS

    def aims(self) -> Mapping[str, Aim]:
        """The aims of the card kinds the rulesets share (`people.AIMS`)."""
        return AIMS


class JudgedBySides(BaseRuleset, ABC):
    """A ruleset whose game ends when one side has won (the simple rulesets, the Tabula
    family): `winner` says which side has won (None: none yet) and `winners` that side's
    seats; the end is judged, and the outcome read, from those two alone."""

    @abstractmethod
    def winner(self, state: State) -> str | None:
        """The side that has won, or None while the game goes on."""

    @abstractmethod
    def winners(self, state: State, side: str) -> tuple[int, ...]:
        """The seats that win with `side`."""

    def judge(self, state: State, events: list[Event]) -> State:
        """End the game if a side has won."""
        winner = self.winner(state)
        if winner is None:
            return state
        return finish(state, winner, self.winners(state, winner), state.rules.roles, events)

    def outcome(self, state: State) -> Outcome | None:
        if state.winner is None:
            return None
        return Outcome(state.winner, self.winners(state, state.winner))
