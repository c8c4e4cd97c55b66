#!/usr/bin/env python3
"""One phase's mail for a table (12 players by default): the project's whole path (render
each seat's mail, record it, send it) beside Django's mail backend sending the same
twelve messages (the same headers, HTML twin and calendar event) over one connection,
and raw smtplib sending them already built, in the same run, to an SMTP server on
loopback (aiosmtpd). The ratios are the figures (goal in issue 11: within 2x of Django's
backend on one connection); the project's query count is printed too.

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

from werewolf import engine  # noqa: E402  (pure: no settings needed)


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
    try:  # a table the rules refuse fails here, not halfway through setting games up
        engine.options("classic", {}, args.players)
    except engine.SetupError as problem:
        parser.error(f"--players {args.players}: the classic rules refuse that table ({problem})")

    import django

    django.setup()
    from aiosmtpd.controller import Controller
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.mail import EmailMultiAlternatives, get_connection
    from django.db import connection, reset_queries, transaction

    from werewolf.games import services
    from werewolf.games.models import Dispatch
    from werewolf.mail import outbound

    port = free_port()
    controller = Controller(Sink(), hostname="127.0.0.1", port=port)
    controller.start()
    # (Not setup_test_environment(): it would time every template render for the tests'
    # signals, a cost the project does not have outside them.)
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

        def project(resolver: bool = True, count: bool = False) -> tuple[float, int]:
            """As the worker that resolved the phase writes and sends its mails (in the
            resolution's transaction, then at its commit), or, with `resolver` False, as
            the task that sends a phase's mail after a lost one (`send_phase_mails`).
            With `count`, the statements are counted (and the time, which the counting
            weighs on, is not the figure)."""
            Dispatch.objects.filter(phase=phase).delete()
            settings.DEBUG = count
            reset_queries()
            start = time.perf_counter()
            if resolver:
                with transaction.atomic():
                    outbound.queue_phase_mails(phase, fresh=True)
            else:
                outbound.send_phase_mails(phase.pk)
            seconds = time.perf_counter() - start
            statements = len(connection.queries)
            settings.DEBUG = False
            sent = Dispatch.objects.filter(phase=phase, status=Dispatch.Status.SENT).count()
            assert sent == len(sample), sent
            return seconds, statements

        def same_message(row: Dispatch, smtp: object = None) -> EmailMultiAlternatives:
            """The very mail the project sends for `row` (its headers, its HTML twin, its
            calendar event), as a plain Django message."""
            ours = outbound._message(row, None)
            message = EmailMultiAlternatives(
                ours.subject,
                ours.body,
                from_email=ours.from_email,
                to=ours.to,
                reply_to=ours.reply_to,
                headers=ours.extra_headers,
                alternatives=ours.alternatives,
                connection=smtp,
            )
            for attachment in ours.attachments:
                message.attach(*attachment)
            return message

        def django_backend() -> float:
            start = time.perf_counter()
            with get_connection() as smtp:
                for row in sample:
                    same_message(row, smtp).send()
            return time.perf_counter() - start

        def raw_smtp() -> float:
            payloads = [same_message(row).message() for row in sample]
            start = time.perf_counter()
            with smtplib.SMTP("127.0.0.1", port) as smtp:
                for row, payload in zip(sample, payloads, strict=True):
                    smtp.sendmail(settings.DEFAULT_FROM_EMAIL, [row.recipient], payload.as_bytes(linesep="\r\n"))
            return time.perf_counter() - start

        best = {"project": float("inf"), "lost": float("inf"), "django": float("inf"), "smtplib": float("inf")}
        queries, lost_queries = project(count=True)[1], project(resolver=False, count=True)[1]
        for _ in range(args.repeat):
            best["project"] = min(best["project"], project()[0])
            best["lost"] = min(best["lost"], project(resolver=False)[0])
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
        print(f"  ... after a lost task             {best['lost'] * 1000:8.1f} ms   {lost_queries} queries")
        print(f"  Django backend, one connection   {best['django'] * 1000:8.1f} ms")
        print(f"  raw smtplib                      {best['smtplib'] * 1000:8.1f} ms")
        print(f"  ratio project / Django backend   {best['project'] / best['django']:8.2f}x   goal: within 2x")
    finally:
        connection.creation.destroy_test_db(old, verbosity=0)
        controller.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
