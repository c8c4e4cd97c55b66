"""Lupus in Tabula, Luna Piena edition, played with notecards.

Every character is a definition made of ability blocks (engine/characters.py; the
built-in ones in `cast`), so the night runs blocks, never names: the pack hunts, then
the inspecting blocks, the Medium's seance, protections, marks, exact readings, one-shot
kills, passed tokens; then the deaths, the revivals, the tombstone, and the end judged
once. The deal, the day, the deaths and the end are Tabula's, written once for both
(tabula_family.py; the day in engine/tribunal.py): an accusation in which the ghosts vote
too, then a secret ballot; every tie counts clockwise from the tombstone (the Lapide),
which passes to each new ghost, the lynched included (`lynching`). docs/rules.md, "Luna
Piena", gives the readings chosen where the rulebooks are silent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, ClassVar

from ... import abilities, rulings
from ...abilities import GIVE, RAISE, READ, SHOOT
from ...cards import SLEEPER, Field, Slot
from ...characters import (
    FRAIL,
    IMMUNE,
    INSPECT,
    KNOW_GROUP,
    MARK,
    PROTECT,
    REVIVE,
    SEANCE,
    SOLE_WINNER,
    Character,
    catalogue,
    from_option,
)
from ...errors import SetupError
from ...events import Audience, Event
from ...night import DEATHS, JUDGE, Death, Night, Pipeline
from ...options import OptionSpec, as_json, option, parse_options
from ...options import gettext_noop as _
from ...orders import Order
from ...pack import victim as choose_victim
from ...random import clockwise_distance
from ...registry import register
from ...state import PhaseSpec, State
from ...table import Role
from ..base import Advice, Capabilities, EventKinds
from ..tabula_family import (
    ACCUSE,
    BALLOT,
    FAMILY_EVENTS,
    HOLDER,
    INQUIRE,
    KILL,
    KILL_AND_SLAY,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NIGHT,
    OWL,
    TIMINGS,
    TabulaFamily,
    owl_ruling,
)
from ..tabula_family import PROTECT as PROTECT_CARD
from ..tabula_family import origin as family_origin
from . import cast as deck_table

ID = "lunapiena"

CARDS = (KILL, KILL_AND_SLAY, INQUIRE, READ, PROTECT_CARD, SHOOT, RAISE, OWL, GIVE, ACCUSE, BALLOT)
"""The family's cards (tabula_family.py; a wolf with a one-shot kill among the pack, Lara,
may add ALSO and one fellow wolf to the pack's list) and the blocks' (engine/abilities.py)."""
ACT_CARDS = {card.kind: card for card in (INQUIRE, READ, PROTECT_CARD, SHOOT, RAISE, OWL, GIVE)}


@dataclass(frozen=True, slots=True)
class LunaState:
    """Luna Piena's own part of the state.

    `roles[seat]` the character each seat holds; `pack` the wolves in order of
    succession, the alpha first; `set_aside` the card left out at a table of seven;
    `lapide` the seat holding the tombstone (None before anyone dies); `owl` the mark
    of the last night, until the accusation has used it; `suspects` the open ballot's;
    `lynched` the last player lynched; `spent` the one-use blocks used, as
    "seat:block"; `tokens` the passed tokens as (token, effect, giver, holder)."""

    VERSION: ClassVar[int] = 1

    roles: tuple[str, ...]
    pack: tuple[int, ...] = ()
    set_aside: str | None = None
    lapide: int | None = None
    owl: int | None = None
    suspects: tuple[int, ...] = ()
    lynched: int | None = None
    spent: tuple[str, ...] = ()
    tokens: tuple[tuple[str, str, int, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "roles": list(self.roles),
            "pack": list(self.pack),
            "set_aside": self.set_aside,
            "lapide": self.lapide,
            "owl": self.owl,
            "suspects": list(self.suspects),
            "lynched": self.lynched,
            "spent": list(self.spent),
            "tokens": [list(token) for token in self.tokens],
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> LunaState:
        def seat(value: Any) -> int | None:
            return None if value is None else int(value)

        return cls(
            roles=tuple(raw["roles"]),
            pack=tuple(int(x) for x in raw.get("pack", ())),
            set_aside=raw.get("set_aside"),
            lapide=seat(raw.get("lapide")),
            owl=seat(raw.get("owl")),
            suspects=tuple(int(x) for x in raw.get("suspects", ())),
            lynched=seat(raw.get("lynched")),
            spent=tuple(str(x) for x in raw.get("spent", ())),
            tokens=tuple((str(t), str(e), int(g), int(h)) for t, e, g, h in raw.get("tokens", ())),
        )

    @property
    def holder(self) -> int | None:
        """The tombstone's holder: the family's name for where ties count from."""
        return self.lapide

    def moved(
        self,
        holder: int | None,
        owl: int | None,
        suspects: tuple[int, ...],
        lynched: int | None,
        tokens: tuple[tuple[str, str, int, int], ...],
    ) -> LunaState:
        """This state with what the family's steps move (tabula_family.py), the rest as
        it was."""
        return LunaState(self.roles, self.pack, self.set_aside, holder, owl, suspects, lynched, self.spent, tokens)


@dataclass(frozen=True, slots=True)
class LunaOptions:
    """The options of a Luna Piena game besides its cards; docs/rules.md says what each
    one does."""

    missing_wolves: str = option(
        "nobody",
        label=_("When no wolf hands in a list"),
        choices={"nobody": _("Nobody is killed"), "random": _("A random victim is killed")},
    )
    lapide: str = option(
        "pack_victim",
        label=_("When several players die in one night, the tombstone goes to"),
        choices={
            "pack_victim": _("The wolves' victim, else the last of them clockwise (our reading)"),
            "random": _("One of them drawn at random"),
        },
    )
    reveal_dead: bool = option(False, label=_("Reveal a dead player's character"))


class Cast:
    """The characters of one game: the built-in definitions with the organiser's own
    over them, and their rows."""

    __slots__ = ("characters", "rows", "wolfish", "solo", "pack")

    def __init__(self, characters: Mapping[str, Character]) -> None:
        self.characters = dict(characters)
        self.rows: dict[str, Role] = {name: character.row() for name, character in characters.items()}
        self.wolfish = frozenset(name for name, c in characters.items() if c.counts_as_wolf)
        self.solo = {name: c.winning_side for name, c in characters.items() if c.block(SOLE_WINNER)}
        self.pack = frozenset(name for name, c in characters.items() if c.pack)

    def __getitem__(self, name: str) -> Character:
        return self.characters[name]


_CASTS: dict[str, Cast] = {}
_LAST: tuple[Mapping[str, Any], Cast] | None = None


def cast_of(options: Mapping[str, Any]) -> Cast:
    """The cast a game's checked options give (kept: bot games ask it every step)."""
    global _LAST
    last = _LAST
    if last is not None and last[0] is options:
        return last[1]
    own = options.get("characters", [])
    key = json.dumps(own, sort_keys=True)
    found = _CASTS.get(key)
    if found is None:
        found = Cast({**deck_table.BUILT_IN, **catalogue(own)})
        if len(_CASTS) < 256:
            _CASTS[key] = found
    _LAST = (options, found)
    return found


class LunaPiena(TabulaFamily):
    """Luna Piena on the family's day and deal (tabula_family.py): characters made of
    blocks, the tombstone, its own night."""

    id = ID
    capabilities = Capabilities(family=ID, rank=2, typical_table=9, timings=TIMINGS, lineage=("werewolf",))
    events: EventKinds = {
        **FAMILY_EVENTS,
        "group_met": ("members",),
        "ruling_taken_along": (),
        "tombstone_passed": (),
    }
    roles: Mapping[str, Role] = {name: character.row() for name, character in deck_table.BUILT_IN.items()}
    cards = CARDS
    state_type = LunaState
    options_type = LunaOptions
    extra_options: tuple[OptionSpec, ...] = (
        OptionSpec(
            "cards",
            "text",
            label=_("Characters to add, in order"),
            help=_(
                "Separated by commas, e.g. medium, bodyguard, inquisitor, freemason, freemason. The names: medium, "
                "possessed, bodyguard, owl, freemason, werehamster, inquisitor, fortune_teller, undead, lara, jekyll, "
                "dorian, necromancer, werecow, hamlet, villager, wolf, and your own characters ticked below. "
                "Villagers fill the rest of the deck."
            ),
            table_label=_("The rulebook's deck for the table (suggested)"),
            table_help=_(
                "Two or three Werewolves, the Seer, Villagers, and the characters the rulebook adds for the number of "
                "players. Untick to list the characters yourself (a themed game)."
            ),
        ),
        OptionSpec(
            "characters",
            "characters",
            default=(),
            label=_("Your own characters in this game"),
            help=_(
                "Built on the Characters page. One named like a character of the edition replaces the project's "
                "reading of it in this game; the others may then be listed above."
            ),
        ),
    )

    @property
    def night_order(self) -> tuple[str, ...]:
        return NIGHT_STEPS.names

    def game_cast(self, options: Mapping[str, Any]) -> Cast:
        """The built-in characters, and the organiser's over them."""
        return cast_of(options)

    def advice(self, options: Mapping[str, Any], players: int) -> tuple[Advice, ...]:
        """No advice: every option this ruleset takes is the rulebook's to take."""
        return ()

    def options(self, raw: Mapping[str, Any], players: int) -> dict[str, Any]:
        """Check and complete the options for a table of `players`: the organiser's
        character definitions (`characters`, each checked), the cards added to the base
        (`cards`: by default the rulebook's for this count; a character appears twice
        only where its definition repeats), and the rest."""
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise SetupError("player_count", "players", players)
        rest = {key: value for key, value in raw.items() if key not in ("characters", "cards")}
        checked = as_json(parse_options(LunaOptions, rest, {}))
        characters = from_option(raw.get("characters", []))
        checked["characters"] = [characters[name].to_json() for name in characters]
        known = {**deck_table.BUILT_IN, **characters}
        cards = raw.get("cards")
        if cards is None:
            added = list(deck_table.additions(players))
        else:
            items = cards.split(",") if isinstance(cards, str) else list(cards)
            added = [str(item).strip() for item in items if str(item).strip()]
        for name in added:
            if name not in known:
                code = "character_unwritten" if name in deck_table.UNWRITTEN else "unknown_character"
                raise SetupError(code, "cards", name)
            if added.count(name) > 1 and not known[name].repeat:
                raise SetupError("repeated_character", "cards", name)
        if len(deck_table.base(players)) + len(added) > max(players, deck_table.FULL_DECK):
            raise SetupError("too_many_roles", "players", players)
        checked["cards"] = added
        return checked

    def deck(self, options: Mapping[str, Any], players: int) -> tuple[str, ...]:
        return tuple(deck_table.deck(players, options["cards"]))

    def counts(self, options: Mapping[str, Any], deck: Sequence[str]) -> dict[str, Any]:
        """The pack's cards and the Seers in the deck, and the cards added to the base."""
        pack = cast_of(options).pack
        return {
            "wolves": sum(1 for role in deck if role in pack),
            "seers": deck.count(deck_table.SEER),
            "specials": [name for name in options["cards"] if name != deck_table.VILLAGER],
        }

    def groups(self, options: Mapping[str, Any], roles: Sequence[str]) -> dict[str, list[int]]:
        """Each known group (but the pack's) with the seats whose character knows it."""
        table = cast_of(options)
        groups: dict[str, list[int]] = {}
        for seat, role in enumerate(roles):
            block = table[role].block(KNOW_GROUP)
            if block is not None and block.group != "pack":
                groups.setdefault(block.group, []).append(seat)
        return groups

    def met(self, group: str, members: list[int]) -> Event:
        return Event("group_met", {"group": group, "members": members}, Audience.of(*members))

    def deal(self, state: State) -> dict[str, Any]:
        rules: LunaState = state.rules
        return {
            "roles": list(rules.roles),
            "alpha": rules.pack[0] if rules.pack else None,
            "set_aside": rules.set_aside,
        }

    def night_phase(self, state: State) -> PhaseSpec:
        """The pack's list (with ALSO and a fellow wolf for a one-shot kill among the
        pack), or each character's acting block's card naming whom the block allows."""
        rules: LunaState = state.rules
        living = state.living()
        table = cast_of(state.options)
        number = state.number
        roles = rules.roles
        pack = [seat for seat in rules.pack if state.alive[seat]]
        prey = tuple(seat for seat in living if roles[seat] not in table.pack)
        hunt = Slot(KILL, (prey,))
        dead = tuple(seat for seat in range(state.seats) if not state.alive[seat])
        slots: dict[int, Slot] = {}
        for seat in living:
            character = table[roles[seat]]
            act = character.act
            usable = abilities.usable(state, seat, act)
            if character.pack:
                if usable and act is not None:
                    fellows = tuple(wolf for wolf in pack if wolf != seat)
                    slots[seat] = Slot(KILL_AND_SLAY, (prey, fellows))
                else:
                    slots[seat] = hunt
            elif not usable or act is None or act.card is None:
                slots[seat] = SLEEPER
            else:
                choices = abilities.among(act, seat, living, dead)
                slots[seat] = Slot(ACT_CARDS[act.card], (choices,)) if choices else SLEEPER
        return PhaseSpec(NIGHT, number, slots)

    def night_refusal(self, state: State, seat: int, field: Field, value: int) -> str:
        """A dead name (a living one on a revival), a wolf on the pack's list, a fellow
        wolf's place taken by someone else, or the writer's own name where it may not
        stand."""
        rules: LunaState = state.rules
        table = cast_of(state.options)
        if state.alive[seat]:
            act = table[rules.roles[seat]].act
            if field.name == "also":
                if value == seat:
                    return "target_self"
                return "target_dead" if not state.alive[value] else "not_a_wolf"
            if act is not None and act.kind == REVIVE and not field.prune:
                return "target_alive" if state.alive[value] else "not_a_choice"
        if not state.alive[value]:
            return "target_dead"
        if field.prune and rules.roles[value] in table.pack:
            return "target_wolf"
        if value == seat:
            return "target_self"
        return "not_a_choice"

    def open_night(
        self, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]
    ) -> tuple[Night, Pipeline]:
        """The night, whose steps find each seat's character in its notes."""
        table = cast_of(state.options)
        roles = state.rules.roles
        notes = {"alive": state.alive, "character": lambda seat: table[roles[seat]]}
        return Night(state, cards, rng, events, notes=notes), NIGHT_STEPS

    def lynching(self, state: State, lynched: int, deaths: Sequence[Death], events: list[Event]) -> int | None:
        """The lynched takes the tombstone (with whoever the Skull took along, counted
        after him)."""
        among = [seat for seat, _ in deaths]
        events.append(Event("tombstone_passed", {"seat": lynched, "among": among}, Audience.public()))
        return lynched


# The night, in call order: see NIGHT_STEPS below.


def _pack(night: Night) -> None:
    """The pack's victim, from the wolves' lists as in classic (night 1 included in
    this edition); a wolf with a one-shot kill among the pack (Lara) slaughters the
    fellow wolf named after ALSO, once a game."""
    state = night.state
    rules: LunaState = state.rules
    table = cast_of(state.options)
    pack = [seat for seat in rules.pack if state.alive[seat]]
    prey = None
    if state.options["missing_wolves"] == "random":
        prey = [seat for seat in state.living() if rules.roles[seat] not in table.pack]
    victim, how, decided_by = choose_victim(
        pack, night.cards, quiet=False, prey=prey, rng=night.rng, events=night.events
    )
    night.tell("pack_chose", {"victim": victim, "how": how, "decided_by": decided_by}, Audience.of(*pack))
    night.notes["victim"] = victim
    abilities.slay(night, pack)


def _inspect(night: Night) -> None:
    """Each inspecting character learns whether its choice is seen as a werewolf; a
    frail choice (the Werehamster) dies at dawn."""
    table = cast_of(night.state.options)
    roles = night.state.rules.roles
    for seat, card, _block in abilities.acting(night, INSPECT):
        target = card.targets[0]
        character = table[roles[target]]
        night.tell("seer_saw", {"seer": seat, "target": target, "werewolf": character.seen_as_wolf}, Audience.of(seat))
        if character.block(FRAIL) is not None:
            night.events.append(rulings.frail(target, roles[target], seat))
            night.notes.setdefault("strikes", []).append((target, False))


def _seance(night: Night) -> None:
    """From the night its block says (the Medium: the second), a seance learns whether
    the last player lynched was seen as a werewolf."""
    state = night.state
    lynched = state.rules.lynched
    if lynched is None:
        return
    table = cast_of(state.options)
    roles = state.rules.roles
    for seat in state.living():
        block = table[roles[seat]].block(SEANCE)
        if block is not None and block.acts_on(state.number):
            werewolf = table[roles[lynched]].seen_as_wolf
            night.tell("medium_saw", {"medium": seat, "seat": lynched, "werewolf": werewolf}, Audience.of(seat))


def _protect(night: Night) -> None:
    for seat, card, _block in abilities.acting(night, PROTECT):
        night.notes.setdefault("guarded", {})[card.targets[0]] = seat


def _mark(night: Night) -> None:
    """The mark (the Owl's) is kept for the next accusation; at a large enough table
    it dies at dawn, unless it hunts with the pack or the wolves cannot kill it."""
    table = cast_of(night.state.options)
    roles = night.state.rules.roles
    for seat, card, block in abilities.acting(night, MARK):
        target = card.targets[0]
        night.notes["owl"] = target
        character = table[roles[target]]
        immune = character.block(IMMUNE)
        proof = character.pack or (immune is not None and immune.times == 0)
        if block.deadly_from and night.state.seats >= block.deadly_from:
            night.events.append(owl_ruling(seat, target, "spared" if proof else "struck", roles[target]))
            if not proof:
                night.notes.setdefault("strikes", []).append((target, False))


def _dawn(night: Night) -> None:
    """The kills in order: the first strikes (the Potion), then the pack's victim
    unless a protection, an immunity or a Portrait saves it, then every other strike."""
    strikes: list[tuple[int, bool]] = night.notes.get("strikes", [])
    night.kills.extend((seat, "killed") for seat, first in strikes if first)
    victim = night.notes.get("victim")
    if victim is not None:
        guarded = night.notes.get("guarded", {})
        if victim in guarded:
            night.events.append(rulings.protected(victim, guarded[victim], "guard"))
        elif not abilities.spare(night, victim):
            night.kills.append((victim, "killed"))
    night.kills.extend((seat, "killed") for seat, first in strikes if not first)


def _tombstone(night: Night) -> None:
    """The tombstone goes to the night's new ghost; when several died, to the pack's
    victim among them, else to the one met last going clockwise from its holder (or
    one drawn at random, as the game's option says)."""
    before: tuple[bool, ...] = night.notes["alive"]
    alive = night.state.alive
    died = sorted({seat for seat, _ in night.kills if before[seat] and not alive[seat]})
    if not died:
        return
    origin = family_origin(night.state)
    seats = night.state.seats
    victim = night.notes.get("victim")
    if len(died) == 1:
        holder = died[0]
    elif victim in died and night.state.options["lapide"] == "pack_victim":
        holder = victim
        night.events.append(rulings.tie_broken("tombstone", died, (holder,), "pack_victim"))
    elif night.state.options["lapide"] == "random":
        holder = night.rng.choice(died)
        night.events.append(rulings.tie_broken("tombstone", died, (holder,), "random"))
    else:
        holder = max(died, key=lambda seat: clockwise_distance(origin, seat, seats))
        night.events.append(rulings.tie_broken("tombstone", died, (holder,), "clockwise_last", origin))
    night.notes[HOLDER] = holder
    night.tell("tombstone_passed", {"seat": holder, "among": died}, Audience.public())


NIGHT_STEPS = Pipeline(
    (
        ("pack", _pack),
        ("inquire", _inspect),
        ("medium", _seance),
        ("protect", _protect),
        ("owl", _mark),
        ("read", abilities.read),
        ("shoot", abilities.shoot),
        ("give", abilities.give),
        ("dawn", _dawn),
        (DEATHS, None),
        ("raise", abilities.revive),
        ("lapide", _tombstone),
        (JUDGE, None),
    )
)
"""The night in call order: the pack, then the Seer, then the others as the rulebook
lists them; then dawn weighs the kills, the deaths, a revival, the tombstone, and the
end is judged once."""


RULESET = register(LunaPiena())
