#!/usr/bin/env python3
"""The "ideal" column of docs/lab.md's Lupus in Tabula, Luna Piena and Mafia tables: the
village's share for a village that believes its Seer's every answer and faces wolves that
never lie, everything else a uniform draw. A model that plays no card: a bound on what the cards
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

Mafia's presets (`--ruleset mafia`) play the same model with the Cop as the Seer (none in
a setup without one) and the Mafia as the wolves, a Godfather among them seen as town by
the Cop; a day start has no night before the first day (the Cop's first check comes after
it), a night start a kill on the first night. The Doctor, the Vigilante and the
Roleblocker count as Townspeople.

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
MAFIA_TABLES = (
    ("vanilla", 7),
    ("vanilla", 9),
    ("vanilla", 13),
    ("mini_cop", 7),
    ("mini_doctor", 7),
    ("normal", 13),
    ("power", 13),
)
"""The Mafia setups docs/lab.md's Mafia section measures."""


def table(ruleset: str, players: int) -> tuple[int, bool]:
    """The count of Werewolves the New game form's defaults deal at `players`, and
    whether their first night is quiet (the pack kills nobody)."""
    state, _events = engine.setup(ruleset, {}, players, 1)
    wolves = Counter(state.rules.roles)[WOLF]
    quiet = engine.options(ruleset, {}, players).get("first_night") == "quiet"
    return wolves, quiet


def mafia_table(preset: str, players: int, start: str) -> tuple[int, int, bool]:
    """The Mafia (of them, Godfathers) the preset deals at `players`, and whether it has
    a Cop, the options as the New game form completes them."""
    options = engine.options("mafia", {"preset": preset, "start": start}, players)
    return options["goons"] + options["godfathers"], options["godfathers"], bool(options["cops"])


def village_wins(
    players: int,
    wolves: int,
    quiet: bool,
    rng: Random,
    *,
    seer: bool = True,
    day_start: bool = False,
    hidden: int = 0,
) -> bool:
    """One game of the model: whether the village wins it (without a `seer`, every lynch
    is a draw; `day_start`, a day before the first night; `hidden`, wolves the Seer sees as
    villagers)."""
    pack = set(rng.sample(range(players), wolves))
    unseen = set(sorted(pack)[:hidden])
    seer_seat = rng.choice([seat for seat in range(players) if seat not in pack]) if seer else -1
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

    night = 0 if day_start else 1
    while True:
        if night and not (night == 1 and quiet):
            if out and seer_seat in living:
                victim = seer_seat
            else:
                victim = rng.choice(sorted(living - pack))
            living.discard(victim)
            if (end := over()) is not None:
                return end
        if night and seer_seat in living:
            unknown = sorted(living - {seer_seat} - set(known))
            if unknown:
                target = rng.choice(unknown)
                known[target] = target in pack and target not in unseen
        night += 1
        found = sorted(seat for seat, wolf in known.items() if wolf and seat in living)
        if found and seer_seat in living:
            lynched = found[0]
            out = True
        else:
            steered = out and seer_seat in living
            cleared = {seat for seat, wolf in known.items() if not wolf} | {seer_seat} if steered else set()
            lynched = rng.choice(sorted(living - cleared))
        living.discard(lynched)
        if (end := over()) is not None:
            return end


def ideal(ruleset: str, players: int, games: int, seed: int) -> float:
    """The model village's share of `games` games of the ruleset's table at `players`."""
    wolves, quiet = table(ruleset, players)
    rng = Random(seed)
    return sum(village_wins(players, wolves, quiet, rng) for _ in range(games)) / games


def mafia_ideal(preset: str, players: int, start: str, games: int, seed: int) -> float:
    """The model town's share of `games` games of a Mafia preset at `players`."""
    mafia, godfathers, cop = mafia_table(preset, players, start)
    rng = Random(seed)
    return (
        sum(
            village_wins(players, mafia, False, rng, seer=cop, day_start=start == "day", hidden=godfathers)
            for _ in range(games)
        )
        / games
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ruleset", action="append", choices=(*RULESETS, "mafia"))
    args = parser.parse_args()
    if "mafia" in (args.ruleset or ()):
        print("| preset | players | Mafia | day start | night start |")
        print("|---|---|---|---|---|")
        for preset, players in MAFIA_TABLES:
            day, night = (
                round(100 * mafia_ideal(preset, players, start, args.games, args.seed)) for start in ("day", "night")
            )
            print(f"| {preset} | {players} | {mafia_table(preset, players, 'day')[0]} | {day} | {night} |", flush=True)
        print()
    for ruleset in [name for name in args.ruleset or RULESETS if name != "mafia"]:
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
