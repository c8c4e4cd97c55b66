"""Bots: a uniformly random legal card for any slot, generated from its schema."""

from __future__ import annotations

from random import Random

from .cards import SLEEP, SLEEP_ORDER, Slot
from .orders import TARGETS, Order

_NAMED: dict[tuple[str, int], Order] = {}
"""Cards naming one seat, made once: orders are immutable, and bots write millions."""


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
            key = (card.kind, choice)
            made = _NAMED.get(key)
            if made is None:
                made = _NAMED[key] = Order(card.kind, (choice,))
            return made
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
