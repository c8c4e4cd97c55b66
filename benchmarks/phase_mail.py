#!/usr/bin/env python3
"""One phase's mail for a table (12 players by default): the project's whole path (render
each seat's mail, record it, send it) beside Django's mail backend sending the same
twelve messages over one connection, and raw smtplib, in the same run, to an SMTP server
on loopback (aiosmtpd). The ratios are the figures (goal in issue 11: within 2x of
Django's backend on one connection); the project's query count is printed too.

    DATABASE_URL=postgres://... python benchmarks/phase_mail.py [--players 12] [--repeat 20]

It creates and drops a scratch database of its own (Django's test database machinery).
"""

from __future__ import annotations

import argparse
import os
import smtplib
import socket
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Sink:
    async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd's name)
        return "250 OK"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--repeat", type=int, default=20, help="phases timed on each side (best taken)")
    parser.add_argument("--profile", action="store_true", help="also print where the project's path spends its time")
    args = parser.parse_args()

    import django

    django.setup()
    from aiosmtpd.controller import Controller
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.mail import EmailMultiAlternatives, get_connection
    from django.db import connection, reset_queries
    from django.test.utils import setup_test_environment

    from werewolf.games import services
    from werewolf.games.models import Dispatch
    from werewolf.mail import outbound

    port = free_port()
    controller = Controller(Sink(), hostname="127.0.0.1", port=port)
    controller.start()
    setup_test_environment()  # (it sets the locmem backend: the real one comes after)
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.WEREWOLF_INLINE_TASKS = True
    old = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        organiser = get_user_model().objects.create_user("bench")
        names = [f"Player{n}" for n in range(args.players)]
        seats = [services.Seating(name, f"{name.lower()}@example.org") for name in names]
        game = services.start_game(
            services.create_game(organiser, name="Bench", seats=seats, options={"wolves": 2, "seers": 1}, seed=3)
        )
        phase = game.current_phase()
        services.resolve_now(game)
        sample = list(Dispatch.objects.filter(phase=phase))

        def project() -> tuple[float, int]:
            Dispatch.objects.filter(phase=phase).delete()
            settings.DEBUG = True
            reset_queries()
            start = time.perf_counter()
            sent = outbound.send_phase_mails(phase.pk)
            seconds = time.perf_counter() - start
            count = len(connection.queries)
            settings.DEBUG = False
            assert sent == len(sample), sent
            return seconds, count

        def django_backend() -> float:
            start = time.perf_counter()
            with get_connection() as smtp:
                for row in sample:
                    message = EmailMultiAlternatives(
                        row.subject, row.body_text, to=[row.recipient], headers=row.headers, connection=smtp
                    )
                    message.attach_alternative(row.body_html, "text/html")
                    message.send()
            return time.perf_counter() - start

        def raw_smtp() -> float:
            payloads = [
                EmailMultiAlternatives(row.subject, row.body_text, to=[row.recipient]).message() for row in sample
            ]
            start = time.perf_counter()
            with smtplib.SMTP("127.0.0.1", port) as smtp:
                for row, payload in zip(sample, payloads, strict=True):
                    smtp.sendmail(settings.DEFAULT_FROM_EMAIL, [row.recipient], payload.as_bytes())
            return time.perf_counter() - start

        best = {"project": float("inf"), "django": float("inf"), "smtplib": float("inf")}
        queries = 0
        for _ in range(args.repeat):
            seconds, queries = project()
            best["project"] = min(best["project"], seconds)
            best["django"] = min(best["django"], django_backend())
            best["smtplib"] = min(best["smtplib"], raw_smtp())
        if args.profile:
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.runcall(project)
            pstats.Stats(profiler).sort_stats("cumtime").print_stats(30)
        print(f"database: {connection.vendor}; one phase's mail for {args.players} players, best of {args.repeat}")
        print(f"  project (render, record, send)   {best['project'] * 1000:8.1f} ms   {queries} queries")
        print(f"  Django backend, one connection   {best['django'] * 1000:8.1f} ms")
        print(f"  raw smtplib                      {best['smtplib'] * 1000:8.1f} ms")
        print(f"  ratio project / Django backend   {best['project'] / best['django']:8.2f}x   goal: within 2x")
    finally:
        connection.creation.destroy_test_db(old, verbosity=0)
        controller.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
