#!/usr/bin/env python3
"""Where a seat page's CPU goes, in one process: the page against the trivial view
(`/healthz`) through Django's test client (no server, no network: the framework's and the
page's own work only), then each template's share of the page, inclusive and exclusive
of the templates it includes, and, with --profile, the project's functions by cumulative
time. Issue 40's "a seat page that costs what it shows" is read here before web.py's
served figures.

    python benchmarks/seat_profile.py [--pages 240] [--top 20] [--profile]

With `--instructions PAGES`, nothing is timed or profiled: `PAGES` repeat visits (the
second game's seats in turn), `PAGES` first visits (each seat of fresh games once) and
`PAGES` GETs of `/healthz`, each run inside one call of `operator.call`, for valgrind to
count the instructions of each (the figure a loaded machine does not move):

    valgrind --tool=callgrind --collect-atstart=no --toggle-collect=_operator_call \
        --dump-after=_operator_call --callgrind-out-file=var/seat.%p \
        python benchmarks/seat_profile.py --instructions 48

writes three files, in that order; their `summary:` lines divided by `PAGES` are a
page's instructions, and the first two against the third the page's cost against the
trivial view's (in process: a served page adds the server's work to both).

It makes two running twelve-player games (benchmarks/web.py's) in a temporary SQLite
database unless DATABASE_URL says otherwise, and reads the second game's seats in turn:
the first pages, which compile templates and fill the process's caches, are not counted.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import operator
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "werewolf.settings")
os.environ.setdefault("WEREWOLF_VAR_DIR", tempfile.mkdtemp(prefix="werewolf-seat-profile-"))
os.environ.setdefault("WEREWOLF_INLINE_TASKS", "1")
os.environ.setdefault("WEREWOLF_EMAIL", "locmem")

from benchmarks.web import PLAYERS, make_games  # noqa: E402


def cpu_per_request(client: Any, paths: list[str], count: int) -> float:
    """CPU seconds of this process per GET, over `count` GETs of `paths` in turn."""
    start = time.process_time()
    for number in range(count):
        response = client.get(paths[number % len(paths)])
        assert response.status_code == 200, response.status_code
    return (time.process_time() - start) / count


def template_shares(client: Any, paths: list[str], count: int) -> list[tuple[str, float, float]]:
    """Each template's inclusive and exclusive seconds per page, most first."""
    from django.template import base

    inclusive: collections.Counter[str] = collections.Counter()
    exclusive: collections.Counter[str] = collections.Counter()
    stack: list[float] = []
    original = base.Template._render

    def timed(self: Any, context: Any) -> Any:
        start = time.perf_counter()
        stack.append(0.0)
        try:
            return original(self, context)
        finally:
            spent = time.perf_counter() - start
            children = stack.pop()
            name = self.origin.template_name or "(string)"
            inclusive[name] += spent
            exclusive[name] += spent - children
            if stack:
                stack[-1] += spent

    base.Template._render = timed  # type: ignore[method-assign]
    try:
        for number in range(count):
            client.get(paths[number % len(paths)])
    finally:
        base.Template._render = original  # type: ignore[method-assign]
    return [(name, inclusive[name] / count, exclusive[name] / count) for name, _ in inclusive.most_common()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=240, help="pages counted for each figure")
    parser.add_argument("--top", type=int, default=20, help="rows of each table")
    parser.add_argument("--profile", action="store_true", help="also the project's functions by cumulative time")
    parser.add_argument(
        "--first-visits",
        type=int,
        default=0,
        metavar="GAMES",
        help="instead, each seat of GAMES fresh games once (a storm's pattern): queries and calls a page",
    )
    parser.add_argument(
        "--instructions",
        type=int,
        default=0,
        metavar="PAGES",
        help="no timing: repeat visits, first visits and /healthz, PAGES each, for valgrind (above)",
    )
    args = parser.parse_args()
    if args.instructions:
        instructions(args.instructions)
        return
    if args.first_visits:
        first_visits(args.first_visits, args.top)
        return
    seats = make_games(2)[PLAYERS:]
    from django.test import Client

    client = Client()
    for path in seats:  # templates compiled, caches filled: not counted
        client.get(path)
    trivial = cpu_per_request(client, ["/healthz"], args.pages)
    page = cpu_per_request(client, seats, args.pages)
    print(f"seat page CPU: {page * 1000:.2f} ms; /healthz: {trivial * 1000:.2f} ms", end="; ")
    print(f"ratio page / trivial: {page / trivial:.1f}")
    print(f"\n{'template':58s} {'inclusive ms':>12s} {'exclusive ms':>12s}")
    for name, inclusive, exclusive in template_shares(client, seats, args.pages)[: args.top]:
        print(f"{name[:58]:58s} {inclusive * 1000:12.2f} {exclusive * 1000:12.2f}")
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        cpu_per_request(client, seats, args.pages)
        profile.disable()
        print()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(r"/werewolf/", args.top)


def instructions(pages: int) -> None:
    """Repeat visits, first visits and the trivial view, `pages` each, each inside one
    `operator.call` for valgrind's `--toggle-collect` (the module's docstring)."""
    from django.test import Client

    fresh = -(-pages // PLAYERS)
    seats = make_games(2 + fresh)
    again, first = seats[PLAYERS : 2 * PLAYERS], seats[2 * PLAYERS :][:pages]
    client = Client()
    for path in seats[:PLAYERS] + again:  # templates compiled, caches filled: not counted
        client.get(path)
    client.get("/healthz")

    def visits(paths: list[str]) -> None:
        for number in range(pages):
            response = client.get(paths[number % len(paths)])
            assert response.status_code == 200, response.status_code

    operator.call(visits, again)
    operator.call(visits, first)
    operator.call(visits, ["/healthz"])
    print(f"{pages} repeat visits, {pages} first visits, {pages} GETs of /healthz, each in one operator.call")


def first_visits(games: int, top: int) -> None:
    """Each seat of `games` fresh games asked once, as a storm's readers ask them (one
    game first, not counted: templates compiled): the queries and the function calls a
    page, which a machine's load does not change, and the project's functions by
    cumulative share."""
    from django.db import connection
    from django.test import Client

    seats = make_games(games + 1)
    client = Client()
    for path in seats[:PLAYERS]:
        client.get(path)
    counted = seats[PLAYERS:]
    statements = 0

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        nonlocal statements
        statements += 1
        return execute(sql, params, many, context)

    profile = cProfile.Profile()
    with connection.execute_wrapper(count):
        profile.enable()
        for path in counted:
            response = client.get(path)
            assert response.status_code == 200, response.status_code
        profile.disable()
    stats = pstats.Stats(profile)
    calls = sum(entry[1] for entry in stats.stats.values())  # type: ignore[attr-defined]
    print(f"first visits: {len(counted)} pages of {games} games")
    print(f"queries a page: {statements / len(counted):.1f}; function calls a page: {calls / len(counted):,.0f}")
    print()
    stats.sort_stats("cumulative").print_stats(r"/werewolf/", top)


if __name__ == "__main__":
    main()
