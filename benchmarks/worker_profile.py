#!/usr/bin/env python3
"""Where a storm worker's CPU goes, in one process: the task a worker runs for each game
of a deadline storm (`tasks.phases.resolve_due_phase`: the claim, the resolution, the
phase's mails queued and handed to the mail backend at once), run here for `--games`
twelve-player games of `benchmarks/storm.py`, counted deterministically: the queries a
game, the functions called a game, and, with cProfile, each function's share of the
whole (cumulative). On a machine shared with other work, these are the figures to compare
before and after a change; a wall-clock time there is noise.

    python benchmarks/worker_profile.py [--games 40] [--players 12] [--top 25]

It uses the configured database (a temporary SQLite one unless DATABASE_URL says
otherwise) and, as the storm's workers do, SMTP to `storm.py`'s loopback sink, which runs
in a thread of this process: the profile counts this thread's CPU only (`thread_time`),
not the sink's. The first game is resolved outside the count (templates compiled,
catalogs loaded, as a worker's `_warm` does).

With `--instructions`, nothing is profiled: the counted games, then `storm.py`'s bare
loop for as many games, each run inside one call of `operator.call`, for valgrind to
count the instructions of each (the figure a loaded machine does not move):

    valgrind --tool=callgrind --collect-atstart=no --toggle-collect=_operator_call \
        --dump-after=_operator_call --callgrind-out-file=var/worker.%p \
        python benchmarks/worker_profile.py --instructions --games 10

writes two files, the games' then the bare loop's; their `summary:` lines (the
instructions of this thread only: the sink's thread is not counted) divided by the games
are a game's instructions, and their ratio the task's cost against the bare loop's.

With `--cpu`, nothing is profiled either: the counted games, then the bare loop for as
many, each timed by this thread's CPU (`thread_time`), and their ratio: the task's own
cost against the bare loop's, without Celery around it. Set beside `storm.py`'s ratio of
the workers' CPU (whole processes: the broker, the beat's tasks, Celery's own work), the
difference is what the worker pays around the task.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import logging
import operator
import os
import pstats
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "werewolf.settings")
os.environ.setdefault("WEREWOLF_VAR_DIR", tempfile.mkdtemp(prefix="werewolf-worker-profile-"))
os.environ.pop("WEREWOLF_INLINE_TASKS", None)  # the worker's way: mails sent by the resolving task

from benchmarks import storm  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=40, help="games counted (one more is resolved first)")
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--top", type=int, default=25, help="rows of the profile")
    parser.add_argument("--queries", action="store_true", help="also each statement's count a game")
    parser.add_argument("--dump", help="also write the profile to this file (pstats)")
    parser.add_argument(
        "--instructions", action="store_true", help="no profile: the games, then the bare loop, for valgrind (above)"
    )
    parser.add_argument("--cpu", action="store_true", help="no profile: the task's CPU against the bare loop's")
    parser.add_argument("--celery", type=int, metavar="N", help="no games: Celery's own cost a task, over N tasks")
    parser.add_argument(
        "--loglevel", default="info", help="with --celery: the worker's --loglevel (the README's deployment: info)"
    )
    parser.add_argument(
        "--gossip",
        action="store_true",
        help="with --celery: Celery's defaults, gossip, mingle and heartbeats on (the deployment turns them off)",
    )
    args = parser.parse_args()
    if args.celery:
        return celery_cost(args.celery, args.loglevel, args.gossip)
    inbox = storm.Inbox()
    os.environ.update(
        {"WEREWOLF_EMAIL": "smtp", "WEREWOLF_EMAIL_HOST": "127.0.0.1", "WEREWOLF_EMAIL_PORT": str(inbox.port)}
    )
    logging.disable(logging.INFO)  # a line a mail: not the worker's work here
    import django

    django.setup()
    from django.db import connection
    from django.utils import timezone

    from tasks.phases import resolve_due_phase
    from werewolf.games.models import Dispatch, Phase
    from werewolf.mail import outbound

    ids = storm.make_games(args.games + 1, args.players)
    Dispatch.objects.filter(phase=None, player__game_id__in=ids).update(status=Dispatch.Status.SENT)
    Phase.objects.filter(game_id__in=ids, index=0).update(deadline=timezone.now() - timedelta(seconds=1))
    phases = list(Phase.objects.filter(game_id__in=ids, index=0).order_by("game_id").values_list("pk", flat=True))
    outbound.warm()
    try:
        assert resolve_due_phase.run(phases[0])  # warm: not counted
        counted = phases[1:]
        sent = inbox.count()
        kinds: collections.Counter[str] = collections.Counter()
        statements: collections.Counter[str] = collections.Counter()

        def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
            kinds[sql.lstrip().split(None, 1)[0].upper()] += 1
            statements[sql[:150]] += 1
            return execute(sql, params, many, context)

        if args.instructions:

            def games() -> None:
                for pk in counted:
                    assert resolve_due_phase.run(pk)

            operator.call(games)
            operator.call(storm.bare, argparse.Namespace(games=len(counted), players=args.players), inbox.port)
            print(f"{len(counted)} games and the bare loop's as many, each in one operator.call")
            return 0
        if args.cpu:
            start = time.thread_time()
            for pk in counted:
                assert resolve_due_phase.run(pk)
            cpu = time.thread_time() - start
            bare = storm.bare(argparse.Namespace(games=len(counted), players=args.players), inbox.port)["cpu"]
            games = len(counted)
            print(f"{games} games x {args.players} players, {connection.vendor}, SMTP to a loopback sink")
            task, loop = cpu / games * 1000, bare / games * 1000
            print(f"this thread's CPU a game: the task {task:.2f} ms, the bare loop {loop:.2f} ms")
            print(f"the task / the bare loop: {cpu / bare:.2f}x")
            return 0
        with connection.execute_wrapper(count):
            profile = cProfile.Profile(time.thread_time)
            start = time.thread_time()
            profile.enable()
            for pk in counted:
                assert resolve_due_phase.run(pk)
            profile.disable()
            cpu = time.thread_time() - start
        time.sleep(0.5)  # the sink's last answers
        mails = inbox.count() - sent
    finally:
        inbox.stop()
    stats = pstats.Stats(profile)
    if args.dump:
        stats.dump_stats(args.dump)
    calls = sum(entry[1] for entry in stats.stats.values())  # type: ignore[attr-defined]
    games = len(counted)
    print(f"{games} games x {args.players} players, {connection.vendor}, SMTP to a loopback sink")
    print(f"mails sent: {mails} ({mails / games:.1f} a game)")
    print(f"queries a game: {sum(kinds.values()) / games:.1f} ", end="")
    print("(" + ", ".join(f"{kind} {count / games:.1f}" for kind, count in kinds.most_common()) + ")")
    if args.queries:
        for sql, number in statements.most_common():
            print(f"  {number / games:5.1f}  {sql}")
    print(f"function calls a game: {calls / games:,.0f}")
    print(f"this thread's CPU a game, profiled (its share is the figure; ms wander): {cpu / games * 1000:.1f} ms")
    print()
    stats.sort_stats("cumulative").print_stats(args.top)
    return 0


def celery_cost(tasks: int, loglevel: str = "info", gossip: bool = False) -> int:
    """A solo worker's CPU for `tasks` tasks that each read one row, against their bodies
    run in this process (see the module's notes). The worker runs as the README's
    deployment runs it (`--loglevel`, gossip, mingle and heartbeats off) unless told."""
    import subprocess

    import django

    django.setup()
    from django.core.management import call_command

    from tasks.phases import resolve_due_phase
    from werewolf.celery import app

    call_command("migrate", verbosity=0)
    app.control.purge()
    command = [sys.executable, "-m", "celery", "-A", "werewolf", "worker", "--pool=solo", "-n", "profile@%h"]
    command += [f"--loglevel={loglevel}"]
    if not gossip:
        command += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    worker = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def settled() -> float:  # the worker's CPU once it has stopped using any
        last = storm.cpu_seconds(worker.pid)
        while True:
            time.sleep(1.0)
            now = storm.cpu_seconds(worker.pid)
            if now - last < 0.02:
                return now
            last = now

    try:
        time.sleep(3)
        before = settled()
        with app.producer_or_acquire() as producer:
            for number in range(tasks):
                app.send_task("tasks.phases.resolve_due_phase", args=[-1 - number], producer=producer)
        spent = settled() - before
    finally:
        worker.terminate()
        worker.wait(timeout=60)
    resolve_due_phase.run(-1)
    start = time.thread_time()
    for number in range(tasks):
        resolve_due_phase.run(-1 - number)
    body = time.thread_time() - start
    flags = "gossip, mingle, heartbeats" if gossip else "without gossip, mingle, heartbeats"
    print(f"{tasks} tasks through a solo worker, {app.connection_for_write().transport_cls} broker", end="")
    print(f", --loglevel={loglevel}, {flags}")
    print(f"the worker's CPU a task {spent / tasks * 1000:.2f} ms, the body alone {body / tasks * 1000:.2f} ms")
    print(f"Celery's own cost a task: {(spent - body) / tasks * 1000:.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
