#!/usr/bin/env python3
"""The balance lab's time for a 12-player setup, beside bare `simulate` runs of the same
games in the same process, and the ratios between them.

First the lab's study without a budget (`engine.lab.study`): the setup and the counts
either side of it (11, 12, 13 players) with the lab's two bot strategies, `--games` games
each, against `simulate` called for exactly those games (same counts, strategies, seeds)
and nothing else; both in turns (bare, lab, bare...), best of `--repeat`.

Then the whole answer the web gives, `--repeat` times: the figures within their share of
the whole answer's budget (`engine.lab.FIGURES_SECONDS` of `ANSWER_SECONDS`) and, for the
side they flag (else the side farthest from even), the race of the option changes within
what the figures left (`engine.lab.suggest_seconds`, as the web asks it; those changes it
had no time to try counted), given the figures' share as the web gives it, against the
goal of two seconds (issue 39); each time followed
by the bare `simulate` runs of exactly the games that answer played (each figure's, each
change's tried, and the setup's own first games the race compares the changes with). The ratios, not the absolute times,
are the figures to compare between machines: what the lab adds to the games it plays.

    python benchmarks/lab.py [--ruleset classic] [--players 12] [--set wolves=1 ...]
                             [--games N] [--repeat R] [--cpu] [--web [FIELD=VALUE ...]]

With `--web`, the whole answer again through Django (`web`), the New game form's fields as
given. With `--cpu`, every clock counts the process's CPU time instead of the wall's: on a
loaded machine, roughly what a quiet one shows.
"""

from __future__ import annotations

import argparse
import gc
import html
import re
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from werewolf import engine  # noqa: E402
from werewolf.engine import lab  # noqa: E402
from werewolf.engine.lab import STRATEGIES  # noqa: E402
from werewolf.engine.simulate import simulate  # noqa: E402

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


class Collections:
    """The time the garbage collector stops the process for, while it is `on`."""

    def __init__(self) -> None:
        self.seconds, self.count, self.on, self._started = 0.0, 0, False, 0.0
        gc.callbacks.append(self.callback)

    def callback(self, phase: str, info: dict[str, int]) -> None:
        if not self.on:
            return
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._started
            self.count += 1

    def take(self) -> tuple[float, int]:
        taken = self.seconds, self.count
        self.seconds, self.count = 0.0, 0
        return taken


COLLECTIONS = Collections()


def whole(ruleset: str, players: int, options: dict[str, Any]) -> tuple[float, float, list[tuple[Any, ...]]]:
    """The web's answer: its figures' time, its suggestion's time, and the runs it played
    (count, options, strategy, games) for the bare replay."""
    COLLECTIONS.on = True
    started = time.perf_counter()
    result = lab.study(ruleset, players, options, seconds=lab.FIGURES_SECONDS)
    figured = time.perf_counter() - started
    judged = result.at(players, lab.JUDGE)
    assert judged is not None
    side = result.flagged.side if result.flagged else max(judged.shares, key=lambda s: abs(s.share - 0.5)).side
    budget = lab.suggest_seconds(result)
    started = time.perf_counter()
    found = lab.suggest(ruleset, players, options, side, lab.JUDGE, seconds=budget, base=judged.of(side))
    suggested = time.perf_counter() - started
    COLLECTIONS.on = False
    collected, collections = COLLECTIONS.take()
    runs: list[tuple[Any, ...]] = [(f.players, options, f.strategy, f.games) for f in result.figures]
    checked = engine.options(ruleset, options, players)
    runs.append((players, checked, lab.JUDGE, lab.SAME))
    for change in found.changes:
        games = lab.SAME if change.same else change.share.games
        runs.append((players, {**checked, change.option: change.value}, lab.JUDGE, games))
    suggestion_games = sum(run[3] for run in runs[len(result.figures) :])
    print(
        f"  the whole answer: figures {figured:.3f} s (the study kept {result.seconds:.3f} s; "
        f"{sum(f.games for f in result.figures)} games), "
        f"the suggestion for {side} {suggested:.3f} s of the {budget:.3f} s left ({suggestion_games} games, "
        f"{len(found.changes)} changes, {sum(change.same for change in found.changes)} changing nothing, "
        f"{len(found.rivals)} rivals left, {len(found.untried)} untried; "
        f"the garbage collector {1000 * collected:.0f} ms in {collections} runs)"
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


def web(ruleset: str, players: int, fields: dict[str, Any], repeat: int) -> None:
    """The whole answer through the web, in this process (Django's test client, a fresh
    SQLite database and file cache unless the environment names others): the New game
    page's two requests, the figures and then the suggestion for the side they flag, their
    answers taken out of the cache before each (the cache's other keys left alone); each
    request's time against the lab's own inside it (`engine.lab.study`, `.suggest`): the
    rest is the page's own (the form read, the site's finished games, the rendering). Then
    two identical requests at once, from two threads: how many times the lab computed."""
    import os
    import tempfile
    import threading

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "werewolf.settings")
    os.environ.setdefault("WEREWOLF_VAR_DIR", tempfile.mkdtemp(prefix="werewolf-lab-"))
    os.environ.setdefault("WEREWOLF_RATES", "lab=100000/60")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    from werewolf.games import lab as pages
    from werewolf.games.forms import GameForm

    kept: set[str] = set()  # the cache keys the lab's answers were kept under, and only those are emptied
    keep = pages._kept

    def kept_by(key: str, *args: Any) -> Any:
        kept.add(key)
        return keep(key, *args)

    pages._kept = kept_by  # type: ignore[assignment]

    call_command("migrate", verbosity=0)
    organiser, _ = get_user_model().objects.get_or_create(username="lab-bench")
    client = Client()
    client.force_login(organiser)
    query = GameForm(organiser=organiser).initial_query()  # the New game form as it first shows
    for name in ("players", "name"):
        query.pop(name, None)
    query.update({"ruleset": ruleset, "count": str(players)})
    for name, value in fields.items():
        query[name] = value
    url = f"{reverse('games:lab')}?{query.urlencode()}"
    inside = {"study": 0.0, "suggest": 0.0}
    calls = {"study": 0, "suggest": 0}
    for name in inside:
        original = getattr(lab, name)

        def timed(*args: Any, _original: Any = original, _name: str = name, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return _original(*args, **kwargs)
            finally:
                inside[_name] += time.perf_counter() - started
                calls[_name] += 1

        setattr(lab, name, timed)

    def get(path: str, asker: Client = client) -> tuple[float, str]:
        started = time.perf_counter()
        response = asker.get(path)
        assert response.status_code == 200, response.status_code
        return time.perf_counter() - started, response.content.decode()

    print(f"The whole answer through the web ({ruleset}, {players} players, the New game form's fields {fields})")
    wholes = []
    first, _ = get(url)  # the process's first: templates compiled, the engine's fingerprint read...
    print(f"    the process's first request for the figures: {first:.3f} s (the lab {inside['study']:.3f} s)")
    for _ in range(repeat):
        cache.delete_many(kept)
        for name in inside:
            inside[name] = 0.0
        figured, page = get(url)
        found = re.search(r'data-lab-suggestion data-url="([^"]+)"', page)
        suggested = 0.0
        if found:
            suggested, _ = get(html.unescape(found.group(1)))
        wholes.append(figured + suggested)
        print(
            f"    figures {figured:.3f} s (the lab {inside['study']:.3f} s), suggestion {suggested:.3f} s "
            f"(the lab {inside['suggest']:.3f} s): whole {wholes[-1]:.3f} s, the pages' own "
            f"{figured + suggested - inside['study'] - inside['suggest']:.3f} s"
            + ("" if found else " (not flagged: no suggestion asked)")
        )
    print(f"  through the web, best of {repeat}: {min(wholes):.3f} s (goal {GOAL} s), worst {max(wholes):.3f} s")
    cache.delete_many(kept)
    calls["study"] = 0
    askers = [Client(), Client()]
    for asker in askers:
        asker.force_login(organiser)
    threads = [threading.Thread(target=get, args=(url, asker)) for asker in askers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(f"  two identical requests at once: the lab studied the setup {calls['study']} time(s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="classic")
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE", dest="options")
    parser.add_argument("--games", type=int, default=lab.GAMES, help="games per figure (count and strategy)")
    parser.add_argument("--repeat", type=int, default=5, help="best of this many runs of each, taken in turns")
    parser.add_argument(
        "--web",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        nargs="?",
        const="",
        help="also the whole answer through the web, with the New game form's defaults and these fields",
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="every clock (the lab's budgets, these timings) counts this process's CPU time, not the wall's",
    )
    args = parser.parse_args()
    if args.cpu:
        # On a machine others load, about what a quiet one would show: the process's own
        # seconds (still somewhat more than a quiet machine's: the cores' caches are shared).
        time.perf_counter = time.process_time
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
    print(
        f"The whole answer the web gives (within {lab.ANSWER_SECONDS} s: the figures up to {lab.FIGURES_SECONDS} s, "
        f"the suggestion what they left, at least {lab.SUGGEST_FLOOR} s)"
    )
    times, bares = [], []
    for _ in range(args.repeat):
        figured, suggested, runs = whole(args.ruleset, args.players, options)
        times.append(figured + suggested)
        bares.append(replayed(args.ruleset, runs))
        print(f"    whole {times[-1]:.3f} s, the same games bare {bares[-1]:.3f} s, ratio {times[-1] / bares[-1]:.2f}x")
    print(f"  whole answer, best of {args.repeat}: {min(times):.3f} s (goal {GOAL} s), worst {max(times):.3f} s")
    print(f"  ratio whole answer / bare simulate runs of its games {sum(times) / sum(bares):8.2f}x")
    if args.web:
        web(args.ruleset, args.players, dict(item.partition("=")[::2] for item in args.web if item), args.repeat)


if __name__ == "__main__":
    main()
