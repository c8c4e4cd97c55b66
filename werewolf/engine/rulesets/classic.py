"""Classic Werewolf as Adam Cadre ran it with written notecards.

Roles: Werewolves (one of them the alpha), Seers and Villagers, and with the variants a
Herbalist who holds wolfsbane, a Vigilante with one shot and Cupid, who makes two Lovers;
in Dark City the wolves also swap two villagers' cards each night; in "Thing" the day
tests instead of lynching and the night converts instead of killing. Nights take every living
player's card at once; days take votes until a strict majority or the deadline.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from random import Random
from typing import Any, ClassVar

from .. import rulings, talk
from ..cards import SLEEPER, Card, Field, Slot
from ..errors import SetupError
from ..events import Audience, Event
from ..night import DEATHS, JUDGE, Death, Night, Pipeline
from ..options import as_json, option, parse_options
from ..options import gettext_noop as _
from ..orders import Order
from ..people import Lesson, Memory
from ..registry import register
from ..state import State
from ..table import Role, table
from ..talk import Channel
from .base import Capabilities, EventKinds
from .simple import INQUIRE, KILL, LIST, PROTECT, SHOOT, VOTE, SimpleFamily, others

ID = "classic"
MIN_PLAYERS = 5
MAX_PLAYERS = 30

WOLF = "wolf"
SEER = "seer"
VILLAGER = "villager"
HERBALIST = "herbalist"
VIGILANTE = "vigilante"
CUPID = "cupid"

VILLAGE = "village"
WOLVES = "wolves"
LOVERS = "lovers"

ROLES = table(
    (
        Role(WOLF, WOLVES, seen_as_wolf=True, counts_as_wolf=True, pack=True, prey=False, night="kill"),
        Role(SEER, VILLAGE, night="inquire"),
        Role(VILLAGER, VILLAGE),
        Role(HERBALIST, VILLAGE, night="protect", called_at="wolfsbane"),
        Role(VIGILANTE, VILLAGE, night="shoot"),
        Role(CUPID, VILLAGE, night="pair", last_night=1),
    )
)

_SWAP = Field("swap", least=2, most=2, optional=True, word="SWAP", count_error="two_names", prune=True)
KILL_AND_SWAP = Card("kill", "KILL", (LIST, _SWAP), empty_error="empty_list")
PAIR = Card("pair", "PAIR", (Field(least=2, most=2, count_error="two_names"),))
CARDS = (KILL, KILL_AND_SWAP, INQUIRE, PROTECT, SHOOT, PAIR, VOTE)


@dataclass(frozen=True, slots=True)
class ClassicState:
    """Classic's own part of the state. `roles[seat]` is the seat's role; `pack` the
    wolves in order of succession, the alpha first; `spent` the seats that have used a
    once-a-game power; `lovers` the two seats Cupid paired; `unmet` the wolves who have
    not met the pack yet (every wolf before the first night of a day-first game, a "Thing"
    convert until the next nightfall); `innocents` the tests of the open "Thing" day that
    found no werewolf."""

    VERSION: ClassVar[int] = 1

    roles: tuple[str, ...]
    pack: tuple[int, ...] = ()
    spent: tuple[int, ...] = ()
    lovers: tuple[int, ...] = ()
    unmet: tuple[int, ...] = ()
    innocents: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "roles": list(self.roles),
            "pack": list(self.pack),
            "spent": list(self.spent),
            "lovers": list(self.lovers),
            "unmet": list(self.unmet),
            "innocents": self.innocents,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> ClassicState:
        return cls(
            roles=tuple(raw["roles"]),
            pack=tuple(int(x) for x in raw.get("pack", ())),
            spent=tuple(int(x) for x in raw.get("spent", ())),
            lovers=tuple(int(x) for x in raw.get("lovers", ())),
            unmet=tuple(int(x) for x in raw.get("unmet", ())),
            innocents=int(raw.get("innocents", 0)),
        )


@dataclass(frozen=True, slots=True)
class ClassicOptions:
    """The options of a classic game; see docs/rules.md for what each one does."""

    wolves: int = option(label=_("Werewolves"), help=_("Empty for the usual: two, or three from 17 players."), least=1)
    seers: int = option(1, label=_("Seers"), least=0)
    start: str = option(
        "night",
        label=_("The game starts with"),
        choices={"night": _("A night"), "day": _("A day (the first lynched player leaves the game)")},
    )
    first_night: str = option(
        "normal",
        label=_("First night"),
        choices={
            "normal": _("Normal: the wolves kill"),
            "quiet": _("Quiet: the wolves meet and kill nobody; the Seer still inquires"),
        },
    )
    day_deadline: str = option(
        "no-lynch",
        label=_("At a day's deadline without a majority"),
        choices={"no-lynch": _("Nobody is lynched"), "plurality": _("The player with most votes is lynched")},
    )
    tie: str = option(
        "none",
        label=_("When the most votes are tied"),
        choices={"none": _("Nobody is lynched"), "random": _("One of the tied players, drawn at random")},
    )
    missing_wolves: str = option(
        "nobody",
        label=_("When no wolf hands in a list"),
        choices={"nobody": _("Nobody is killed"), "random": _("A random victim is killed")},
    )
    public_seer: bool = option(False, label=_("Announce whether the Seer saw a werewolf (without names)"))
    reveal_dead: bool = option(True, label=_("Reveal a dead player's role"))
    wolfsbane: str = option(
        "none",
        label=_("Wolfsbane"),
        help=_("Helps the village in small games; games may then end without a lynch deciding them."),
        choices={
            "none": _("None"),
            "herb": _("One villager holds it: the wolves cannot kill the Herbalist"),
            "doorstep": _("The Herbalist sprinkles one doorstep a night (Princeton variant)"),
        },
    )
    vigilante: bool = option(
        False, label=_("A Vigilante: one villager may shoot once a game at night, killing only a werewolf")
    )
    cupid: bool = option(
        False, label=_("Cupid: on the first night one villager makes two players Lovers, who live and die together")
    )
    dark_city: bool = option(
        False,
        label=_("Dark City: each night the wolves may also swap two villagers' cards"),
        help=_("A dead player's card then shows only whether it was a werewolf's."),
    )
    thing: bool = option(
        False,
        label=_("“Thing”: the day tests a player (only a werewolf dies), the night converts a villager to the pack"),
        help=_("A very different game: look for changes in behaviour rather than hidden plots."),
    )
    thing_free: str = option(
        "first_test",
        label=_("“Thing”: which test of the day is free (the day votes again after it)"),
        help=_(
            "A test that finds a werewolf always lets the day vote again; a test that finds none ends the day, "
            "except the free one."
        ),
        choices={
            "first_test": _("The day's first test, whatever it finds"),
            "first_innocent": _("The day's first test that finds no werewolf"),
        },
    )


class Classic(SimpleFamily):
    """Classic on the simple rulesets' base (simple.py): its own are the options, the
    deck, the night's powers (Cupid, the wolfsbane, Dark City's swap), the Lovers (their
    channel, their broken hearts, their win), Dark City's half-shown cards and the
    "Thing" day that tests and night that converts."""

    id = ID
    capabilities = Capabilities(family=ID, rank=0, typical_table=9, lineage=("werewolf",))
    events: EventKinds = {
        "alpha_passed": ("pack",),
        "card_changed": (),
        "cards_swapped": (),
        "converted": ("seat",),
        "dawn_no_death": (),
        "day_ended": (),
        "exposed": ("seat",),
        "fell_in_love": (),
        "game_over": (),
        "game_set_up": (),
        "heartbroken": (),
        "infected": (),
        "killed": ("seat",),
        "lovers_paired": (),
        "lynched": ("seat",),
        "pack_chose": (),
        "pack_formed": ("pack",),
        "role_dealt": (),
        "ruling_kill_void": (),
        "ruling_pack_choice": (),
        "ruling_power_spent": (),
        "ruling_protected": (),
        "ruling_swap_choice": (),
        "ruling_test_again": (),
        "ruling_tie_broken": (),
        "seer_announced": (),
        "seer_saw": ("target",),
        "shot": ("seat",),
        "swap_skipped": (),
        "tested": ("seat",),
        "vigilante_fired": ("target",),
    }
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    roles = ROLES
    cards = CARDS
    state_type = ClassicState
    options_type = ClassicOptions
    SIDES = (VILLAGE, WOLVES)
    CAUSES = ("lynched", "shot", "heartbroken", "exposed")

    def __init__(self) -> None:
        self.night_steps = Pipeline(
            (
                ("pack", self.choose_victim),
                ("cupid", _cupid),
                ("seer", _seer),
                ("wolfsbane", _wolfsbane),
                ("vigilante", self.shoot_once),
                ("pack_kill", self.kill_victim),
                (DEATHS, None),
                ("convert", _convert),
                (JUDGE, None),
                ("swap", _swap_cards),
            )
        )
        """The night's cards act together at dawn, in this order: the pack's choice,
        Cupid, the inquiries, the wolfsbane, the Vigilante's shot, the pack's kill; then
        the deaths, each applied once with its broken heart; the conversion in "Thing";
        the end judged once; and, if the game goes on, Dark City's swap."""

    def options(self, raw: Mapping[str, Any], players: int) -> dict[str, Any]:
        """Check and complete the options for a table of `players`."""
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise SetupError("player_count", "players", players)
        options = parse_options(ClassicOptions, raw, {"wolves": default_wolves(players)})
        if options.wolves < 1 or 2 * options.wolves >= players:
            raise SetupError("too_many_wolves" if options.wolves else "no_wolves", "wolves", options.wolves)
        if options.seers < 0 or options.wolves + options.seers > players:
            raise SetupError("too_many_seers", "seers", options.seers)
        checked = as_json(options)
        if options.wolves + options.seers + _extras(checked) > players:
            raise SetupError("too_many_roles", "players", players)
        if _decided_before_vote(options, players):
            raise SetupError("decided_before_vote")
        return checked

    def set_up_summary(self, options: Mapping[str, Any], players: int) -> dict[str, Any]:
        """The table's size, its wolves and Seers, and the variants it plays."""
        setup = {
            "players": players,
            "wolves": options["wolves"],
            "seers": options["seers"],
            "wolfsbane": options["wolfsbane"],
            "vigilante": bool(options["vigilante"]),
            "cupid": bool(options["cupid"]),
            "dark_city": bool(options["dark_city"]),
            "thing": bool(options["thing"]),
        }
        if options["thing"]:
            setup["thing_free"] = options.get("thing_free", "first_test")
        return setup

    def channels(self, state: State) -> tuple[Channel, ...]:
        """The square, the den (open day and night: the wolves may confer whenever they
        like), the Lovers once Cupid has paired them, and the ghosts' corner."""
        lovers: tuple[int, ...] = state.rules.lovers
        return talk.standard(state, groups={"lovers": lovers} if lovers else None)

    def deck(self, options: Mapping[str, Any], players: int) -> tuple[str, ...]:
        """The werewolves, the seers, one of each special villager the options name,
        and villagers for the rest of the table."""
        specials = (
            (HERBALIST,) * int(options["wolfsbane"] != "none")
            + (VIGILANTE,) * bool(options["vigilante"])
            + (CUPID,) * bool(options["cupid"])
        )
        wolves: int = options["wolves"]
        seers: int = options["seers"]
        plain = players - wolves - seers - len(specials)
        return (WOLF,) * wolves + (SEER,) * seers + specials + (VILLAGER,) * plain

    # The night's cards.

    def quiet(self, state: State) -> bool:
        """The first night is quiet if the organiser says so: the wolves meet only."""
        return state.number == 1 and state.options["first_night"] == "quiet"

    def random_victim(self, state: State) -> bool:
        return bool(state.options["missing_wolves"] == "random")

    def pack_slot(self, state: State, prey: tuple[int, ...]) -> Slot:
        """In Dark City a wolf's list may also name two villagers to swap."""
        if state.options["dark_city"] and not self.quiet(state):
            return Slot(KILL_AND_SWAP, (prey, prey))
        return super().pack_slot(state, prey)

    def power_slot(self, state: State, seat: int, row: Role, living: list[int]) -> Slot:
        """The Herbalist writes only in the doorstep variant; Cupid on its first night
        only; the Seer and the Vigilante as the base's."""
        if row.night == "protect":
            return Slot(PROTECT, (tuple(living),)) if state.options["wolfsbane"] == "doorstep" else SLEEPER
        if row.night == "pair":
            # Cupid shoots at the start of the game: on its first night (Night 1,
            # whether or not Day 1 came before it), never later.
            if seat not in state.rules.spent and state.number == 1:
                return Slot(PAIR, (others(living, seat),))
            return SLEEPER
        return super().power_slot(state, seat, row, living)

    def refusal(self, state: State, seat: int, field: Field, value: int) -> str:
        """The base's reasons; a wolf named in Dark City's swap is its own refusal."""
        code = super().refusal(state, seat, field, value)
        return "swap_wolf" if code == "target_wolf" and field.name == "swap" else code

    def shot_hits(self, state: State, target: int) -> bool:
        """The Vigilante's one shot kills only a werewolf (and is spent whatever it hit)."""
        return ROLES[state.rules.roles[target]].counts_as_wolf

    def victim_falls(self, night: Night, victim: int) -> None:
        """In "Thing" the pack's victim is converted at dawn (`_convert`) instead."""
        if not night.state.options["thing"]:
            super().victim_falls(night, victim)

    # The day and the next phase.

    def resolve_day(
        self, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]
    ) -> tuple[State, bool]:
        """End the open vote: lynch the player named, or in "Thing" test them. Returns the
        state and whether the same day votes again (a "Thing" day goes on after a werewolf
        is found, and after its first test whatever it found)."""
        if not state.options["thing"]:
            return super().resolve_day(state, cards, rng, events)
        tally = self.tally(state, cards, rng, events)
        named = tally.named
        data: dict[str, Any] = {
            "ballots": [[voter, tally.ballots[voter]] for voter in sorted(tally.ballots)],
            "lynched": None,
            "how": tally.how,
            "tied": tally.tied,
            "tested": named,
        }
        events.append(Event("day_ended", data, Audience.public()))
        if named is None:
            return state, False
        werewolf = _is_wolf(state, named)
        events.append(Event("tested", {"seat": named, "werewolf": werewolf}, Audience.public()))
        if werewolf:
            state = self.die(state, named, "exposed", events)
            if not state.over:
                events.append(rulings.ruling("test_again", {"seat": named, "rule": "werewolf_found", "again": True}))
            return state, not state.over
        # "The first one's free": the day's first test whatever it found, or (the other
        # reading) its first test that found no werewolf; see docs/rules.md.
        if state.options.get("thing_free", "first_test") == "first_innocent":
            free = state.rules.innocents == 0
        else:
            free = state.step == 1
        rule = state.options.get("thing_free", "first_test")
        events.append(rulings.ruling("test_again", {"seat": named, "rule": rule, "again": free}))
        return state.with_rules(innocents=state.rules.innocents + 1), free

    def meets_tonight(self, state: State) -> bool:
        """The wolves meet at nightfall: in a day-first game for the first time; in
        "Thing" every night, so that the newly converted learn the pack."""
        return super().meets_tonight(state) or bool(state.options["thing"])

    def advance(self, state: State) -> State:
        """The base's next phase; a "Thing" day's count of innocent tests starts again."""
        state = super().advance(state)
        if state.over:
            return state
        return state.with_rules(innocents=0) if state.rules.innocents else state

    def lessons(self) -> Mapping[str, Lesson]:
        """The shared lessons, and classic's own: a death shows its card (so its role,
        and whether it was a wolf's; a player killed at night was none, card shown or
        not), and the setup tells the table how many wolves and Seers it holds."""
        return {**super().lessons(), "game_set_up": _counted}

    # Deaths and the end.

    def taken_with(self, state: State, seat: int) -> list[Death]:
        """A Lover dies of a broken heart with the other."""
        partner = _partner(state, seat)
        return [] if partner is None else [(partner, "heartbroken")]

    def announce(self, state: State, seat: int, cause: str, events: list[Event]) -> State:
        """One death, announced. In Dark City a revealed card says only whether it was a
        werewolf's, never whether it was the Seer's."""
        if not state.options["dark_city"]:
            return super().announce(state, seat, cause, events)
        reveal = bool(state.options["reveal_dead"])
        state = state.with_death(seat, reveal=False)
        data: dict[str, Any] = {"seat": seat, "role": None}
        if reveal:
            data["werewolf"] = ROLES[state.rules.roles[seat]].seen_as_wolf
        events.append(Event(cause, data, Audience.public()))
        return state

    def winner(self, state: State) -> str | None:
        """The Lovers, when a werewolf and a villager in love are the last two alive; else
        the base's: the village when no wolf lives, the wolves when they are at least as
        many as everyone else. (Two Lovers of one side left alone have simply won with it.)"""
        roles, lovers = state.rules.roles, state.rules.lovers
        if lovers and state.living() == list(lovers):
            if len({ROLES[roles[seat]].side for seat in lovers}) == 2:
                return LOVERS
        return super().winner(state)

    def winners(self, state: State, side: str) -> tuple[int, ...]:
        """The seats that win with `side`: the whole side, its dead included, or the Lovers."""
        if side == LOVERS:
            return tuple(sorted(state.rules.lovers))
        return super().winners(state, side)


def _counted(memory: Memory, data: Mapping[str, Any]) -> None:
    memory.counts.update({WOLF: int(data["wolves"]), SEER: int(data["seers"])})
    memory.inquiring = SEER


def default_wolves(players: int) -> int:
    return 3 if players >= 17 else 2


def _decided_before_vote(options: ClassicOptions, players: int) -> bool:
    """Whether the wolves win at the first dawn, before anyone votes, whatever anyone
    else writes: the game opens with a night that takes a victim, and that one victim
    (killed, or in "Thing" converted) brings the pack to parity. Wolfsbane (the wolves may
    pick its holder, or the sprinkled doorstep) and the Vigilante's shot can spoil that
    night, so a game with either is a game still."""
    if options.start != "night" or options.first_night != "normal":
        return False
    if options.wolfsbane != "none" or options.vigilante:
        return False
    wolves = options.wolves + int(options.thing)
    others = players - options.wolves - 1
    return wolves >= others


def _extras(options: Mapping[str, Any]) -> int:
    """How many special villagers the variants add to the deck."""
    return int(options["wolfsbane"] != "none") + int(bool(options["vigilante"])) + int(bool(options["cupid"]))


def _is_wolf(state: State, seat: int) -> bool:
    return ROLES[state.rules.roles[seat]].seen_as_wolf


# The night's own steps, in call order: see `Classic.night_steps`.


def _cupid(night: Night) -> None:
    for seat, card in night.written("pair"):
        lovers = tuple(sorted(card.targets))
        spent = tuple(sorted({*night.state.rules.spent, seat}))
        night.state = night.state.with_rules(lovers=lovers, spent=spent)
        night.tell("lovers_paired", {"cupid": seat, "lovers": list(lovers)}, Audience.of(seat))
        night.tell("fell_in_love", {"lovers": list(lovers)}, Audience.of(*lovers))
        night.events.append(rulings.power_spent(seat, "pair", lovers))


def _seer(night: Night) -> None:
    for seat, card in night.written("inquire"):
        target = card.targets[0]
        werewolf = _is_wolf(night.state, target)
        night.tell("seer_saw", {"seer": seat, "target": target, "werewolf": werewolf}, Audience.of(seat))
        if night.state.options["public_seer"]:
            night.tell("seer_announced", {"werewolf": werewolf}, Audience.public())


def _wolfsbane(night: Night) -> None:
    """The pack's victim is saved if it holds the herb, or a living Herbalist
    sprinkled its doorstep tonight."""
    victim = night.notes["victim"]
    if victim is None:
        return
    state = night.state
    variant = state.options["wolfsbane"]
    saved_by = None
    herbalist = victim
    if variant == "herb" and state.rules.roles[victim] == HERBALIST:
        saved_by = "herb"
    elif variant == "doorstep":
        for seat, card in night.written("protect"):
            if card.targets == (victim,) and state.rules.roles[seat] == HERBALIST:
                saved_by, herbalist = "doorstep", seat
    if saved_by is not None:
        night.events.append(rulings.protected(victim, herbalist, saved_by))
        night.notes["victim"] = None


def _convert(night: Night) -> None:
    """In "Thing" the pack's victim becomes a werewolf at once, last in the succession.
    The pack knows whom it converted; the convert learns its new card now and the pack
    at the next nightfall (until then it is `unmet`). Nobody dies, so dawn is quiet."""
    seat = night.notes["victim"]
    state = night.state
    if seat is None or not state.options["thing"]:
        return
    pack = [wolf for wolf in state.rules.pack if state.alive[wolf]]
    roles = list(state.rules.roles)
    roles[seat] = WOLF
    night.state = state.with_rules(roles=tuple(roles), pack=(*state.rules.pack, seat), unmet=(*state.rules.unmet, seat))
    night.tell("converted", {"seat": seat}, Audience.of(*pack))
    night.tell("infected", {"seat": seat}, Audience.of(seat))


def _swap_cards(night: Night) -> None:
    """Dark City: the pack's swap (the same pair on every swapping wolf's card, or the
    highest-ranked swapping wolf's) trades two villagers' cards at the end of the night,
    unless one of them died or joined the pack ("Thing") in the night. Each of the two
    is told its new card if it changed; once-a-game powers go with the card."""
    state, cards = night.state, night.cards
    pack = night.notes["pack"]
    swaps = [cards[seat].field("swap") for seat in pack if seat in cards and cards[seat].field("swap")]
    if not swaps:
        return
    # `pack` follows the succession, so the first swap is the highest-ranked wolf's,
    # which is also the pack's when they all agree.
    first, second = sorted(swaps[0])
    how = "consensus" if all(sorted(swap) == [first, second] for swap in swaps) else "rank"
    listed = [[seat, sorted(cards[seat].field("swap"))] for seat in pack if seat in cards and cards[seat].field("swap")]
    night.events.append(rulings.ruling("swap_choice", {"swaps": listed, "chosen": [first, second], "how": how}))
    living = [wolf for wolf in pack if state.alive[wolf]]
    roles = list(state.rules.roles)
    if any(not state.alive[seat] or not ROLES[roles[seat]].prey for seat in (first, second)):
        night.tell("swap_skipped", {"seats": [first, second]}, Audience.of(*living))
        return
    roles[first], roles[second] = roles[second], roles[first]
    spent = {({first: second, second: first}.get(seat, seat)) for seat in state.rules.spent}
    night.tell("cards_swapped", {"seats": [first, second]}, Audience.of(*living))
    for seat in (first, second):
        if roles[seat] != state.rules.roles[seat]:
            night.tell("card_changed", {"seat": seat, "role": roles[seat]}, Audience.of(seat))
    night.state = state.with_rules(roles=tuple(roles), spent=tuple(sorted(spent)))


def _partner(state: State, seat: int) -> int | None:
    lovers: tuple[int, ...] = state.rules.lovers
    if seat not in lovers:
        return None
    return next(other for other in lovers if other != seat)


RULESET = register(Classic())
