"""The balance lab: each side's chance of winning a setup, from simulated games.

`study` plays a setup (ruleset, players, options) with the lab's two bot strategies (bots
that never talk, bots that talk as players do), and the counts on either side of it within
the ruleset's range, and gives each side's share of the wins with its standard error; a
side winning more than `LOPSIDED` with the talking bots is flagged.
`suggest` then tries every single change of one option and says which moves the
flagged side's share most towards even. Every run is seeded, so a setup gives the same
figures each time it is asked (the web side keeps them, too)."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import rulesets
from .errors import SetupError
from .options import describe
from .simulate import PEOPLE, TALK, simulate

GAMES = 400
"""Games per figure: a share's standard error is at most 2.5 points."""

SUGGEST_GAMES = 200
"""Games per option change tried by `suggest`."""

FEWEST = 100
"""The fewest games a figure is given when a time budget runs short."""

SEED = 1
"""Every figure's seed: the same games for a setup and its neighbours."""

LOPSIDED = 0.7
"""A side winning more than this share of the games is flagged."""

STRATEGIES = (PEOPLE, TALK)
"""The strategies the lab plays: bots that never talk (each plays from what its seat was
told, the wolves hunting together while the village votes blind) and bots that talk as
players do (the Seer comes out, wolves counter-claim, the square follows its leading
suspect). The uniform random bots stay the simulator's, checked against closed formulas."""

JUDGE = TALK
"""The strategy whose figures flag a setup: people talk, and a setup is balanced or not
for a table that does."""

Z95 = 1.96
"""A 95 % confidence interval is the share plus or minus this many standard errors."""


@dataclass(frozen=True, slots=True)
class Share:
    """One side's wins among `games`, its share and the share's standard error."""

    side: str
    wins: int
    games: int

    @property
    def share(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def error(self) -> float:
        """The share's standard error (binomial)."""
        p = self.share
        return math.sqrt(p * (1 - p) / self.games) if self.games else 0.0

    @property
    def margin(self) -> float:
        """Half the width of the share's 95 % confidence interval."""
        return Z95 * self.error


@dataclass(frozen=True, slots=True)
class Figures:
    """The shares of each side for one count of players and one strategy."""

    players: int
    strategy: str
    shares: tuple[Share, ...]

    def of(self, side: str) -> Share:
        return next((share for share in self.shares if share.side == side), Share(side, 0, self.games))

    @property
    def games(self) -> int:
        return self.shares[0].games if self.shares else 0


@dataclass(frozen=True, slots=True)
class Study:
    """A setup's figures: for each count studied (the asked one and its neighbours
    within the ruleset's range) and each strategy; `flagged` is the side winning more
    than `LOPSIDED` at the asked count with the `JUDGE` strategy (with any of those
    studied, when it is not among them), or None."""

    ruleset: str
    players: int
    options: Mapping[str, Any]
    sides: tuple[str, ...]
    figures: tuple[Figures, ...]
    flagged: Share | None

    def at(self, players: int, strategy: str) -> Figures | None:
        return next((f for f in self.figures if f.players == players and f.strategy == strategy), None)

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(sorted({figures.players for figures in self.figures}))


@dataclass(frozen=True, slots=True)
class Change:
    """One option set otherwise, and the share the flagged side then wins."""

    option: str
    value: Any
    share: Share
    moved: float
    """How far the share moved towards even (points of share; negative: away)."""


def figures(
    ruleset: str, players: int, raw_options: Mapping[str, Any], strategy: str, games: int, seed: int = SEED
) -> Figures:
    """Each side's share over `games` games of one setup with bots of `strategy`."""
    run = simulate(ruleset, players, raw_options, games, seed, strategy=strategy)
    shares = tuple(Share(side, wins, games) for side, wins in sorted(run.wins.items()))
    return Figures(players, strategy, shares)


def _joined(first: Figures, second: Figures) -> Figures:
    """The figures of two runs of the same setup, as one."""
    games = first.games + second.games
    sides = sorted({share.side for share in (*first.shares, *second.shares)})
    shares = tuple(Share(side, first.of(side).wins + second.of(side).wins, games) for side in sides)
    return Figures(first.players, first.strategy, shares)


class Budget:
    """Games per figure within a time budget: each figure gets `games`, or, once the
    figures so far show that the rest would not fit in `seconds`, an even share of the
    time left at the pace measured (never fewer than `FEWEST`). Without `seconds`, every
    figure gets `games` (the same figures on any machine)."""

    def __init__(self, games: int, seconds: float | None) -> None:
        self.games, self.seconds = games, seconds
        self.started = time.perf_counter()
        self.played = 0

    def next(self, left: int) -> int:
        """The games for the next figure, `left` figures (this one included) to go."""
        if self.seconds is None or not self.played:
            return self.games
        spent = time.perf_counter() - self.started
        pace = spent / self.played
        fits = (self.seconds - spent) / left / pace
        return max(FEWEST, min(self.games, int(fits)))

    def run(self, ruleset: str, players: int, options: Mapping[str, Any], strategy: str, left: int) -> Figures:
        """The next figure; the first, with a budget, starts with `FEWEST` games to
        measure the pace, then plays the rest it is given at that pace."""
        if self.seconds is None or self.played:
            result = figures(ruleset, players, options, strategy, self.next(left))
            self.played += result.games
            return result
        result = figures(ruleset, players, options, strategy, min(FEWEST, self.games))
        self.played += result.games
        more = self.next(left) - result.games
        if more > 0:
            result = _joined(result, figures(ruleset, players, options, strategy, more, SEED + 1))
            self.played += more
        return result


def study(
    ruleset: str,
    players: int,
    raw_options: Mapping[str, Any],
    games: int = GAMES,
    strategies: tuple[str, ...] = STRATEGIES,
    seconds: float | None = None,
) -> Study:
    """The figures of a setup and of the counts either side of it (those the ruleset
    takes and the options allow), the asked count first, within `seconds` if given
    (`Budget`). An invalid setup raises `SetupError`."""
    rules = rulesets.get(ruleset)
    checked = rules.options(raw_options, players)
    counts = [players]
    for count in (players - 1, players + 1):
        if not rules.min_players <= count <= rules.max_players:
            continue
        try:
            rules.options(raw_options, count)
        except SetupError:
            continue
        counts.append(count)
    budget = Budget(games, seconds)
    cells = [(count, strategy) for count in counts for strategy in strategies]
    found = [
        budget.run(ruleset, count, raw_options, strategy, len(cells) - n) for n, (count, strategy) in enumerate(cells)
    ]
    found.sort(key=lambda f: (f.players, strategies.index(f.strategy)))
    sides = tuple(sorted({share.side for f in found for share in f.shares}))
    judged = [f for f in found if f.players == players and (f.strategy == JUDGE or JUDGE not in strategies)]
    asked = [share for f in judged for share in f.shares if share.share > LOPSIDED]
    flagged = max(asked, key=lambda share: share.share, default=None)
    return Study(ruleset, players, checked, sides, tuple(found), flagged)


def changes(ruleset: str, players: int, raw_options: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Every single change of one option of the checked setup the ruleset accepts: a
    yes/no turned, a number one up or down, another choice, an item added to or taken
    from a list."""
    rules = rulesets.get(ruleset)
    checked = rules.options(raw_options, players)
    found: list[tuple[str, Any]] = []
    for spec in describe(rules.options_type):
        if spec.name not in checked:
            continue
        value = checked[spec.name]
        tried: list[Any] = []
        if spec.kind == "bool":
            tried = [not value]
        elif spec.kind == "int":
            tried = [value - 1, value + 1]
        elif spec.kind == "choice":
            tried = [choice for choice in spec.choices if choice != value]
        elif spec.kind == "choices":
            items = list(value)
            tried = [
                [item for item in items if item != choice] if choice in items else [*items, choice]
                for choice in spec.choices
            ]
        for new in tried:
            try:
                rules.options({**checked, spec.name: new}, players)
            except SetupError:
                continue
            found.append((spec.name, new))
    return found


def suggest(
    ruleset: str,
    players: int,
    raw_options: Mapping[str, Any],
    side: str,
    strategy: str,
    games: int = SUGGEST_GAMES,
    seconds: float | None = None,
) -> tuple[Change, ...]:
    """Each single option change (`changes`) with the share `side` then wins with bots
    of `strategy`, the one moving it most towards even first, within `seconds` if given
    (`Budget`; the setup itself is played again with as many games as each change)."""
    rules = rulesets.get(ruleset)
    checked = rules.options(raw_options, players)
    tried = changes(ruleset, players, checked)
    budget = Budget(games, seconds)
    base = budget.run(ruleset, players, checked, strategy, len(tried) + 1).of(side).share
    found = []
    for n, (name, value) in enumerate(tried):
        share = budget.run(ruleset, players, {**checked, name: value}, strategy, len(tried) - n).of(side)
        found.append(Change(name, value, share, abs(base - 0.5) - abs(share.share - 0.5)))
    return tuple(sorted(found, key=lambda change: -change.moved))
