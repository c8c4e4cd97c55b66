"""The two-step day of Lupus in Tabula and its Luna Piena edition: an open accusation
that names two suspects, then a secret ballot between them. Ties go to the seat closest
clockwise to a tie-breaker (Tabula's Welcome! holder, Luna Piena's tombstone)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .orders import Order
from .random import clockwise_distance
from .state import State


def votes(cards: Mapping[int, Order]) -> dict[int, int]:
    """Voter to named seat, in seat order (the engine hands the cards over in seat
    order); a blank card is an abstention."""
    return {seat: card.targets[0] for seat, card in cards.items() if card.targets}


def suspects(state: State, cards: Mapping[int, Order], origin: int, marked: int | None) -> dict[str, Any]:
    """The accusation's result as the `suspects_named` event says it: the marked seat
    (the Owl's choice) first when it lives, then the players with most votes, ties (at
    zero votes too) going to the closest clockwise from `origin`. When nobody is
    accused at all, by a vote or by a mark, nobody is suspected."""
    cast = votes(cards)
    counts: dict[int, int] = {}
    for target in cast.values():
        counts[target] = counts.get(target, 0) + 1
    owl = marked if marked is not None and state.alive[marked] else None
    named: list[int] = [] if owl is None else [owl]
    seats = state.seats
    ranked = sorted(counts, key=lambda seat: (-counts[seat], (seat - origin) % seats))  # clockwise from origin
    if ranked or owl is not None:
        named += [seat for seat in ranked if seat != owl][: 2 - len(named)]
        if len(named) < 2:
            # Everyone else has no vote: the tie at zero goes clockwise too.
            alive = state.alive
            for distance in range(seats):
                seat = (origin + distance) % seats
                if alive[seat] and seat not in counts and seat not in named:
                    named.append(seat)
                    if len(named) == 2:
                        break
    return {
        "suspects": named,
        "owl": owl,
        "votes": [[voter, target] for voter, target in cast.items()],
        "tally": [[seat, counts[seat]] for seat in ranked],
        "from": origin,
    }


def ballot(state: State, named: tuple[int, ...], cards: Mapping[int, Order], origin: int) -> dict[str, Any]:
    """The ballot's result as the `ballot_revealed` event says it: the suspect with more
    votes is lynched, a tie going to the one closest clockwise from `origin`."""
    cast = votes(cards)
    counts = dict.fromkeys(named, 0)
    for target in cast.values():
        counts[target] += 1
    seats = state.seats
    lynched = min(named, key=lambda seat: (-counts[seat], clockwise_distance(origin, seat, seats)))
    tie = sum(1 for seat in named if counts[seat] == counts[lynched]) > 1
    return {
        "ballots": [[voter, target] for voter, target in cast.items()],
        "tally": [[seat, counts[seat]] for seat in named],
        "lynched": lynched,
        "tie": tie,
        "from": origin,
    }
