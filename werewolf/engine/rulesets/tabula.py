"""Lupus in Tabula (English rules, with the special characters), played with notecards.

The cast: Werewolves (one of them the alpha, as in classic), the Seer, Villagers and,
from nine players, the special characters the organiser picks (Medium, Possessed,
Bodyguard, Owl-man, a pair of Freemasons, Werehamster, Mythomaniac). Every living player
hands in a card each night; the night is resolved in the rulebook's call order. Each day
has two steps, each with its own deadline: an open accusation in which the ghosts vote
too and which names two suspects, then a secret ballot among the living who are not
suspected, which lynches one of them. The Welcome! card held by the most recent night
victim breaks every tie, counting clockwise. docs/rules.md, section "Lupus in Tabula",
gives the readings chosen where the rulebook is silent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any, ClassVar, cast

from .. import abilities, talk, tribunal
from .. import pack as wolfpack
from ..abilities import GIVE, RAISE, READ, SHOOT
from ..cards import SLEEPER, Card, Field, Slot
from ..characters import FRAIL, IMMUNE, INSPECT, KNOW_GROUP, SEANCE, Character, from_option
from ..errors import SetupError
from ..events import Audience, Event
from ..night import DEATHS, JUDGE, Death, Night, Pipeline
from ..options import as_json, parse_options
from ..orders import Order
from ..outcome import Outcome, finish
from ..pack import succession
from ..pack import victim as choose_victim
from ..random import setup_rng
from ..registry import register
from ..state import PhaseSpec, Stage, State
from ..table import Role, table
from ..talk import Channel
from .base import Advice, BaseRuleset, Capabilities, DealShape, one_role_deal, one_role_shape

ID = "tabula"
MIN_PLAYERS = 7
MAX_PLAYERS = 24
FULL_DECK = 8
"""The smallest deck; a table of seven plays it with one card set aside unseen."""
THIRD_WOLF_FROM = 16
DEADLY_OWL_FROM = 21
"""With more than 20 players the Owl-man's choice dies at dawn."""

WOLF = "wolf"
SEER = "seer"
VILLAGER = "villager"
MEDIUM = "medium"
POSSESSED = "possessed"
BODYGUARD = "bodyguard"
OWLMAN = "owlman"
FREEMASON = "freemason"
WEREHAMSTER = "werehamster"
MYTHOMANIAC = "mythomaniac"

VILLAGE = "village"
WOLVES = "wolves"
HAMSTER = "hamster"


@dataclass(frozen=True, slots=True)
class TabulaRole(Role):
    """A Tabula role: the common row, and the columns only this ruleset reads.

    - `seance`: learns at each night from the second whether the last player lynched
      was a Werewolf (the Medium);
    - `lodge`: meets the other members of its lodge at the start (the Freemasons);
    - `frail`: dies when the Seer inquires about it (the Werehamster);
    - `owl_proof`: the deadly Owl-man's choice does not kill it;
    - `mimicked`: a Mythomaniac who points at it takes this role;
    """

    seance: bool = False
    lodge: bool = False
    frail: bool = False
    owl_proof: bool = False
    mimicked: bool = False


ROLES = cast(
    Mapping[str, TabulaRole],
    table(
        (
            TabulaRole(
                WOLF,
                WOLVES,
                seen_as_wolf=True,
                medium_sees_wolf=True,
                counts_as_wolf=True,
                pack=True,
                prey=False,
                night="kill",
                owl_proof=True,
                mimicked=True,
            ),
            TabulaRole(SEER, VILLAGE, night="inquire", mimicked=True),
            TabulaRole(VILLAGER, VILLAGE),
            TabulaRole(MEDIUM, VILLAGE, from_night=2, seance=True),
            TabulaRole(POSSESSED, WOLVES),
            TabulaRole(BODYGUARD, VILLAGE, night="protect", from_night=2),
            TabulaRole(OWLMAN, VILLAGE, night="owl"),
            TabulaRole(FREEMASON, VILLAGE, lodge=True),
            TabulaRole(WEREHAMSTER, HAMSTER, pack_can_kill=False, frail=True, owl_proof=True),
            TabulaRole(MYTHOMANIAC, VILLAGE, night="mimic", from_night=2, last_night=2),
        )
    ),
)
SIDES = (VILLAGE, WOLVES)
"""The two sides; any other side (the Werehamster's) wins alone when it outlives them."""
# Lookups read off the table once, for the hot paths of bot games.
_WOLFISH = frozenset(name for name, row in ROLES.items() if row.counts_as_wolf)
_SOLO = {name: row.side for name, row in ROLES.items() if row.side not in SIDES}
_SEANCE = frozenset(name for name, row in ROLES.items() if row.seance)
_NIGHTLESS = frozenset(name for name, row in ROLES.items() if row.night is None)
_PREY = frozenset(name for name, row in ROLES.items() if row.prey)


class TabulaCast:
    """The roles of one game: the rulebook's, and the characters the organiser built
    (engine/characters.py) beside them, as rows, with the lookups the hot paths read."""

    __slots__ = ("rows", "characters", "wolfish", "solo", "seance", "nightless", "prey")

    def __init__(self, characters: Mapping[str, Character]) -> None:
        self.characters = dict(characters)
        rows: dict[str, TabulaRole] = {**ROLES, **{name: _row(c) for name, c in characters.items()}}
        self.rows = rows
        self.wolfish = frozenset(name for name, row in rows.items() if row.counts_as_wolf)
        self.solo = {name: row.side for name, row in rows.items() if row.side not in SIDES}
        self.seance = frozenset(name for name, row in rows.items() if row.seance)
        self.nightless = frozenset(name for name, row in rows.items() if row.night is None)
        self.prey = frozenset(name for name, row in rows.items() if row.prey)


def _row(character: Character) -> TabulaRole:
    """An organiser's character as a Tabula row: its blocks say which of the rulebook's
    columns it has (a seance, the lodge, frail, proof against a deadly Owl-man)."""
    base = character.row()
    immune = character.block(IMMUNE)
    group = character.block(KNOW_GROUP)
    seance = character.block(SEANCE)
    return TabulaRole(
        base.name,
        base.side,
        seen_as_wolf=base.seen_as_wolf,
        medium_sees_wolf=base.medium_sees_wolf,
        counts_as_wolf=base.counts_as_wolf,
        pack=base.pack,
        prey=base.prey,
        pack_can_kill=base.pack_can_kill,
        night=base.night,
        from_night=seance.from_night if seance is not None and base.night is None else base.from_night,
        last_night=base.last_night,
        called_at={"inquire": "inquiry", "protect": "bodyguard"}.get(base.night or "", base.called_at),
        seance=seance is not None,
        lodge=group is not None and group.group == "lodge",
        frail=character.block(FRAIL) is not None,
        owl_proof=character.pack or (immune is not None and immune.times == 0),
    )


NATIVE = TabulaCast({})
_CASTS: dict[str, TabulaCast] = {}


def cast_of(options: Mapping[str, Any]) -> TabulaCast:
    """The cast of a game's checked options (the rulebook's alone, at once, for a game
    without characters of the organiser's)."""
    own = options.get("characters")
    if not own:
        return NATIVE
    key = json.dumps(own, sort_keys=True)
    found = _CASTS.get(key)
    if found is None:
        found = TabulaCast(from_option(own))
        if len(_CASTS) < 256:
            _CASTS[key] = found
    return found


SPECIALS: Mapping[str, tuple[int, tuple[str, ...]]] = {
    "medium": (9, (MEDIUM,)),
    "possessed": (10, (POSSESSED,)),
    "bodyguard": (11, (BODYGUARD,)),
    "owlman": (12, (OWLMAN,)),
    "freemasons": (13, (FREEMASON, FREEMASON)),
    "werehamster": (15, (WEREHAMSTER,)),
    "mythomaniac": (16, (MYTHOMANIAC,)),
}
"""Each special the organiser may add: its suggested least number of players and its cards."""

_LIST = Field(most=None, ranked=True, optional=True, count_error="empty_list", prune=True)
KILL = Card("kill", "KILL", (_LIST,), empty_error="empty_list")
INQUIRE = Card("inquire", "INQUIRE", (Field(),))
PROTECT = Card("protect", "PROTECT", (Field(),))
OWL = Card("owl", "OWL", (Field(),))
MIMIC = Card("mimic", "MIMIC", (Field(),))
ACCUSE = Card("vote", "VOTE", (Field(least=0),), blank=False)
BALLOT = Card("ballot", "LYNCH", (Field(least=0),), blank=False)
_ALSO = Field("also", least=1, most=1, optional=True, word="ALSO", prune=True)
KILL_AND_SLAY = Card("kill", "KILL", (_LIST, _ALSO), empty_error="empty_list")
"""The pack's list of an organiser's wolf with a one-shot kill among the pack."""
CARDS = (KILL, KILL_AND_SLAY, INQUIRE, PROTECT, OWL, MIMIC, READ, SHOOT, RAISE, GIVE, ACCUSE, BALLOT)
NIGHT_CARDS = {card.kind: card for card in (INQUIRE, PROTECT, OWL, MIMIC, READ, SHOOT, RAISE, GIVE)}

NIGHT = Stage("night", "night")
ACCUSATION = Stage("accusation", "day", cards="public")
BALLOT_STAGE = Stage("ballot", "day", cards="revealed")
OVER_STAGE = Stage("over", "over")


@dataclass(frozen=True, slots=True)
class TabulaState:
    """Tabula's own part of the state.

    `roles[seat]` is what the seat holds now (a Mythomaniac who took a role holds it;
    `changed` lists such seats, so the deal can be told again); `pack` the wolves in
    order of succession, the alpha first; `set_aside` the card left out of the deck at a
    table of seven; `welcome` the seat holding the Welcome! (None before anyone has it);
    `owl` the Owl-man's choice of the last night, until the accusation has used it;
    `suspects` the two suspects of the open ballot; `lynched` the last player lynched;
    `spent` and `tokens` what the organiser's characters used and passed
    (engine/abilities.py)."""

    VERSION: ClassVar[int] = 1

    roles: tuple[str, ...]
    pack: tuple[int, ...] = ()
    set_aside: str | None = None
    welcome: int | None = None
    owl: int | None = None
    suspects: tuple[int, ...] = ()
    lynched: int | None = None
    changed: tuple[int, ...] = ()
    spent: tuple[str, ...] = ()
    tokens: tuple[tuple[str, str, int, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        more: dict[str, Any] = {}
        if self.spent or self.tokens:  # a game with characters an organiser built
            more = {"spent": list(self.spent), "tokens": [list(token) for token in self.tokens]}
        return {
            **more,
            "roles": list(self.roles),
            "pack": list(self.pack),
            "set_aside": self.set_aside,
            "welcome": self.welcome,
            "owl": self.owl,
            "suspects": list(self.suspects),
            "lynched": self.lynched,
            "changed": list(self.changed),
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> TabulaState:
        return cls(
            roles=tuple(raw["roles"]),
            pack=tuple(int(x) for x in raw.get("pack", ())),
            set_aside=raw.get("set_aside"),
            welcome=_seat_or_none(raw.get("welcome")),
            owl=_seat_or_none(raw.get("owl")),
            suspects=tuple(int(x) for x in raw.get("suspects", ())),
            lynched=_seat_or_none(raw.get("lynched")),
            changed=tuple(int(x) for x in raw.get("changed", ())),
            spent=tuple(str(x) for x in raw.get("spent", ())),
            tokens=tuple((str(t), str(e), int(g), int(h)) for t, e, g, h in raw.get("tokens", ())),
        )


def _seat_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


@dataclass(frozen=True, slots=True)
class TabulaOptions:
    """The options of a Tabula game; docs/rules.md says what each one does."""

    specials: tuple[str, ...] = field(default=(), metadata={"choices": tuple(SPECIALS)})
    first_night: str = field(default="quiet", metadata={"choices": ("quiet", "normal")})
    missing_wolves: str = field(default="nobody", metadata={"choices": ("nobody", "random")})
    reveal_dead: bool = False


def reachable(players: int) -> tuple[str, ...]:
    """The specials whose suggested count a table of `players` reaches."""
    return tuple(name for name, (least, _) in SPECIALS.items() if players >= least)


def deck(players: int, specials: Sequence[str]) -> list[str]:
    """The cards for `players` (eight for a table of seven, one to be set aside): the
    Werewolves (a third from 16 players), the Seer, the specials, Villagers for the rest."""
    wolves = 3 if players >= THIRD_WOLF_FROM else 2
    cards = [WOLF] * wolves + [SEER]
    for name in SPECIALS:
        if name in specials:
            cards += SPECIALS[name][1]
    cards += [name for name in specials if name not in SPECIALS]  # the organiser's characters
    return cards + [VILLAGER] * (max(players, FULL_DECK) - len(cards))


class Tabula(BaseRuleset):
    id = ID
    capabilities = Capabilities(family=ID)
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    roles = ROLES
    cards = CARDS
    state_type = TabulaState

    @property
    def night_order(self) -> tuple[str, ...]:
        """The night's steps in call order (the moderator's script reads them)."""
        return WITH_THEIR_CHARACTERS.names

    def advice(self, options: Mapping[str, Any], players: int) -> tuple[Advice, ...]:
        """Each special chosen below the rulebook's suggested number of players."""
        return tuple(
            Advice("below_suggestion", "specials", name, SPECIALS[name][0])
            for name in options.get("specials", ())
            if name in SPECIALS and players < SPECIALS[name][0]
        )

    def options(self, raw: Mapping[str, Any], players: int) -> dict[str, Any]:
        """Check and complete the options for a table of `players`: any special may be
        chosen (the rulebook's numbers are suggestions: `advice` names a special below
        its number); by default every special whose suggested count the table reaches.
        `characters`: the organiser's own (engine/characters.py), each a special
        `specials` may then name, one card each, after the rulebook's."""
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise SetupError("player_count", "players", players)
        rest = {key: value for key, value in raw.items() if key != "characters"}
        own = from_option(raw.get("characters", []))
        for name in own:
            if name in ROLES or name in SPECIALS:
                raise SetupError("bad_definition", "name_taken", name)
        chosen = rest.pop("specials", None)
        options = parse_options(TabulaOptions, rest, {"specials": reachable(players)})
        specials = list(options.specials) + list(own)  # by default, every character of theirs too
        if chosen is not None:
            items = chosen.split(",") if isinstance(chosen, str) else list(chosen)
            specials = [str(item).strip() for item in items if str(item).strip()]
            for name in specials:
                if name not in SPECIALS and name not in own:
                    raise SetupError("bad_option_value", "specials", name)
            if len(set(specials)) != len(specials):
                raise SetupError("bad_option_value", "specials", chosen)
        wolves = 3 if players >= THIRD_WOLF_FROM else 2
        cards = sum(len(SPECIALS[name][1]) if name in SPECIALS else 1 for name in specials)
        if wolves + 1 + cards > max(players, FULL_DECK):
            raise SetupError("too_many_roles", "players", players)
        checked = as_json(options)
        checked["specials"] = [name for name in SPECIALS if name in specials]
        checked["specials"] += [name for name in specials if name not in SPECIALS]
        if own:
            checked["characters"] = [character.to_json() for character in own.values()]
        return checked

    def setup(
        self, options: Mapping[str, Any], players: int, seed: int, deal: Mapping[str, Any] | None = None
    ) -> tuple[State, list[Event]]:
        """Deal the cards (or take the given deal: each seat's role, the alpha's seat
        and, at seven, the card set aside), draw the alpha, and tell each seat its role,
        the wolves their pack and the Freemasons each other."""
        rng = setup_rng(seed)
        cards = deck(players, options["specials"])
        roles = (deal or {}).get("roles")
        alpha = (deal or {}).get("alpha")
        set_aside: str | None = None
        if roles is None:
            rng.shuffle(cards)
            if len(cards) > players:
                set_aside = cards.pop()
            dealt = cards
        else:
            dealt = list(roles)
            if len(dealt) != players or any(role not in cast_of(options).rows for role in dealt):
                raise SetupError("bad_roles", "roles", roles)
            left = list(cards)
            for role in dealt:
                if role not in left:
                    raise SetupError("bad_roles", "roles", roles)
                left.remove(role)
            if left:
                set_aside = left[0]
            given = (deal or {}).get("set_aside")
            if given is not None and given != set_aside:
                raise SetupError("bad_roles", "set_aside", given)
        table = cast_of(options)
        pack = succession([seat for seat, role in enumerate(dealt) if table.rows[role].pack], alpha, players, rng)
        state = State(
            ruleset=ID,
            options=dict(options),
            seed=seed,
            alive=(True,) * players,
            revealed=(False,) * players,
            phase="night",
            number=1,
            rules=TabulaState(tuple(dealt), pack, set_aside),
        )
        full = deck(players, options["specials"])
        summary = {
            "players": players,
            "wolves": full.count(WOLF),
            "seers": full.count(SEER),
            "specials": list(options["specials"]),
            "set_aside": len(full) - players,
        }
        events = [Event("game_set_up", summary, Audience.public())]
        if set_aside is not None:
            events.append(Event("role_set_aside", {"role": set_aside}, Audience.moderator()))
        events += [
            Event("role_dealt", {"seat": seat, "role": role}, Audience.of(seat)) for seat, role in enumerate(dealt)
        ]
        events.append(Event("pack_formed", {"pack": list(pack)}, Audience.of(*pack)))
        lodge = [seat for seat, role in enumerate(dealt) if table.rows[role].lodge]
        if len(lodge) > 1:
            events.append(Event("masons_met", {"masons": lodge}, Audience.of(*lodge)))
        for seat, role in enumerate(dealt):
            character = table.characters.get(role)
            group = character.block(KNOW_GROUP) if character is not None else None
            if group is not None and group.group == "pack":
                events.append(Event("pack_known", {"seat": seat, "pack": list(pack)}, Audience.of(seat)))
        return state, events

    def characters(self, options: Mapping[str, Any]) -> Mapping[str, Character]:
        """The characters the organiser built for this game, as definitions (the
        rulebook's roles are not made of blocks)."""
        return cast_of(options).characters

    def cast(self, options: Mapping[str, Any]) -> Mapping[str, Role]:
        return cast_of(options).rows

    def channels(self, state: State) -> tuple[Channel, ...]:
        """The square, the den (the wolves meet at night only, as the rulebook has them
        open their eyes), the Freemasons' lodge, and the ghosts' corner (nothing a ghost
        writes reaches the living)."""
        rules: TabulaState = state.rules
        lodge = [seat for seat, role in enumerate(rules.roles) if cast_of(state.options).rows[role].lodge]
        return talk.standard(state, groups={"lodge": lodge}, den_open=state.phase == "night", pack=rules.pack)

    def deck(self, options: Mapping[str, Any], players: int) -> tuple[str, ...]:
        """The table's cards (one more than the players at seven: one is set aside)."""
        return tuple(deck(players, options["specials"]))

    def deal(self, state: State) -> dict[str, Any]:
        """Each seat's role as dealt, the alpha's seat and the card set aside: `setup`
        takes it back and sets the same game up, whenever it is asked."""
        rules: TabulaState = state.rules
        roles = [MYTHOMANIAC if seat in rules.changed else role for seat, role in enumerate(rules.roles)]
        return {"roles": roles, "alpha": rules.pack[0], "set_aside": rules.set_aside}

    def deal_shape(self, options: Mapping[str, Any], players: int) -> DealShape:
        """One role a seat from the table's deck, and the alpha if the organiser likes."""
        return one_role_shape(self.deck(options, players))

    def deal_from_hands(self, hands: Sequence[Mapping[str, Any]], mark: int | None) -> dict[str, Any]:
        return one_role_deal(hands, mark)

    def phase(self, state: State) -> PhaseSpec:
        if state.over:
            return PhaseSpec(OVER_STAGE, state.number, {})
        rules: TabulaState = state.rules
        living = state.living()
        if state.phase == "day":
            if state.step == 1:
                vote = Slot(ACCUSE, (tuple(living),))
                return PhaseSpec(ACCUSATION, state.number, dict.fromkeys(range(state.seats), vote), step=1)
            suspects = rules.suspects
            ballot = Slot(BALLOT, (suspects,))
            voters = {seat: ballot for seat in living if seat not in suspects}
            return PhaseSpec(BALLOT_STAGE, state.number, voters, step=2)
        number = state.number
        roles = rules.roles
        table = NATIVE if "characters" not in state.options else cast_of(state.options)
        hunt = SLEEPER
        prey: tuple[int, ...] = ()
        if number > 1 or state.options["first_night"] != "quiet":
            prey = tuple(seat for seat in living if roles[seat] in table.prey)
            hunt = Slot(KILL, (prey,))
        slots: dict[int, Slot] = {}
        everyone = tuple(living)
        for index, seat in enumerate(living):
            role = roles[seat]
            if table.characters and role in table.characters:
                slots[seat] = _custom_slot(state, seat, table.characters[role], hunt, prey)
                continue
            if role in table.nightless:
                slots[seat] = SLEEPER
                continue
            row = table.rows[role]
            kind = row.night
            if kind is None or number < row.from_night or (row.last_night and number > row.last_night):
                slots[seat] = SLEEPER
            elif row.pack:
                slots[seat] = hunt
            else:
                slots[seat] = Slot(NIGHT_CARDS[kind], (everyone[:index] + everyone[index + 1 :],))
        return PhaseSpec(NIGHT, number, slots)

    def bound(self, state: State, field: Field) -> int:
        return state.seats

    def misfit(self, state: State, seat: int, order: Order) -> str:
        """A wolf's KILL on the quiet first night: the pack only meets tonight."""
        quiet = state.phase == "night" and state.number == 1 and state.options["first_night"] == "quiet"
        if quiet and order.kind == KILL.kind and seat in state.rules.pack:
            return "pack_only_meets"
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
        """A dead name, a name on a ballot who is not a suspect, a wolf on a wolf's list,
        or the writer's own name where it may not stand."""
        if not state.alive[value]:
            return "target_dead"
        if state.phase == "day" and state.step == 2:
            return "not_a_suspect"
        if state.phase == "night" and field.name == "also":
            return "target_self" if value == seat else "not_a_wolf"
        if state.phase == "night" and slot_kind(state, seat) == "raise":
            return "target_alive"
        if field.prune and not cast_of(state.options).rows[state.rules.roles[value]].prey:
            return "target_wolf"
        if value == seat:
            return "target_self"
        return "not_a_choice"

    def resolve(self, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> State:
        """Resolve the open step with the checked cards."""
        if state.phase == "night":
            return _night(self, state, cards, rng, events)
        if state.step == 1:
            return _accusation(state, cards, events)
        return _ballot(self, state, cards, events)

    def act(self, state: State, seat: int, card: Order, rng: Random) -> tuple[State, list[Event]]:
        raise ValueError("tabula has no instant cards")

    def decisive(self, state: State, cards: Mapping[int, Order]) -> bool:
        """No Tabula step ends before its deadline on the cards alone: the accusation
        counts every vote to find two suspects, and the ballot is revealed all at once."""
        return False

    def outcome(self, state: State) -> Outcome | None:
        if state.winner is None:
            return None
        return Outcome(state.winner, _winners(state, state.winner))

    def roles_of(self, state: State, seat: int) -> tuple[str, ...]:
        return (state.rules.roles[seat],)

    def mourned(self, state: State, deaths: Sequence[Death]) -> list[Death]:
        """The deaths of one moment in order, every seat once and only a living one (no
        death of the rulebook's brings another; an organiser's giver of a Skull takes its
        holder along)."""
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
        """Apply and announce the deaths of one moment (engine/pack.py)."""
        return wolfpack.bury(state, deaths, events)

    def judge(self, state: State, events: list[Event]) -> State:
        """End the game if a side has won (or the Werehamster, outliving it)."""
        winner = _winner(state)
        if winner is None:
            return state
        return finish(state, winner, _winners(state, winner), state.rules.roles, events)


def _custom_slot(state: State, seat: int, character: Character, hunt: Slot, prey: tuple[int, ...]) -> Slot:
    """The card an organiser's character writes tonight, from its blocks: the pack's
    list (with ALSO and a fellow wolf for a one-shot kill among the pack), or its acting
    block's card naming whom the block allows; else SLEEP."""
    act = character.act
    usable = abilities.usable(state, seat, act)
    if character.pack:
        if usable and hunt is not SLEEPER:
            fellows = tuple(wolf for wolf in state.rules.pack if wolf != seat and state.alive[wolf])
            return Slot(KILL_AND_SLAY, (prey, fellows))
        return hunt
    if not usable or act is None or act.card is None:
        return SLEEPER
    dead = tuple(other for other in range(state.seats) if not state.alive[other])
    choices = abilities.among(act, seat, state.living(), dead)
    return Slot(NIGHT_CARDS[act.card], (choices,)) if choices else SLEEPER


def slot_kind(state: State, seat: int) -> str | None:
    """The card kind an organiser's character at `seat` writes tonight (None: none)."""
    character = cast_of(state.options).characters.get(state.rules.roles[seat])
    act = character.act if character is not None else None
    return act.card if act is not None else None


def _winner(state: State) -> str | None:
    """The village when no wolf lives; the wolves when the living wolves are at least as
    many as the other living players (the Possessed and the Werehamster count as
    humans); but whichever side wins, a living Werehamster wins alone instead."""
    wolves = others = 0
    solo = None
    table = NATIVE if "characters" not in state.options else cast_of(state.options)
    wolfish, solos = table.wolfish, table.solo
    for role, alive in zip(state.rules.roles, state.alive, strict=True):
        if alive:
            if role in wolfish:
                wolves += 1
            else:
                others += 1
            if role in solos:
                solo = solos[role]
    if wolves and wolves < others:
        return None
    return solo or (WOLVES if wolves else VILLAGE)


def _winners(state: State, side: str) -> tuple[int, ...]:
    """The seats on the winning side, its dead included."""
    rows = cast_of(state.options).rows
    return tuple(seat for seat, role in enumerate(state.rules.roles) if rows[role].side == side)


def _origin(state: State) -> int:
    """Where ties count from: the Welcome! holder, or seat 0 while nobody holds it."""
    welcome = state.rules.welcome
    return 0 if welcome is None else int(welcome)


# The night, in the rulebook's call order: see NIGHT_STEPS below.


def _medium(night: Night) -> None:
    """From the second night the Medium learns whether the last player lynched was a
    Werewolf (nothing before the first lynching)."""
    state = night.state
    lynched = state.rules.lynched
    if lynched is None:
        return
    roles, alive = state.rules.roles, state.alive
    table = night.notes["cast"]
    for seat, role in enumerate(roles):
        if role in table.seance and alive[seat] and state.number >= table.rows[role].from_night:
            werewolf = table.rows[roles[lynched]].medium_sees_wolf
            night.tell("medium_saw", {"medium": seat, "seat": lynched, "werewolf": werewolf}, Audience.of(seat))


def _seer(night: Night) -> None:
    """The Seers inquire together (after a Mythomaniac became one: the same name on
    both cards, else the first Seer's card decides); every living Seer learns the
    answer. A Werehamster inquired about dies at dawn."""
    written = night.notes["written"].get("inquire")
    if not written:
        return
    state, cards = night.state, night.cards
    seers = _seers(state)
    seer = next((seat for seat in seers if seat in cards and cards[seat].kind == "inquire"), None)
    if seer is None:
        return  # only an organiser's character inquired (`_inquiry`)
    target = cards[seer].targets[0]
    row = night.notes["cast"].rows[state.rules.roles[target]]
    night.tell("seer_saw", {"seer": seer, "target": target, "werewolf": row.seen_as_wolf}, Audience.of(*seers))
    if row.frail:
        night.tell("hamster_seen", {"seat": target}, Audience.moderator())
        night.kills.append((target, "killed"))


def _seers(state: State) -> list[int]:
    """The living Seers, the one dealt the card first."""
    roles, changed = state.rules.roles, state.rules.changed
    seers = [seat for seat in state.living() if roles[seat] in ROLES and ROLES[roles[seat]].night == "inquire"]
    return sorted(seers, key=lambda seat: seat in changed)


def _inquiry(night: Night) -> None:
    """An organiser's character that inspects learns, alone, whether its choice is seen
    as a werewolf; a frail choice dies at dawn."""
    rows = cast_of(night.state.options).rows
    roles = night.state.rules.roles
    for seat, card, _ in abilities.acting(night, INSPECT):
        target = card.targets[0]
        row = rows[roles[target]]
        night.tell("seer_saw", {"seer": seat, "target": target, "werewolf": row.seen_as_wolf}, Audience.of(seat))
        if row.frail:
            night.tell("hamster_seen", {"seat": target}, Audience.moderator())
            abilities.strike(night, target)


def _bodyguard(night: Night) -> None:
    """Each protection (the Bodyguard's, or an organiser's character's) guards its
    choice from the pack tonight."""
    for seat, card in night.notes["written"].get("protect", ()):
        night.notes.setdefault("guarded", {})[card.targets[0]] = seat


def _pack(night: Night) -> None:
    """The pack's victim, chosen from the wolves' lists as in classic (the same first
    name on every list, else the list of the highest-ranked wolf who wrote one), told
    to the living pack. It dies at dawn, unless the Bodyguard protected it or it is
    the Werehamster: then nobody is killed."""
    state = night.state
    pack = [seat for seat in state.rules.pack if state.alive[seat]]
    prey = None
    table = night.notes["cast"]
    if state.options["missing_wolves"] == "random":
        prey = [seat for seat in state.living() if table.rows[state.rules.roles[seat]].prey]
    quiet = state.number == 1 and state.options["first_night"] == "quiet"
    victim, how, decided_by = choose_victim(pack, night.cards, quiet=quiet, prey=prey, rng=night.rng)
    night.tell("pack_chose", {"victim": victim, "how": how, "decided_by": decided_by}, Audience.of(*pack))
    if table.characters:
        _slay(night, pack)
    if victim is None:
        return
    night.notes["victim"] = victim
    guarded = night.notes.get("guarded", {})
    if victim in guarded:
        night.tell("protected", {"seat": victim, "bodyguard": guarded[victim]}, Audience.moderator())
    elif not table.rows[state.rules.roles[victim]].pack_can_kill:
        night.tell("hamster_spared", {"seat": victim}, Audience.moderator())
    elif not (table.characters and abilities.spare(night, victim)):
        night.kills.append((victim, "killed"))


def _slay(night: Night, pack: Sequence[int]) -> None:
    """An organiser's wolf with a one-shot kill among the pack slaughters the fellow
    wolf named after ALSO, once a game."""
    for seat in pack:
        card = night.cards.get(seat)
        character = night.notes["character"](seat)
        act = character.act if character is not None else None
        if card is None or act is None or not card.field("also"):
            continue
        target = card.field("also")[0]
        abilities.use(night, seat, act)
        night.tell("power_used", {"seat": seat, "power": "slay", "target": target}, Audience.of(seat))
        abilities.strike(night, target, act.first)


def _dawn(night: Night) -> None:
    """The strikes of the organiser's characters (and a frail choice of theirs) die at
    dawn, the first ones before the pack's victim."""
    strikes: list[tuple[int, bool]] = night.notes.get("strikes", [])
    if strikes:
        night.kills[:0] = [(seat, "killed") for seat, first in strikes if first]
        night.kills.extend((seat, "killed") for seat, first in strikes if not first)


def _owl(night: Night) -> None:
    """The Owl-man's choice is kept for the next accusation. With more than 20 players
    it dies at dawn, unless it is a Werewolf or the Werehamster."""
    rows = night.notes["cast"].rows
    for seat, card in night.notes["written"].get("owl", ()):
        target = card.targets[0]
        night.notes["owl"] = target
        character = night.notes["character"](seat)
        deadly_from = DEADLY_OWL_FROM if character is None else character.act.deadly_from if character.act else 0
        if deadly_from and night.state.seats >= deadly_from and not rows[night.state.rules.roles[target]].owl_proof:
            night.tell("owl_struck", {"seat": target}, Audience.moderator())
            night.kills.append((target, "killed"))


def _mythomaniac(night: Night) -> None:
    """At the end of the second night the Mythomaniac who pointed at a Werewolf
    becomes one (last in the succession; he and the pack learn each other), and at the
    Seer becomes a Seer (the Seers learn each other); at anyone else he stays human.
    He acts before dawn, so the end is judged with what he has become."""
    for seat, card in night.notes["written"].get("mimic", ()):
        state = night.state
        rules: TabulaState = state.rules
        target = card.targets[0]
        taken = rules.roles[target]
        row = cast_of(state.options).rows[taken]
        if not row.mimicked:
            night.tell("mythomaniac_became", {"seat": seat, "target": target, "role": None}, Audience.of(seat))
            continue
        roles = (*rules.roles[:seat], taken, *rules.roles[seat + 1 :])
        pack = (*rules.pack, seat) if row.pack else rules.pack
        night.state = state = state.with_rules(roles=roles, pack=pack, changed=(*rules.changed, seat))
        night.tell("mythomaniac_became", {"seat": seat, "target": target, "role": taken}, Audience.of(seat))
        if row.pack:
            living = [wolf for wolf in pack if state.alive[wolf]]
            night.tell("pack_formed", {"pack": living}, Audience.of(*living))
        else:
            seers = _seers(state)
            night.tell("seers_met", {"seers": seers}, Audience.of(*seers))


def _welcome(night: Night) -> None:
    """The night's victim takes the Welcome!; when several died, one of them drawn at
    random. A night without a death leaves it where it was."""
    before: tuple[bool, ...] = night.notes["alive"]
    alive = night.state.alive
    died = sorted({seat for seat, _ in night.kills if before[seat] and not alive[seat]})
    if not died:
        return
    holder = died[0] if len(died) == 1 else night.rng.choice(died)
    night.notes["welcome"] = holder
    night.tell("welcome_passed", {"seat": holder, "among": died}, Audience.public())


NIGHT_STEPS = Pipeline(
    (
        ("medium", _medium),
        ("seer", _seer),
        ("bodyguard", _bodyguard),
        ("pack", _pack),
        ("owl", _owl),
        ("mythomaniac", _mythomaniac),
        (DEATHS, None),
        ("welcome", _welcome),
        (JUDGE, None),
    )
)
"""The night in the rulebook's call order: the Medium's answer, the Seer's inquiry,
the Bodyguard's protection, the pack's victim, the Owl-man's choice, the Mythomaniac;
then the deaths, the Welcome!, and the end judged once."""
WITH_THEIR_CHARACTERS = Pipeline(
    (
        ("medium", _medium),
        ("seer", _seer),
        ("inquiry", _inquiry),
        ("bodyguard", _bodyguard),
        ("pack", _pack),
        ("owl", _owl),
        ("read", abilities.read),
        ("shoot", abilities.shoot),
        ("give", abilities.give),
        ("mythomaniac", _mythomaniac),
        ("dawn", _dawn),
        (DEATHS, None),
        ("raise", abilities.revive),
        ("welcome", _welcome),
        (JUDGE, None),
    )
)
"""The same night in a game with characters the organiser built: their blocks' steps
(engine/abilities.py) in their places, the strikes at dawn, a revival after the deaths."""


def _no_character(seat: int) -> Character | None:
    return None


def _night(rules: Tabula, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> State:
    """Run the night's steps; the Owl-man's choice and the Welcome! are kept at dawn."""
    written: dict[str, list[tuple[int, Order]]] = {}
    for seat, card in cards.items():
        if card.kind != "sleep":
            written.setdefault(card.kind, []).append((seat, card))
    night = Night(state, cards, rng, events, notes={"alive": state.alive, "written": written})
    night.notes["character"] = _no_character
    table = NATIVE if "characters" not in state.options else cast_of(state.options)
    night.notes["cast"] = table
    own = table.characters
    steps = NIGHT_STEPS
    if own:
        night.notes["character"] = lambda seat: own.get(night.state.rules.roles[seat])
        steps = WITH_THEIR_CHARACTERS
    state = steps.run(night, rules)
    old: TabulaState = state.rules
    owl = night.notes.get("owl")
    welcome = night.notes.get("welcome", old.welcome)
    new = old
    if owl != old.owl or welcome != old.welcome:
        new = TabulaState(
            old.roles,
            old.pack,
            old.set_aside,
            welcome,
            owl,
            old.suspects,
            old.lynched,
            old.changed,
            old.spent,
            old.tokens,
        )
    if state.over:
        return state.evolve(index=state.index + 1, rules=new)
    return state.evolve(phase="day", step=1, index=state.index + 1, rules=new)


# The day: the accusation, then the ballot (engine/tribunal.py).


def _accusation(state: State, cards: Mapping[int, Order], events: list[Event]) -> State:
    """Name the suspects: the Owl-man's choice first when it lives, then the players
    with most votes, ties going to the closest clockwise from the Welcome! holder. When
    nobody is accused at all, the day ends without a ballot."""
    rules: TabulaState = state.rules
    data = tribunal.suspects(state, cards, _origin(state), rules.owl)
    if data["owl"] is not None:
        events.append(Event("owl_chose", {"seat": data["owl"]}, Audience.public()))
    events.append(Event("suspects_named", data, Audience.public()))
    suspects = tuple(data["suspects"])
    new = TabulaState(
        rules.roles,
        rules.pack,
        rules.set_aside,
        rules.welcome,
        None,
        suspects,
        rules.lynched,
        rules.changed,
        rules.spent,
        rules.tokens,
    )
    if not suspects:
        return _nightfall(state, new)
    return state.evolve(step=2, index=state.index + 1, rules=new)


def _ballot(rules: Tabula, state: State, cards: Mapping[int, Order], events: list[Event]) -> State:
    """Reveal the ballots together; the suspect with more is lynched, a tie going to
    the suspect closest clockwise from the Welcome! holder."""
    old: TabulaState = state.rules
    data = tribunal.ballot(state, old.suspects, cards, _origin(state))
    lynched = data["lynched"]
    events.append(Event("ballot_revealed", data, Audience.public()))
    state = rules.bury(state, rules.mourned(state, [(lynched, "lynched")]), events)
    tokens = abilities.skull_moves(state, events) if old.tokens else old.tokens
    state = rules.judge(state, events)
    new = TabulaState(
        old.roles, old.pack, old.set_aside, old.welcome, None, (), lynched, old.changed, old.spent, tokens
    )
    return _nightfall(state, new)


def _nightfall(state: State, rules: TabulaState) -> State:
    """Close the day: the next night opens, unless the game is over."""
    if state.over:
        return state.evolve(index=state.index + 1, rules=rules)
    return state.evolve(phase="night", number=state.number + 1, step=1, index=state.index + 1, rules=rules)


RULESET = register(Tabula())
