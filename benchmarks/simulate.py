#!/usr/bin/env python3
"""Bot games per second through the full engine, beside a minimal inline model in the
same process, and the ratio between them, for both rulesets.

Classic: 9 players, 2 wolves, no Seer, night first; wolves kill a uniformly random
non-wolf, everyone votes for a uniformly random other living player, plurality with
random ties; the model plays exactly that. Tabula: 24 players with every special the
table reaches (the two-round day, the whole night), beside the same model at 24 players
with 3 wolves, a lower bound for any game of that size. Both sides play the same number
of games with the same kind of random source, in turns (model, engine, model...); the
ratios, not the absolute speeds, are the figures to compare between machines (the goals:
classic no slower than 10.7x its model, aiming at 5x; Tabula at 24 players at least
1,000 games/s).

    python benchmarks/simulate.py [--games N] [--repeat R] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from collections import Counter
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from werewolf.engine.rulesets import get  # noqa: E402
from werewolf.engine.simulate import play  # noqa: E402

PLAYERS, WOLVES = 9, 2
OPTIONS = {"wolves": WOLVES, "seers": 0, "day_deadline": "plurality", "tie": "random"}


def minimal_game(rng: Random, players: int = PLAYERS, wolves: int = WOLVES) -> str:
    """The same game with nothing but lists: the baseline."""
    wolf = [True] * wolves + [False] * (players - wolves)
    rng.shuffle(wolf)
    alive = list(range(players))
    while True:
        prey = [seat for seat in alive if not wolf[seat]]
        alive.remove(rng.choice(prey))
        if wolves >= len(alive) - wolves:
            return "wolves"
        votes = Counter(rng.choice([other for other in alive if other != voter]) for voter in alive)
        best = max(votes.values())
        lynched = rng.choice(sorted(seat for seat, count in votes.items() if count == best))
        alive.remove(lynched)
        if wolf[lynched]:
            wolves -= 1
            if wolves == 0:
                return "village"
        if wolves >= len(alive) - wolves:
            return "wolves"


def full_engine(games: int, seed: int) -> Counter[str]:
    rules = get("classic")
    options = rules.options(OPTIONS, PLAYERS)
    rng = Random(seed)
    return Counter(play(rules, options, PLAYERS, rng)[0] for _ in range(games))


def baseline(games: int, seed: int) -> Counter[str]:
    rng = Random(seed)
    return Counter(minimal_game(rng) for _ in range(games))


def tabula_engine(games: int, seed: int) -> Counter[str]:
    rules = get("tabula")
    options = rules.options({}, TABULA_PLAYERS)
    rng = Random(seed)
    return Counter(play(rules, options, TABULA_PLAYERS, rng)[0] for _ in range(games))


def tabula_baseline(games: int, seed: int) -> Counter[str]:
    rng = Random(seed)
    return Counter(minimal_game(rng, TABULA_PLAYERS, 3) for _ in range(games))


TABULA_PLAYERS = 24


def rates(model, engine, games: int, repeat: int) -> tuple[float, float, Counter[str], Counter[str]]:
    """The best rate of each of `model` and `engine` over `repeat` runs, taken in turns
    (model, engine, model, engine...) so that a machine's drift in speed (another
    tenant, the clock) touches both alike."""
    best = [0.0, 0.0]
    wins: list[Counter[str]] = [Counter(), Counter()]
    for attempt in range(repeat):
        for number, run in enumerate((model, engine)):
            started = time.perf_counter()
            wins[number] = run(games, attempt + 1)
            best[number] = max(best[number], games / (time.perf_counter() - started))
    return best[0], best[1], wins[0], wins[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5, help="best of this many runs of each, taken in turns")
    parser.add_argument("--profile", action="store_true", help="also print where the full engine spends its time")
    args = parser.parse_args()
    model_rate, engine_rate, model_wins, engine_wins = rates(baseline, full_engine, args.games, args.repeat)
    print(f"classic, {PLAYERS} players, {WOLVES} wolves, no seer, plurality with random ties")
    print(f"{args.games} games each, best of {args.repeat} runs")
    print(f"  minimal inline model  {model_rate:10.0f} games/s   village wins {model_wins['village'] / args.games:.3f}")
    print(
        f"  full engine           {engine_rate:10.0f} games/s   village wins {engine_wins['village'] / args.games:.3f}"
    )
    print(f"  ratio (model/engine)  {model_rate / engine_rate:10.1f}x   goal: within 5x (17.4x before the contract)")
    tabula_games = max(1, args.games // 4)
    model_rate, engine_rate, _, tabula_wins = rates(tabula_baseline, tabula_engine, tabula_games, args.repeat)
    shares = "  ".join(f"{side} {count / tabula_games:.3f}" for side, count in sorted(tabula_wins.items()))
    print(f"tabula, {TABULA_PLAYERS} players, every special the table reaches; {tabula_games} games each")
    print(f"  minimal inline model  {model_rate:10.0f} games/s   (classic rules, 3 wolves)")
    print(f"  full engine           {engine_rate:10.0f} games/s   {shares}")
    print(f"  ratio (model/engine)  {model_rate / engine_rate:10.1f}x   goal: at least 1,000 games/s")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(full_engine, args.games // 4, 99)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
