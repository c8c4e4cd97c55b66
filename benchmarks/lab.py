#!/usr/bin/env python3
"""The balance lab's time for a 12-player setup, beside one bare `simulate` run of the
same games in the same process, and the ratio between them.

The lab (`engine.lab.study`, no time budget) plays the setup and the counts either side
of it (11, 12, 13 players) with the lab's two bot strategies, `--games` games each; the bare run
is `simulate` called for exactly those games (same counts, strategies, seeds) and
nothing else. Both run in turns (bare, lab, bare...), best of `--repeat`. The ratio, not
the absolute times, is the figure to compare between machines: what the lab adds to the
games it plays. Then, once, what the web side asks: the study within its time budget and
the search for the option that evens a lopsided setup most, each in seconds.

    python benchmarks/lab.py [--ruleset classic] [--players 12] [--games N] [--repeat R]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from werewolf.engine import lab  # noqa: E402
from werewolf.engine.lab import STRATEGIES  # noqa: E402
from werewolf.engine.simulate import simulate  # noqa: E402

WEB_SECONDS, SUGGEST_SECONDS = 1.5, 3.0
"""The budgets the web side gives (werewolf/games/lab.py, which imports Django)."""


def bare(ruleset: str, players: int, games: int) -> float:
    started = time.perf_counter()
    for count in (players - 1, players, players + 1):
        for strategy in STRATEGIES:
            simulate(ruleset, count, {}, games, lab.SEED, strategy=strategy)
    return time.perf_counter() - started


def studied(ruleset: str, players: int, games: int) -> float:
    started = time.perf_counter()
    lab.study(ruleset, players, {}, games=games)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="classic")
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--games", type=int, default=lab.GAMES, help="games per figure (count and strategy)")
    parser.add_argument("--repeat", type=int, default=5, help="best of this many runs of each, taken in turns")
    args = parser.parse_args()
    best = [float("inf"), float("inf")]
    for _ in range(args.repeat):
        for number, run in enumerate((bare, studied)):
            best[number] = min(best[number], run(args.ruleset, args.players, args.games))
    total = 3 * len(STRATEGIES) * args.games
    print(f"{args.ruleset}, {args.players} players and either side, both strategies, {args.games} games a figure")
    print(f"{total} games each, best of {args.repeat} runs")
    print(f"  bare simulate runs    {best[0]:8.3f} s   {total / best[0]:8.0f} games/s")
    print(f"  the lab's study       {best[1]:8.3f} s   {total / best[1]:8.0f} games/s")
    print(f"  ratio lab / bare      {best[1] / best[0]:8.2f}x")
    started = time.perf_counter()
    result = lab.study(args.ruleset, args.players, {}, seconds=WEB_SECONDS)
    within = time.perf_counter() - started
    played = sum(figures.games for figures in result.figures)
    print(f"  within the web's budget ({WEB_SECONDS} s): {within:.3f} s, {played} games")
    side = result.flagged.side if result.flagged else result.sides[0]
    started = time.perf_counter()
    changes = lab.suggest(args.ruleset, args.players, {}, side, lab.JUDGE, seconds=SUGGEST_SECONDS)
    print(
        f"  the best option change for {side} ({len(changes)} tried, budget {SUGGEST_SECONDS} s): "
        f"{time.perf_counter() - started:.3f} s"
    )


if __name__ == "__main__":
    main()
