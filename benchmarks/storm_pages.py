#!/usr/bin/env python3
"""The real minute of a deadline storm: the storm of `storm.py`, and meanwhile every
player whose phase mail reaches the loopback SMTP server opens their seat page and its
poll (`version.json`), on a web server (gunicorn, as the README's deployment runs it: four
synchronous workers, one thread each) on the same machine as the workers, the database
and the broker: the README's one-machine deployment.

    python benchmarks/storm_pages.py [--games 1000] [--players 12] [--workers 2]
        [--web-workers 4] [--threads 1] [--clients 8] [--quiet-seconds 10] [--quiet-clients 1]
        [--share 1.0] [--nice 10] [--no-scaling] [--code DIR] [--setup-once] [--aiosmtpd]

It uses the configured database and broker as `storm.py` does. Before the deadline, with
the workers up and idle, `--quiet-clients` players (one: a page's own time, with no queue
before it) open seat pages of the storm's games and their poll, one after another, for
`--quiet-seconds`: the quiet figures. Then the storm: each phase mail that arrives puts
its reader (`--share` of them) in a queue that `--clients` players serve, a page and then
its poll each, as fast as the server answers (a real crowd clicks when its mail comes;
`--clients` bounds how many pages are asked at once). Every player, quiet or in the
storm, is a process of its own, apart from the SMTP server's thread and from each other,
so that what a page's time measures is the server's answer, not the benchmark's own
interpreter lock.
It prints the storm's figures and ratios against the bare loop (as `storm.py`), and the
pages' and polls' p50 / p99 while the storm ran (asked between the deadline and the last
mail) against the quiet ones of the same run (issue 40: the p99 within 5x the quiet
p99), with how long a player waited from their mail to their page.

Unless `--no-scaling`, it first runs the storm alone (no web server, no pages), with
one worker and then with `--workers`, each on games of its own: the storm's own ratios
against the bare loop and what one more worker buys. It ends with issue 40's table, each
figure beside its goal (the seat page's CPU against the trivial view is `web.py`'s).
The workers run at `--nice` (10), as the README's deployment runs them beside the web
server; `--nice 0` runs them at the web's priority. `--code DIR` runs the workers and the
web server from another checkout (`git worktree add DIR COMMIT`) with this tree's
instruments: a before and an after on one instrument, each on a fresh database.
`--setup-once` (PostgreSQL) sets the games up once in a template database and runs each
of the three storms on a fresh copy of it, each alone in its database: a before-and-after
pair costs the storms, not three set-ups of a thousand games each.
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing
import os
import queue
import random
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import storm  # noqa: E402  (sets the storm's environment first)

_inline = os.environ.get("WEREWOLF_INLINE_TASKS")
from benchmarks.talk import Client, free_port  # noqa: E402

if _inline is None:  # talk.py runs its tasks inline: the storm's go to the workers
    os.environ.pop("WEREWOLF_INLINE_TASKS", None)

from werewolf import engine  # noqa: E402


@dataclass
class Visit:
    """One player's look: when they asked, how long the page and its poll took, and how
    long after their mail arrived the page was on their screen."""

    asked: float
    page: float
    poll: float
    since_mail: float | None = None


def look(client: Client, path: str, mailed: float | None, errors: list[str]) -> Visit:
    """One player's look at their seat page and then its poll, timed by the player."""
    asked = time.time()
    _get(client, path, errors)
    shown = time.time()
    _get(client, path + "version.json", errors)
    done = time.time()
    return Visit(asked, shown - asked, done - shown, None if mailed is None else shown - mailed)


def _get(client: Client, path: str, errors: list[str]) -> None:
    for attempt in range(2):  # the server drops a connection idle a while: open anew once
        try:
            status, text = client.request("GET", path)
            break
        except (http.client.HTTPException, ConnectionError):
            client.connection.close()
            if attempt:
                raise
    if status != 200:
        errors.append(f"{status} {path}: {text[:200]}")


def quiet_player(port: int, every: list[str], seconds: float, seed: int, told: Any) -> None:
    """A player with nothing else running (its own process): random seats, one after
    another, for a first quarter of `seconds` (at most 2 s) not counted, in which each web
    process compiles its templates and opens its database connections, then `seconds`."""
    client, pick, errors = Client(port), random.Random(seed), []
    visits: list[Visit] = []
    for window in (min(2.0, seconds / 4), seconds):
        visits, stop = [], time.time() + window
        while time.time() < stop:
            visits.append(look(client, pick.choice(every), None, errors))
    told.put((visits, errors))


def storm_player(port: int, asked: Any, told: Any) -> None:
    """A player in the storm (its own process): for each mail handed to it, the page and
    its poll; each visit told as it ends."""
    client = Client(port)
    while (item := asked.get()) is not None:
        errors: list[str] = []
        try:
            told.put(([look(client, item[1], item[0], errors)], errors))
        except Exception as problem:  # noqa: BLE001 - counted, the run goes on
            told.put(([], [repr(problem)]))
            client = Client(port)
    told.put(None)


@dataclass
class Players:
    """`clients` players, each a process of its own: before the storm, opening seat pages
    in turn (`quiet`); during it, each a reader of a mail that just arrived (`read`).

    Each player times its pages in a process of its own, as a crowd's browsers do on
    machines of their own: in this process the loopback SMTP server's thread, busy with
    the storm's mails, and the other players would hold the interpreter's lock while a
    player's answer waited to be read, and a page would look slower in the storm for the
    benchmark's own sake."""

    port: int
    clients: int
    paths: dict[str, str]
    """Each player's seat page, by mail address."""
    share: float
    visits: list[Visit] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.context = multiprocessing.get_context("spawn")  # nothing of this process's threads
        self.asked: Any = self.context.Queue()
        self.told: Any = self.context.Queue()
        self.rng = random.Random(40)
        self.processes: list[Any] = []
        self.pending = 0
        self.stopped = 0

    def quiet(self, seconds: float, clients: int) -> list[Visit]:
        """Pages and polls with nothing else running: `clients` players (one: a page's
        own time, no queue) open random seats (`quiet_player`)."""
        every = list(self.paths.values())
        processes = [
            self.context.Process(target=quiet_player, args=(self.port, every, seconds, number, self.told))
            for number in range(clients)
        ]
        for process in processes:
            process.start()
        taken: list[Visit] = []
        for _ in processes:
            visits, errors = self.told.get(timeout=seconds + 120)
            taken += visits
            self.errors += errors
        for process in processes:
            process.join(timeout=30)
        return taken

    def read(self, moment: float, recipients: list[str]) -> None:
        """A mail arrived (`storm.Inbox`'s reader): its reader opens their page, or not."""
        for address in recipients:
            path = self.paths.get(address)
            if path is not None and self.rng.random() < self.share:
                self.pending += 1
                self.asked.put((moment, path))

    def start(self) -> None:
        self.processes = [
            self.context.Process(target=storm_player, args=(self.port, self.asked, self.told), daemon=True)
            for _ in range(self.clients)
        ]
        for process in self.processes:
            process.start()

    def _hear(self, timeout: float) -> bool:
        """One player's news (a visit, or that it stopped); False if none came in time."""
        try:
            news = self.told.get(timeout=timeout)
        except queue.Empty:
            return False
        if news is not None:
            visits, errors = news
            self.visits += visits
            self.errors += errors
            self.pending -= 1  # one piece of news a mail handed out: its visit, or why not
        else:
            self.stopped += 1
        return True

    def stop(self, drain: float) -> None:
        """Let the players still queued have their page for up to `drain` seconds; whoever
        is still waiting past it gives up."""
        ends = time.time() + drain
        while self.pending > 0 and time.time() < ends:
            self._hear(max(0.0, min(1.0, ends - time.time())))
        while True:
            try:
                self.asked.get_nowait()
            except queue.Empty:
                break
        for _ in self.processes:
            self.asked.put(None)
        ends = time.time() + 60
        while self.stopped < len(self.processes) and time.time() < ends:
            self._hear(max(0.0, ends - time.time()))
        for process in self.processes:
            process.join(timeout=10)


def seat_paths(ids: list[int]) -> dict[str, str]:
    """Every seat's page of the games `ids`, by its player's mail address."""
    from werewolf.games import links
    from werewolf.games.models import Player

    players = list(Player.objects.filter(game_id__in=ids).exclude(email=""))
    links.prime(players)
    return {player.email: str(links.url_for(player, absolute=False)) for player in players}


def serve(workers: int, threads: int, code: Path = ROOT) -> tuple[subprocess.Popen, int]:
    """gunicorn on a free port, as the README's deployment runs it, on `code`'s tree; once
    it answers."""
    port = free_port()
    env = {
        **os.environ,
        "WEREWOLF_ALLOWED_HOSTS": "127.0.0.1",
        "WEREWOLF_CSRF_TRUSTED_ORIGINS": "http://127.0.0.1",
        "PYTHONPATH": str(code),
    }
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    command = [gunicorn, "werewolf.wsgi", "-b", f"127.0.0.1:{port}", "-w", str(workers), "--threads", str(threads)]
    log = open(f"{storm.VAR}/gunicorn.log", "w")  # noqa: SIM115 - kept open for the process
    server = subprocess.Popen([*command, "--log-level", "warning"], cwd=code, env=env, stdout=log, stderr=log)
    for _ in range(300):
        try:
            Client(port).request("GET", "/healthz")
            return server, port
        except OSError:
            time.sleep(0.1)
    raise SystemExit("gunicorn did not answer")


def web_cpu(server: subprocess.Popen) -> float:
    """The gunicorn workers' CPU so far (user + system, from /proc)."""
    try:
        children = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
    except OSError:
        return 0.0
    total = 0.0
    for pid in children:
        try:
            total += storm.cpu_seconds(int(pid))
        except (OSError, ValueError):
            pass
    return total


def figures(visits: list[Visit], key: str) -> tuple[float, float]:
    values = [getattr(visit, key) for visit in visits if getattr(visit, key) is not None]
    return storm.percentile(values, 0.5) * 1000, storm.percentile(values, 0.99) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--workers", type=int, default=2, help="Celery worker processes")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--web-workers", type=int, default=4)
    parser.add_argument(
        "--threads", type=int, default=1, help="threads a web process (the README's deployment: 1, synchronous workers)"
    )
    parser.add_argument("--clients", type=int, default=8, help="players reading at once")
    parser.add_argument("--quiet-seconds", type=float, default=10.0)
    parser.add_argument("--quiet-clients", type=int, default=1, help="players reading before the storm")
    parser.add_argument("--share", type=float, default=1.0, help="of the players mailed, those who open the page")
    parser.add_argument("--drain", type=float, default=300.0, help="seconds the players still queued may wait")
    parser.add_argument("--nice", type=int, default=10, help="the workers' niceness (the README's deployment: 10)")
    parser.add_argument(
        "--no-scaling", dest="scaling", action="store_false", help="skip the storms alone (1 worker, then --workers)"
    )
    storm.add_code_argument(parser)
    storm.add_setup_argument(parser)
    storm.add_sink_argument(parser)
    args = parser.parse_args()
    try:
        engine.options("classic", {}, args.players)
    except engine.SetupError as problem:
        parser.error(f"--players {args.players}: the classic rules refuse that table ({problem})")
    import django

    django.setup()
    inbox = storm.Inbox(aiosmtpd=args.aiosmtpd)
    if args.code:
        print(f"The workers and the web server run {storm.code(args)}'s code", flush=True)
    alone: dict[int, dict[str, float]] = {}
    try:
        for workers in sorted({1, args.workers}) if args.scaling else ():
            print(f"The storm alone, {workers} worker(s): setting up {args.games} games ...", flush=True)
            alone[workers] = storm.project(argparse.Namespace(**{**vars(args), "workers": workers}), inbox)
            with inbox.lock:
                inbox.times.clear()
        print(f"Setting up {args.games} games of {args.players} ...", flush=True)
        ids = storm.games(args)  # before the web server: with --setup-once it uses their copy
    except BaseException:
        inbox.stop()
        raise
    server, port = serve(args.web_workers, args.threads, storm.code(args))
    quiet: list[Visit] = []
    players: Players | None = None
    spent: dict[str, float] = {}

    def ready(ids: list[int]) -> None:
        nonlocal players, quiet
        players = Players(port, args.clients, seat_paths(ids), args.share)
        quiet = players.quiet(args.quiet_seconds, args.quiet_clients)
        players.start()
        inbox.readers.append(players.read)
        spent["web"] = web_cpu(server)

    try:
        ours = storm.project(args, inbox, ready=ready, ids=ids)
        spent["web"] = web_cpu(server) - spent.get("web", 0.0)
        inbox.readers.clear()
        assert players is not None
        players.stop(args.drain)
        with inbox.lock:
            last_mail = max(inbox.times) if inbox.times else time.time()
            inbox.times.clear()
        server.terminate()  # the bare loop has the machine to itself, as the storms alone had
        server.wait(timeout=30)
        storm.settle_database()
        baseline = storm.bare(args, inbox.port)
    finally:
        inbox.stop()
        server.terminate()
        server.wait(timeout=30)
    for workers, figures_alone in alone.items():
        print(f"\nThe storm alone (no pages), {workers} worker(s):", end="")
        storm.report(argparse.Namespace(**{**vars(args), "workers": workers}), figures_alone, baseline)
    print("\nThe storm with the pages:", end="")
    storm.report(args, ours, baseline)
    during = [visit for visit in players.visits if visit.asked <= last_mail]
    after = [visit for visit in players.visits if visit.asked > last_mail]
    print(f"\nseat pages: gunicorn {args.web_workers} workers x {args.threads} threads, {args.clients} players at once")
    print(f"{'ms':34} {'quiet p50':>10} {'quiet p99':>10} {'storm p50':>10} {'storm p99':>10} {'p99 ratio':>10}")
    for label, key in (("seat page", "page"), ("its poll (version.json)", "poll")):
        (q50, q99), (s50, s99) = figures(quiet, key), figures(during, key)
        print(f"{label:34} {q50:10.1f} {q99:10.1f} {s50:10.1f} {s99:10.1f} {s99 / q99 if q99 else float('nan'):10.1f}")
    m50, m99 = figures(players.visits, "since_mail")
    print(f"{'from the mail to the page (ms)':34} {'':>10} {'':>10} {m50:10.1f} {m99:10.1f}")
    print(f"pages asked: {len(quiet)} quiet, {len(during)} during the storm, {len(after)} after its last mail")
    print(f"web workers' CPU through the storm: {spent['web']:.1f} s; errors: {len(players.errors)}")
    for problem in players.errors[:5]:
        print(f"  {problem}")
    table(args, alone, ours, baseline, figures(quiet, "page")[1], figures(during, "page")[1])
    return 1 if players.errors else 0


def table(
    args: argparse.Namespace,
    alone: dict[int, dict[str, float]],
    ours: dict[str, float],
    baseline: dict[str, float],
    quiet_p99: float,
    storm_p99: float,
) -> None:
    """Issue 40's table: each figure of this run beside its goal."""

    def ratio(top: float, bottom: float) -> str:
        return f"{top / bottom:.2f}x" if bottom and top == top and bottom == bottom else "n/a"

    storm_alone = alone.get(args.workers, {})
    print(f"\nissue 40's figures, this run ({args.games} games of {args.players}, {args.workers} workers):")
    rows = [
        ("every mail received / the bare loop (storm alone)", "within 1.2x", storm_alone, "mailed"),
        ("the workers' CPU / the bare loop's (storm alone)", "within 2x", storm_alone, "cpu"),
        ("every mail received / the bare loop (with pages)", "", ours, "mailed"),
        ("the workers' CPU / the bare loop's (with pages)", "", ours, "cpu"),
    ]
    for label, goal, measured, key in rows:
        shown = ratio(measured[key], baseline[key]) if measured else "not run (--no-scaling)"
        print(f"  {label:52} {shown:>12}   {goal}")
    if 1 in alone and args.workers in alone and args.workers != 1:
        label = f"1 -> {args.workers} workers (every mail received)"
        scaled = ratio(alone[1]["mailed"], alone[args.workers]["mailed"])
        print(f"  {label:52} {scaled:>12}   1.8x or better for 2")
    print(f"  {'seat page p99 in the storm / quiet p99':52} {ratio(storm_p99, quiet_p99):>12}   within 5x")
    print(f"  {'seat page CPU / the trivial view':52} {'(web.py)':>12}   within 10x")


if __name__ == "__main__":
    raise SystemExit(main())
