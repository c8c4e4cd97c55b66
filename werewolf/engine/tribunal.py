"""The two-step day of Lupus in Tabula and its Luna Piena edition: an open accusation
that names two suspects, then a secret ballot between them. Ties go to the seat closest
clockwise to a tie-breaker (Tabula's Welcome! holder, Luna Piena's tombstone)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import rulings
from .events import Event
from .orders import Order
from .random import clockwise_distance
from .state import State


def votes(cards: Mapping[int, Order]) -> dict[int, int]:
    """Voter to named seat, in seat order (the engine hands the cards over in seat
    order); a blank card is an abstention."""
    return {seat: card.targets[0] for seat, card in cards.items() if card.targets}


def suspects(
    state: State, cards: Mapping[int, Order], origin: int, marked: int | None, events: list[Event]
) -> dict[str, Any]:
    """The accusation's result as the `suspects_named` event says it: the marked seat
    (the Owl's choice) first when it lives, then the players with most votes, ties (at
    zero votes too) going to the closest clockwise from `origin`, ruled into `events`.
    When nobody is accused at all, by a vote or by a mark, nobody is suspected."""
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
        _rule_accusation(state, counts, ranked, owl, origin, events)
    return {
        "suspects": named,
        "owl": owl,
        "votes": [[voter, target] for voter, target in cast.items()],
        "tally": [[seat, counts[seat]] for seat in ranked],
        "from": origin,
    }


def _rule_accusation(
    state: State, counts: Mapping[int, int], ranked: list[int], owl: int | None, origin: int, events: list[Event]
) -> None:
    """Rule a tie that the clockwise order settled among the accused (at zero votes
    too: then every living player without a vote is among the tied)."""
    order = [seat for seat in ranked if seat != owl]
    picks = 1 if owl is not None else 2
    if len(order) <= picks or counts[order[picks - 1]] == counts[order[picks]]:
        seats = state.seats
        zero = [(origin + step) % seats for step in range(seats)]
        order += [seat for seat in zero if state.alive[seat] and seat not in counts and seat != owl]
        ruled = rulings.cut_tie(order, lambda seat: counts.get(seat, 0), picks, "accusation", origin)
        if ruled is not None:
            events.append(ruled)


def ballot(
    state: State, named: tuple[int, ...], cards: Mapping[int, Order], origin: int, events: list[Event]
) -> dict[str, Any]:
    """The ballot's result as the `ballot_revealed` event says it: the suspect with more
    votes is lynched, a tie going to the one closest clockwise from `origin` (ruled
    into `events`)."""
    cast = votes(cards)
    counts = dict.fromkeys(named, 0)
    for target in cast.values():
        counts[target] += 1
    seats = state.seats
    lynched = min(named, key=lambda seat: (-counts[seat], clockwise_distance(origin, seat, seats)))
    tied = [seat for seat in named if counts[seat] == counts[lynched]]
    tie = len(tied) > 1
    if tie:
        events.append(rulings.tie_broken("ballot", tied, (lynched,), "clockwise", origin))
    return {
        "ballots": [[voter, target] for voter, target in cast.items()],
        "tally": [[seat, counts[seat]] for seat in named],
        "lynched": lynched,
        "tie": tie,
        "from": origin,
    }
