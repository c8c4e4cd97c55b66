#!/usr/bin/env python3
"""A digest of every bot game of a set of setups, to show that a change made the games
cheaper without changing one: the same seed, the same game, card for card and event for
event. Run it before the change (say from `git archive` of the base) and after, then
compare the two files: the games that differ, setup by setup, and the first of them.

    python benchmarks/game_digests.py write FILE [--games 300] [--ruleset tabula ...]
    python benchmarks/game_digests.py compare BEFORE AFTER

Each game's digest covers every step's cards (as the bots wrote them), every event the
engine gave back, and the game's end (winner, who lived, whose card was shown, steps,
phases), for both of the lab's strategies (`lab.STRATEGIES`), seed 1 (`lab.SEED`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from werewolf.engine import lab, rulesets  # noqa: E402
from werewolf.engine import simulate as simulation  # noqa: E402

SETUPS = [
    ("tabula", 8),
    ("tabula", 12),
    ("tabula", 13),
    ("tabula", 16),
    ("tabula", 24),
    ("lunapiena", 12),
    ("lunapiena", 16),
    ("lunapiena", 20),
    ("classic", 12),
    ("classic", 16),
    ("mafia", 13),
    ("lupusburg", 6),
    ("lupusburg-goals", 8),
]


def write(path: str, games: int, only: list[str]) -> None:
    digest = hashlib.sha1()
    resolve = simulation.resolve

    def digested(state: Any, cards: Any, rng: Any, checked: bool = False) -> Any:
        after = resolve(state, cards, rng, checked=checked)
        digest.update(repr(sorted((seat, repr(card)) for seat, card in cards.items())).encode())
        for event in after[1]:
            digest.update(json.dumps(event.to_json(), sort_keys=True).encode())
        return after

    simulation.resolve = digested  # type: ignore[assignment]
    found: dict[str, list[str]] = {}
    for ruleset, players in SETUPS:
        if only and ruleset not in only:
            continue
        rules = rulesets.get(ruleset)
        options = rules.options({}, players)
        for strategy in lab.STRATEGIES:
            played = simulation.outcomes(rules, options, players, lab.SEED, strategy)
            marks = []
            for _ in range(games):
                digest = hashlib.sha1()
                state, phases = next(played)
                digest.update(repr((state.winner, state.alive, state.revealed, state.index, phases)).encode())
                marks.append(digest.hexdigest()[:16])
            found[f"{ruleset} {players} {strategy}"] = marks
            print(f"{ruleset} {players} {strategy}: {games} games", flush=True)
    Path(path).write_text(json.dumps(found))


def compare(before: str, after: str) -> int:
    old, new = json.loads(Path(before).read_text()), json.loads(Path(after).read_text())
    differ = 0
    for setup, marks in new.items():
        if setup not in old:
            print(f"{setup}: not in {before}")
            continue
        count = min(len(marks), len(old[setup]))
        changed = [number for number in range(count) if marks[number] != old[setup][number]]
        said = f"{len(changed)} differ, the first #{changed[0]}" if changed else "all alike"
        print(f"{setup}: {count} games, {said}")
        differ += bool(changed)
    return 1 if differ else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    writing = commands.add_parser("write")
    writing.add_argument("path")
    writing.add_argument("--games", type=int, default=300)
    writing.add_argument("--ruleset", action="append", default=[])
    comparing = commands.add_parser("compare")
    comparing.add_argument("before")
    comparing.add_argument("after")
    args = parser.parse_args()
    if args.command == "write":
        write(args.path, args.games, args.ruleset)
    else:
        sys.exit(compare(args.before, args.after))


if __name__ == "__main__":
    main()
