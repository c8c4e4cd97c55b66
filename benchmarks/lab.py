#!/usr/bin/env python3
"""The balance lab's time for a 12-player setup, beside bare `simulate` runs of the same
games in the same process, and the ratios between them.

First the lab's study without a budget (`engine.lab.study`): the setup and the counts
either side of it (11, 12, 13 players) with the lab's two bot strategies, `--games` games
each, against `simulate` called for exactly those games (same counts, strategies, seeds)
and nothing else; both in turns (bare, lab, bare...), best of `--repeat`.

Then the whole answer the web gives, `--repeat` times: the figures within the web's
budget and, for the side they flag (else the side farthest from even), the race of the
option changes within its own, given the figures' share as the web gives it, against
the goal of two seconds (issue 39); each time followed by the bare `simulate` runs of
exactly the games that answer played (each figure's, each change's, and the setup's own
first games the race compares the changes with). The ratios, not the absolute times,
are the figures to compare between machines: what the lab adds to the games it plays.

    python benchmarks/lab.py [--ruleset classic] [--players 12] [--set wolves=1 ...]
                             [--games N] [--repeat R]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from werewolf import engine  # noqa: E402
from werewolf.engine import lab  # noqa: E402
from werewolf.engine.lab import STRATEGIES  # noqa: E402
from werewolf.engine.simulate import simulate  # noqa: E402

WEB_SECONDS, SUGGEST_SECONDS = 0.9, 0.9
"""The budgets the web side gives (werewolf/games/lab.py, which imports Django)."""

GOAL = 2.0
"""The whole answer's goal, in seconds (issue 39)."""


def bare(ruleset: str, players: int, options: dict[str, Any], games: int) -> float:
    started = time.perf_counter()
    for count in (players - 1, players, players + 1):
        for strategy in STRATEGIES:
            simulate(ruleset, count, options, games, lab.SEED, strategy=strategy)
    return time.perf_counter() - started


def studied(ruleset: str, players: int, options: dict[str, Any], games: int) -> float:
    started = time.perf_counter()
    lab.study(ruleset, players, options, games=games)
    return time.perf_counter() - started


def whole(ruleset: str, players: int, options: dict[str, Any]) -> tuple[float, float, list[tuple[Any, ...]]]:
    """The web's answer: its figures' time, its suggestion's time, and the runs it played
    (count, options, strategy, games) for the bare replay."""
    started = time.perf_counter()
    result = lab.study(ruleset, players, options, seconds=WEB_SECONDS)
    figured = time.perf_counter() - started
    judged = result.at(players, lab.JUDGE)
    assert judged is not None
    side = result.flagged.side if result.flagged else max(judged.shares, key=lambda s: abs(s.share - 0.5)).side
    started = time.perf_counter()
    found = lab.suggest(ruleset, players, options, side, lab.JUDGE, seconds=SUGGEST_SECONDS, base=judged.of(side))
    suggested = time.perf_counter() - started
    runs: list[tuple[Any, ...]] = [(f.players, options, f.strategy, f.games) for f in result.figures]
    checked = engine.options(ruleset, options, players)
    runs.append((players, checked, lab.JUDGE, lab.SAME))
    for change in found.changes:
        games = lab.SAME if change.same else change.share.games
        runs.append((players, {**checked, change.option: change.value}, lab.JUDGE, games))
    print(
        f"  the whole answer: figures {figured:.3f} s ({sum(f.games for f in result.figures)} games), "
        f"the suggestion for {side} {suggested:.3f} s ({sum(run[3] for run in runs[len(result.figures) :])} games, "
        f"{len(found.changes)} changes, {sum(change.same for change in found.changes)} changing nothing, "
        f"{len(found.rivals)} rivals left)"
    )
    best = found.best
    if best is not None:
        print(f"    suggested: {best.option}={best.value}, {side} {100 * best.share.share:.0f} % of {best.share.games}")
    return figured, suggested, runs


def replayed(ruleset: str, runs: list[tuple[Any, ...]]) -> float:
    started = time.perf_counter()
    for count, options, strategy, games in runs:
        simulate(ruleset, count, options, games, lab.SEED, strategy=strategy)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="classic")
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE", dest="options")
    parser.add_argument("--games", type=int, default=lab.GAMES, help="games per figure (count and strategy)")
    parser.add_argument("--repeat", type=int, default=5, help="best of this many runs of each, taken in turns")
    args = parser.parse_args()
    options: dict[str, Any] = dict(item.partition("=")[::2] for item in args.options)
    best = [float("inf"), float("inf")]
    for _ in range(args.repeat):
        for number, run in enumerate((bare, studied)):
            best[number] = min(best[number], run(args.ruleset, args.players, options, args.games))
    total = 3 * len(STRATEGIES) * args.games
    print(f"{args.ruleset}, {args.players} players and either side, both strategies, {args.games} games a figure")
    print(f"  options {options or 'the defaults'}")
    print(f"{total} games each, best of {args.repeat} runs")
    print(f"  bare simulate runs    {best[0]:8.3f} s   {total / best[0]:8.0f} games/s")
    print(f"  the lab's study       {best[1]:8.3f} s   {total / best[1]:8.0f} games/s")
    print(f"  ratio lab / bare      {best[1] / best[0]:8.2f}x")
    print(f"The whole answer the web gives (figures within {WEB_SECONDS} s, the suggestion within {SUGGEST_SECONDS} s)")
    times, bares = [], []
    for _ in range(args.repeat):
        figured, suggested, runs = whole(args.ruleset, args.players, options)
        times.append(figured + suggested)
        bares.append(replayed(args.ruleset, runs))
        print(f"    whole {times[-1]:.3f} s, the same games bare {bares[-1]:.3f} s, ratio {times[-1] / bares[-1]:.2f}x")
    print(f"  whole answer, best of {args.repeat}: {min(times):.3f} s (goal {GOAL} s), worst {max(times):.3f} s")
    print(f"  ratio whole answer / bare simulate runs of its games {sum(times) / sum(bares):8.2f}x")


if __name__ == "__main__":
    main()
