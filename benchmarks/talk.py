#!/usr/bin/env python3
"""Posts in the town square accepted per second through the web, on the production WSGI
server (gunicorn), against a trivial view (`/healthz`) on the same server in the same run.

    python benchmarks/talk.py [--seconds 5] [--rounds 5] [--clients 8] [--workers 2] [--threads 4]

It makes a game in the configured database (SQLite under a temporary directory unless
DATABASE_URL says otherwise), starts gunicorn on a free port, and lets `--clients` threads
post as the game's players (each with its own session and CSRF token, as a browser) for
`--seconds`, and ask `/healthz` as hard for as long, taking turns in `--rounds` slices so
that a machine busy with other work weighs on both alike. The figure to read is the ratio
(goal in issue 10: at least 0.5); absolute rates depend on the machine. The server runs
with the settings' defaults (a database connection kept per thread,
WEREWOLF_DB_CONN_MAX_AGE) unless the environment says otherwise. A seat's posts per minute
are limited (`talk_post`); here the limit is set far above what the clients post, so that
every post is counted in the shared cache as on a real site and none is refused.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "werewolf.settings")
os.environ.setdefault("WEREWOLF_VAR_DIR", tempfile.mkdtemp(prefix="werewolf-talk-bench-"))
os.environ.setdefault("WEREWOLF_INLINE_TASKS", "1")
os.environ.setdefault("WEREWOLF_RATES", "talk_post=100000000/60")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def make_game() -> list[str]:
    """A running game of twelve; the seat paths."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from werewolf.games import links, services

    call_command("migrate", verbosity=0)
    organiser, _ = get_user_model().objects.get_or_create(username="bench")
    seats = [services.Seating(f"Player{n}") for n in range(12)]
    game = services.start_game(services.create_game(organiser, name="Bench", seats=seats, options={}, seed=1))
    return [str(links.url_for(player, absolute=False)) for player in game.players.order_by("seat")]


class Connection(http.client.HTTPConnection):
    """http.client's connection, which writes a small body in the same packet as the
    headers, as browsers do (Chromium merges a body of up to 1,400 bytes with its
    headers); http.client writes them apart, which costs the server a second read."""

    def _send_output(self, message_body: object = None, encode_chunked: bool = False) -> None:
        if isinstance(message_body, bytes) and len(message_body) <= 1400:
            self._buffer.extend((b"", b""))  # type: ignore[attr-defined]
            head = b"\r\n".join(self._buffer)  # type: ignore[attr-defined]
            del self._buffer[:]  # type: ignore[attr-defined]
            self.send(head + message_body)
        else:
            super()._send_output(message_body, encode_chunked)  # type: ignore[misc]


class Client:
    """One keep-alive connection with its own cookies, as a browser tab."""

    def __init__(self, port: int) -> None:
        self.connection = Connection("127.0.0.1", port, timeout=30)
        self.origin = f"http://127.0.0.1:{port}"
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body: dict[str, str] | bytes | None = None) -> tuple[int, str]:
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        data = None
        if body is not None:
            # What a browser's form post on the site's own page says of itself.
            data = body if isinstance(body, bytes) else urlencode(body).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Origin"] = self.origin
            headers["Referer"] = self.origin + path
            headers["Sec-Fetch-Site"] = "same-origin"
            headers["Sec-Fetch-Mode"] = "navigate"
            headers["Sec-Fetch-Dest"] = "document"
        self.connection.request(method, path, body=data, headers=headers)
        response = self.connection.getresponse()
        text = response.read().decode(errors="replace")
        for header in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, text


class Crowd:
    """`clients` browser tabs doing `work`, each prepared once (a post's tab opens the
    seat's page for its cookies and CSRF token), before and outside any timed window."""

    def __init__(self, port: int, clients: int, work) -> None:
        self.work = work
        self.tabs = []
        for number in range(clients):
            client = Client(port)
            self.tabs.append((client, work.prepare(client, number)))

    def hammer(self, seconds: float) -> int:
        """How many requests the tabs, all at once, had answered in `seconds`."""
        done = [0] * len(self.tabs)
        ready = threading.Barrier(len(self.tabs) + 1)
        stop = [0.0]

        def run(number: int) -> None:
            client, state = self.tabs[number]
            client.connection.close()  # the server drops a connection idle a while: open anew
            ready.wait()
            while time.perf_counter() < stop[0]:
                self.work.once(client, state, number)
                done[number] += 1

        threads = [threading.Thread(target=run, args=(n,)) for n in range(len(self.tabs))]
        for thread in threads:
            thread.start()
        stop[0] = time.perf_counter() + seconds
        ready.wait()
        for thread in threads:
            thread.join()
        return sum(done)


class Post:
    def __init__(self, seats: list[str]) -> None:
        self.seats = seats

    def prepare(self, client: Client, number: int) -> dict[str, str]:
        seat = self.seats[number % len(self.seats)]
        status, page = client.request("GET", seat)
        assert status == 200, status
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        return {"seat": seat, "token": token}

    def once(self, client: Client, state: dict[str, str], number: int) -> None:
        body = {"csrfmiddlewaretoken": state["token"], "channel": "square", "text": f"word {number}"}
        status, _ = client.request("POST", state["seat"] + "talk/", body)
        assert status == 302, status


class Trivial:
    def prepare(self, client: Client, number: int) -> None:
        return None

    def once(self, client: Client, state: None, number: int) -> None:
        status, _ = client.request("GET", "/healthz")
        assert status == 200, status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5, help="turns each side takes, --seconds in all")
    args = parser.parse_args()
    seats = make_game()
    port = free_port()
    env = {**os.environ, "WEREWOLF_ALLOWED_HOSTS": "127.0.0.1", "WEREWOLF_CSRF_TRUSTED_ORIGINS": "http://127.0.0.1"}
    server = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("gunicorn")),
            "werewolf.wsgi",
            "-b",
            f"127.0.0.1:{port}",
            "-w",
            str(args.workers),
            "--threads",
            str(args.threads),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    try:
        for _ in range(100):
            try:
                Client(port).request("GET", "/healthz")
                break
            except OSError:
                time.sleep(0.1)
        posters, askers = Crowd(port, args.clients, Post(seats)), Crowd(port, args.clients, Trivial())
        askers.hammer(1.0)  # warm up both
        posters.hammer(1.0)
        # Turn about, so that both see the same machine: whatever else runs on it varies
        # over a run, and one long window each would hand the difference to one side.
        posted = asked = 0
        for _ in range(args.rounds):
            posted += posters.hammer(args.seconds / args.rounds)
            asked += askers.hammer(args.seconds / args.rounds)
        posts, trivial = posted / args.seconds, asked / args.seconds
    finally:
        server.terminate()
        server.wait(timeout=30)
    database = "PostgreSQL" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "SQLite"
    server_shape = f"gunicorn {args.workers} workers x {args.threads} threads"
    print(f"{server_shape}, {args.clients} clients, {args.rounds} rounds, {database}")
    print(f"posts accepted:  {posts:8.1f} /s")
    print(f"trivial view:    {trivial:8.1f} /s")
    print(f"ratio:           {posts / trivial:8.2f}  (goal: at least 0.5)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
