#!/usr/bin/env python3
"""The "ideal" column of docs/lab.md's Lupus in Tabula and Luna Piena tables: the village's
share for a village that believes its Seer's every answer and faces wolves that never lie,
everything else a uniform draw. A model that plays no card: a bound on what the cards
alone can give a village, before anyone reads a face, not a simulation of the rules.

Each table is the rulebook's suggested one as the New game form deals it (the engine's
own deal, read for its count of Werewolves and whether the first night is quiet); the
model keeps only the Seer, the Werewolves and plain Villagers (the other characters count
as Villagers: they do not change the count of lynches). Then:

- each night but a quiet first, the wolves kill a non-wolf drawn at random (the Seer, once
  it came out); then the Seer, alive, inquires a living player it knows nothing of, drawn
  at random;
- each day the village lynches a wolf the Seer found (the Seer is then out), else a living
  player drawn at random, among those the Seer, once out and while it lives, has not
  cleared (nor the Seer itself);
- the end is judged as the rules judge it: the village wins when no wolf lives, the wolves
  when they are as many as the others.

    python benchmarks/ideal_village.py [--games 10000] [--seed 1] [--ruleset tabula ...]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from werewolf import engine  # noqa: E402

WOLF = "wolf"
RULESETS = ("tabula", "lunapiena")


def table(ruleset: str, players: int) -> tuple[int, bool]:
    """The count of Werewolves the New game form's defaults deal at `players`, and
    whether their first night is quiet (the pack kills nobody)."""
    state, _events = engine.setup(ruleset, {}, players, 1)
    wolves = Counter(state.rules.roles)[WOLF]
    quiet = engine.options(ruleset, {}, players).get("first_night") == "quiet"
    return wolves, quiet


def village_wins(players: int, wolves: int, quiet: bool, rng: Random) -> bool:
    """One game of the model: whether the village wins it."""
    pack = set(rng.sample(range(players), wolves))
    seer = rng.choice([seat for seat in range(players) if seat not in pack])
    living = set(range(players))
    known: dict[int, bool] = {}
    out = False

    def over() -> bool | None:
        left = len(living & pack)
        if not left:
            return True
        if left >= len(living) - left:
            return False
        return None

    night = 1
    while True:
        if not (night == 1 and quiet):
            if out and seer in living:
                victim = seer
            else:
                victim = rng.choice(sorted(living - pack))
            living.discard(victim)
            if (end := over()) is not None:
                return end
        if seer in living:
            unknown = sorted(living - {seer} - set(known))
            if unknown:
                target = rng.choice(unknown)
                known[target] = target in pack
        night += 1
        found = sorted(seat for seat, wolf in known.items() if wolf and seat in living)
        if found and seer in living:
            lynched = found[0]
            out = True
        else:
            steered = out and seer in living
            cleared = {seat for seat, wolf in known.items() if not wolf} | {seer} if steered else set()
            lynched = rng.choice(sorted(living - cleared))
        living.discard(lynched)
        if (end := over()) is not None:
            return end


def ideal(ruleset: str, players: int, games: int, seed: int) -> float:
    """The model village's share of `games` games of the ruleset's table at `players`."""
    wolves, quiet = table(ruleset, players)
    rng = Random(seed)
    return sum(village_wins(players, wolves, quiet, rng) for _ in range(games)) / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ruleset", action="append", choices=RULESETS)
    args = parser.parse_args()
    for ruleset in args.ruleset or RULESETS:
        rules = engine.rulesets.get(ruleset)
        print(f"| {ruleset} | Werewolves | quiet first night | ideal village |")
        print("|---|---|---|---|")
        for players in range(rules.min_players, rules.max_players + 1):
            wolves, quiet = table(ruleset, players)
            share = ideal(ruleset, players, args.games, args.seed)
            print(f"| {players} | {wolves} | {'yes' if quiet else 'no'} | {round(100 * share)} |", flush=True)
        print()


if __name__ == "__main__":
    main()
