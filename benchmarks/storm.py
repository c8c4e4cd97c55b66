#!/usr/bin/env python3
"""The deadline storm: many games due at the same instant, every card in, real worker
processes (one with the beat) and a loopback SMTP server; beside it, in the same run, a
bare loop doing the same claims, event rows and SMTP sends with no framework.

    python benchmarks/storm.py [--games 1000] [--players 12] [--workers 2] [--nice 0] [--concurrency 1]
        [--code DIR] [--setup-once] [--aiosmtpd]

`--workers` solo worker processes (one task at a time each), or with `--concurrency N` each
a prefork worker of N processes, as the README's deployment runs them: `--workers 1
--concurrency 2` against `--workers 2` says what the pool's own parent costs.

It uses the configured database and broker (DATABASE_URL, CELERY_BROKER_URL; SQLite and
the SQLite broker under a temporary directory when unset). It prints, for the project and
the bare loop: the time until every phase is resolved, until every mail is handed to
SMTP (and mails per second), the mail lag p50 / p99 from the deadline, and the CPU spent
(workers' user + system time; the loop's own thread's time: the loopback SMTP server
runs in this process, and its work is counted on neither side). The ratios are the figures to
compare (issue 11: all within 60 s of the deadline, p99 under 30 s, CPU within 3x).

The workers' CPU is counted from once they have started (their CPU settled) to the last
mail. Before the deadline their CPU at rest is counted for a few seconds: what the beat's
sweeps cost whatever the games (every second here, so that the storm starts within a
second of its deadline; every 30 s in the deployment), which the storm pays over its span
too. The last line says how much of the storm's CPU that is, and the ratio without it.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import inspect
import itertools
import os
import smtplib
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
VAR = tempfile.mkdtemp(prefix="werewolf-storm-")
os.environ.setdefault("WEREWOLF_VAR_DIR", VAR)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "werewolf.settings")
os.environ.setdefault("CELERY_BROKER_URL", f"sqla+sqlite:///{VAR}/broker.sqlite3")

from werewolf import engine  # noqa: E402  (pure: no settings needed)


class Inbox:
    """A loopback SMTP server that notes when each message arrived, and tells `readers`
    (each called with the moment and the recipients: a player who opens the mail).

    It answers the few commands a sender's SMTP client sends (EHLO, MAIL, RCPT, DATA,
    RSET, NOOP, QUIT), offers PIPELINING as real relays do, and reads each message to
    its end, in a thread of its own with asyncio, and keeps nothing but the moment and
    the recipients: a mail relay that does its work on another machine, or a relay
    written in C beside the workers. `aiosmtpd=True` serves with aiosmtpd instead, the
    sink of the storm's earlier figures: its Python costs several times as much CPU a
    mail, taken on a small machine from the cores the workers and PostgreSQL share
    (docs/performance.md, eighth session)."""

    def __init__(self, aiosmtpd: bool = False) -> None:
        self.times: list[float] = []
        self.lock = threading.Lock()
        self.readers: list[Callable[[float, list[str]], None]] = []
        import socket

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        if aiosmtpd:
            self._stop = self._aiosmtpd()
        else:
            self._stop = self._plain()

    def arrived(self, recipients: list[str]) -> None:
        now = time.time()
        with self.lock:
            self.times.append(now)
        for reader in self.readers:
            reader(now, recipients)

    def _aiosmtpd(self) -> Callable[[], None]:
        from aiosmtpd.controller import Controller

        inbox = self

        class Handler:
            async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's name
                inbox.arrived(envelope.rcpt_tos)
                return "250 OK"

        controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)
        controller.start()
        return controller.stop

    def _plain(self) -> Callable[[], None]:
        import asyncio

        inbox = self
        loop = asyncio.new_event_loop()

        class Session(asyncio.Protocol):
            def connection_made(self, transport: Any) -> None:
                self.transport = transport
                self.buffer = b""
                self.recipients: list[str] = []
                self.in_data = False
                transport.write(b"220 storm.test ESMTP\r\n")

            def data_received(self, data: bytes) -> None:
                self.buffer += data
                while True:
                    if self.in_data:
                        end = self.buffer.find(b"\r\n.\r\n")
                        if end < 0:
                            return
                        self.buffer = self.buffer[end + 5 :]
                        self.in_data = False
                        inbox.arrived(self.recipients)
                        self.recipients = []
                        self.transport.write(b"250 OK\r\n")
                        continue
                    end = self.buffer.find(b"\r\n")
                    if end < 0:
                        return
                    line, self.buffer = self.buffer[:end], self.buffer[end + 2 :]
                    self.command(line)

            def command(self, line: bytes) -> None:
                verb = line[:4].upper()
                if verb in (b"EHLO", b"HELO"):
                    self.transport.write(b"250-storm.test\r\n250-PIPELINING\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n")
                elif verb == b"RCPT":
                    self.recipients.append(line.split(b":", 1)[1].strip().strip(b"<>").decode())
                    self.transport.write(b"250 OK\r\n")
                elif verb == b"DATA":
                    self.in_data = True
                    # (a message that is only its end: the dot right after the blank line)
                    self.buffer = b"\r\n" + self.buffer
                    self.transport.write(b"354 End data with <CR><LF>.<CR><LF>\r\n")
                elif verb == b"QUIT":
                    self.transport.write(b"221 Bye\r\n")
                    self.transport.close()
                else:  # MAIL, RSET, NOOP
                    if verb == b"RSET":
                        self.recipients = []
                    self.transport.write(b"250 OK\r\n")

        ready = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(loop)
            server = loop.run_until_complete(loop.create_server(Session, "127.0.0.1", self.port))
            ready.set()
            loop.run_forever()
            server.close()
            loop.run_until_complete(server.wait_closed())
            loop.close()

        thread = threading.Thread(target=serve, name="storm-inbox", daemon=True)
        thread.start()
        ready.wait(10)

        def stop() -> None:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10)

        return stop

    def count(self) -> int:
        with self.lock:
            return len(self.times)

    def stop(self) -> None:
        self._stop()


def cpu_seconds(pid: int) -> float:
    """User + system time of a process and its waited-for children, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return sum(int(value) for value in fields[11:15]) / ticks


def tree_cpu_seconds(pid: int) -> float:
    """`cpu_seconds` of a process and of every living process below it: a worker's
    prefork pool (`--concurrency`) does its work in children the worker never waits for."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # gone meanwhile
            parents[int(entry.name)] = int(fields[1])
    family, total = [pid], 0.0
    while family:
        member = family.pop()
        try:
            total += cpu_seconds(member)
        except OSError:
            continue
        family.extend(child for child, parent in parents.items() if parent == member)
    return total


def machine_seconds() -> tuple[float, float]:
    """The machine's CPU so far, every core's: seconds busy (user, nice, system, interrupts:
    all but idle, waiting on the disk and stolen by the host) and the wall clock's seconds
    times the cores (/proc/stat). Their differences over a run say how busy the cores were,
    whoever kept them busy: the workers, the database, the broker, the SMTP sink."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6]
    return busy / os.sysconf("SC_CLK_TCK"), time.monotonic() * (os.cpu_count() or 1)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def make_games(games: int, players: int) -> list[int]:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from werewolf.engine.simulate import bot_orders
    from werewolf.games import services

    call_command("migrate", verbosity=0)
    organiser, _ = get_user_model().objects.get_or_create(username="storm")
    from random import Random

    rng = Random(1)
    ids = []
    for number in range(games):
        seats = [services.Seating(f"P{n}", f"p{n}.{number}@storm.test") for n in range(players)]
        game = services.start_game(
            services.create_game(
                organiser, name=f"Storm {number}", seats=seats, options={}, seed=number, early_resolution=False
            )
        )
        services.submit_orders(game, bot_orders(game.engine_state, rng))
        ids.append(game.pk)
        if number % 100 == 99:
            print(f"  {number + 1} games set up", flush=True)
    return ids


_copies = itertools.count(1)
_base: dict[str, str] = {}


def games(args: argparse.Namespace) -> list[int]:
    """The storm's games, their first night's cards all in: set up here, or with
    `--setup-once` on PostgreSQL a fresh copy of a template database in which they were
    set up once (CREATE DATABASE ... TEMPLATE: seconds, where setting up a thousand games
    takes minutes). With a copy, this process, and the workers and web server it starts
    after, use the copy's database (DATABASE_URL), and each storm has a database of its own."""
    from django.conf import settings
    from django.db import connection

    if not getattr(args, "setup_once", False):
        return make_games(args.games, args.players)
    if connection.vendor != "postgresql":
        raise SystemExit("--setup-once copies a PostgreSQL database: set DATABASE_URL=postgres://...")
    base = _base.setdefault("name", connection.settings_dict["NAME"])
    template = f"storm_setup_{args.games}x{args.players}_{setup_key(args)}"
    with _maintenance() as admin:
        known = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [template]).fetchone()
    if not known:
        print(f"  setting the games up once, in {template} ...", flush=True)
        building = f"{template}_building"  # renamed once whole: a stopped set-up leaves no template
        with _maintenance() as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{building}"')
        _use(building)
        make_games(args.games, args.players)
        with connection.cursor() as cursor:  # the seats' links are signed with it
            cursor.execute("CREATE TABLE storm_setup (secret_key text)")
            cursor.execute("INSERT INTO storm_setup VALUES (%s)", [settings.SECRET_KEY])
        connection.close()
        with _maintenance() as admin:
            admin.execute(f'ALTER DATABASE "{building}" RENAME TO "{template}"')
            stale = admin.execute(
                "SELECT datname FROM pg_database WHERE datname LIKE %s AND datname <> %s",
                [f"storm\\_setup\\_{args.games}x{args.players}\\_%", template],
            ).fetchall()
            for (name,) in stale:  # an older code's games: never read again
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    copy = f"{base[:40]}_storm{next(_copies)}"
    connection.close()
    with _maintenance() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{copy}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{copy}" TEMPLATE "{template}"')
    _use(copy)
    with connection.cursor() as cursor:
        cursor.execute("SELECT secret_key FROM storm_setup")
        (key,) = cursor.fetchone()
    # The key the games were set up under, for this process and the ones it starts: a
    # seat's link is signed with it.
    settings.SECRET_KEY = os.environ["WEREWOLF_SECRET_KEY"] = key
    from werewolf.games.models import Game

    print(f"  a copy of {template}: {copy}", flush=True)
    return list(Game.objects.filter(name__startswith="Storm ").order_by("pk").values_list("pk", flat=True))


def setup_key(args: argparse.Namespace) -> str:
    """What the template's games depend on: their number and size, and the code that sets
    them up (this tree's `werewolf` package and `make_games`): a change to either sets
    them up again."""
    digest = hashlib.sha256(f"{args.games}x{args.players}".encode())
    digest.update(inspect.getsource(make_games).encode())
    for path in sorted((ROOT / "werewolf").rglob("*.py")):
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


@contextlib.contextmanager
def _maintenance() -> Iterator[Any]:
    """A connection to the server's `postgres` database, in autocommit: where databases
    are made, copied and dropped."""
    import psycopg
    from django.db import connection

    given = connection.settings_dict
    params = {"host": given["HOST"], "port": given["PORT"], "user": given["USER"], "password": given["PASSWORD"]}
    with psycopg.connect(dbname="postgres", autocommit=True, **{k: v for k, v in params.items() if v}) as admin:
        yield admin


def _use(name: str) -> None:
    """This process, and the processes it starts from now on, use database `name`."""
    from urllib.parse import urlsplit

    from django.db import connection

    connection.close()
    connection.settings_dict["NAME"] = name
    os.environ["DATABASE_URL"] = urlsplit(os.environ["DATABASE_URL"])._replace(path=f"/{name}").geturl()


def project(
    args: argparse.Namespace,
    inbox: Inbox,
    ready: Callable[[list[int]], None] | None = None,
    ids: list[int] | None = None,
) -> dict[str, float]:
    """The storm through the project's workers, on `ids` (else on `games(args)`). `ready`,
    if given, is called with the games' ids once the workers are up and before the
    deadline is set (what runs beside the storm starts there: `storm_pages.py`'s players)."""
    from django.db import connection
    from django.utils import timezone

    from werewolf.games.models import Dispatch, Phase

    if ids is None:
        ids = games(args)
    # The welcome mails are not the storm: taken as sent, so that the workers start on it.
    Dispatch.objects.filter(phase=None, player__game_id__in=ids).update(status=Dispatch.Status.SENT)
    settle_database()
    from werewolf.celery import app

    app.control.purge()  # ... and their tasks dropped
    connection.close()
    env = {
        **os.environ,
        "WEREWOLF_EMAIL": "smtp",
        "WEREWOLF_EMAIL_HOST": "127.0.0.1",
        "WEREWOLF_EMAIL_PORT": str(inbox.port),
        "WEREWOLF_SWEEP_SECONDS": "1",
        "WEREWOLF_MAIL_SWEEP_SECONDS": "5",
        "PYTHONPATH": str(code(args)),
    }
    workers = []
    for number in range(args.workers):
        command = [sys.executable, "-m", "celery", "-A", "werewolf", "worker", "-n", f"storm{number}@%h"]
        # One task at a time a process, as the README's `--concurrency N` runs N of them
        # under one worker (prefork), or as many solo workers.
        concurrency = getattr(args, "concurrency", 1)
        command += [f"--concurrency={concurrency}"] if concurrency > 1 else ["--pool=solo"]
        if getattr(args, "nice", 0):  # the README's deployment: the workers below the web server
            command = ["nice", "-n", str(args.nice), *command]
        # As the README's deployment runs them (README, "Deploying": why these flags).
        command += ["--loglevel=info", "--without-gossip", "--without-mingle", "--without-heartbeat"]
        if number == 0:
            command += ["-B", "--schedule", f"{VAR}/beat-schedule"]
        log = open(f"{VAR}/worker{number}.log", "w")  # noqa: SIM115 - kept open for the process
        workers.append(subprocess.Popen(command, cwd=code(args), env=env, stdout=log, stderr=subprocess.STDOUT))
    wanted = args.games * args.players
    settle(workers)  # the workers start: their imports and templates are not the storm's
    if ready is not None:
        ready(ids)
    with inbox.lock:
        inbox.times.clear()
    # At rest, before the deadline: what the workers spend with no game due (the beat's
    # sweeps, every WEREWOLF_SWEEP_SECONDS; the deployment's default is 30, the storm's 1),
    # paid over the storm's span too whatever the games.
    at_rest = sum(tree_cpu_seconds(worker.pid) for worker in workers)
    rest_start = time.monotonic()
    time.sleep(REST_SECONDS)
    before = sum(tree_cpu_seconds(worker.pid) for worker in workers)
    rest = (before - at_rest) / (time.monotonic() - rest_start)
    counted_from = time.time()
    deadline = timezone.now() + __import__("datetime").timedelta(seconds=2)
    # The phases' reminders went out long before (a twelfth of a phase before its deadline,
    # two minutes at least): a deadline two seconds off would have the beat's sweep remind
    # every game inside the storm's count (15 % of a 300-game storm's CPU, which a real
    # deadline's minute does not pay: docs/performance.md).
    Phase.objects.filter(game_id__in=ids, index=0).update(deadline=deadline, reminded_at=timezone.now())
    start = deadline.timestamp()
    time.sleep(max(0.0, start - time.time()))
    machine = machine_seconds()  # from the deadline: the cores' business is the storm's
    flushed = log_flushes()
    resolved_at = None
    try:
        while time.time() < start + args.timeout:
            open_left = Phase.objects.filter(game_id__in=ids, index=0, status=Phase.Status.OPEN).count()
            if open_left == 0 and resolved_at is None:
                resolved_at = max(
                    Phase.objects.filter(game_id__in=ids, index=0).values_list("resolved_at", flat=True)
                ).timestamp()
            if resolved_at is not None and inbox.count() >= wanted:
                break
            time.sleep(0.5)
        cpu = sum(tree_cpu_seconds(worker.pid) for worker in workers) - before
        busy, cores = (now - then for now, then in zip(machine_seconds(), machine, strict=True))
        span = time.time() - counted_from
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=60)
    flushed = log_flushes(settled=True) - flushed
    phase_mails = Dispatch.objects.filter(kind=Dispatch.Kind.PHASE, phase__game_id__in=ids).count()
    lags = [moment - start for moment in inbox.times]
    return {
        "resolved": (resolved_at or float("nan")) - start,
        "mailed": (max(inbox.times) - start) if len(inbox.times) >= wanted else float("nan"),
        "mails": len(inbox.times),
        "queued": phase_mails,
        "p50": percentile(lags, 0.5),
        "p99": percentile(lags, 0.99),
        "cpu": cpu,
        "machine": busy,
        "busy": busy / cores,
        "rest": rest * span,
        "flushes": flushed,
    }


REST_SECONDS = 5.0
"""How long the workers' CPU at rest is counted before the deadline."""


def code(args: argparse.Namespace) -> Path:
    """The tree whose code the workers (and `storm_pages.py`'s web server) run: this one,
    or `--code`'s, a checkout of another commit measured by this tree's instruments (a
    "before" beside an "after" on one instrument, docs/performance.md). Its database schema
    must be this tree's (the games are made and read here) and its packages this venv's."""
    return Path(getattr(args, "code", None) or ROOT).resolve()


def checkout(value: str) -> str:
    """`--code`'s directory, if it is a checkout of this project (its `werewolf` package)."""
    if not (Path(value) / "werewolf" / "celery.py").is_file():
        raise argparse.ArgumentTypeError(f"{value} is no checkout of this project (no werewolf/celery.py in it)")
    return value


def add_setup_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--setup-once",
        action="store_true",
        help="PostgreSQL: set the games up once in a template database and run each storm on a fresh copy of it "
        "(seconds instead of minutes; needs the right to create databases)",
    )


def add_sink_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--aiosmtpd",
        action="store_true",
        help="receive the mails with aiosmtpd, the sink of the earlier figures (several times the CPU a mail)",
    )


def add_code_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--code",
        type=checkout,
        metavar="DIR",
        help="run the workers (and web server) from another checkout, e.g. `git worktree add DIR COMMIT`: "
        "a before and an after measured by the same instruments",
    )


def log_flushes(settled: bool = False) -> float:
    """PostgreSQL: how many times the server has flushed its log to disk so far
    (`pg_stat_wal.wal_sync`, the whole server's; 14 and later). A commit that must be
    durable waits for one, and on one machine a storm's commits are what its disk bounds
    (the README's "the database's disk"). `settled`: the processes that just stopped
    have reported theirs first. NaN where there is no such count."""
    from django.db import DatabaseError, connection

    if connection.vendor != "postgresql":
        return float("nan")
    if settled:
        time.sleep(1.0)  # (a server process reports its counts when its session ends)
    try:
        with connection.cursor() as cursor:
            if connection.pg_version >= 150000:  # this process's own counts too, reported first
                cursor.execute("SELECT pg_stat_force_next_flush()")
            cursor.execute("SELECT wal_sync FROM pg_stat_wal")
            return float(cursor.fetchone()[0])
    except DatabaseError:
        return float("nan")


def settle_database() -> None:
    """PostgreSQL: give the next measured part (a storm, the bare loop) a database at rest.
    What the part before left (a storm's rows and marks, the games' set-up) is vacuumed
    and analysed now, so that autovacuum does not take it up in the middle of the next
    part at a moment of its own choosing (a run's noise, not the code's cost), and written
    out (CHECKPOINT, where the role may). Elsewhere nothing."""
    from django.db import DatabaseError, connection

    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE)")
        try:
            cursor.execute("CHECKPOINT")
        except DatabaseError:  # (a role without pg_checkpoint: the server writes it out in its time)
            pass


def settle(workers: list[subprocess.Popen[bytes]], most: float = 60.0) -> None:
    """Wait until the workers have started: until their CPU grows by less than a tenth
    of a second in a second (at least 5 s, at most `most`). On a loaded machine a worker's
    start (some 2 s of CPU) outlasted a fixed 5 s wait and was counted as the storm's."""
    time.sleep(5)
    last = sum(tree_cpu_seconds(worker.pid) for worker in workers)
    for _ in range(int(most)):
        time.sleep(1.0)
        now = sum(tree_cpu_seconds(worker.pid) for worker in workers)
        if now - last < 0.1 * len(workers):
            return
        last = now


def bare(args: argparse.Namespace, port: int) -> dict[str, float]:
    """The same work with no framework: one claim UPDATE, the event rows and the mails of
    each game, over one database connection and one SMTP connection, each mail's envelope
    in one write as the workers send it (werewolf/mail/pipelining.py)."""
    from django.db import connection

    from werewolf.mail import pipelining

    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE IF NOT EXISTS bare_phase (id integer PRIMARY KEY, status varchar(16))")
        cursor.execute("CREATE TABLE IF NOT EXISTS bare_event (phase integer, kind varchar(40), data text)")
        cursor.execute("DELETE FROM bare_phase")
        for number in range(args.games):
            cursor.execute("INSERT INTO bare_phase VALUES (%s, 'open')", [number])
    times: list[float] = []
    flushed = log_flushes()  # (read before the clocks start: not the loop's work)
    start = time.time()
    cpu = time.thread_time()  # the loop's own: the SMTP server's thread is not the loop's work
    machine = machine_seconds()
    smtp = smtplib.SMTP("127.0.0.1", port)
    for number in range(args.games):
        with connection.cursor() as cursor:
            cursor.execute("UPDATE bare_phase SET status='resolved' WHERE id=%s AND status='open'", [number])
            for _event in range(args.players + 3):
                cursor.execute("INSERT INTO bare_event VALUES (%s, %s, %s)", [number, "event", "{}"])
        for seat in range(args.players):
            message = EmailMessage()
            message["From"], message["To"] = "moderator@storm.test", f"p{seat}.{number}@storm.test"
            message["Subject"] = f"Storm {number}: night 1 is over"
            message.set_content("What you may know of the night.\n" * 10)
            data = message.as_bytes(policy=message.policy.clone(linesep="\r\n"))
            pipelining.sendmail(smtp, message["From"], [message["To"]], data)
            times.append(time.time() - start)
    smtp.quit()
    total = time.time() - start
    busy, cores = (now - then for now, then in zip(machine_seconds(), machine, strict=True))
    return {
        "resolved": total,
        "mailed": total,
        "mails": len(times),
        "queued": len(times),
        "p50": percentile(times, 0.5),
        "p99": percentile(times, 0.99),
        "cpu": time.thread_time() - cpu,
        "machine": busy,
        "busy": busy / cores,
        "rest": 0.0,
        "flushes": log_flushes(settled=True) - flushed,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--nice", type=int, default=0, help="the workers' niceness (the README's deployment: 10)")
    parser.add_argument(
        "--concurrency",
        type=int,
        default=1,
        help="processes a worker runs (the README's `--concurrency`; 1: a solo worker, as --workers counts them)",
    )
    add_code_argument(parser)
    add_setup_argument(parser)
    add_sink_argument(parser)
    args = parser.parse_args()
    try:  # a table the rules refuse fails here, not halfway through setting games up
        engine.options("classic", {}, args.players)
    except engine.SetupError as problem:
        parser.error(f"--players {args.players}: the classic rules refuse that table ({problem})")
    import django

    django.setup()
    inbox = Inbox(aiosmtpd=args.aiosmtpd)
    if args.code:
        print(f"The workers run {code(args)}'s code", flush=True)
    try:
        print(f"Setting up {args.games} games of {args.players} ...", flush=True)
        ours = project(args, inbox)
        with inbox.lock:
            inbox.times.clear()
        settle_database()
        baseline = bare(args, inbox.port)
    finally:
        inbox.stop()
    report(args, ours, baseline)
    return 0


def report(args: argparse.Namespace, ours: dict[str, float], baseline: dict[str, float]) -> None:
    """The storm's figures, the project's beside the bare loop's, and their ratios."""
    from django.db import connection

    pool = f" of {args.concurrency} processes each" if getattr(args, "concurrency", 1) > 1 else ""
    print(f"\n{args.games} games x {args.players} players, {args.workers} workers{pool}, {connection.vendor}")
    print(f"{'figure':36} {'project':>10} {'bare loop':>10} {'ratio':>7}")
    rows = [
        ("every phase resolved (s)", "resolved"),
        ("every mail handed to SMTP (s)", "mailed"),
        ("mail lag p50 (s)", "p50"),
        ("mail lag p99 (s)", "p99"),
        ("CPU spent (s)", "cpu"),
        ("the machine's CPU, all processes (s)", "machine"),
    ]
    for label, key in rows:
        ratio = ours[key] / baseline[key] if baseline[key] else float("nan")
        print(f"{label:36} {ours[key]:10.1f} {baseline[key]:10.1f} {ratio:7.1f}")
    rate = ours["mails"] / ours["mailed"] if ours["mailed"] == ours["mailed"] and ours["mailed"] > 0 else float("nan")
    print(f"{'mails per second':36} {rate:10.1f} {baseline['mails'] / baseline['mailed']:10.1f}")
    print(f"{'the cores busy':36} {ours['busy']:10.0%} {baseline['busy']:10.0%}")
    flushes = (ours.get("flushes", float("nan")) / args.games, baseline.get("flushes", float("nan")) / args.games)
    if all(value == value for value in flushes):  # (PostgreSQL's count: one a durable commit, or fewer)
        print(f"{'the database log flushed, a game':36} {flushes[0]:10.1f} {flushes[1]:10.1f}")
    print(f"mails received {ours['mails']} of {args.games * args.players} (queued {ours['queued']})")
    if ours.get("rest"):
        share = ours["rest"] / ours["cpu"] if ours["cpu"] else float("nan")
        per_game = (ours["cpu"] - ours["rest"]) / baseline["cpu"] if baseline["cpu"] else float("nan")
        print(
            f"the workers at rest (the beat's sweeps): {ours['rest']:.1f} s of the storm's CPU ({share:.0%}); "
            f"the rest / the bare loop's: {per_game:.2f}x"
        )


if __name__ == "__main__":
    raise SystemExit(main())
