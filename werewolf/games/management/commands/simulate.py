"""Play whole games between bots through the engine and count the wins by side."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from werewolf import engine
from werewolf.engine import SetupError
from werewolf.engine.rulesets import RULESETS
from werewolf.engine.simulate import STRATEGIES, UNIFORM, Stuck, simulate


class ProgressBar:
    """A one-line progress bar on standard error, redrawn in place."""

    def __init__(self, total: int, *, enabled: bool, width: int = 30) -> None:
        self.total, self.enabled, self.width = total, enabled, width
        self.started = time.perf_counter()

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        filled = self.width * done // self.total
        elapsed = time.perf_counter() - self.started
        rate = done / elapsed if elapsed > 0 else 0.0
        left = (self.total - done) / rate if rate else 0.0
        sys.stderr.write(
            f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{self.total} games"
            f"  {rate:,.0f}/s  {left:,.0f} s left "
        )
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


class Command(BaseCommand):
    help = (
        "Play GAMES whole games between bots through the same engine the server uses, and print "
        "the wins by side and the speed, for any ruleset (--ruleset). Bots read each card's schema "
        "and pick uniformly among its legal choices, leaving their own name out where another is "
        "legal: a wolf's list, an inquiry, a vote, a ballot alike. "
        "Examples: simulate --ruleset classic --players 9 --set wolves=2 --set seers=0 "
        "--set day_deadline=plurality --set tie=random --games 100000 --seed 1 --json; "
        "simulate --ruleset tabula --players 16 --games 20000; "
        "simulate --ruleset lupusburg-goals --players 6 (a scoring ruleset also prints each seat's mean score)"
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--ruleset", default=engine.listed()[0], choices=engine.listed())
        parser.add_argument("--players", type=int, default=9)
        parser.add_argument(
            "--set",
            action="append",
            default=[],
            metavar="OPTION=VALUE",
            dest="options",
            help="a game option of the ruleset (docs/rules.md), e.g. wolves=2 or first_night=normal (repeatable)",
        )
        parser.add_argument("--games", type=int, default=10000)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--strategy",
            default=UNIFORM,
            choices=STRATEGIES,
            help=(
                "the bots': uniform (any legal card), people (from what their seat knows, never "
                "talking) or talk (claiming, accusing and following the square before they vote)"
            ),
        )
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar, even on a terminal")

    def handle(self, *args: Any, **opts: Any) -> None:
        options = {}
        for item in opts["options"]:
            name, sep, value = item.partition("=")
            if not sep or not name:
                raise CommandError(f"--set takes OPTION=VALUE, not {item!r}")
            options[name.strip()] = value.strip()
        if opts["games"] < 1:
            raise CommandError("--games must be at least 1")
        bar = ProgressBar(opts["games"], enabled=sys.stderr.isatty() and not opts["no_progress"])
        try:
            result = simulate(
                opts["ruleset"],
                opts["players"],
                options,
                opts["games"],
                opts["seed"],
                bar.update,
                strategy=opts["strategy"],
            )
        except SetupError as error:
            if error.code == "player_count":
                rules = RULESETS[opts["ruleset"]]
                raise CommandError(
                    f"bad setup: --ruleset {opts['ruleset']} plays {rules.min_players} to {rules.max_players} "
                    f"players, not {opts['players']}"
                ) from None
            raise CommandError(f"bad setup: {error.code} ({error.option}={error.value!r})") from None
        except Stuck as stuck:
            raise CommandError(f"the bots could not finish a game: {stuck}") from None
        finally:
            bar.close()
        report = result.to_json()
        if opts["json"]:
            self.stdout.write(json.dumps(report, sort_keys=True))
            return
        self.stdout.write(f"{report['games']} games of {report['ruleset']} with {report['players']} players")
        for side, count in report["wins"].items():
            self.stdout.write(f"  {side:8} {count:8}  {report['win_rates'][side]:.4f}")
        if "mean_scores" in report:
            means = "  ".join(f"{seat}:{mean:.2f}" for seat, mean in report["mean_scores"].items())
            self.stdout.write(f"  mean score by seat  {means}")
        self.stdout.write(f"  {report['games_per_second']} games/second")
