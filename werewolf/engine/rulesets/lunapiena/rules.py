"""Lupus in Tabula, Luna Piena edition, played with notecards.

Every character is a definition made of ability blocks (engine/characters.py; the
built-in ones in `cast`), so the night runs blocks, never names: the pack hunts, then
the inspecting blocks, the Medium's seance, protections, marks, exact readings, one-shot
kills, passed tokens; then the deaths, the revivals, the tombstone, and the end judged
once. The day is Tabula's (engine/tribunal.py): an accusation in which the ghosts vote
too, then a secret ballot; every tie counts clockwise from the tombstone (the Lapide),
which passes to each new ghost, the lynched included. docs/rules.md, "Luna Piena", gives
the readings chosen where the rulebooks are silent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any, ClassVar

from ... import abilities, talk, tribunal
from ... import pack as wolfpack
from ...abilities import GIVE, RAISE, READ, SHOOT
from ...cards import SLEEPER, Card, Field, Slot
from ...characters import (
    FRAIL,
    IMMUNE,
    INSPECT,
    KNOW_GROUP,
    MARK,
    ONE_SHOT_KILL,
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
from ...options import as_json, parse_options
from ...orders import Order
from ...outcome import Outcome, finish
from ...pack import succession
from ...pack import victim as choose_victim
from ...random import clockwise_distance, setup_rng
from ...registry import register
from ...state import PhaseSpec, Stage, State
from ...table import Role
from ...talk import Channel
from ..base import Advice, BaseRuleset, Capabilities, DealShape, one_role_deal, one_role_shape
from . import cast as deck_table

ID = "lunapiena"
MIN_PLAYERS = 7
MAX_PLAYERS = 24

_LIST = Field(most=None, ranked=True, optional=True, count_error="empty_list", prune=True)
_ALSO = Field("also", least=1, most=1, optional=True, word="ALSO", prune=True)
HUNT = Card("kill", "KILL", (_LIST,), empty_error="empty_list")
HUNT_AND_SLAY = Card("kill", "KILL", (_LIST, _ALSO), empty_error="empty_list")
"""The pack's list; a wolf with a one-shot kill among the pack (Lara) may add ALSO and
one fellow wolf."""
INQUIRE = Card("inquire", "INQUIRE", (Field(),))
PROTECT_CARD = Card("protect", "PROTECT", (Field(),))
OWL = Card("owl", "OWL", (Field(),))
ACCUSE = Card("vote", "VOTE", (Field(least=0),), blank=False)
BALLOT = Card("ballot", "LYNCH", (Field(least=0),), blank=False)
CARDS = (HUNT, HUNT_AND_SLAY, INQUIRE, READ, PROTECT_CARD, SHOOT, RAISE, OWL, GIVE, ACCUSE, BALLOT)
ACT_CARDS = {card.kind: card for card in (INQUIRE, READ, PROTECT_CARD, SHOOT, RAISE, OWL, GIVE)}

NIGHT = Stage("night", "night")
ACCUSATION = Stage("accusation", "day", cards="public")
BALLOT_STAGE = Stage("ballot", "day", cards="revealed")
OVER_STAGE = Stage("over", "over")


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


@dataclass(frozen=True, slots=True)
class LunaOptions:
    """The options of a Luna Piena game besides its cards; docs/rules.md says what each
    one does."""

    missing_wolves: str = field(default="nobody", metadata={"choices": ("nobody", "random")})
    lapide: str = field(default="pack_victim", metadata={"choices": ("pack_victim", "random")})
    reveal_dead: bool = False


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


class LunaPiena(BaseRuleset):
    id = ID
    capabilities = Capabilities(family=ID)
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    roles: Mapping[str, Role] = {name: character.row() for name, character in deck_table.BUILT_IN.items()}
    cards = CARDS
    state_type = LunaState

    @property
    def night_order(self) -> tuple[str, ...]:
        return NIGHT_STEPS.names

    def cast(self, options: Mapping[str, Any]) -> Mapping[str, Role]:
        """The rows of a game's characters: ours, and the organiser's over them."""
        return cast_of(options).rows

    def characters(self, options: Mapping[str, Any]) -> Mapping[str, Character]:
        """A game's characters as definitions (their blocks say what each does)."""
        return cast_of(options).characters

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

    def setup(
        self, options: Mapping[str, Any], players: int, seed: int, deal: Mapping[str, Any] | None = None
    ) -> tuple[State, list[Event]]:
        """Deal the cards (or take the given deal), draw the alpha, and tell each seat
        its character, the pack its members, each group its own, and whoever knows the
        pack (the Were-cow) who the wolves are."""
        rng = setup_rng(seed)
        table = cast_of(options)
        cards = deck_table.deck(players, options["cards"])
        roles = (deal or {}).get("roles")
        set_aside: str | None = None
        if roles is None:
            rng.shuffle(cards)
            if len(cards) > players:
                set_aside = cards.pop()
            dealt = cards
        else:
            dealt = list(roles)
            left = list(cards)
            if len(dealt) != players:
                raise SetupError("bad_roles", "roles", roles)
            for role in dealt:
                if role not in left:
                    raise SetupError("bad_roles", "roles", roles)
                left.remove(role)
            set_aside = left[0] if left else None
            given = (deal or {}).get("set_aside")
            if given is not None and given != set_aside:
                raise SetupError("bad_roles", "set_aside", given)
        wolves = [seat for seat, role in enumerate(dealt) if role in table.pack]
        pack = succession(wolves, (deal or {}).get("alpha"), players, rng)
        state = State(
            ruleset=ID,
            options=dict(options),
            seed=seed,
            alive=(True,) * players,
            revealed=(False,) * players,
            phase="night",
            number=1,
            rules=LunaState(tuple(dealt), pack, set_aside),
        )
        full = deck_table.deck(players, options["cards"])
        summary = {
            "players": players,
            "wolves": sum(1 for role in full if role in table.pack),
            "seers": full.count(deck_table.SEER),
            "specials": [name for name in options["cards"] if name != deck_table.VILLAGER],
            "set_aside": len(full) - players,
        }
        events = [Event("game_set_up", summary, Audience.public())]
        if set_aside is not None:
            events.append(Event("role_set_aside", {"role": set_aside}, Audience.moderator()))
        events += [
            Event("role_dealt", {"seat": seat, "role": role}, Audience.of(seat)) for seat, role in enumerate(dealt)
        ]
        events.append(Event("pack_formed", {"pack": list(pack)}, Audience.of(*pack)))
        for group, members in _groups(table, dealt).items():
            if len(members) > 1:
                events.append(Event("group_met", {"group": group, "members": members}, Audience.of(*members)))
        knowers = [seat for seat, role in enumerate(dealt) if _knows_pack(table[role])]
        for seat in knowers:
            events.append(Event("pack_known", {"seat": seat, "pack": list(pack)}, Audience.of(seat)))
        return state, events

    def channels(self, state: State) -> tuple[Channel, ...]:
        """The square, the den (at night only), each group's own, and the ghosts'
        corner (nothing a ghost writes reaches the living)."""
        rules: LunaState = state.rules
        groups = _groups(cast_of(state.options), rules.roles)
        return talk.standard(state, groups=groups, den_open=state.phase == "night", pack=rules.pack)

    def deck(self, options: Mapping[str, Any], players: int) -> tuple[str, ...]:
        return tuple(deck_table.deck(players, options["cards"]))

    def deal(self, state: State) -> dict[str, Any]:
        rules: LunaState = state.rules
        return {
            "roles": list(rules.roles),
            "alpha": rules.pack[0] if rules.pack else None,
            "set_aside": rules.set_aside,
        }

    def deal_shape(self, options: Mapping[str, Any], players: int) -> DealShape:
        """One role a seat from the table's deck, and the alpha if the organiser likes."""
        return one_role_shape(self.deck(options, players))

    def deal_from_hands(self, hands: Sequence[Mapping[str, Any]], mark: int | None) -> dict[str, Any]:
        return one_role_deal(hands, mark)

    def phase(self, state: State) -> PhaseSpec:
        if state.over:
            return PhaseSpec(OVER_STAGE, state.number, {})
        rules: LunaState = state.rules
        living = state.living()
        if state.phase == "day":
            if state.step == 1:
                vote = Slot(ACCUSE, (tuple(living),))
                return PhaseSpec(ACCUSATION, state.number, dict.fromkeys(range(state.seats), vote), step=1)
            ballot = Slot(BALLOT, (rules.suspects,))
            return PhaseSpec(BALLOT_STAGE, state.number, {s: ballot for s in living if s not in rules.suspects}, step=2)
        table = cast_of(state.options)
        number = state.number
        roles = rules.roles
        pack = [seat for seat in rules.pack if state.alive[seat]]
        prey = tuple(seat for seat in living if roles[seat] not in table.pack)
        hunt = Slot(HUNT, (prey,))
        dead = tuple(seat for seat in range(state.seats) if not state.alive[seat])
        slots: dict[int, Slot] = {}
        for seat in living:
            character = table[roles[seat]]
            act = character.act
            usable = abilities.usable(state, seat, act)
            if character.pack:
                if usable and act is not None:
                    fellows = tuple(wolf for wolf in pack if wolf != seat)
                    slots[seat] = Slot(HUNT_AND_SLAY, (prey, fellows))
                else:
                    slots[seat] = hunt
            elif not usable or act is None or act.card is None:
                slots[seat] = SLEEPER
            else:
                choices = abilities.among(act, seat, living, dead)
                slots[seat] = Slot(ACT_CARDS[act.card], (choices,)) if choices else SLEEPER
        return PhaseSpec(NIGHT, number, slots)

    def bound(self, state: State, field: Field) -> int:
        return state.seats

    def misfit(self, state: State, seat: int, order: Order) -> str:
        return "wrong_order"

    def unasked(self, state: State, seat: int) -> str:
        if state.phase == "day" and state.step == 2:
            if not state.alive[seat]:
                return "ghost_ballot"
            if seat in state.rules.suspects:
                return "suspect_ballot"
        return "not_asked"

    def refusal(self, state: State, seat: int, field: Field, value: int) -> str:
        """A dead name (a living one on a revival), a name on a ballot who is not a
        suspect, a wolf on the pack's list, a fellow wolf's place taken by someone else,
        or the writer's own name where it may not stand."""
        rules: LunaState = state.rules
        table = cast_of(state.options)
        if state.phase == "night" and state.alive[seat]:
            act = table[rules.roles[seat]].act
            if field.name == "also":
                if value == seat:
                    return "target_self"
                return "target_dead" if not state.alive[value] else "not_a_wolf"
            if act is not None and act.kind == REVIVE and not field.prune:
                return "target_alive" if state.alive[value] else "not_a_choice"
        if not state.alive[value]:
            return "target_dead"
        if state.phase == "day" and state.step == 2:
            return "not_a_suspect"
        if field.prune and rules.roles[value] in table.pack:
            return "target_wolf"
        if value == seat:
            return "target_self"
        return "not_a_choice"

    def resolve(self, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> State:
        if state.phase == "night":
            return _night(self, state, cards, rng, events)
        if state.step == 1:
            return _accusation(state, cards, events)
        return _ballot(self, state, cards, events)

    def act(self, state: State, seat: int, card: Order, rng: Random) -> tuple[State, list[Event]]:
        raise ValueError("lunapiena has no instant cards")

    def decisive(self, state: State, cards: Mapping[int, Order]) -> bool:
        """No step ends before its deadline on the cards alone (as in Tabula)."""
        return False

    def outcome(self, state: State) -> Outcome | None:
        if state.winner is None:
            return None
        return Outcome(state.winner, _winners(state, state.winner))

    def roles_of(self, state: State, seat: int) -> tuple[str, ...]:
        return (state.rules.roles[seat],)

    def mourned(self, state: State, deaths: Sequence[Death]) -> list[Death]:
        """The deaths of one moment in order, every seat once and only a living one;
        a giver of the Skull takes its holder along."""
        dying: list[Death] = []
        gone: set[int] = set()
        queue = list(deaths)
        while queue:
            seat, cause = queue.pop(0)
            if seat in gone or not state.alive[seat]:
                continue
            dying.append((seat, cause))
            gone.add(seat)
            queue += abilities.taken_along(state, seat)
        return dying

    def bury(self, state: State, deaths: Sequence[Death], events: list[Event]) -> State:
        """Apply and announce the deaths of one moment (engine/pack.py)."""
        return wolfpack.bury(state, deaths, events)

    def judge(self, state: State, events: list[Event]) -> State:
        winner = _winner(state)
        if winner is None:
            return state
        return finish(state, winner, _winners(state, winner), state.rules.roles, events)


def _groups(table: Cast, roles: Sequence[str]) -> dict[str, list[int]]:
    """Each known group (but the pack's) with the seats whose character knows it."""
    groups: dict[str, list[int]] = {}
    for seat, role in enumerate(roles):
        block = table[role].block(KNOW_GROUP)
        if block is not None and block.group != "pack":
            groups.setdefault(block.group, []).append(seat)
    return groups


def _knows_pack(character: Character) -> bool:
    block = character.block(KNOW_GROUP)
    return block is not None and block.group == "pack"


def _winner(state: State) -> str | None:
    """The village when no wolf lives; the wolves when the living wolves are at least as
    many as the other living players; but whichever side wins, a living sole winner
    (the Werehamster) wins alone instead."""
    table = cast_of(state.options)
    wolves = others = 0
    solo = None
    for role, alive in zip(state.rules.roles, state.alive, strict=True):
        if alive:
            if role in table.wolfish:
                wolves += 1
            else:
                others += 1
            if solo is None and role in table.solo:
                solo = table.solo[role]
    if wolves and wolves < others:
        return None
    return solo or ("wolves" if wolves else "village")


def _winners(state: State, side: str) -> tuple[int, ...]:
    table = cast_of(state.options)
    return tuple(seat for seat, role in enumerate(state.rules.roles) if table[role].winning_side == side)


def _origin(state: State) -> int:
    """Where ties count from: the tombstone's holder, or seat 0 while nobody has it."""
    lapide = state.rules.lapide
    return 0 if lapide is None else int(lapide)


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
    victim, how, decided_by = choose_victim(pack, night.cards, quiet=False, prey=prey, rng=night.rng)
    night.tell("pack_chose", {"victim": victim, "how": how, "decided_by": decided_by}, Audience.of(*pack))
    night.notes["victim"] = victim
    for seat in pack:
        card = night.cards.get(seat)
        act = table[rules.roles[seat]].act
        if card is None or act is None or act.kind != ONE_SHOT_KILL or not card.field("also"):
            continue
        target = card.field("also")[0]
        abilities.use(night, seat, act)
        night.tell("power_used", {"seat": seat, "power": "slay", "target": target}, Audience.of(seat))
        night.notes.setdefault("strikes", []).append((target, act.first))


def _inspect(night: Night) -> None:
    """Each inspecting character learns whether its choice is seen as a werewolf; a
    frail choice (the Werehamster) dies at dawn."""
    table = cast_of(night.state.options)
    roles = night.state.rules.roles
    for seat, card, _ in abilities.acting(night, INSPECT):
        target = card.targets[0]
        character = table[roles[target]]
        night.tell("seer_saw", {"seer": seat, "target": target, "werewolf": character.seen_as_wolf}, Audience.of(seat))
        if character.block(FRAIL) is not None:
            night.tell("hamster_seen", {"seat": target}, Audience.moderator())
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
    for seat, card, _ in abilities.acting(night, PROTECT):
        night.notes.setdefault("guarded", {})[card.targets[0]] = seat


def _mark(night: Night) -> None:
    """The mark (the Owl's) is kept for the next accusation; at a large enough table
    it dies at dawn, unless it hunts with the pack or the wolves cannot kill it."""
    table = cast_of(night.state.options)
    roles = night.state.rules.roles
    for _, card, block in abilities.acting(night, MARK):
        target = card.targets[0]
        night.notes["owl"] = target
        character = table[roles[target]]
        immune = character.block(IMMUNE)
        proof = character.pack or (immune is not None and immune.times == 0)
        if block.deadly_from and night.state.seats >= block.deadly_from and not proof:
            night.tell("owl_struck", {"seat": target}, Audience.moderator())
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
            night.tell("protected", {"seat": victim, "bodyguard": guarded[victim]}, Audience.moderator())
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
    origin = _origin(night.state)
    seats = night.state.seats
    victim = night.notes.get("victim")
    if len(died) == 1:
        holder = died[0]
    elif victim in died and night.state.options["lapide"] == "pack_victim":
        holder = victim
    elif night.state.options["lapide"] == "random":
        holder = night.rng.choice(died)
    else:
        holder = max(died, key=lambda seat: clockwise_distance(origin, seat, seats))
    night.notes["lapide"] = holder
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


def _night(rules: LunaPiena, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> State:
    table = cast_of(state.options)
    roles = state.rules.roles
    notes = {"alive": state.alive, "character": lambda seat: table[roles[seat]]}
    night = Night(state, cards, rng, events, notes=notes)
    state = NIGHT_STEPS.run(night, rules)
    old: LunaState = state.rules
    owl = night.notes.get("owl")
    lapide = night.notes.get("lapide", old.lapide)
    new = LunaState(old.roles, old.pack, old.set_aside, lapide, owl, old.suspects, old.lynched, old.spent, old.tokens)
    if state.over:
        return state.evolve(index=state.index + 1, rules=new)
    return state.evolve(phase="day", step=1, index=state.index + 1, rules=new)


# The day: Tabula's accusation and ballot, ties counted from the tombstone.


def _accusation(state: State, cards: Mapping[int, Order], events: list[Event]) -> State:
    rules: LunaState = state.rules
    data = tribunal.suspects(state, cards, _origin(state), rules.owl)
    if data["owl"] is not None:
        events.append(Event("owl_chose", {"seat": data["owl"]}, Audience.public()))
    events.append(Event("suspects_named", data, Audience.public()))
    suspects = tuple(data["suspects"])
    new = LunaState(
        rules.roles, rules.pack, rules.set_aside, rules.lapide, None, suspects, rules.lynched, rules.spent, rules.tokens
    )
    if not suspects:
        return _nightfall(state, new)
    return state.evolve(step=2, index=state.index + 1, rules=new)


def _ballot(rules: LunaPiena, state: State, cards: Mapping[int, Order], events: list[Event]) -> State:
    """Reveal the ballots; the lynched takes the tombstone (with whoever the Skull takes
    along, counted after him), and the Skull moves on clockwise from its holder."""
    old: LunaState = state.rules
    data = tribunal.ballot(state, old.suspects, cards, _origin(state))
    lynched = data["lynched"]
    events.append(Event("ballot_revealed", data, Audience.public()))
    deaths = rules.mourned(state, [(lynched, "lynched")])
    state = rules.bury(state, deaths, events)
    events.append(
        Event("tombstone_passed", {"seat": lynched, "among": [seat for seat, _ in deaths]}, Audience.public())
    )
    tokens = abilities.skull_moves(state, events)
    state = state.evolve(
        rules=LunaState(old.roles, old.pack, old.set_aside, lynched, None, (), lynched, old.spent, tokens)
    )
    state = rules.judge(state, events)
    return _nightfall(state, state.rules)


def _nightfall(state: State, rules: LunaState) -> State:
    if state.over:
        return state.evolve(index=state.index + 1, rules=rules)
    return state.evolve(phase="night", number=state.number + 1, step=1, index=state.index + 1, rules=rules)


RULESET = register(LunaPiena())
