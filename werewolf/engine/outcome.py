"""How a game ends: who won, and (in rulesets that score) each seat's points."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .events import Audience, Event
from .state import State


@dataclass(frozen=True, slots=True)
class Outcome:
    """`winner` names the winning side ("village", "wolves", "hamster", "lovers"...) or,
    where one player wins alone on points, "score"; `winners` are the winning seats,
    dead ones included; `scores` each seat's points where the ruleset scores (empty
    otherwise); `termination` says how the game ended ("won")."""

    winner: str
    winners: tuple[int, ...]
    scores: Mapping[int, int] = field(default_factory=dict)
    termination: str = "won"


def finish(state: State, winner: str, winners: Sequence[int], roles: Sequence[str], events: list[Event]) -> State:
    """End the game: `winner` won with `winners`; every card is revealed, and everyone
    is told who won and what each seat held."""
    state = state.evolve(winner=winner, phase="over", revealed=(True,) * state.seats)
    data = {"winner": winner, "winners": list(winners), "roles": list(roles)}
    events.append(Event("game_over", data, Audience.public()))
    return state
