"""Lupus in Tabula (English rules, with the special characters), played with notecards.

The cast: Werewolves (one of them the alpha, as in classic), the Seer, Villagers and,
from nine players, the special characters the organiser picks (Medium, Possessed,
Bodyguard, Owl-man, a pair of Freemasons, Werehamster, Mythomaniac). Every living player
hands in a card each night; the night is resolved in the rulebook's call order. Each day
has two steps, each with its own deadline: an open accusation in which the ghosts vote
too and which names two suspects, then a secret ballot among the living who are not
suspected, which lynches one of them. The Welcome! card held by the most recent night
victim breaks every tie, counting clockwise. The deal, the day, the deaths and the end
are the family's, which Luna Piena plays too (tabula_family.py); this module holds the
cast, the options, the deck and the night. docs/rules.md, section "Lupus in Tabula",
gives the readings chosen where the rulebook is silent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, ClassVar, cast

from .. import abilities, rulings
from ..abilities import GIVE, RAISE, READ, SHOOT
from ..cards import SLEEPER, Card, Field, Slot
from ..characters import FRAIL, IMMUNE, INSPECT, KNOW_GROUP, SEANCE, Character, from_option
from ..errors import SetupError
from ..events import Audience, Event
from ..night import DEATHS, JUDGE, Night, Pipeline
from ..options import OptionSpec, as_json, option, parse_options
from ..options import gettext_noop as _
from ..orders import Order
from ..pack import victim as choose_victim
from ..people import Aim, Lesson, Memory
from ..registry import register
from ..state import PhaseSpec, State
from ..table import Role, table
from .base import Advice, Capabilities, EventKinds
from .tabula_family import (
    ACCUSE,
    BALLOT,
    DEADLY_OWL_FROM,
    FAMILY_EVENTS,
    HOLDER,
    INQUIRE,
    KILL,
    KILL_AND_SLAY,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NIGHT,
    OWL,
    PROTECT,
    TIMINGS,
    VILLAGE,
    WOLVES,
    TabulaFamily,
    owl_ruling,
)

ID = "tabula"
FULL_DECK = 8
"""The smallest deck; a table of seven plays it with one card set aside unseen."""
THIRD_WOLF_FROM = 16

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

MIMIC = Card("mimic", "MIMIC", (Field(),))
CARDS = (KILL, KILL_AND_SLAY, INQUIRE, PROTECT, OWL, MIMIC, READ, SHOOT, RAISE, GIVE, ACCUSE, BALLOT)
"""The family's cards (tabula_family.py), the Mythomaniac's, and the organiser's
characters' (engine/abilities.py)."""
NIGHT_CARDS = {card.kind: card for card in (INQUIRE, PROTECT, OWL, MIMIC, READ, SHOOT, RAISE, GIVE)}


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

    @property
    def holder(self) -> int | None:
        """The Welcome!'s holder: the family's name for where ties count from."""
        return self.welcome

    def moved(
        self,
        holder: int | None,
        owl: int | None,
        suspects: tuple[int, ...],
        lynched: int | None,
        tokens: tuple[tuple[str, str, int, int], ...],
    ) -> TabulaState:
        """This state with what the family's steps move (tabula_family.py), the rest, the
        Mythomaniac's change included, as it was."""
        return TabulaState(
            self.roles, self.pack, self.set_aside, holder, owl, suspects, lynched, self.changed, self.spent, tokens
        )


def _seat_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


@dataclass(frozen=True, slots=True)
class TabulaOptions:
    """The options of a Tabula game; docs/rules.md says what each one does."""

    specials: tuple[str, ...] = option(
        (),
        label=_("Specials"),
        help=_(
            "Each with the number of players the rulebook suggests for it: a special below its number is taken, "
            "with a warning. The Freemasons are two cards."
        ),
        choices={
            "medium": _("the Medium"),
            "possessed": _("the Possessed"),
            "bodyguard": _("the Bodyguard"),
            "owlman": _("the Owl-man"),
            "freemasons": _("the Freemasons"),
            "werehamster": _("the Werehamster"),
            "mythomaniac": _("the Mythomaniac"),
        },
        suggested={name: least for name, (least, _cards) in SPECIALS.items()},
        for_the_table=_("Every special the table reaches (suggested)"),
        for_the_table_help=_("Untick to choose the specials below yourself."),
    )
    first_night: str = option(
        "quiet",
        label=_("First night"),
        choices={
            "quiet": _("Quiet: the wolves meet and kill nobody; the Seer still inquires"),
            "normal": _("Normal: the wolves kill"),
        },
    )
    missing_wolves: str = option(
        "nobody",
        label=_("When no wolf hands in a list"),
        choices={"nobody": _("Nobody is killed"), "random": _("A random victim is killed")},
    )
    reveal_dead: bool = option(False, label=_("Reveal a dead player's role"))


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


class Tabula(TabulaFamily):
    """Lupus in Tabula on the family's day and deal (tabula_family.py): the rulebook's
    roles beside the organiser's characters, its specials, its night."""

    id = ID
    capabilities = Capabilities(family=ID, rank=1, typical_table=9, timings=TIMINGS, lineage=("werewolf",))
    events: EventKinds = {
        **FAMILY_EVENTS,
        "masons_met": ("masons",),
        "mythomaniac_became": ("seat", "target"),
        "ruling_inquiry_choice": (),
        "seers_met": ("seers",),
        "welcome_passed": (),
    }
    roles = ROLES
    cards = CARDS
    state_type = TabulaState
    options_type = TabulaOptions
    extra_options: tuple[OptionSpec, ...] = (
        OptionSpec(
            "characters",
            "characters",
            default=(),
            label=_("Your own characters in this game"),
            help=_("Built on the Characters page: each one ticked is dealt as one more special card."),
        ),
    )
    LAST_SOLO_WINS = True

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
        `characters`: the organiser's own (engine/characters.py), each dealt as one more
        special card, after the rulebook's."""
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
            specials += [name for name in own if name not in specials]  # each of theirs is dealt
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

    def game_cast(self, options: Mapping[str, Any]) -> TabulaCast:
        """The rulebook's roles (at once, for a game without the organiser's
        characters), and theirs beside them."""
        return NATIVE if "characters" not in options else cast_of(options)

    def deck(self, options: Mapping[str, Any], players: int) -> tuple[str, ...]:
        """The table's cards (one more than the players at seven: one is set aside)."""
        return tuple(deck(players, options["specials"]))

    def counts(self, options: Mapping[str, Any], deck: Sequence[str]) -> dict[str, Any]:
        """The rulebook's Werewolves and Seers in the deck, and the specials chosen."""
        return {"wolves": deck.count(WOLF), "seers": deck.count(SEER), "specials": list(options["specials"])}

    def groups(self, options: Mapping[str, Any], roles: Sequence[str]) -> dict[str, list[int]]:
        """The Freemasons' lodge (and an organiser's character who knows it)."""
        rows = cast_of(options).rows
        return {"lodge": [seat for seat, role in enumerate(roles) if rows[role].lodge]}

    def met(self, group: str, members: list[int]) -> Event:
        return Event("masons_met", {"masons": members}, Audience.of(*members))

    def lessons(self) -> Mapping[str, Lesson]:
        """The family's lessons, and the Mythomaniac's change: one who became the Seer
        (or a Werewolf) holds that role from then on, and claims it as such."""
        return _LESSONS

    def aims(self) -> Mapping[str, Aim]:
        """The family's aims, and the Mythomaniac's: it points at the player it trusts
        most (a Seer who came out, whose role it would take)."""
        return _AIMS

    def deal(self, state: State) -> dict[str, Any]:
        """Each seat's role as dealt, the alpha's seat and the card set aside: `setup`
        takes it back and sets the same game up, whenever it is asked."""
        rules: TabulaState = state.rules
        roles = [MYTHOMANIAC if seat in rules.changed else role for seat, role in enumerate(rules.roles)]
        return {"roles": roles, "alpha": rules.pack[0], "set_aside": rules.set_aside}

    def night_phase(self, state: State) -> PhaseSpec:
        """The pack's list (SLEEP on the quiet first night), each role's own card from
        its first night to its last, and an organiser's character's from its blocks."""
        rules: TabulaState = state.rules
        living = state.living()
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

    def misfit(self, state: State, seat: int, order: Order) -> str:
        """A wolf's KILL on the quiet first night: the pack only meets tonight."""
        quiet = state.phase == "night" and state.number == 1 and state.options["first_night"] == "quiet"
        if quiet and order.kind == KILL.kind and seat in state.rules.pack:
            return "pack_only_meets"
        return "wrong_order"

    def night_refusal(self, state: State, seat: int, field: Field, value: int) -> str:
        """A dead name (a living one on a revival), a wolf on a wolf's list, a fellow
        wolf's place taken by someone else, or the writer's own name where it may not
        stand."""
        if not state.alive[value]:
            return "target_dead"
        if field.name == "also":
            return "target_self" if value == seat else "not_a_wolf"
        if slot_kind(state, seat) == "raise":
            return "target_alive"
        if field.prune and not cast_of(state.options).rows[state.rules.roles[value]].prey:
            return "target_wolf"
        if value == seat:
            return "target_self"
        return "not_a_choice"

    def open_night(
        self, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]
    ) -> tuple[Night, Pipeline]:
        """The night with the cards written, by kind, and the cast in its notes: the
        rulebook's steps, or with the organiser's characters, theirs in their places."""
        written: dict[str, list[tuple[int, Order]]] = {}
        for seat, card in cards.items():
            if card.kind != "sleep":
                written.setdefault(card.kind, []).append((seat, card))
        night = Night(state, cards, rng, events, notes={"alive": state.alive, "written": written})
        night.notes["character"] = _no_character
        table = NATIVE if "characters" not in state.options else cast_of(state.options)
        night.notes["cast"] = table
        own = table.characters
        if not own:
            return night, NIGHT_STEPS
        night.notes["character"] = lambda seat: own.get(night.state.rules.roles[seat])
        return night, WITH_THEIR_CHARACTERS


def _counted_cards(memory: Memory, data: Mapping[str, Any]) -> None:
    """The setup's counts (the family's), each special counted as the cards it deals:
    the Freemasons are two Freemasons, so that a third who claims the role is seen to
    be one too many; and the Mythomaniac, who may become a second Seer."""
    _FAMILY_LESSONS["game_set_up"](memory, data)
    memory.copies = sum(1 for name in data.get("specials", ()) if name == MYTHOMANIAC)
    memory.copied_from = ROLES[MYTHOMANIAC].last_night  # the day after its one night
    for name in data.get("specials", ()):
        cards = SPECIALS.get(str(name))
        if cards is None or cards[1] == (name,):
            continue
        memory.counts.pop(str(name), None)
        for card in cards[1]:
            memory.counts[card] = memory.counts.get(card, 0) + 1


def _became(memory: Memory, data: Mapping[str, Any]) -> None:
    if data["seat"] == memory.seat and data["role"] is not None:
        memory.role = data["role"]


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
    written = [[seat, cards[seat].targets[0]] for seat in seers if seat in cards and cards[seat].kind == "inquire"]
    if len(written) > 1:
        how = "consensus" if all(named == target for _, named in written) else "rank"
        data = {"cards": written, "target": target, "decided_by": seer, "how": how}
        night.events.append(rulings.ruling("inquiry_choice", data))
    row = night.notes["cast"].rows[state.rules.roles[target]]
    night.tell("seer_saw", {"seer": seer, "target": target, "werewolf": row.seen_as_wolf}, Audience.of(*seers))
    if row.frail:
        night.events.append(rulings.frail(target, state.rules.roles[target], seer))
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
    for seat, card, _block in abilities.acting(night, INSPECT):
        target = card.targets[0]
        row = rows[roles[target]]
        night.tell("seer_saw", {"seer": seat, "target": target, "werewolf": row.seen_as_wolf}, Audience.of(seat))
        if row.frail:
            night.events.append(rulings.frail(target, roles[target], seat))
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
    victim, how, decided_by = choose_victim(
        pack, night.cards, quiet=quiet, prey=prey, rng=night.rng, events=night.events
    )
    night.tell("pack_chose", {"victim": victim, "how": how, "decided_by": decided_by}, Audience.of(*pack))
    if table.characters:
        abilities.slay(night, pack)
    if victim is None:
        return
    night.notes["victim"] = victim
    guarded = night.notes.get("guarded", {})
    if victim in guarded:
        night.events.append(rulings.protected(victim, guarded[victim], "guard"))
    elif not table.rows[state.rules.roles[victim]].pack_can_kill:
        night.events.append(rulings.immune(victim, state.rules.roles[victim], "unkillable"))
    elif not (table.characters and abilities.spare(night, victim)):
        night.kills.append((victim, "killed"))


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
        if deadly_from and night.state.seats >= deadly_from:
            role = night.state.rules.roles[target]
            struck = not rows[role].owl_proof
            night.events.append(owl_ruling(seat, target, "struck" if struck else "spared", role))
            if struck:
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
        night.events.append(rulings.power_spent(seat, "mimic", (target,)))
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
    if len(died) > 1:
        night.events.append(rulings.tie_broken("welcome", died, (holder,), "random"))
    night.notes[HOLDER] = holder
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


RULESET = register(Tabula())
_FAMILY_LESSONS = TabulaFamily.lessons(RULESET)
_LESSONS: Mapping[str, Lesson] = {**_FAMILY_LESSONS, "game_set_up": _counted_cards, "mythomaniac_became": _became}
_AIMS: Mapping[str, Aim] = {**TabulaFamily.aims(RULESET), "mimic": "friendly"}
