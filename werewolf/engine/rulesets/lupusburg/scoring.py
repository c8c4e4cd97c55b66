"""The end of a Lupusburg game: whether the Werewolf has won or lost, and the score."""

from __future__ import annotations

from ...outcome import Outcome
from ...state import State
from .state import LupusburgState
from .table import SCORE, WEREWOLF, goal_points


def winner_of(goals: bool, state: State) -> str | None:
    """The Werewolf loses when none of his characters lives ("score": the others score,
    one of them wins). He wins, in the coin-bag edition, when his living characters are
    at least as many as everyone else's together; in the goals edition, when he is the
    only player holding a living character."""
    rules: LupusburgState = state.rules
    wolf = rules.seat_of(WEREWOLF)
    his = len(rules.alive_houses(wolf))
    if his == 0:
        return SCORE
    others = sum(rules.living) - his
    if (goals and others == 0) or (not goals and his >= others):
        return WEREWOLF
    return None


def points(goals: bool, state: State) -> dict[int, dict[str, int]]:
    """Each player's points by source when the Werewolf lost (he scores nothing): 2 for
    each living character, 1 for the chest if a living character still stands in its
    house, the coin of a bet on the Werewolf's player (0 for a bet on anyone else, 1 for
    a seal never used) and, in the goals edition, the secret goal."""
    rules: LupusburgState = state.rules
    wolf = rules.seat_of(WEREWOLF)
    bets = {bettor: (target, coin) for bettor, target, coin in rules.bets}
    table: dict[int, dict[str, int]] = {}
    for seat in range(state.seats):
        if seat == wolf:
            table[seat] = {"characters": 0, "chest": 0, "bet": 0, "goal": 0}
            continue
        bet = 1
        if seat in bets:
            target, coin = bets[seat]
            bet = coin if target == wolf else 0
        goal = 0
        if goals:
            hand = tuple((rules.characters[house], rules.living[house]) for house in rules.houses(seat))
            goal = goal_points(rules.goals[seat], hand)
        table[seat] = {
            "characters": 2 * len(rules.alive_houses(seat)),
            "chest": 1 if rules.living[rules.chests[seat]] else 0,
            "bet": bet,
            "goal": goal,
        }
    return table


def scores(goals: bool, state: State) -> dict[int, int]:
    """Each player's total (see `points`)."""
    return {seat: sum(parts.values()) for seat, parts in points(goals, state).items()}


def outcome_of(goals: bool, state: State) -> Outcome:
    """A Werewolf who won wins alone and scores the number of players (for a series of
    games; the others score nothing). Otherwise the player with most points wins, ties
    going to the player closest clockwise to the Burgomaster (himself first)."""
    rules: LupusburgState = state.rules
    wolf = rules.seat_of(WEREWOLF)
    if state.winner == WEREWOLF:
        points = dict.fromkeys(range(state.seats), 0)
        points[wolf] = state.seats
        return Outcome(WEREWOLF, (wolf,), points)
    points = scores(goals, state)
    mayor = rules.burgomaster
    best = min(points, key=lambda seat: (-points[seat], (seat - mayor) % state.seats))
    return Outcome(SCORE, (best,), points)
