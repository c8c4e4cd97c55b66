"""The balance lab: each side's chance of winning a setup, from simulated games.

`study` plays a setup (ruleset, players, options) with the lab's two bot strategies (bots
that never talk, bots that talk as players do), and the counts on either side of it within
the ruleset's range, and gives each side's share of the wins with its standard error; a
side surely winning more than `LOPSIDED` with the talking bots is flagged (`Share.lopsided`).
`suggest` then tries the single changes of one option, the likeliest to even the setup
first (`order`), races those it tried (`race`) and says which moves the flagged side's
share most towards even, which others it could not tell from it, and which it had no time
to try. Both play in batches against a clock when given `seconds`, looked at before each
game past their floors: the whole answer (the figures, then the suggestion) has one budget,
`ANSWER_SECONDS`, of which the figures take what they need up to `FIGURES_SECONDS` and the
suggestion what they left (`suggest_seconds`, from the time the study recorded: docs/lab.md,
"The whole answer within two seconds"). Every run is seeded, so a setup gives the same
figures each time it is asked without a clock (the web side keeps them, too)."""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import rulesets
from .errors import SetupError
from .options import describe
from .simulate import PEOPLE, TALK, outcomes, simulate

GAMES = 400
"""Games per figure: a share's standard error is at most 2.5 points."""

SUGGEST_GAMES = 400
"""The most games `suggest` gives one option change."""

FEWEST = 100
"""The fewest games the judged figure (the asked count, the talking bots) is given
whatever the time budget: the flag stands on them. The others get their first `BATCH`
whatever the budget, and half as many as this as far as it allows (`fill`)."""

BATCH = 10
"""Games a figure or an option change plays at a time when its turn comes (the clock is
looked at before each game of it)."""

SAME = BATCH
"""The games an option change must play exactly as the setup itself did for `suggest`
to take it as changing nothing."""

JUDGED = 2
"""How many batches the judged figure (the asked count, the talking bots) plays for each
batch of the others when the time is short: the flag and the suggestion stand on it."""

CLOSE = 0.05
"""How near even, at most, another change may be than the suggested one once `suggest`
stops before its time is up: it stops when, at 95 % each, no other change tried is more
than this nearer even."""

SEED = 1
"""Every figure's seed: the same games for a setup and its neighbours."""

LOPSIDED = 0.65
"""A side winning more than this share of the games, sure at 95 % (`Share.lopsided`), is
flagged: the edge of the band (35 % to 65 % each side) in which people find a table even."""

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

RACE_Z = Z95
"""The standard errors of each share's interval in the option race (`Share.bounds`)."""

ANSWER_SECONDS = 1.7
"""The whole answer's budget: the figures (`study`) and then the suggestion (`suggest`)
together, on the clock of the process computing them. The web's goal is the figures and
the suggested change within two seconds at 12 players (issue 39), the New game page's two
requests counted; the 0.3 s it leaves are for the pages' own time (about 0.05 s a request:
the form read, the site's finished games, the rendering) and a loaded machine's margin
(the budget is held to a game, a few milliseconds at 12 players, and a busy machine gives
the process less than its wall clock). It is one budget, not two halves: figures that need
more than their share (their floors at a table whose games cost more) take it from the
suggestion, figures that need less leave it to it (`suggest_seconds`)."""

FIGURES_SECONDS = 0.85
"""The most of `ANSWER_SECONDS` the figures are given (`study`'s clock): half, the other
half the suggestion's race; the figures' floors (`fill`) are played whatever it, and take
more where a table's games cost more (150 games at Lupus in Tabula 12, 1.1 s by the wall
clock on the sixth session's quiet machine)."""

SUGGEST_FLOOR = 0.25
"""The least time the suggestion is given however long the figures took (`suggest_seconds`):
at Lupus in Tabula 12 about 70 talking games by the seventh session's CPU (the setup's
first ten and the first five or six changes' first ten), so that a lopsided setup gets
changes to compare and the page says how many it had no time to try (`Suggestion.untried`).
Only figures taking more than `ANSWER_SECONDS` less this (their floors at Tabula 20, 1.3
to 1.7 s of CPU then) make the whole answer overrun its budget, by what they took past it."""


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

    @property
    def bounds(self) -> tuple[float, float]:
        """The share's 95 % confidence interval by Wilson's score, which holds for the
        few games of a change `suggest` drops early (the normal one is 0 wide at 10 of
        10), and reaches no further than 0 and 1."""
        if not self.games:
            return 0.0, 1.0
        n, p, z = self.games, self.share, RACE_Z
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return max(0.0, centre - half), min(1.0, centre + half)

    @property
    def lopsided(self) -> bool:
        """Whether the side surely wins more than `LOPSIDED` of the games: the low end of
        its 95 % interval (`bounds`) above it. A table in the even band is then not
        flagged for its first hundred games' luck (a share of 71 % of 100 games is 62 %
        at its low end), and one no designer would suggest is at its floor already."""
        return self.bounds[0] > LOPSIDED

    @property
    def off_even(self) -> tuple[float, float]:
        """How far the share is from even (0.5), at least and at most, at 95 %."""
        low, high = self.bounds
        near = 0.0 if low <= 0.5 <= high else min(abs(low - 0.5), abs(high - 0.5))
        return near, max(abs(low - 0.5), abs(high - 0.5))


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
    within the ruleset's range) and each strategy; `flagged` is the side surely winning more
    than `LOPSIDED` (`Share.lopsided`) at the asked count with the `JUDGE` strategy (with any of those
    studied, when it is not among them), or None."""

    ruleset: str
    players: int
    options: Mapping[str, Any]
    sides: tuple[str, ...]
    figures: tuple[Figures, ...]
    flagged: Share | None
    seconds: float = field(default=0.0, compare=False)
    """The time the study took on its clock (`Clock.elapsed`), kept with its figures: a
    suggestion asked later, the figures found kept, still knows what the whole answer's
    budget has left (`suggest_seconds`). Not part of the figures: two studies of the same
    games are equal however long each took."""

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
    same: bool = False
    """Whether the change played the setup's very games (`SAME` of them): it made no
    difference the lab could see, and `share` is the setup's own."""
    rival: bool = False
    """Whether the search could not show, at 95 %, that the first change is at least as
    near even as this one, give or take `CLOSE` (its time ran out first)."""


@dataclass(frozen=True, slots=True)
class Suggestion:
    """What `suggest` found: the setup's own share of the side, and every change tried
    with its share, the nearest even first. With no `rivals` and nothing `untried`, the
    first is, at 95 % each and give or take `CLOSE`, the change that evens the setup most."""

    base: Share
    changes: tuple[Change, ...]
    untried: tuple[tuple[str, Any], ...] = ()
    """The changes (option, value) the clock left untried, in the order they would have
    been tried (`order`: the likeliest to even the setup were tried first)."""

    @property
    def rivals(self) -> tuple[Change, ...]:
        """The changes the search could not tell from the first (`Change.rival`)."""
        return tuple(change for change in self.changes if change.rival)

    @property
    def best(self) -> Change | None:
        """The first change, when it moves the share towards even at all."""
        return self.changes[0] if self.changes and self.changes[0].moved > 0 else None


def figures(
    ruleset: str, players: int, raw_options: Mapping[str, Any], strategy: str, games: int, seed: int = SEED
) -> Figures:
    """Each side's share over `games` games of one setup with bots of `strategy`."""
    run = simulate(ruleset, players, raw_options, games, seed, strategy=strategy)
    shares = tuple(Share(side, wins, games) for side, wins in sorted(run.wins.items()))
    return Figures(players, strategy, shares)


class Run:
    """One figure in the playing: the games of a setup with bots of one strategy from
    `seed`, played in as many batches as asked. After `n` games its figures are those of
    `figures(..., n)`, however the batches fell (`simulate.outcomes`), so a figure cut short
    by the clock is the first games of the one it would have been."""

    def __init__(self, ruleset: str, players: int, options: Mapping[str, Any], strategy: str, seed: int = SEED):
        rules = rulesets.get(ruleset)
        self.players, self.strategy = players, strategy
        self.games = 0
        self.wins: Counter[str] = Counter()
        self.marks: list[int] = []
        """After each game, a digest of every game so far (its deal, who lived, who was
        shown, the steps it took, the winner): two runs with the same mark after `n`
        games played the very same `n` games."""
        self._played = outcomes(rules, rules.options(options, players), players, seed, strategy)

    def play(self, games: int, clock: Clock | None = None) -> None:
        """Plays `games` games more, or fewer when `clock` is up first: it is looked at
        before each game, so a budget is overshot by one game at most, never by a batch."""
        for _ in range(games):
            if clock is not None and clock.up:
                return
            state, _ = next(self._played)
            self.wins[str(state.winner)] += 1
            mark = (state.seed, state.alive, state.revealed, state.index, state.winner)
            self.marks.append(hash((self.marks[-1] if self.marks else 0, mark)))
            self.games += 1

    def same(self, other: Run) -> bool:
        """Whether this run's games so far are the first of `other`'s, one for one."""
        return 0 < self.games <= other.games and self.marks[-1] == other.marks[self.games - 1]

    def figures(self) -> Figures:
        shares = tuple(Share(side, wins, self.games) for side, wins in sorted(self.wins.items()))
        return Figures(self.players, self.strategy, shares)

    def share(self, side: str) -> Share:
        return Share(side, self.wins[side], self.games)


class Clock:
    """A time budget: `up` once `seconds` have passed since it was made; never without.
    It reads the time from `now` (the wall's, `time.perf_counter`, looked up at each
    reading, so a benchmark may count the process's CPU instead; a test's fake clock its
    own), and says how long it has run (`elapsed`)."""

    def __init__(self, seconds: float | None) -> None:
        self.started = self.now()
        self.deadline = None if seconds is None else self.started + seconds

    def now(self) -> float:
        return time.perf_counter()

    @property
    def up(self) -> bool:
        return self.deadline is not None and self.now() >= self.deadline

    @property
    def elapsed(self) -> float:
        """The seconds since the clock was made."""
        return self.now() - self.started


def fill(runs: list[tuple[Run, int]], games: int, clock: Clock) -> None:
    """Plays each run (with its weight) up to `games` games. Whatever the clock, the
    judged one (weight `JUDGED`) plays `FEWEST` games, the flag's floor, and each other
    its first `BATCH`, so that every row has figures; then, while the clock allows, the
    run with the fewest games for its weight plays a batch as large as its weight (the
    heaviest first among equals): the others up to half the judged one's floor first,
    then all in proportion to their weights, until every run has its games. The clock is
    looked at before each game (`Run.play`), so the budget holds to a game, whatever a
    batch costs at this table. A budget cut short leaves the figures with games in
    proportion to their weights, the heaviest never behind; without one, every figure
    gets its `games` (the same figures on any machine)."""
    runs = sorted(runs, key=lambda pair: -pair[1])
    for run, weight in runs:
        run.play(min(FEWEST if weight >= JUDGED else BATCH, games))
    while not clock.up:
        behind = [(run, weight) for run, weight in runs if run.games < games]
        if not behind:
            return
        run, weight = min(behind, key=lambda pair: pair[0].games / pair[1])
        run.play(min(weight * BATCH, games - run.games), clock)


def study(
    ruleset: str,
    players: int,
    raw_options: Mapping[str, Any],
    games: int = GAMES,
    strategies: tuple[str, ...] = STRATEGIES,
    seconds: float | None = None,
    clock: Clock | None = None,
) -> Study:
    """The figures of a setup and of the counts either side of it (those the ruleset
    takes and the options allow), the asked count first, within `seconds` if given (or
    by `clock`, which tests give; `fill`), with the time they took on it (`Study.seconds`).
    An invalid setup raises `SetupError`."""
    clock = clock if clock is not None else Clock(seconds)
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
    runs = [Run(ruleset, count, raw_options, strategy) for count in counts for strategy in strategies]

    def judges(players_: int, strategy: str) -> bool:
        return players_ == players and (strategy == JUDGE or JUDGE not in strategies)

    fill([(run, JUDGED if judges(run.players, run.strategy) else 1) for run in runs], games, clock)
    found = sorted((run.figures() for run in runs), key=lambda f: (f.players, strategies.index(f.strategy)))
    sides = tuple(sorted({share.side for f in found for share in f.shares}))
    judged = [f for f in found if judges(f.players, f.strategy)]
    asked = [share for f in judged for share in f.shares if share.lopsided]
    flagged = max(asked, key=lambda share: share.share, default=None)
    return Study(ruleset, players, checked, sides, tuple(found), flagged, clock.elapsed)


def suggest_seconds(studied: Study) -> float:
    """The suggestion's time for the setup `studied`: what the whole answer's budget
    (`ANSWER_SECONDS`) has left after the time the study took (`Study.seconds`, kept with
    it, so the same whether the figures were computed in this request or found kept), and
    at least `SUGGEST_FLOOR`. Figures slower than their share (`FIGURES_SECONDS`) leave the
    suggestion less; figures that needed less leave it more. The web's views and
    `benchmarks/lab.py` both ask this."""
    return max(SUGGEST_FLOOR, ANSWER_SECONDS - studied.seconds)


def changes(ruleset: str, players: int, raw_options: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Every single change of one option of the checked setup the ruleset accepts: a
    yes/no turned, a number one up or down, another choice, an item added to or taken
    from a list. Each is made to the options as given (`changed`), so that what the
    ruleset fills in for the table follows it: another preset deals its own counts."""
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
                rules.options(changed(raw_options, spec.name, new), players)
            except SetupError:
                continue
            found.append((spec.name, new))
    return found


def changed(raw_options: Mapping[str, Any], name: str, value: Any) -> dict[str, Any]:
    """The options as given with one changed: what the ruleset fills in for the table
    (a preset's role counts, left out) it fills in again for the new value, and what was
    given stays as it was."""
    return {**raw_options, name: value}


def suggest(
    ruleset: str,
    players: int,
    raw_options: Mapping[str, Any],
    side: str,
    strategy: str,
    games: int = SUGGEST_GAMES,
    seconds: float | None = None,
    base: Share | None = None,
    seed: int = SEED,
    clock: Clock | None = None,
) -> Suggestion:
    """Each single option change (`changes`) with the share `side` then wins with bots
    of `strategy`, the one nearest even first, found by a race (`race`) within `seconds`
    if given (or by `clock`, which tests give), each change playing at most `games`.
    `base` is the setup's own share of `side` (the study's figure: its games are those
    of `seed`, as the changes' are); without it the setup is played `games` games.

    The changes are tried one by one in `order`, the likeliest to even the setup first,
    each playing a first `SAME` games: a change whose first games are the setup's own,
    one for one, is taken to change nothing (`Change.same`) and is not raced (the option
    made no difference to them: a tie rule where the day's votes never tied, say). Only
    the setup's own first games and the first change's are played whatever the clock, so
    that there is a change to suggest; a change the clock stops within its first games
    (their games dropped), and every one after it, is left untried (`Suggestion.untried`),
    so that the budget holds to a game however many changes a ruleset has."""
    rules = rulesets.get(ruleset)
    checked = rules.options(raw_options, players)
    clock = clock if clock is not None else Clock(seconds)
    own = Run(ruleset, players, checked, strategy, seed)
    own.play(SAME if base is not None else max(games, SAME))
    base = base if base is not None else own.share(side)
    ordered = order(ruleset, players, raw_options, changes(ruleset, players, raw_options), side, base.share)
    first = min(SAME, games)
    runs: list[Run] = []
    for name, value in ordered:
        run = Run(ruleset, players, changed(raw_options, name, value), strategy, seed)
        run.play(first, clock if runs else None)
        if run.games < first:
            break
        runs.append(run)
    tried, untried = ordered[: len(runs)], ordered[len(runs) :]
    raced = [run for run in runs if not run.same(own)]
    rivals = race(raced, side, games, clock) if raced else []
    found = [
        Change(name, value, base, 0.0, same=True)
        if run not in raced
        else Change(
            name,
            value,
            run.share(side),
            abs(base.share - 0.5) - abs(run.share(side).share - 0.5),
            rival=run in rivals,
        )
        for (name, value), run in zip(tried, runs, strict=True)
    ]
    return Suggestion(base, tuple(sorted(found, key=lambda change: -change.moved)), tuple(untried))


def order(
    ruleset: str, players: int, raw_options: Mapping[str, Any], tried: list[tuple[str, Any]], side: str, share: float
) -> list[tuple[str, Any]]:
    """The changes in the order `suggest` tries them, the likeliest to move `side`'s
    `share` towards even first, judged by the cards each deals (`deck`): first those
    dealing fewer cards of the side when it wins more than half (more when less), then
    those dealing other cards as many of the side, then those changing a rule and no
    card, last those dealing the side more cards when it wins more than half (fewer when
    less); within each, the ruleset's own order of its options (counts of roles first).
    Who is dealt what moves a setup most, as a rulebook's tables by players say: the
    changes that even the lab's flagged tables most are mostly of the cards (one
    werewolf or one Seer fewer, the Werehamster added: docs/lab.md)."""
    rules = rulesets.get(ruleset)
    towards = 1 if share > 0.5 else -1

    def dealt(options: Mapping[str, Any]) -> tuple[Counter[str], int]:
        checked = rules.options(options, players)
        cards = Counter(rules.deck(checked, players))
        cast = rules.cast(checked)
        return cards, sum(n for card, n in cards.items() if getattr(cast.get(card), "side", None) == side)

    cards, sides = dealt(raw_options)

    def rank(change: tuple[str, Any]) -> int:
        other, others = dealt(changed(raw_options, *change))
        if others * towards < sides * towards:
            return 0
        if others != sides:
            return 3
        return 1 if other != cards else 2

    return sorted(tried, key=rank)


def race(runs: list[Run], side: str, games: int, clock: Clock) -> list[Run]:
    """Plays the runs until the one nearest even (by `side`'s share) is shown to be so,
    batch by batch: the leader (the nearest even so far) and its strongest rival (the
    one that may, at 95 %, be nearest even of all), the pair the answer hangs on (the
    LUCB rule of best-arm identification: Kalyanakrishnan et al., 2012), so that a run
    far from even is soon left alone. A run playing the leader's very games is no rival
    of it. It stops when no other run may be more than `CLOSE` nearer even than the
    leader, when the clock is up, or when every rival has played `games`; it returns the
    rivals left (none when the leader stood)."""
    while True:
        leader = min(runs, key=lambda run: abs(run.share(side).share - 0.5))
        reach = leader.share(side).off_even[1] - CLOSE
        rivals = sorted(
            (run for run in runs if run is not leader and run.share(side).off_even[0] < reach and not run.same(leader)),
            key=lambda run: run.share(side).off_even[0],
        )
        if not rivals or clock.up:
            return rivals
        playing = [run for run in (leader, rivals[0]) if run.games < games]
        if not playing:
            playing = [run for run in rivals if run.games < games][:1]
            if not playing:
                return rivals
        for run in playing:
            run.play(min(BATCH, games - run.games), clock)
