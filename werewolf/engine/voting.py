"""Counting votes: tallies, strict majorities and pluralities."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping


def tally(ballots: Mapping[int, int]) -> dict[int, int]:
    """Votes received by each named seat, from a mapping of voter to choice."""
    return dict(Counter(ballots.values()))


def majority_of(electorate: int) -> int:
    """The fewest votes that are more than half of `electorate`."""
    return electorate // 2 + 1


def strict_majority(ballots: Mapping[int, int], electorate: int) -> int | None:
    """The seat named by more than half of `electorate`, if any."""
    needed = majority_of(electorate)
    for seat, count in tally(ballots).items():
        if count >= needed:
            return seat
    return None


def leaders(ballots: Mapping[int, int]) -> list[int]:
    """The seats with most votes, in seat order; empty when nobody voted."""
    counts = tally(ballots)
    if not counts:
        return []
    best = max(counts.values())
    return sorted(seat for seat, count in counts.items() if count == best)
