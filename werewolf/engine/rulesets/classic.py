"""Classic Werewolf as Adam Cadre ran it with written notecards.

Roles: Werewolves (one of them the alpha), Seers and Villagers, and with the variants a
Herbalist who holds wolfsbane, a Vigilante with one shot and Cupid, who makes two Lovers;
in Dark City the wolves also swap two villagers' cards each night; in "Thing" the day
tests instead of lynching and the night converts instead of killing. Nights take every living
player's card at once; days take votes until a strict majority or the deadline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
from ..outcome import Outcome, finish
from ..pack import succession
from ..pack import victim as choose_victim
from ..people import LESSONS, Lesson, Memory, died
from ..random import setup_rng
from ..registry import register
from ..state import PhaseKind, PhaseSpec, Stage, State
from ..table import Role, table
from ..talk import Channel
from ..voting import leaders, strict_majority
from .base import Advice, BaseRuleset, Capabilities, DealShape, one_role_deal, one_role_shape

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

_LIST = Field(most=None, ranked=True, optional=True, count_error="empty_list", prune=True)
_SWAP = Field("swap", least=2, most=2, optional=True, word="SWAP", count_error="two_names", prune=True)
KILL = Card("kill", "KILL", (_LIST,), empty_error="empty_list")
KILL_AND_SWAP = Card("kill", "KILL", (_LIST, _SWAP), empty_error="empty_list")
INQUIRE = Card("inquire", "INQUIRE", (Field(),))
PROTECT = Card("protect", "PROTECT", (Field(),))
SHOOT = Card("shoot", "SHOOT", (Field(),))
PAIR = Card("pair", "PAIR", (Field(least=2, most=2, count_error="two_names"),))
VOTE = Card("vote", "VOTE", (Field(least=0),), blank=False)
CARDS = (KILL, KILL_AND_SWAP, INQUIRE, PROTECT, SHOOT, PAIR, VOTE)

NIGHT = Stage("night", "night")
DAY = Stage("day", "day", cards="public", decisive=True)


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


class Classic(BaseRuleset):
    id = ID
    capabilities = Capabilities(family=ID, rank=0, typical_table=9)
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    roles = ROLES
    cards = CARDS
    state_type = ClassicState
    options_type = ClassicOptions

    @property
    def night_order(self) -> tuple[str, ...]:
        """The night's steps in call order (the moderator's script reads them)."""
        return NIGHT_STEPS.names

    def advice(self, options: Mapping[str, Any], players: int) -> tuple[Advice, ...]:
        """No advice: every option this ruleset takes is the rulebook's to take."""
        return ()

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

    def setup(
        self, options: Mapping[str, Any], players: int, seed: int, deal: Mapping[str, Any] | None = None
    ) -> tuple[State, list[Event]]:
        """Deal the roles (or take the given deal: each seat's role and the alpha's
        seat), choose the alpha, and tell each seat its role and the wolves their pack."""
        rng = setup_rng(seed)
        wolves, seers = options["wolves"], options["seers"]
        roles = (deal or {}).get("roles")
        alpha = (deal or {}).get("alpha")
        if roles is None:
            deck = list(self.deck(options, players))
            rng.shuffle(deck)
        else:
            deck = list(roles)
            if len(deck) != players or any(role not in ROLES for role in deck):
                raise SetupError("bad_roles", "roles", roles)
            wanted = self.deck(options, players)
            if any(deck.count(role) != wanted.count(role) for role in ROLES if role != VILLAGER):
                raise SetupError("bad_roles", "roles", roles)
        pack = succession([seat for seat, role in enumerate(deck) if ROLES[role].pack], alpha, players, rng)
        state = State(
            ruleset=ID,
            options=dict(options),
            seed=seed,
            alive=(True,) * players,
            revealed=(False,) * players,
            phase=options["start"],
            number=1,
            rules=ClassicState(tuple(deck), pack, unmet=pack if options["start"] == "day" else ()),
        )
        setup = {
            "players": players,
            "wolves": wolves,
            "seers": seers,
            "wolfsbane": options["wolfsbane"],
            "vigilante": bool(options["vigilante"]),
            "cupid": bool(options["cupid"]),
            "dark_city": bool(options["dark_city"]),
            "thing": bool(options["thing"]),
        }
        if options["thing"]:
            setup["thing_free"] = options.get("thing_free", "first_test")
        events = [Event("game_set_up", setup, Audience.public())]
        events += [
            Event("role_dealt", {"seat": seat, "role": role}, Audience.of(seat)) for seat, role in enumerate(deck)
        ]
        if options["start"] == "night":
            events.append(_pack_formed(state))
        return state, events

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

    def deal(self, state: State) -> dict[str, Any]:
        """Each seat's role and the alpha's seat. Asked of a state fresh from `setup`
        (the server records it when the game starts), it sets the same game up again;
        later a Dark City swap or a "Thing" conversion will have changed the roles."""
        return {"roles": list(state.rules.roles), "alpha": state.rules.pack[0]}

    def deal_shape(self, options: Mapping[str, Any], players: int) -> DealShape:
        """One role a seat from the table's deck, and the alpha if the organiser likes."""
        return one_role_shape(self.deck(options, players))

    def deal_from_hands(self, hands: Sequence[Mapping[str, Any]], mark: int | None) -> dict[str, Any]:
        return one_role_deal(hands, mark)

    def phase(self, state: State) -> PhaseSpec:
        if state.over:
            return PhaseSpec(OVER_STAGE, state.number, {})
        living = state.living()
        if state.phase == "day":
            ballot = Slot(VOTE, (tuple(living),))
            return PhaseSpec(DAY, state.number, {seat: ballot for seat in living}, step=state.step)
        rules: ClassicState = state.rules
        roles = rules.roles
        quiet = state.number == 1 and state.options["first_night"] == "quiet"
        prey = tuple(seat for seat in living if ROLES[roles[seat]].prey)
        if state.options["dark_city"]:
            hunt = Slot(KILL_AND_SWAP, (prey, prey))
        else:
            hunt = Slot(KILL, (prey,))
        slots: dict[int, Slot] = {}
        for seat in living:
            row = ROLES[roles[seat]]
            if row.pack:
                slots[seat] = SLEEPER if quiet else hunt
            elif row.night is None:
                slots[seat] = SLEEPER
            elif row.night == "inquire":
                slots[seat] = Slot(INQUIRE, (_others(living, seat),))
            elif row.night == "protect" and state.options["wolfsbane"] == "doorstep":
                slots[seat] = Slot(PROTECT, (tuple(living),))
            elif row.night == "shoot" and seat not in rules.spent:
                slots[seat] = Slot(SHOOT, (_others(living, seat),))
            elif row.night == "pair" and seat not in rules.spent and state.number == 1:
                # Cupid shoots at the start of the game: on its first night (Night 1,
                # whether or not Day 1 came before it), never later.
                slots[seat] = Slot(PAIR, (_others(living, seat),))
            else:
                slots[seat] = SLEEPER
        return PhaseSpec(NIGHT, state.number, slots)

    def bound(self, state: State, field: Field) -> int:
        return state.seats

    def misfit(self, state: State, seat: int, order: Order) -> str:
        return "wrong_order"

    def unasked(self, state: State, seat: int) -> str:
        return "not_asked"

    def refusal(self, state: State, seat: int, field: Field, value: int) -> str:
        """A dead name, a wolf on a wolf's card, or the writer's own name."""
        if not state.alive[value]:
            return "target_dead"
        if field.prune and not ROLES[state.rules.roles[value]].prey:
            return "swap_wolf" if field.name == "swap" else "target_wolf"
        if value == seat:
            return "target_self"
        return "not_a_choice"

    def resolve(self, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> State:
        """Resolve the open step with the checked cards."""
        if state.phase == "night":
            return _advance(NIGHT_STEPS.run(Night(state, cards, rng, events), self))
        state, again = _resolve_day(self, state, cards, rng, events)
        if again:
            return state.evolve(step=state.step + 1, index=state.index + 1)
        first_nightfall = state.options["start"] == "day" and state.number == 1
        if (first_nightfall or state.options["thing"]) and not state.over:
            # The wolves meet at nightfall: in a day-first game for the first time; in
            # "Thing" every night, so that the newly converted learn the pack.
            events.append(_pack_formed(state))
            state = state.with_rules(unmet=())
        return _advance(state)

    def act(self, state: State, seat: int, card: Order, rng: Random) -> tuple[State, list[Event]]:
        raise ValueError("classic has no instant cards")

    def lessons(self) -> Mapping[str, Lesson]:
        """The shared lessons, and classic's own: a death shows its card (so its role,
        and whether it was a wolf's; a player killed at night was none, card shown or
        not), and the setup tells the table how many wolves and Seers it holds."""
        return _LESSONS

    def outcome(self, state: State) -> Outcome | None:
        if state.winner is None:
            return None
        return Outcome(state.winner, _winners(state, state.winner))

    def decisive(self, state: State, cards: Mapping[int, Order]) -> bool:
        """A day ends as soon as a strict majority of the living vote for one player."""
        if state.phase != "day":
            return False
        return strict_majority(_ballots(cards), len(state.living())) is not None

    def roles_of(self, state: State, seat: int) -> tuple[str, ...]:
        return (state.rules.roles[seat],)

    def mourned(self, state: State, deaths: Sequence[Death]) -> list[Death]:
        """The deaths of one moment, in order, each followed by its Lover's broken heart:
        every seat once, and only a living seat."""
        dying: list[Death] = []
        gone: set[int] = set()
        for seat, cause in deaths:
            if seat in gone or not state.alive[seat]:
                continue
            dying.append((seat, cause))
            gone.add(seat)
            partner = _partner(state, seat)
            if partner is not None and state.alive[partner] and partner not in gone:
                dying.append((partner, "heartbroken"))
                gone.add(partner)
        return dying

    def bury(self, state: State, deaths: Sequence[Death], events: list[Event]) -> State:
        """Apply the deaths of one moment (from `mourned`), each announced once; then,
        if the alpha was among them, the role passes on and the wolves who know the pack
        are told. The end of the game is judged after everything of that moment."""
        old_alpha = _alpha(state)
        for seat, cause in deaths:
            state = _kill(state, seat, cause, events)
        alpha = _alpha(state)
        if old_alpha is not None and not state.alive[old_alpha] and alpha is not None:
            living_pack = [wolf for wolf in state.rules.pack if state.alive[wolf]]
            # A wolf who has not met the pack yet (before the first night of a day-first
            # game, or a "Thing" convert before its first nightfall) learns it at nightfall.
            told = [wolf for wolf in living_pack if wolf not in state.rules.unmet]
            if told:
                events.append(Event("alpha_passed", {"alpha": alpha, "pack": living_pack}, Audience.of(*told)))
        return state

    def judge(self, state: State, events: list[Event]) -> State:
        """End the game if a side has won."""
        winner = _winner(state)
        if winner is None:
            return state
        return finish(state, winner, _winners(state, winner), state.rules.roles, events)


OVER_STAGE = Stage("over", "over")


def _counted(memory: Memory, data: Mapping[str, Any]) -> None:
    memory.counts.update({WOLF: int(data["wolves"]), SEER: int(data["seers"])})
    memory.inquiring = SEER


def _seen_as_wolf(role: str) -> bool:
    return ROLES[role].seen_as_wolf


_LESSONS: Mapping[str, Lesson] = {
    **LESSONS,
    "game_set_up": _counted,
    "killed": died(_seen_as_wolf, prey=True),
    **{cause: died(_seen_as_wolf) for cause in ("lynched", "shot", "heartbroken", "exposed")},
}


def _others(living: list[int], seat: int) -> tuple[int, ...]:
    return tuple(other for other in living if other != seat)


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


def _winners(state: State, side: str) -> tuple[int, ...]:
    """The seats that win with `side`: the whole side, its dead included, or the Lovers."""
    if side == LOVERS:
        return tuple(sorted(state.rules.lovers))
    return tuple(seat for seat, role in enumerate(state.rules.roles) if ROLES[role].side == side)


def _is_wolf(state: State, seat: int) -> bool:
    return ROLES[state.rules.roles[seat]].seen_as_wolf


# The night, in call order: see NIGHT_STEPS at the end of this section.


def _pack_choice(night: Night) -> None:
    """The pack's victim, how it was chosen, and whose list decided (None by
    consensus): told to the living pack."""
    state = night.state
    pack = [seat for seat in state.rules.pack if state.alive[seat]]
    night.notes["pack"] = pack
    prey = None
    if state.options["missing_wolves"] == "random":
        prey = [seat for seat in state.living() if ROLES[state.rules.roles[seat]].prey]
    quiet = state.number == 1 and state.options["first_night"] == "quiet"
    victim, how, decided_by = choose_victim(
        pack, night.cards, quiet=quiet, prey=prey, rng=night.rng, events=night.events
    )
    night.notes["victim"] = victim
    night.tell("pack_chose", {"victim": victim, "how": how, "decided_by": decided_by}, Audience.of(*pack))


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


def _vigilante(night: Night) -> None:
    """The Vigilante's one shot: it kills a werewolf, and is spent whatever it hit."""
    for seat, card in night.written("shoot"):
        target = card.targets[0]
        hit = ROLES[night.state.rules.roles[target]].counts_as_wolf
        night.state = night.state.with_rules(spent=tuple(sorted({*night.state.rules.spent, seat})))
        night.tell("vigilante_fired", {"target": target, "hit": hit}, Audience.of(seat))
        night.events.append(rulings.power_spent(seat, "shoot", (target,)))
        if hit:
            night.kills.append((target, "shot"))


def _pack_kill(night: Night) -> None:
    """The pack's victim dies after the shots, unless a shot's broken heart took it
    already, or the shots settled the game (say, they killed the last wolf): then it
    is neither killed nor converted. In "Thing" it is converted at dawn instead."""
    victim = night.notes["victim"]
    if victim is None:
        return
    state = night.state
    dying = [seat for seat, _ in RULESET.mourned(state, night.kills)]
    after_shots = state.evolve(alive=tuple(alive and seat not in dying for seat, alive in enumerate(state.alive)))
    if not after_shots.alive[victim] or _winner(after_shots) is not None:
        rule = "died_first" if not after_shots.alive[victim] else "game_decided"
        night.events.append(rulings.ruling("kill_void", {"seat": victim, "rule": rule}))
        night.notes["victim"] = None
    elif not state.options["thing"]:
        night.kills.append((victim, "killed"))


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


NIGHT_STEPS = Pipeline(
    (
        ("pack", _pack_choice),
        ("cupid", _cupid),
        ("seer", _seer),
        ("wolfsbane", _wolfsbane),
        ("vigilante", _vigilante),
        ("pack_kill", _pack_kill),
        (DEATHS, None),
        ("convert", _convert),
        (JUDGE, None),
        ("swap", _swap_cards),
    )
)
"""The night's cards act together at dawn, in this order: the pack's choice, Cupid,
the inquiries, the wolfsbane, the Vigilante's shot, the pack's kill; then the deaths,
each applied once with its broken heart; the conversion in "Thing"; the end judged once;
and, if the game goes on, Dark City's swap."""


def _resolve_day(
    rules: Classic, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]
) -> tuple[State, bool]:
    """End the open vote: lynch the player named, or in "Thing" test them. Returns the
    state and whether the same day votes again (a "Thing" day goes on after a werewolf
    is found, and after its first test whatever it found)."""
    ballots = _ballots(cards)
    named = strict_majority(ballots, len(state.living()))
    how = "majority"
    tied: list[int] = []
    if named is None:
        top = leaders(ballots)
        if state.options["day_deadline"] == "no-lynch":
            how = "no_majority"
        elif len(top) == 1:
            named, how = top[0], "plurality"
        elif top and state.options["tie"] == "random":
            named, how, tied = rng.choice(top), "tie_drawn", top
            events.append(rulings.tie_broken("day", top, (named,), "random"))
        else:
            how, tied = ("tie", top) if top else ("no_votes", [])
    thing = bool(state.options["thing"])
    data: dict[str, Any] = {
        "ballots": [[voter, ballots[voter]] for voter in sorted(ballots)],
        "lynched": None if thing else named,
        "how": how,
        "tied": tied,
    }
    if thing:
        data["tested"] = named
    events.append(Event("day_ended", data, Audience.public()))
    if named is None:
        return state, False
    if not thing:
        return _die(rules, state, named, "lynched", events), False
    werewolf = _is_wolf(state, named)
    events.append(Event("tested", {"seat": named, "werewolf": werewolf}, Audience.public()))
    if werewolf:
        state = _die(rules, state, named, "exposed", events)
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


def _ballots(cards: Mapping[int, Order]) -> dict[int, int]:
    """Voter to named seat; a vote naming nobody is an abstention."""
    return {seat: card.targets[0] for seat, card in cards.items() if card.kind == "vote" and card.targets}


def _die(rules: Classic, state: State, seat: int, cause: str, events: list[Event]) -> State:
    """A death by day (a lynching, or a werewolf found by a "Thing" test) with the
    heartbreak it causes, then the end of the game judged once after both."""
    return rules.judge(rules.bury(state, rules.mourned(state, [(seat, cause)]), events), events)


def _kill(state: State, seat: int, cause: str, events: list[Event]) -> State:
    """One death, announced. In Dark City a revealed card says only whether it was a
    werewolf's, never whether it was the Seer's."""
    reveal = bool(state.options["reveal_dead"])
    dark = bool(state.options["dark_city"])
    state = state.with_death(seat, reveal=reveal and not dark)
    role = state.rules.roles[seat]
    data: dict[str, Any] = {"seat": seat, "role": role if reveal and not dark else None}
    if reveal and dark:
        data["werewolf"] = ROLES[role].seen_as_wolf
    events.append(Event(cause, data, Audience.public()))
    return state


def _partner(state: State, seat: int) -> int | None:
    lovers: tuple[int, ...] = state.rules.lovers
    if seat not in lovers:
        return None
    return next(other for other in lovers if other != seat)


def _pack_formed(state: State) -> Event:
    """The living wolves learn each other, the alpha and the order of succession."""
    pack = [seat for seat in state.rules.pack if state.alive[seat]]
    return Event("pack_formed", {"pack": pack}, Audience.of(*pack))


def _alpha(state: State) -> int | None:
    pack: tuple[int, ...] = state.rules.pack
    for seat in pack:
        if state.alive[seat]:
            return seat
    return None


def _winner(state: State) -> str | None:
    """The Lovers, when a werewolf and a villager in love are the last two alive; else
    the village when no wolf lives; else the wolves when they are at least as many as
    everyone else. (Two Lovers of one side left alone have simply won with it.)"""
    roles, lovers = state.rules.roles, state.rules.lovers
    if lovers and state.living() == list(lovers):
        if len({ROLES[roles[seat]].side for seat in lovers}) == 2:
            return LOVERS
    wolves = others = 0
    for seat, alive in enumerate(state.alive):
        if alive:
            if ROLES[roles[seat]].counts_as_wolf:
                wolves += 1
            else:
                others += 1
    if wolves == 0:
        return VILLAGE
    if wolves >= others:
        return WOLVES
    return None


def _advance(state: State) -> State:
    """Open the next phase: nights and days alternate; the cycle number counts from the
    game's first phase."""
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
    state = state.evolve(phase=phase, number=number, index=state.index + 1, step=1)
    return state.with_rules(innocents=0) if state.rules.innocents else state


RULESET = register(Classic())
