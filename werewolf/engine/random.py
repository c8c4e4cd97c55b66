"""The seeded random sources of a game.

Every random choice a game makes comes from a source derived from the game's seed and
the moment it is made at, so a game replays identically from its setup and its orders,
whatever order the phases are resolved in by the server.
"""

from __future__ import annotations

from random import Random


def setup_rng(seed: int) -> Random:
    return Random(f"{seed}/setup")


def phase_rng(seed: int, phase_index: int) -> Random:
    return Random(f"{seed}/phase/{phase_index}")


def seating_rng(seed: int) -> Random:
    return Random(f"{seed}/seating")


def clockwise_distance(origin: int, seat: int, seats: int) -> int:
    """Seats from `origin` to `seat` going clockwise; `origin` itself is at distance 0."""
    return (seat - origin) % seats


def act_rng(seed: int, phase_index: int, act: int) -> Random:
    """The source of an instant act: the `act`-th handed in during the step."""
    return Random(f"{seed}/phase/{phase_index}/act/{act}")
