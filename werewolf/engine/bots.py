"""Bots: a uniformly random legal card for any slot, generated from its schema."""

from __future__ import annotations

from collections.abc import Mapping
from random import Random

from .cards import SLEEP, SLEEP_ORDER, Card, Slot
from .orders import TARGETS, Order

_NAMED: dict[str, dict[int, Order]] = {}
"""Cards naming one seat, by kind and seat, made once: orders are immutable, and bots
write millions."""


def bot_card(slot: Slot, seat: int, rng: Random) -> Order:
    """A random card `slot` accepts: in each field the fewest values it takes (one, when
    it may take none), picked among its choices, the bot's own seat left out unless it
    is the only choice (a field naming houses keeps every number); an optional field is
    filled half the time. A slot with nothing to choose from gets SLEEP (or a blank
    vote)."""
    card = slot.card
    fields = card.fields
    if not fields:
        return SLEEP_ORDER if card is SLEEP else Order(card.kind)
    if len(fields) == 1 and fields[0].most == 1:
        choices = slot.options[0]
        if len(choices) > 1:
            while (choice := choices[int(rng.random() * len(choices))]) == seat and fields[0].refers == "seat":
                pass
            named = _NAMED.setdefault(card.kind, {})
            made = named.get(choice)
            if made is None:
                made = named[choice] = Order(card.kind, (choice,))
            return made
        if len(choices) == 1 and _always(card):
            return _only(card, choices, rng)
    written: list[tuple[str, tuple[int, ...]]] = []
    for field, choices in slot.pairs():
        pool = [choice for choice in choices if choice != seat or field.refers != "seat"] or list(choices)
        wanted = max(field.least, 1)
        if field.most is not None:
            wanted = min(wanted, field.most)
        if len(pool) < wanted or (field.optional and field.name != TARGETS and rng.random() < 0.5):
            continue
        written.append((field.name, tuple(rng.sample(pool, wanted))))
    main = next((values for name, values in written if name == TARGETS), ())
    if not main and card.fields[0].least > 0 and not card.fields[0].optional:
        return Order("sleep") if card.blank else Order(card.kind)
    return Order(card.kind, main, tuple((name, values) for name, values in written if name != TARGETS))


def _named(card: Card, choice: int) -> Order:
    """The card of `card`'s kind naming `choice` alone."""
    named = _NAMED.setdefault(card.kind, {})
    made = named.get(choice)
    if made is None:
        made = named[choice] = Order(card.kind, (choice,))
    return made


def _always(card: Card) -> bool:
    """Whether `card` names one value in its one field, which `bot_card` always fills."""
    fields = card.fields
    return len(fields) == 1 and fields[0].most == 1 and not (fields[0].optional and fields[0].name != TARGETS)


def _only(card: Card, choices: tuple[int, ...], rng: Random) -> Order:
    """`bot_card`'s card for a card that `_always` fills with one choice: the draw its
    general case makes (`rng.sample` of one from one: the very draw of `rng.choice`
    from one, which tests/engine/test_simulate.py checks), and the card naming it."""
    return _named(card, rng.choice(choices))


def named_card(slot: Slot, choice: int, seat: int, rng: Random) -> Order:
    """`bot_card` for `slot` with its main field's choices narrowed to `choice` (the
    player a bot that talks chose), the slot made only where the card has more to fill."""
    card = slot.card
    if _always(card):
        return _only(card, (choice,), rng)
    return bot_card(Slot(card, ((choice,), *slot.options[1:])), seat, rng)


def bot_cards(slots: Mapping[int, Slot], rng: Random) -> dict[int, Order]:
    """`bot_card` for every seat of `slots`, the same cards from the same draws, made
    faster where seats share one slot (a day's vote, the pack's hunt): its choices are
    looked at once, not once per seat."""
    cards: dict[int, Order] = {}
    random = rng.random
    last: Slot | None = None
    choices: tuple[int, ...] = ()
    named: dict[int, Order] = {}
    count = 0
    for seat, slot in slots.items():
        if slot is not last:
            last = slot
            card = slot.card
            fields = card.fields
            count = 0
            if card is not SLEEP and len(fields) == 1 and fields[0].most == 1 and fields[0].refers == "seat":
                choices = slot.options[0]
                count = len(choices) if len(choices) > 1 else 0
                named = _NAMED.setdefault(card.kind, {})
        if slot.card is SLEEP:
            cards[seat] = SLEEP_ORDER
        elif count:
            choice = choices[int(random() * count)]
            while choice == seat:
                choice = choices[int(random() * count)]
            made = named.get(choice)
            if made is None:
                made = named[choice] = Order(slot.card.kind, (choice,))
            cards[seat] = made
        else:
            cards[seat] = bot_card(slot, seat, rng)
    return cards
