#!/usr/bin/env python3
"""Where a seat page's CPU goes, in one process: the page against the trivial view
(`/healthz`) through Django's test client (no server, no network: the framework's and the
page's own work only), then each template's share of the page, inclusive and exclusive
of the templates it includes, and, with --profile, the project's functions by cumulative
time. Issue 40's "a seat page that costs what it shows" is read here before web.py's
served figures.

    python benchmarks/seat_profile.py [--pages 240] [--top 20] [--profile]

It makes two running twelve-player games (benchmarks/web.py's) in a temporary SQLite
database unless DATABASE_URL says otherwise, and reads the second game's seats in turn:
the first pages, which compile templates and fill the process's caches, are not counted.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
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
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
