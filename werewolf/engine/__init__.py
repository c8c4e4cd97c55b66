"""The rules engine: pure Python, no Django, deterministic for a seed.

The contract (docs/architecture.md, "The engine contract"):

- `setup(ruleset, options, players, seed, deal=None)` -> `(State, [Event])`, and
  `deal(state)`: who was dealt what, so that every game replays; `deck(ruleset,
  options, players)`: the cards a deal uses; `deal_shape(ruleset, options, players)`:
  what the organiser's own deal gives each seat, and `deal_from_hands` the deal it makes
- `phase(state)` -> `PhaseSpec`: the open step and the `Slot` it asks of each seat
- `validate(state, seat, order)` -> `Order | OrderError`
- `resolve(state, orders, rng=None)` -> `(State, [Event])`
- `act(state, seat, order, number)` -> `(State, [Event])`: an instant card, at once;
  `acts_at_once(state, seat, order)` says whether a checked order is one
- `outcome(state)` -> `Outcome | None`

State, orders and events serialize to JSON and back without loss.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from random import Random
from typing import Any

from . import characters, rulesets, talk
from .cards import SLEEP, SLEEP_ORDER, Card, Field, Slot, check
from .errors import SetupError
from .events import ENGINE_EVENTS, MODERATOR, PUBLIC, Audience, Event, Viewer
from .options import OptionSpec, describe
from .orders import TARGETS, Order, OrderError
from .outcome import Outcome
from .random import act_rng, phase_rng
from .state import PhaseSpec, Stage, State


def capabilities(ruleset: str) -> rulesets.Capabilities:
    """What the web side may ask of `ruleset` by name: a board, scores, its words' folder."""
    return rulesets.get(ruleset).capabilities


def event_kinds(ruleset: str) -> Mapping[str, tuple[str, ...]]:
    """Every kind of event a game of `ruleset` may hold from the engine, the ruleset's
    own and the engine's (`ENGINE_EVENTS`), each with the fields that name seats whose
    role its audience learns (`rulesets.base.EventKinds`)."""
    return {**ENGINE_EVENTS, **rulesets.get(ruleset).events}


def ring(state: State, viewer: Viewer, seen: Iterable[tuple[str, Mapping[str, Any]]]) -> rulesets.Ring | None:
    """What `viewer` sees of the table's houses in a ruleset whose seats play them (the
    events it has seen, `seen`, as kinds and data), or None."""
    return rulesets.get(state.ruleset).ring(state, viewer, tuple(seen))


def option_specs(ruleset: str) -> tuple[OptionSpec, ...]:
    """The options of `ruleset` a form may offer, as its options dataclass declares them
    (kind, choices, default, bound), in order."""
    rules = rulesets.get(ruleset)
    return describe(rules.options_type) + tuple(rules.extra_options)


def paper_pack(ruleset: str, players: int) -> tuple[tuple[str, str], ...]:
    """The pieces beyond the role cards a table of `players` needs to play `ruleset` on
    paper (kind and value each), or none."""
    return rulesets.get(ruleset).paper_pack(players)


def score_parts(ruleset: str) -> tuple[str, ...]:
    """The sources of a player's points in `ruleset`, in a score sheet's order, or none."""
    return rulesets.get(ruleset).score_parts()


def listed() -> tuple[str, ...]:
    """Every ruleset's id, as lists offer them: by their family's rank, the editions of a
    family by id. The first is the one a new game takes when nothing says otherwise."""
    return tuple(sorted(rulesets.RULESETS, key=lambda ruleset: (capabilities(ruleset).rank, ruleset)))


def options(ruleset: str, raw: Mapping[str, Any], players: int) -> dict[str, Any]:
    """Check `raw` options for a table of `players` and fill in the defaults."""
    return dict(rulesets.get(ruleset).options(raw, players))


def advice(ruleset: str, options: Mapping[str, Any], players: int) -> tuple[rulesets.Advice, ...]:
    """What the rulebook suggests against checked `options` (advice, never a refusal)."""
    return rulesets.get(ruleset).advice(options, players)


def setup(
    ruleset: str, raw_options: Mapping[str, Any], players: int, seed: int, deal: Mapping[str, Any] | None = None
) -> tuple[State, list[Event]]:
    rules = rulesets.get(ruleset)
    return rules.setup(rules.options(raw_options, players), players, seed, deal)


def deck(ruleset: str, options: Mapping[str, Any], players: int) -> tuple[str, ...]:
    """The cards a deal for `players` seats uses, with checked `options` (an organiser's
    own deal gives each seat one of them; printed role cards show them)."""
    return rulesets.get(ruleset).deck(options, players)


def deal(state: State) -> dict[str, Any]:
    return rulesets.get(state.ruleset).deal(state)


def deal_shape(ruleset: str, options: Mapping[str, Any], players: int) -> rulesets.DealShape:
    """What the organiser's own deal gives each seat with checked `options` (the parts of
    a hand, from the ruleset's own cards and goals) and the seat it names besides."""
    return rulesets.get(ruleset).deal_shape(options, players)


def deal_from_hands(
    ruleset: str, options: Mapping[str, Any], hands: Sequence[Mapping[str, Any]], mark: int | None = None
) -> dict[str, Any]:
    """`setup`'s deal from the organiser's hands in seat order (each shaped as
    `deal_shape` says) and the seat of the mark (None: not named). A hand without one of
    its parts is `SetupError("deal_incomplete", part, seat)`; whether the deal keeps the
    rules, `setup` says."""
    rules = rulesets.get(ruleset)
    shape = rules.deal_shape(options, len(hands))
    for seat, hand in enumerate(hands):
        for part in shape.parts:
            value = hand.get(part.name)
            values = value if part.count > 1 else [value]
            if not isinstance(values, list | tuple) or len(values) != part.count or None in values or "" in values:
                raise SetupError("deal_incomplete", part.name, seat)
    return rules.deal_from_hands(hands, mark)


def phase(state: State) -> PhaseSpec:
    """What the open step asks. States are immutable, so the last answer is kept for
    the state it was asked of (a resolution asks again what the bots or the forms just
    asked)."""
    global _last
    last = _last
    if last is not None and last[0] is state:
        return last[1]
    spec = rulesets.get(state.ruleset).phase(state)
    _last = (state, spec)
    return spec


_last: tuple[State, PhaseSpec] | None = None


def validate(state: State, seat: int, order: Order) -> Order | OrderError:
    """The card as the open step takes it from `seat`, or why it is refused."""
    return _checked(rulesets.get(state.ruleset), state, phase(state), seat, order, prune=False)


def resolve(
    state: State, orders: Mapping[int, Order], rng: Random | None = None, *, checked: bool = False
) -> tuple[State, list[Event]]:
    """Resolve the open step with the last order of each seat. Each is checked again (a
    name that stopped being legal is skipped where its field allows, else the card is
    set aside, for the moderator's eyes); a seat asked and silent is noted. Without
    `rng`, the step's own seeded source is used, so a game replays from its setup and
    its orders alone. `checked` says the orders were made from this very state's slots
    (the bots' cards, legal by construction): they are taken as they are."""
    if state.over:
        return state, []
    rules = rulesets.get(state.ruleset)
    if rng is None:
        rng = phase_rng(state.seed, state.index)
    spec = phase(state)
    events: list[Event] = []
    slots = spec.slots
    if checked:
        for seat in slots:
            if seat not in orders:
                events.append(_missing(seat, slots[seat]))
        return rules.resolve(state, orders, rng, events), events
    cards: dict[int, Order] = {}
    for seat in sorted(orders):
        order, slot = orders[seat], slots.get(seat)
        if order is SLEEP_ORDER and slot is not None and slot.card.blank:
            cards[seat] = order  # the commonest card of all (the bots' own), checked without ceremony
            continue
        if slot is None:
            taken: Order | OrderError = (
                OrderError(rules.unasked(state, seat)) if 0 <= seat < state.seats else OrderError("unknown_seat", seat)
            )
        else:
            taken = check(slot, order, rules, state, seat, prune=True)
        if isinstance(taken, OrderError):
            data = {"seat": seat, "order": orders[seat].to_json(), "error": taken.code, "target": taken.target}
            events.append(Event("card_discarded", data, Audience.moderator()))
        else:
            cards[seat] = taken
    for seat in spec.slots:
        if seat not in cards:
            events.append(_missing(seat, spec.slots[seat]))
    return rules.resolve(state, cards, rng, events), events


def _missing(seat: int, slot: Slot) -> Event:
    """A seat asked and silent, for the moderator: `sleeps` says its missing card counts
    as SLEEP (a card that may be left blank), else as no vote (a vote, a ballot)."""
    return Event("card_missing", {"seat": seat, "sleeps": slot.card.blank}, Audience.moderator())


def act(state: State, seat: int, order: Order, number: int) -> tuple[State, list[Event]]:
    """Apply an instant card (one whose schema says `instant`) at once: the `number`-th
    act of the step, whose random source is derived from the seed, the step and that
    number, so acts replay in the order they were numbered. A refused card raises
    `ValueError`; callers validate first."""
    rules = rulesets.get(state.ruleset)
    spec = phase(state)
    checked = _checked(rules, state, spec, seat, order, prune=False)
    slot = spec.asks(seat)
    if isinstance(checked, OrderError) or slot is None or not slot.card.instant:
        raise ValueError(f"not an instant card: {order}")
    return rules.act(state, seat, checked, act_rng(state.seed, state.index, number))


def acts_at_once(state: State, seat: int, order: Order) -> bool:
    """Whether `order`, checked, is an instant act for `seat` now: the step asks the seat an
    instant card and the order is that card. A blank card (SLEEP) on an instant step is not an
    act: it declines (a Lupusburg player keeping their seal) and is kept like any other card."""
    slot = phase(state).asks(seat)
    return slot is not None and slot.card.instant and order.kind == slot.card.kind


def outcome(state: State) -> Outcome | None:
    return rulesets.get(state.ruleset).outcome(state)


def cast(ruleset: str, options: Mapping[str, Any]) -> Mapping[str, Any]:
    """The roles a game with these checked options may deal, as rows (engine/table.py):
    the ruleset's table, with the characters an organiser built where it takes them."""
    return rulesets.get(ruleset).cast(options)


def roles_of(state: State, seat: int) -> tuple[str, ...]:
    """What `seat` holds now: its role (Lupusburg: its characters)."""
    return rulesets.get(state.ruleset).roles_of(state, seat)


def all_in(state: State, orders: Mapping[int, Order]) -> bool:
    """Whether every seat the open step asks has handed in an order."""
    spec = phase(state)
    return bool(spec.slots) and all(seat in orders for seat in spec.slots)


def decisive(state: State, orders: Mapping[int, Order]) -> bool:
    """Whether the orders already decide the step before its deadline (in classic, a
    day vote that reached a strict majority): the ruleset says."""
    if state.over:
        return False
    return rulesets.get(state.ruleset).decisive(state, orders)


def majority(state: State) -> int | None:
    """How many votes for one choice settle the open step before its deadline (a classic
    day: more than half of the living), or None when no number does (a night, a Tabula
    accusation): the number `decisive` counts to, as the ruleset says."""
    if state.over:
        return None
    return rulesets.get(state.ruleset).majority(state)


def _checked(
    rules: rulesets.Ruleset, state: State, spec: PhaseSpec, seat: int, order: Order, *, prune: bool
) -> Order | OrderError:
    if state.over:
        return OrderError("game_over")
    if not 0 <= seat < state.seats:
        return OrderError("unknown_seat", seat)
    slot = spec.asks(seat)
    if slot is None:
        return OrderError(rules.unasked(state, seat))
    checked = check(slot, order, rules, state, seat, prune=prune)
    if isinstance(checked, OrderError) and checked.code == "wrong_order":
        return OrderError(rules.misfit(state, seat, order))
    return checked


__all__ = [
    "event_kinds",
    "ENGINE_EVENTS",
    "MODERATOR",
    "PUBLIC",
    "SLEEP",
    "TARGETS",
    "Audience",
    "Card",
    "Event",
    "Field",
    "OptionSpec",
    "Order",
    "OrderError",
    "Outcome",
    "PhaseSpec",
    "SetupError",
    "Slot",
    "Stage",
    "State",
    "Viewer",
    "act",
    "advice",
    "all_in",
    "capabilities",
    "cast",
    "characters",
    "deal",
    "deal_from_hands",
    "deal_shape",
    "deck",
    "talk",
    "decisive",
    "listed",
    "majority",
    "ring",
    "option_specs",
    "options",
    "paper_pack",
    "outcome",
    "phase",
    "resolve",
    "roles_of",
    "score_parts",
    "setup",
    "validate",
]
