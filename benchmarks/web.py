#!/usr/bin/env python3
"""Order submission through the web: a player's card POST, and the seat page, per second on
the production WSGI server (gunicorn), against a trivial view (`/healthz`) on the same server
in the same run (issue 11: the card POST at least half the trivial view's rate).

    python benchmarks/web.py [--seconds 5] [--rounds 5] [--clients 8] [--workers 4] [--threads 4] [--games 4]

It makes `--games` running twelve-player games in the configured database (SQLite under a
temporary directory unless DATABASE_URL says otherwise; PostgreSQL is the one to measure),
with early resolution off so that the night stays open, starts gunicorn on a free port, and
lets `--clients` threads act as players (each with its own session and CSRF token, and
the headers a browser's form post carries, `talk.Client`): hand in their card again and
again (all in the first game), read their seat page, ask for its news (`version.json`;
both in the other games) and ask `/healthz` as hard, each for `--seconds`, taking
turns in `--rounds` slices so that a machine busy with other work weighs on all four
alike. The ratios are the figures to read. It also prints each kind's CPU per request
(gunicorn's workers, PostgreSQL's server processes, the clients, from /proc), steadier
than requests/s where the machine's speed wanders, and where a request's cost lies.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "werewolf.settings")
os.environ.setdefault("WEREWOLF_VAR_DIR", tempfile.mkdtemp(prefix="werewolf-web-bench-"))
os.environ.setdefault("WEREWOLF_INLINE_TASKS", "1")

from benchmarks.talk import Client, Crowd, Trivial, free_port  # noqa: E402

PLAYERS = 12
"""Seats per game: `make_games` lists each game's seats in turn."""


def make_games(games: int) -> list[str]:
    """Running games of twelve whose night never ends early; every seat's path."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from werewolf.games import links, services

    call_command("migrate", verbosity=0)
    organiser, _ = get_user_model().objects.get_or_create(username="bench")
    paths = []
    for number in range(games):
        seats = [services.Seating(f"Player{n}") for n in range(PLAYERS)]
        game = services.start_game(
            services.create_game(
                organiser, name=f"Bench {number}", seats=seats, options={}, seed=number + 1, early_resolution=False
            )
        )
        paths += [str(links.url_for(player, absolute=False)) for player in game.players.order_by("seat")]
    return paths


class Card:
    """A player handing in their night card: the first choice of the first select of
    each field (a wolf's ranked list names one victim), the rest left empty."""

    def __init__(self, seats: list[str]) -> None:
        self.seats = seats

    def prepare(self, client: Client, number: int) -> tuple[str, bytes]:
        """The seat's path and the form's body, written once: a load generator's work
        per request is not the server's."""
        seat = self.seats[number % len(self.seats)]
        status, page = client.request("GET", seat)
        assert status == 200, status
        form = {"csrfmiddlewaretoken": re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)}
        form["phase"] = re.search(r'name="phase" value="(\d+)"', page).group(1)
        for name, value in re.findall(r'<select name="([a-z_0-9]+)"[^>]*>\s*<option value=""[^>]*>[^<]*</option>\s*'
                                      r'<option value="(\d+)"', page):  # fmt: skip
            if not re.search(r"_([2-9]|\d\d)$", name):  # target_2, target_3...: left empty
                form[name] = value
        return seat, urlencode(form).encode()

    def once(self, client: Client, state: tuple[str, bytes], number: int) -> None:
        status, _ = client.request("POST", *state)
        assert status == 302, status


class Page:
    """A player reading their seat page, in the games the cards do not go to: the cards
    all go to the first game (`Card`, the lock's worst case), whose night gathers
    thousands of them in a run, where a real night has a few per seat; a page of that
    game would read them all. The clients sit in the other games in turn (with one game
    only, in it)."""

    def __init__(self, seats: list[str]) -> None:
        self.seats = seats

    def prepare(self, client: Client, number: int) -> str:
        games = len(self.seats) // PLAYERS
        others = range(1, games) if games > 1 else range(1)
        game, seat = others[number % len(others)], (number // len(others)) % PLAYERS
        return self.seats[game * PLAYERS + seat]

    def once(self, client: Client, state: str, number: int) -> None:
        status, _ = client.request("GET", state)
        assert status == 200, status


class Poll(Page):
    """An open seat page asking whether it has news (`version.json`), as every open page
    does every WEREWOLF_POLL_SECONDS: in a served game, the request asked most."""

    def prepare(self, client: Client, number: int) -> str:
        return super().prepare(client, number) + "version.json"


class CpuMeter:
    """CPU time (user + system) spent by gunicorn's workers, the database's server
    processes for this database (PostgreSQL) and this process (the clients), read from
    /proc: per request, it is steadier than requests/s on a machine whose speed wanders,
    and it says where a request's cost lies. Linux only; elsewhere it reads nothing."""

    def __init__(self, server: subprocess.Popen) -> None:
        self.server = server
        self.tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def _stat(self, pid: int) -> float:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return 0.0
        return (int(fields[11]) + int(fields[12])) / self.tick

    def _workers(self) -> list[int]:
        try:
            return [
                int(pid) for pid in Path(f"/proc/{self.server.pid}/task/{self.server.pid}/children").read_text().split()
            ]
        except OSError:
            return []

    def _database(self) -> list[int]:
        from django.db import connection

        if connection.vendor != "postgresql":
            return []
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            return [row[0] for row in cursor.fetchall()]

    def read(self) -> tuple[float, float, float]:
        """Seconds so far: the web workers', the database's, the clients'."""
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return (
            sum(self._stat(pid) for pid in self._workers()),
            sum(self._stat(pid) for pid in self._database()),
            usage.ru_utime + usage.ru_stime,
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5, help="turns each side takes, --seconds in all")
    args = parser.parse_args()
    seats = make_games(args.games)
    port = free_port()
    env = {**os.environ, "WEREWOLF_ALLOWED_HOSTS": "127.0.0.1", "WEREWOLF_CSRF_TRUSTED_ORIGINS": "http://127.0.0.1"}
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    command = [gunicorn, "werewolf.wsgi", "-b", f"127.0.0.1:{port}", "-w", str(args.workers)]
    server = subprocess.Popen([*command, "--threads", str(args.threads), "--log-level", "warning"], cwd=ROOT, env=env)
    try:
        for _ in range(100):
            try:
                Client(port).request("GET", "/healthz")
                break
            except OSError:
                time.sleep(0.1)
        crowds = {name: Crowd(port, args.clients, work) for name, work in
                  (("cards", Card(seats)), ("pages", Page(seats)), ("polls", Poll(seats)),
                   ("trivial", Trivial()))}  # fmt: skip
        for crowd in crowds.values():
            crowd.hammer(1.0)  # warm every path up
        # Turn about, so that all see the same machine: whatever else runs on it varies over
        # a run, and one long window each would hand the difference to one side.
        done = dict.fromkeys(crowds, 0)
        meter = CpuMeter(server)
        spent = {name: [0.0, 0.0, 0.0] for name in crowds}
        for _ in range(args.rounds):
            for name, crowd in crowds.items():
                before = meter.read()
                done[name] += crowd.hammer(args.seconds / args.rounds)
                spent[name] = [
                    total + now - then for total, now, then in zip(spent[name], meter.read(), before, strict=True)
                ]
        cards, pages, polls, trivial = (done[name] / args.seconds for name in ("cards", "pages", "polls", "trivial"))
    finally:
        server.terminate()
        server.wait(timeout=30)
    database = "PostgreSQL" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "SQLite"
    shape = f"gunicorn {args.workers} workers x {args.threads} threads, {args.clients} clients, {args.rounds} rounds"
    print(f"{shape}, {database}")
    print(f"card POST:       {cards:8.1f} /s   ratio {cards / trivial:5.2f}  (goal: at least 0.5)")
    print(f"seat page:       {pages:8.1f} /s   ratio {pages / trivial:5.2f}")
    print(f"page's poll:     {polls:8.1f} /s   ratio {polls / trivial:5.2f}")
    print(f"trivial view:    {trivial:8.1f} /s")
    print("CPU per request (us): web workers + database + clients = total, and its ratio")
    per = {name: [seconds / max(done[name], 1) * 1e6 for seconds in spent[name]] for name in done}
    for name, label in (
        ("cards", "card POST"),
        ("pages", "seat page"),
        ("polls", "page's poll"),
        ("trivial", "trivial view"),
    ):
        web, db, clients = per[name]
        ratio = sum(per["trivial"]) / sum(per[name]) if sum(per[name]) else 0.0
        print(f"  {label:13} {web:8.0f} + {db:6.0f} + {clients:6.0f} = {web + db + clients:8.0f}   ratio {ratio:5.2f}")
    page_cpu, trivial_cpu = per["pages"][0], per["trivial"][0]
    times = f"{page_cpu / trivial_cpu:.1f}x" if trivial_cpu else "n/a"
    print(f"seat page CPU / trivial view's (web workers): {times}  (issue 40's goal: within 10x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
