"""Classic Werewolf as Adam Cadre ran it with written notecards.

Roles: Werewolves (one of them the alpha), Seers and Villagers, and with the variants a
Herbalist who holds wolfsbane, a Vigilante with one shot and Cupid, who makes two Lovers;
in Dark City the wolves also swap two villagers' cards each night; in "Thing" the day
tests instead of lynching and the night converts instead of killing. Nights take every living
player's card at once; days take votes until a strict majority or the deadline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from random import Random
from typing import Any

from ..events import Audience, Event
from ..orders import Order, OrderError
from ..random import clockwise_distance, setup_rng
from ..state import PhaseSpec, Slot, State
from ..voting import leaders, strict_majority
from .base import Outcome, SetupError, parse_options

ID = "classic"
MIN_PLAYERS = 5
MAX_PLAYERS = 30

WOLF = "wolf"
SEER = "seer"
VILLAGER = "villager"
HERBALIST = "herbalist"
VIGILANTE = "vigilante"
CUPID = "cupid"
ROLES = (WOLF, SEER, VILLAGER, HERBALIST, VIGILANTE, CUPID)

VILLAGE = "village"
WOLVES = "wolves"
LOVERS = "lovers"


@dataclass(frozen=True, slots=True)
class ClassicOptions:
    """The options of a classic game; see docs/rules.md for what each one does."""

    wolves: int
    seers: int = 1
    start: str = field(default="night", metadata={"choices": ("night", "day")})
    first_night: str = field(default="normal", metadata={"choices": ("normal", "quiet")})
    day_deadline: str = field(default="no-lynch", metadata={"choices": ("no-lynch", "plurality")})
    tie: str = field(default="none", metadata={"choices": ("none", "random")})
    missing_wolves: str = field(default="nobody", metadata={"choices": ("nobody", "random")})
    public_seer: bool = False
    reveal_dead: bool = True
    wolfsbane: str = field(default="none", metadata={"choices": ("none", "herb", "doorstep")})
    vigilante: bool = False
    cupid: bool = False
    dark_city: bool = False
    thing: bool = False
    thing_free: str = field(default="first_test", metadata={"choices": ("first_test", "first_innocent")})


class Classic:
    id = ID
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS

    def options(self, raw: Mapping[str, Any], players: int) -> dict[str, Any]:
        """Check and complete the options for a table of `players`."""
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise SetupError("player_count", "players", players)
        options = parse_options(ClassicOptions, raw, {"wolves": default_wolves(players)})
        if options.wolves < 1 or 2 * options.wolves >= players:
            raise SetupError("too_many_wolves" if options.wolves else "no_wolves", "wolves", options.wolves)
        if options.seers < 0 or options.wolves + options.seers > players:
            raise SetupError("too_many_seers", "seers", options.seers)
        if options.wolves + options.seers + _extras(asdict(options)) > players:
            raise SetupError("too_many_roles", "players", players)
        if _decided_before_vote(options, players):
            raise SetupError("decided_before_vote")
        return asdict(options)

    def setup(
        self,
        options: Mapping[str, Any],
        players: int,
        seed: int,
        roles: Sequence[str] | None = None,
        alpha: int | None = None,
    ) -> tuple[State, list[Event]]:
        """Deal the roles (or take the organiser's), choose the alpha, and tell each seat
        its role and the wolves their pack."""
        rng = setup_rng(seed)
        wolves, seers = options["wolves"], options["seers"]
        specials = (
            [HERBALIST] * (options["wolfsbane"] != "none")
            + [VIGILANTE] * bool(options["vigilante"])
            + [CUPID] * bool(options["cupid"])
        )
        if roles is None:
            plain = players - wolves - seers - len(specials)
            deck = [WOLF] * wolves + [SEER] * seers + specials + [VILLAGER] * plain
            rng.shuffle(deck)
        else:
            deck = list(roles)
            if len(deck) != players or any(role not in ROLES for role in deck):
                raise SetupError("bad_roles", "roles", roles)
            wanted = [WOLF] * wolves + [SEER] * seers + specials
            if any(deck.count(role) != wanted.count(role) for role in ROLES if role != VILLAGER):
                raise SetupError("bad_roles", "roles", roles)
        pack_seats = [seat for seat, role in enumerate(deck) if role == WOLF]
        if alpha is None:
            alpha = rng.choice(pack_seats)
        elif alpha not in pack_seats:
            raise SetupError("bad_alpha", "alpha", alpha)
        pack = tuple(sorted(pack_seats, key=lambda seat: clockwise_distance(alpha, seat, players)))
        state = State(
            ruleset=ID,
            options=dict(options),
            seed=seed,
            roles=tuple(deck),
            alive=(True,) * players,
            revealed=(False,) * players,
            phase=options["start"],
            number=1,
            pack=pack,
            unmet=pack if options["start"] == "day" else (),
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

    def phase(self, state: State) -> PhaseSpec:
        if state.over:
            return PhaseSpec("over", state.number, {})
        living = state.living()
        if state.phase == "day":
            ballot = Slot("vote", tuple(living))
            return PhaseSpec(
                "day", state.number, {seat: ballot for seat in living}, public_orders=True, step=state.step
            )
        roles = state.roles
        quiet = state.number == 1 and state.options["first_night"] == "quiet"
        prey = Slot(
            "kill", tuple(seat for seat in living if roles[seat] != WOLF), ranked=True, swap=state.options["dark_city"]
        )
        slots: dict[int, Slot] = {}
        for seat in living:
            role = roles[seat]
            others = tuple(other for other in living if other != seat)
            if role == WOLF and not quiet:
                slots[seat] = prey
            elif role == SEER:
                slots[seat] = Slot("inquire", others)
            elif role == HERBALIST and state.options["wolfsbane"] == "doorstep":
                slots[seat] = Slot("protect", tuple(living))
            elif role == VIGILANTE and seat not in state.spent:
                slots[seat] = Slot("shoot", others)
            elif role == CUPID and seat not in state.spent and state.number == 1:
                # Cupid shoots at the start of the game: on its first night (Night 1,
                # whether or not Day 1 came before it), never later.
                slots[seat] = Slot("pair", others)
            else:
                slots[seat] = Slot("sleep")
        return PhaseSpec("night", state.number, slots)

    def validate(self, state: State, seat: int, order: Order) -> Order | OrderError:
        return _check(state, self.phase(state), seat, order)

    def resolve(self, state: State, orders: Mapping[int, Order], rng: Random) -> tuple[State, list[Event]]:
        """Resolve the open phase with the last valid order of each seat."""
        if state.over:
            return state, []
        spec = self.phase(state)
        events: list[Event] = []
        cards: dict[int, Order] = {}
        for seat in sorted(orders):
            order = orders[seat]
            if order.kind == "kill" and spec.kind == "night":
                checked: Order | OrderError = _kill_list(state, spec, seat, order)
            else:
                checked = _check(state, spec, seat, order)
            if isinstance(checked, OrderError):
                events.append(_discarded(seat, order, checked))
            else:
                cards[seat] = checked
        for seat in spec.slots:
            if seat not in cards:
                events.append(Event("card_missing", {"seat": seat}, Audience.moderator()))
        if spec.kind == "night":
            state = _resolve_night(state, cards, rng, events)
        else:
            state, again = _resolve_day(state, cards, rng, events)
            if again:
                return replace(state, step=state.step + 1, index=state.index + 1), events
            first_nightfall = state.options["start"] == "day" and state.number == 1
            if (first_nightfall or state.options["thing"]) and not state.over:
                # The wolves meet at nightfall: in a day-first game for the first time; in
                # "Thing" every night, so that the newly converted learn the pack.
                events.append(_pack_formed(state))
                state = replace(state, unmet=())
        return _advance(state), events

    def outcome(self, state: State) -> Outcome | None:
        if state.winner is None:
            return None
        return Outcome(state.winner, _winners(state, state.winner))

    def decisive(self, state: State, orders: Mapping[int, Order]) -> bool:
        """A day ends as soon as a strict majority of the living vote for one player."""
        if state.over or state.phase != "day":
            return False
        return strict_majority(_ballots(orders), len(state.living())) is not None

    def bot_orders(self, state: State, rng: Random) -> dict[int, Order]:
        """The uniform-random bots' cards for every asked seat: wolves kill a random
        non-wolf, the Seer asks about a random other player, everybody votes for a
        random other living player."""
        return {seat: _bot_card(slot, seat, rng) for seat, slot in self.phase(state).slots.items()}


def _bot_card(slot: Slot, seat: int, rng: Random) -> Order:
    if slot.kind == "sleep":
        return Order("sleep")
    if slot.swap and len(slot.choices) >= 2:
        return Order(slot.kind, (rng.choice(slot.choices),), tuple(rng.sample(slot.choices, 2)))
    choices = [choice for choice in slot.choices if choice != seat or slot.kind == "protect"]
    if slot.kind == "pair":
        return Order("pair", tuple(rng.sample(choices, 2))) if len(choices) >= 2 else Order("sleep")
    if not choices:
        return Order(slot.kind) if slot.kind == "vote" else Order("sleep")
    return Order(slot.kind, (rng.choice(choices),))


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
        return tuple(sorted(state.lovers))
    return tuple(seat for seat, role in enumerate(state.roles) if _side(role) == side)


def _side(role: str) -> str:
    return WOLVES if role == WOLF else VILLAGE


def _check(state: State, spec: PhaseSpec, seat: int, order: Order) -> Order | OrderError:
    if state.over:
        return OrderError("game_over")
    if not 0 <= seat < state.seats:
        return OrderError("unknown_seat", seat)
    slot = spec.asks(seat)
    if slot is None:
        return OrderError("not_asked")
    for target in order.targets:
        if not 0 <= target < state.seats:
            return OrderError("unknown_seat", target)
    if order.kind == "sleep":
        return order if slot.kind != "vote" else OrderError("wrong_order")
    if order.kind != slot.kind:
        return OrderError("wrong_order")
    if order.swap:
        refused = _swap_problem(state, slot, order.swap)
        if refused is not None:
            return refused
    if order.kind == "kill":
        if not order.targets and not order.swap:
            return OrderError("empty_list")
        seen: set[int] = set()
        for target in order.targets:
            if target in seen:
                return OrderError("repeated_name", target)
            seen.add(target)
            problem = _victim_problem(state, target)
            if problem:
                return OrderError(problem, target)
        return order
    if order.kind in ("inquire", "protect", "shoot") and len(order.targets) != 1:
        return OrderError("one_name")
    if order.kind == "pair":
        if len(order.targets) != 2:
            return OrderError("two_names")
        if order.targets[0] == order.targets[1]:
            return OrderError("repeated_name", order.targets[0])
    if order.kind == "vote" and len(order.targets) > 1:
        return OrderError("one_name")
    for target in order.targets:
        if not state.alive[target]:
            return OrderError("target_dead", target)
        if order.kind in ("inquire", "shoot", "pair") and target == seat:
            return OrderError("target_self", target)
    return order


def _swap_problem(state: State, slot: Slot, swap: tuple[int, ...]) -> OrderError | None:
    """Why a Dark City swap cannot stand: it must name two different living villagers."""
    if not slot.swap:
        return OrderError("wrong_order")
    if len(swap) != 2:
        return OrderError("two_names")
    if swap[0] == swap[1]:
        return OrderError("repeated_name", swap[0])
    for seat in swap:
        if not 0 <= seat < state.seats:
            return OrderError("unknown_seat", seat)
        problem = _victim_problem(state, seat)
        if problem:
            return OrderError("swap_wolf" if problem == "target_wolf" else problem, seat)
    return None


def _victim_problem(state: State, target: int) -> str | None:
    if not state.alive[target]:
        return "target_dead"
    if state.roles[target] == WOLF:
        return "target_wolf"
    return None


def _kill_list(state: State, spec: PhaseSpec, seat: int, order: Order) -> Order | OrderError:
    """A wolf's list at resolution: names that stopped being legal victims are skipped."""
    slot = spec.asks(seat)
    if slot is None or slot.kind != "kill":
        return OrderError("not_asked" if slot is None else "wrong_order")
    legal = tuple(
        target for target in order.targets if 0 <= target < state.seats and not _victim_problem(state, target)
    )
    swap = order.swap if order.swap and _swap_problem(state, slot, order.swap) is None else ()
    return Order("kill", legal, swap) if legal or swap else OrderError("empty_list")


def _discarded(seat: int, order: Order, error: OrderError) -> Event:
    data = {"seat": seat, "order": order.to_json(), "error": error.code, "target": error.target}
    return Event("card_discarded", data, Audience.moderator())


def _resolve_night(state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> State:
    """The night's cards act together at dawn: the pack's choice, the inquiries, the
    wolfsbane, then the deaths, gathered first and each applied once (the Vigilante's
    shot first, then the pack's victim, each followed by its broken heart), the conversion
    in "Thing", and the end judged once when all that is done."""
    pack = [seat for seat in state.pack if state.alive[seat]]
    victim, how, decided_by = _pack_choice(state, cards, pack, rng)
    events.append(Event("pack_chose", {"victim": victim, "how": how, "decided_by": decided_by}, Audience.of(*pack)))
    for seat in sorted(cards):
        card = cards[seat]
        if card.kind == "pair":
            lovers = tuple(sorted(card.targets))
            state = replace(state, lovers=lovers, spent=tuple(sorted({*state.spent, seat})))
            events.append(Event("lovers_paired", {"cupid": seat, "lovers": list(lovers)}, Audience.of(seat)))
            events.append(Event("fell_in_love", {"lovers": list(lovers)}, Audience.of(*lovers)))
        elif card.kind == "inquire":
            target = card.targets[0]
            werewolf = state.roles[target] == WOLF
            events.append(Event("seer_saw", {"seer": seat, "target": target, "werewolf": werewolf}, Audience.of(seat)))
            if state.options["public_seer"]:
                events.append(Event("seer_announced", {"werewolf": werewolf}, Audience.public()))
    if victim is not None:
        saved_by = _wolfsbane(state, cards, victim)
        if saved_by is not None:
            events.append(Event("wolfsbane_saved", {"seat": victim, "how": saved_by}, Audience.moderator()))
            victim = None
    shots: list[tuple[int, str]] = []
    for seat in sorted(cards):
        if cards[seat].kind == "shoot":
            target = cards[seat].targets[0]
            hit = state.roles[target] == WOLF
            state = replace(state, spent=tuple(sorted({*state.spent, seat})))
            events.append(Event("vigilante_fired", {"target": target, "hit": hit}, Audience.of(seat)))
            if hit:
                shots.append((target, "shot"))
    deaths = _mourned(state, shots)
    if victim is not None:
        after_shots = _without(state, [seat for seat, _ in deaths])
        if not after_shots.alive[victim] or _winner(after_shots) is not None:
            # Died of a broken heart already, or the shot settled the game (say, it
            # killed the last wolf): the pack's victim is neither killed nor converted.
            victim = None
    thing = bool(state.options["thing"])
    if victim is not None and not thing:
        deaths = _mourned(state, [*deaths, (victim, "killed")])
    if not deaths:
        events.append(Event("dawn_no_death", {}, Audience.public()))
    state = _bury(state, deaths, events)
    if victim is not None and thing:
        state = _convert(state, victim, events)
    state = _judge(state, events)
    if not state.over:
        state = _swap_cards(state, cards, pack, events)
    return state


def _swap_cards(state: State, cards: Mapping[int, Order], pack: Sequence[int], events: list[Event]) -> State:
    """Dark City: the pack's swap (the same pair on every swapping wolf's card, or the
    highest-ranked swapping wolf's) trades two villagers' cards at the end of the night,
    unless one of them died or joined the pack ("Thing") in the night.
    Each of the two is told its new card if it changed; once-a-game powers go with the card."""
    swaps = {seat: frozenset(cards[seat].swap) for seat in pack if seat in cards and cards[seat].swap}
    if not swaps:
        return state
    # `swaps` follows the succession, so its first entry is the highest-ranked wolf's
    # swap, which is also the pack's when they all agree.
    first, second = sorted(next(iter(swaps.values())))
    living = [wolf for wolf in pack if state.alive[wolf]]
    if any(_victim_problem(state, seat) for seat in (first, second)):  # died, or converted, tonight
        events.append(Event("swap_skipped", {"seats": [first, second]}, Audience.of(*living)))
        return state
    roles = list(state.roles)
    roles[first], roles[second] = roles[second], roles[first]
    spent = {({first: second, second: first}.get(seat, seat)) for seat in state.spent}
    events.append(Event("cards_swapped", {"seats": [first, second]}, Audience.of(*living)))
    for seat in (first, second):
        if roles[seat] != state.roles[seat]:
            events.append(Event("card_changed", {"seat": seat, "role": roles[seat]}, Audience.of(seat)))
    return replace(state, roles=tuple(roles), spent=tuple(sorted(spent)))


def _wolfsbane(state: State, cards: Mapping[int, Order], victim: int) -> str | None:
    """How the pack's victim is saved, if it is: it holds the herb, or a living
    Herbalist sprinkled its doorstep tonight."""
    variant = state.options["wolfsbane"]
    if variant == "herb" and state.roles[victim] == HERBALIST:
        return "herb"
    if variant == "doorstep":
        for seat, card in cards.items():
            if card.kind == "protect" and card.targets == (victim,) and state.roles[seat] == HERBALIST:
                return "doorstep"
    return None


def _pack_choice(
    state: State, cards: Mapping[int, Order], pack: Sequence[int], rng: Random
) -> tuple[int | None, str, int | None]:
    """The night's victim, how it was chosen, and whose list decided (None by consensus)."""
    if state.number == 1 and state.options["first_night"] == "quiet":
        return None, "quiet", None
    lists = {seat: cards[seat].targets for seat in pack if seat in cards and cards[seat].targets}
    if lists:
        firsts = {targets[0] for targets in lists.values()}
        if len(firsts) == 1:
            return firsts.pop(), "consensus", None
        for seat in pack:
            if seat in lists:
                return lists[seat][0], "rank", seat
    if state.options["missing_wolves"] == "random":
        prey = [seat for seat in state.living() if state.roles[seat] != WOLF]
        return rng.choice(prey), "random", None
    return None, "no_lists", None


def _resolve_day(state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> tuple[State, bool]:
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
        return _die(state, named, "lynched", events), False
    werewolf = state.roles[named] == WOLF
    events.append(Event("tested", {"seat": named, "werewolf": werewolf}, Audience.public()))
    if werewolf:
        state = _die(state, named, "exposed", events)
        return state, not state.over
    # "The first one's free": the day's first test whatever it found, or (the other
    # reading) its first test that found no werewolf; see docs/rules.md.
    if state.options.get("thing_free", "first_test") == "first_innocent":
        free = state.innocents == 0
    else:
        free = state.step == 1
    return replace(state, innocents=state.innocents + 1), free


def _ballots(cards: Mapping[int, Order]) -> dict[int, int]:
    """Voter to named seat; a vote naming nobody is an abstention."""
    return {seat: card.targets[0] for seat, card in cards.items() if card.kind == "vote" and card.targets}


def _die(state: State, seat: int, cause: str, events: list[Event]) -> State:
    """A death by day (a lynching, or a werewolf found by a "Thing" test) with the
    heartbreak it causes, then the end of the game judged once after both."""
    return _judge(_bury(state, _mourned(state, [(seat, cause)]), events), events)


def _mourned(state: State, deaths: Sequence[tuple[int, str]]) -> list[tuple[int, str]]:
    """The deaths of one moment, in order, each followed by its Lover's broken heart:
    every seat once, and only a living seat."""
    dying: list[tuple[int, str]] = []
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


def _without(state: State, seats: Sequence[int]) -> State:
    """The state as it would be with `seats` dead, for judging ahead; no event."""
    alive = tuple(is_alive and seat not in seats for seat, is_alive in enumerate(state.alive))
    return replace(state, alive=alive)


def _bury(state: State, deaths: Sequence[tuple[int, str]], events: list[Event]) -> State:
    """Apply the deaths of one moment (from `_mourned`), each announced once; then, if
    the alpha was among them, the role passes on and the wolves who know the pack are told.
    The caller judges the end of the game once, after everything of that moment."""
    old_alpha = _alpha(state)
    for seat, cause in deaths:
        state = _kill(state, seat, cause, events)
    alpha = _alpha(state)
    if old_alpha is not None and not state.alive[old_alpha] and alpha is not None:
        living_pack = [wolf for wolf in state.pack if state.alive[wolf]]
        # A wolf who has not met the pack yet (before the first night of a day-first
        # game, or a "Thing" convert before its first nightfall) learns it at nightfall.
        told = [wolf for wolf in living_pack if wolf not in state.unmet]
        if told:
            events.append(Event("alpha_passed", {"alpha": alpha, "pack": living_pack}, Audience.of(*told)))
    return state


def _convert(state: State, seat: int, events: list[Event]) -> State:
    """In "Thing" the pack's victim becomes a werewolf at once, last in the succession.
    The pack knows whom it converted; the convert learns its new card now and the pack
    at the next nightfall (until then it is `unmet`). Nobody dies, so dawn is quiet; the
    caller judges the end of the game."""
    pack = [wolf for wolf in state.pack if state.alive[wolf]]
    roles = list(state.roles)
    roles[seat] = WOLF
    state = replace(state, roles=tuple(roles), pack=(*state.pack, seat), unmet=(*state.unmet, seat))
    events.append(Event("converted", {"seat": seat}, Audience.of(*pack)))
    events.append(Event("infected", {"seat": seat}, Audience.of(seat)))
    return state


def _judge(state: State, events: list[Event]) -> State:
    """End the game if a side has won."""
    winner = _winner(state)
    if winner is None:
        return state
    state = replace(state, winner=winner, phase="over", revealed=(True,) * state.seats)
    data = {"winner": winner, "winners": list(_winners(state, winner)), "roles": list(state.roles)}
    events.append(Event("game_over", data, Audience.public()))
    return state


def _kill(state: State, seat: int, cause: str, events: list[Event]) -> State:
    """One death, announced. In Dark City a revealed card says only whether it was a
    werewolf's, never whether it was the Seer's."""
    reveal = bool(state.options["reveal_dead"])
    dark = bool(state.options["dark_city"])
    state = state.with_death(seat, reveal=reveal and not dark)
    data: dict[str, Any] = {"seat": seat, "role": state.roles[seat] if reveal and not dark else None}
    if reveal and dark:
        data["werewolf"] = state.roles[seat] == WOLF
    events.append(Event(cause, data, Audience.public()))
    return state


def _partner(state: State, seat: int) -> int | None:
    if seat not in state.lovers:
        return None
    return next(other for other in state.lovers if other != seat)


def _pack_formed(state: State) -> Event:
    """The living wolves learn each other, the alpha and the order of succession."""
    pack = [seat for seat in state.pack if state.alive[seat]]
    return Event("pack_formed", {"pack": pack}, Audience.of(*pack))


def _alpha(state: State) -> int | None:
    for seat in state.pack:
        if state.alive[seat]:
            return seat
    return None


def _winner(state: State) -> str | None:
    """The Lovers, when a werewolf and a villager in love are the last two alive; else
    the village when no wolf lives; else the wolves when they are at least as many as
    everyone else. (Two Lovers of one side left alone have simply won with it.)"""
    if state.lovers and state.living() == list(state.lovers):
        if len({_side(state.roles[seat]) for seat in state.lovers}) == 2:
            return LOVERS
    wolves = others = 0
    for seat, alive in enumerate(state.alive):
        if alive:
            if state.roles[seat] == WOLF:
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
        return replace(state, index=state.index + 1)
    starts_at_night = state.options["start"] == "night"
    if state.phase == "night":
        number = state.number + (0 if starts_at_night else 1)
        return replace(state, phase="day", number=number, index=state.index + 1, step=1, innocents=0)
    number = state.number + (1 if starts_at_night else 0)
    return replace(state, phase="night", number=number, index=state.index + 1, step=1, innocents=0)


RULESET = Classic()
