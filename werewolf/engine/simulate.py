"""Bots and Monte-Carlo runs over the same engine the server uses."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from random import Random
from typing import Any

from . import phase, resolve, rulesets
from .bots import bot_cards
from .orders import Order
from .people import Memory, people_cards, remember
from .rulesets import Ruleset
from .state import State
from .talkers import TEMPER, Table, Temper, talking_cards

UNIFORM = "uniform"
PEOPLE = "people"
TALK = "talk"
STRATEGIES = (UNIFORM, PEOPLE, TALK)

MOST_PHASES = 2000
"""More phases than any bot game of a table of thirty takes; a game still open after them
is stuck (bots that repeat the same cards forever: a guarded victim every night, a
tied day every day), and `Stuck` says so rather than a lab request hanging its worker."""


class Stuck(RuntimeError):
    """A bot game that went past `MOST_PHASES` without a winner: a flaw of the bots (or
    the rules) to fix, never a figure to show."""


def _counted(phases: int, state: State) -> int:
    phases += 1
    if phases > MOST_PHASES:
        raise Stuck(f"a {state.ruleset} bot game was still open after {MOST_PHASES} phases")
    return phases


"""The bots' strategies: a uniformly random legal card (`bots.py`, checked against the
closed formulas: random bots); a card from what the seat knows (`people.py`: bots that
never talk); or bots that talk as players do, claiming, accusing and following the square
before they vote (`talkers.py`)."""


@dataclass(frozen=True, slots=True)
class Simulation:
    """What a run of games gave: wins by side, and how fast it went."""

    ruleset: str
    players: int
    options: Mapping[str, Any]
    games: int
    seed: int
    wins: Mapping[str, int]
    seconds: float
    phases: int = 0
    points: Mapping[int, int] = field(default_factory=dict)
    """Each seat's points over all games, in rulesets that score (Lupusburg)."""

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    def to_json(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "players": self.players,
            "options": dict(self.options),
            "games": self.games,
            "seed": self.seed,
            "wins": dict(sorted(self.wins.items())),
            "win_rates": {side: count / self.games for side, count in sorted(self.wins.items())},
            "phases_per_game": self.phases / self.games if self.games else 0.0,
            "seconds": round(self.seconds, 3),
            "games_per_second": round(self.games_per_second, 1),
            **(
                {"mean_scores": {seat: total / self.games for seat, total in sorted(self.points.items())}}
                if self.points
                else {}
            ),
        }


def simulate(
    ruleset: str,
    players: int,
    raw_options: Mapping[str, Any],
    games: int,
    seed: int,
    progress: Callable[[int], None] | None = None,
    strategy: str = UNIFORM,
) -> Simulation:
    """Play `games` whole games with bots of `strategy`; `progress(n)` is called as games
    finish."""
    rules = rulesets.get(ruleset)
    options = rules.options(raw_options, players)
    wins: Counter[str] = Counter()
    points: Counter[int] = Counter()
    phases = 0
    step = max(1, games // 200)
    started = time.perf_counter()
    played = outcomes(rules, options, players, seed, strategy)
    for number in range(1, games + 1):
        state, length = next(played)
        result = rules.outcome(state)
        if result is not None and result.scores:
            points.update(result.scores)
        wins[str(state.winner)] += 1
        phases += length
        if progress is not None and (number % step == 0 or number == games):
            progress(number)
    seconds = time.perf_counter() - started
    return Simulation(ruleset, players, options, games, seed, dict(wins), seconds, phases, dict(points))


def outcomes(
    rules: Ruleset, options: Mapping[str, Any], players: int, seed: int, strategy: str = UNIFORM
) -> Iterator[tuple[State, int]]:
    """The games of a checked setup from `seed`, one after another, without end: each
    game's final state and number of phases. The first `n` are `simulate`'s `n` games
    with that seed, however many are taken at a time (the balance lab plays a figure in
    batches, and stops when its time is up)."""
    rng = Random(seed)
    while True:
        yield play_out(rules, options, players, rng, strategy)


def play(rules: Ruleset, options: Mapping[str, Any], players: int, rng: Random) -> tuple[str, int]:
    """One whole game between bots: the winning side and the number of phases played."""
    state, phases = play_out(rules, options, players, rng)
    return str(state.winner), phases


def play_out(
    rules: Ruleset, options: Mapping[str, Any], players: int, rng: Random, strategy: str = UNIFORM
) -> tuple[State, int]:
    """One whole game between bots: the final state and the number of phases played."""
    if strategy == PEOPLE:
        return play_like_people(rules, options, players, rng)
    if strategy == TALK:
        return play_talking(rules, options, players, rng)
    if strategy != UNIFORM:
        raise ValueError(f"unknown strategy {strategy!r}")
    state, _ = rules.setup(options, players, rng.getrandbits(64))
    phases = 0
    while state.winner is None:
        state, _ = resolve(state, bot_orders(state, rng), rng, checked=True)
        phases = _counted(phases, state)
    return state, phases


def bot_orders(state: State, rng: Random) -> dict[int, Order]:
    """A bot's card for every seat the open step asks."""
    return bot_cards(phase(state).slots, rng)


def play_like_people(rules: Ruleset, options: Mapping[str, Any], players: int, rng: Random) -> tuple[State, int]:
    """One whole game between bots that play from what their seats were told (`people`):
    each seat learns from the events it may see, and writes its cards from its slot and
    that memory alone."""
    state, events = rules.setup(options, players, rng.getrandbits(64))
    memories = {seat: Memory(seat) for seat in range(players)}
    lessons, aims = rules.lessons(), rules.aims()
    remember(memories, events, lessons)
    phases = 0
    while state.winner is None:
        cards = people_cards(phase(state).slots, memories, aims, rng)
        state, events = resolve(state, cards, rng, checked=True)
        remember(memories, events, lessons)
        phases = _counted(phases, state)
    return state, phases


def play_talking(
    rules: Ruleset, options: Mapping[str, Any], players: int, rng: Random, temper: Temper = TEMPER
) -> tuple[State, int]:
    """One whole game between bots that talk (`talkers`): each seat learns from the
    events it may see, the public memory from the public ones, and every day is talked
    over in the square before the votes."""
    state, events = rules.setup(options, players, rng.getrandbits(64))
    table = Table.seated(players, rng, temper)
    memories = table.memories
    lessons, aims = rules.lessons(), rules.aims()
    remember(memories, events, lessons)
    phases = 0
    while state.winner is None:
        cards = talking_cards(table, phase(state), aims, rng)
        state, events = resolve(state, cards, rng, checked=True)
        remember(memories, events, lessons)
        phases = _counted(phases, state)
    return state, phases
