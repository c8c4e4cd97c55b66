"""How a game ends: who won, and (in rulesets that score) each seat's points."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


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
