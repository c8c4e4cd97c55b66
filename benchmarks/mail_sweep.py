#!/usr/bin/env python3
"""The mail sweep with nothing to send, on an empty outbox and on one holding many mails
already sent, in the same run and on the configured database: the ratio is the figure.
Before the outbox, the sweep looked at every welcome and phase of two days (18.9 s with
nothing to send after 5,096 mails); now it should cost the same whatever was sent.

    DATABASE_URL=postgres://... python benchmarks/mail_sweep.py [--mails 5000] [--repeat 50]

It creates and drops a scratch database of its own (Django's test database machinery).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mails", type=int, default=5000, help="mails already sent in the full outbox")
    parser.add_argument("--repeat", type=int, default=50, help="sweeps timed on each side")
    args = parser.parse_args()

    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import setup_test_environment
    from django.utils import timezone

    from werewolf.games.models import Dispatch, Game, Player
    from werewolf.mail import outbound

    setup_test_environment()
    old = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        organiser = get_user_model().objects.create_user("bench")
        game = Game.objects.create(name="Bench", organiser=organiser, seed=1, public_key="bench")
        player = Player.objects.create(game=game, seat=0, name="Ada", email="ada@example.org")

        def sweep_seconds() -> float:
            start = time.perf_counter()
            for _ in range(args.repeat):
                assert outbound.send_pending() == 0
            return (time.perf_counter() - start) / args.repeat

        sweep_seconds()  # warm up
        empty = sweep_seconds()
        now = timezone.now()
        rows = [
            Dispatch(
                player=player,
                key=f"bench:{n}",
                kind=Dispatch.Kind.PHASE,
                status=Dispatch.Status.SENT,
                message_id=f"<{n}@bench>",
                recipient="Ada <ada@example.org>",
                subject="s",
                body_text="t",
                sent_at=now,
            )
            for n in range(args.mails)
        ]
        Dispatch.objects.bulk_create(rows, batch_size=1000)
        with connection.cursor() as cursor:  # as autovacuum would, on a live site
            cursor.execute(f"ANALYZE {Dispatch._meta.db_table}")
        sweep_seconds()
        full = sweep_seconds()
        print(f"database: {connection.vendor}; sweeps timed: {args.repeat} on each side")
        print(f"empty outbox:           {empty * 1000:8.3f} ms a sweep (baseline)")
        print(f"{args.mails:>6} mails sent before: {full * 1000:8.3f} ms a sweep")
        print(f"ratio full / empty:     {full / empty:8.2f}")
    finally:
        connection.creation.destroy_test_db(old, verbosity=0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
