"""Card schemas: what each kind of notecard holds, and the one check every card passes.

A ruleset declares its cards as data (`Card`, made of `Field`s) and, each phase, the
`Slot` it asks of a seat: a card and the values each field may take. Validation here,
the web forms, the notecard grammar, the organiser's paper-card entry, the bots and the
printed notecards are all generated from these schemas, so a new card is a schema, not
edits in four places (docs/architecture.md, "Cards as data").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from .orders import TARGETS, Order, OrderError

Refers = Literal["seat", "house", "character", "token"]


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a card.

    `refers` says what its numbers name. It takes from `least` to `most` values (`most`
    None: as many as there are choices), distinct; `ranked` when their order is a
    preference, best first. An `optional` field may also be left blank. `word` is the
    keyword that opens the field on a written card (SWAP), "" for the main field.
    `count_error` is the refusal when the count is wrong. `prune`: at resolution, values
    that stopped being legal are skipped rather than the card refused (a wolf's list
    naming a player who died meanwhile)."""

    name: str = TARGETS
    refers: Refers = "seat"
    least: int = 1
    most: int | None = 1
    ranked: bool = False
    optional: bool = False
    word: str = ""
    count_error: str = "one_name"
    prune: bool = False

    def fits(self, count: int) -> bool:
        if count == 0 and self.optional:
            return True
        return count >= self.least and (self.most is None or count <= self.most)


@dataclass(frozen=True, slots=True)
class Card:
    """A kind of notecard. `word` is its keyword on paper (KILL, VOTE). `blank`: the seat
    may hand in SLEEP (no action) instead. `empty_error`: the refusal when every field is
    blank, None when a blank card means something (a vote for nobody withdraws a vote).
    `instant`: the card acts when handed in, first come first served, instead of at the
    deadline."""

    kind: str
    word: str
    fields: tuple[Field, ...] = ()
    blank: bool = True
    empty_error: str | None = None
    instant: bool = False
    one_name: bool = dataclasses.field(init=False, repr=False, compare=False, default=False)
    """Derived: one field that may hold a single name (the commonest card: a vote)."""

    def __post_init__(self) -> None:
        single = len(self.fields) == 1 and self.fields[0].least <= 1 and self.fields[0].most != 0
        object.__setattr__(self, "one_name", single)

    def field(self, name: str) -> Field | None:
        return next((field for field in self.fields if field.name == name), None)

    @property
    def may_be_empty(self) -> bool:
        """Whether the card, its fields left blank, is handed in as itself (a vote for
        nobody) rather than as SLEEP or refused."""
        return (
            not self.blank
            and bool(self.fields)
            and self.empty_error is None
            and all(field.least == 0 or field.optional for field in self.fields)
        )


SLEEP = Card("sleep", "SLEEP")


@dataclass(frozen=True, slots=True)
class Slot:
    """The card a phase asks of one seat, and the values each of its fields may take
    (`options`, aligned with `card.fields`): what the form offers, the bots pick from and
    the check accepts. `instead`: cards without fields the seat may hand in in its place
    (a Mafia day's NO ELIMINATION beside its VOTE: a vote that names nobody, which is
    not an abstention)."""

    card: Card
    options: tuple[tuple[int, ...], ...] = ()
    instead: tuple[Card, ...] = ()

    @property
    def kind(self) -> str:
        return self.card.kind

    @property
    def choices(self) -> tuple[int, ...]:
        """The main field's choices."""
        return self.options[0] if self.options else ()

    def choices_for(self, name: str) -> tuple[int, ...]:
        for field, choices in self.pairs():
            if field.name == name:
                return choices
        return ()

    def pairs(self) -> Iterator[tuple[Field, tuple[int, ...]]]:
        return zip(self.card.fields, self.options, strict=True)


SLEEPER = Slot(SLEEP)


class Referee(Protocol):
    """What the check asks the ruleset: how many things a field's numbers may name
    (seats; Lupusburg's houses), and the precise reason a value outside a field's
    choices is refused (a code such as "target_dead")."""

    def bound(self, state: Any, field: Field) -> int: ...

    def refusal(self, state: Any, seat: int, field: Field, value: int) -> str: ...


def check(
    slot: Slot, order: Order, referee: Referee, state: Any, seat: int, *, prune: bool = False
) -> Order | OrderError:
    """`order` from `seat` as `slot` accepts it, or why not. With `prune` (at
    resolution), values of a pruning field that stopped being legal are dropped instead."""
    card = slot.card
    targets = order.targets
    if card.one_name and len(targets) == 1 and order.kind == card.kind and not order.more:
        if targets[0] in slot.options[0]:
            return order  # the commonest card of all: one legal name (a vote, an inquiry)
    if order.more:
        for name, values in order.fields:
            field = card.field(name) or MAIN
            limit = state.seats if field.refers == "seat" else referee.bound(state, field)
            for value in values:
                if not 0 <= value < limit:
                    return OrderError(f"unknown_{field.refers}", value)
    elif order.targets:
        field = card.fields[0] if card.fields else MAIN
        limit = state.seats if field.refers == "seat" else referee.bound(state, field)
        for value in order.targets:
            if not 0 <= value < limit:
                return OrderError(f"unknown_{field.refers}", value)
    if order.kind == SLEEP.kind:
        return SLEEP_ORDER if card.blank else OrderError(card.empty_error or "wrong_order")
    if order.kind != card.kind and not order.targets and not order.more:
        if any(other.kind == order.kind for other in slot.instead):
            return order
    if order.kind != card.kind or (order.more and any(card.field(name) is None for name, _ in order.more)):
        return OrderError("wrong_order")
    if len(card.fields) == 1 and not (prune and card.fields[0].prune):
        return _check_one(card, slot.options[0], order, referee, state, seat)
    kept: list[tuple[str, tuple[int, ...]]] = []
    for field, choices in zip(card.fields, slot.options, strict=True):
        values = order.field(field.name)
        if not field.fits(len(values)):
            return OrderError(field.count_error)
        legal: list[int] = []
        for value in values:
            if value in legal:
                return OrderError("repeated_name", value)
            if value not in choices:
                if prune and field.prune:
                    continue
                return OrderError(referee.refusal(state, seat, field, value), value)
            legal.append(value)
        if len(legal) != len(values) and not field.fits(len(legal)):
            legal = []
        kept.append((field.name, tuple(legal)))
    if card.empty_error and not any(values for _, values in kept):
        return OrderError(card.empty_error)
    if prune:
        main = kept[0][1] if kept and kept[0][0] == TARGETS else ()
        more = tuple((name, values) for name, values in kept if name != TARGETS and values)
        return Order(card.kind, main, more)
    return order


MAIN = Field()
SLEEP_ORDER = Order(SLEEP.kind)


def _check_one(
    card: Card, choices: tuple[int, ...], order: Order, referee: Referee, state: Any, seat: int
) -> Order | OrderError:
    """The common card of one field, checked without building a pruned copy."""
    field = card.fields[0]
    values = order.targets
    if not field.fits(len(values)):
        return OrderError(field.count_error)
    if not values:
        return OrderError(card.empty_error) if card.empty_error else order
    for number, value in enumerate(values):
        if value in values[:number]:
            return OrderError("repeated_name", value)
        if value not in choices:
            return OrderError(referee.refusal(state, seat, field, value), value)
    return order
