#!/usr/bin/env python3
"""The outbox's indexes on PostgreSQL, the set before migration games 0018 against the
set after it, on the same rows in the same run: the index entries and the bytes of WAL
that one mark of a mail writes (the sender's one statement that records a mail sent and
marks the next one `sending`, `outbound.mark_statement`), and each index's size.

    DATABASE_URL=postgres://... python benchmarks/outbox_indexes.py [--games 200] [--players 12]
        [--phases 3] [--marks 300] [--provider] [--plans]

An outbox of a busy site: every seat of `--games` games has its welcome and the mails of
`--phases` phases, all sent but the last phase's, which a deadline storm just wrote
(pending). The mails are the ones the project writes (one game is played to render them),
copied to every seat. The sender then takes `--marks` of the storm's mails and marks
them one after another, each statement run under EXPLAIN (ANALYZE, WAL), which gives the
WAL bytes (full-page images included, and counted); the index entries are the B-tree
insertions the server logged for those transactions (pg_walinspect, a superuser's; without
it they are not counted). `--provider`: the mails go out by a provider's API, which gives
each an id (kept in `provider_id`). `--plans` also prints the plan of each query the
project makes on the outbox, on the new indexes.

It creates a database of its own on the configured server, named after the configured
database (`<name>_outbox_indexes`), migrates it to the latest (the new indexes), measures,
empties the outbox, migrates games back to 0017 (the old ones), writes the same rows again,
measures, and drops the database. On any other database it says it needs PostgreSQL.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

NEEDS_POSTGRESQL = "outbox_indexes.py measures PostgreSQL's indexes: run it with DATABASE_URL=postgres://..."
BEFORE = "0017_vote_counts"
"""The games migration before the outbox's indexes were trimmed."""


@dataclass
class Side:
    """What one index set cost: per mark, and the indexes' sizes (bytes, by name)."""

    name: str
    marks: int = 0
    entries: int | None = None
    wal_bytes: int = 0
    wal_records: int = 0
    fpi: int = 0
    bytes_without_fpi: int | None = None
    index_bytes: int | None = None
    sizes: dict[str, int] | None = None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games in the outbox")
    parser.add_argument("--players", type=int, default=12, help="seats a game")
    parser.add_argument("--phases", type=int, default=3, help="phases mailed a game (the last one due)")
    parser.add_argument("--marks", type=int, default=300, help="mails the sender marks on each side")
    parser.add_argument("--provider", action="store_true", help="a provider's API sends: each mail sent has its id")
    parser.add_argument("--plans", action="store_true", help="print the plan of each outbox query (new indexes)")
    args = parser.parse_args()
    if args.marks >= args.games * args.players:
        parser.error("--marks: more than the storm's mails (--games x --players)")

    import django

    django.setup()
    import logging

    from django.db import connection

    logging.getLogger("werewolf").setLevel(logging.WARNING)  # (no line for each mail the sample game sends)

    if connection.vendor != "postgresql":
        print(NEEDS_POSTGRESQL)
        return 0
    from django.core.management import call_command
    from django.test.utils import setup_test_environment

    setup_test_environment()
    configured = connection.settings_dict["NAME"]
    connection.settings_dict.setdefault("TEST", {})["NAME"] = f"{configured}_outbox_indexes"
    old = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        templates = rendered_mails(args.players)
        walinspect = can_inspect_wal()
        new_side = Side("new (0018)")
        empty()  # (the sample game's mails)
        fill(args, templates)
        if args.plans:
            print_plans()
        measure(new_side, args, walinspect)
        empty()
        call_command("migrate", "games", BEFORE, verbosity=0)
        old_side = Side("old (0017)")
        fill(args, templates)
        measure(old_side, args, walinspect)
        report(args, old_side, new_side, walinspect)
    finally:
        connection.creation.destroy_test_db(old, verbosity=0)
    return 0


def rendered_mails(players: int) -> dict[str, dict[str, Any]]:
    """A welcome and a phase's mail as the project writes them, by kind: one game of
    `players` seats started and its first phase resolved (mail stays in memory)."""
    from django.contrib.auth import get_user_model

    from werewolf.games import services
    from werewolf.games.models import Dispatch

    organiser = get_user_model().objects.create_user("bench")
    seats = [services.Seating(f"Player {n}", f"player{n}@example.org") for n in range(players)]
    game = services.start_game(
        services.create_game(organiser, name="Bench", seats=seats, options={"wolves": 2}, seed=3)
    )
    services.resolve_now(game)
    fields = ("recipient", "subject", "body_text", "body_html", "headers", "attachments")
    found: dict[str, dict[str, Any]] = {}
    for row in Dispatch.objects.filter(player__game=game).order_by("pk"):
        found.setdefault(row.kind, {name: getattr(row, name) for name in fields})
    assert {Dispatch.Kind.WELCOME, Dispatch.Kind.PHASE} <= found.keys(), found.keys()
    return found


def can_inspect_wal() -> bool:
    from django.db import DatabaseError, connection, transaction

    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect")
        return True
    except DatabaseError:  # not a superuser: the WAL's bytes only
        return False


def fill(args: argparse.Namespace, templates: dict[str, dict[str, Any]]) -> None:
    """The outbox: each seat's welcome and its mails of `--phases` phases, sent, but the
    last phase's, due. The same rows on each side (the games, seats and phases stay)."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from werewolf.games.models import Dispatch, Game, Phase, Player
    from werewolf.mail import outbound

    organiser = get_user_model().objects.get(username="bench")
    start = timezone.now() - timedelta(days=args.phases)
    if not Game.objects.filter(public_key="bench-0").exists():
        Game.objects.bulk_create(
            Game(name=f"Game {n}", organiser=organiser, seed=n, public_key=f"bench-{n}", status=Game.Status.RUNNING)
            for n in range(args.games)
        )
        games = list(Game.objects.filter(public_key__startswith="bench-").order_by("pk"))
        Player.objects.bulk_create(
            Player(game=game, seat=seat, name=f"Player {seat}", email=f"g{game.pk}p{seat}@example.org")
            for game in games
            for seat in range(args.players)
        )
        Phase.objects.bulk_create(
            Phase(
                game=game,
                index=n,
                kind="day" if n % 2 else "night",
                number=n // 2 + 1,
                opened_at=start,
                deadline=start + timedelta(days=n + 1),
                status=Phase.Status.OPEN if n == args.phases - 1 else Phase.Status.RESOLVED,
            )
            for game in games
            for n in range(args.phases)
        )
    seats: dict[int, list[Player]] = {}
    for player in Player.objects.filter(game__public_key__startswith="bench-").order_by("pk"):
        seats.setdefault(player.game_id, []).append(player)
    phases: dict[int, list[Phase]] = {}
    for phase in Phase.objects.filter(game__public_key__startswith="bench-").order_by("game_id", "index"):
        phases.setdefault(phase.game_id, []).append(phase)
    now = timezone.now()
    rows: list[Dispatch] = []

    def mail(player: Player, key: str, kind: str, phase: Phase | None, due: bool, at: Any) -> None:
        sent = (
            {}
            if due
            else {
                "status": Dispatch.Status.SENT,
                "attempts": 1,
                "claimed_at": at,
                "claimed_by": "0123456789abcdef",
                "sent_at": at,
                "provider_id": f"<{key.replace(':', '.')}.20261128@mail.provider.example>" if args.provider else "",
            }
        )
        body = {**templates[kind], "recipient": outbound.recipient(player.name, player.email)}
        rows.append(
            Dispatch(
                player=player,
                key=key,
                kind=kind,
                phase=phase,
                message_id=outbound.message_id_for(key),
                next_attempt_at=now if due else at,
                **body,
                **sent,
            )
        )

    for game_id, players in seats.items():
        for player in players:
            mail(player, f"welcome:{player.pk}", Dispatch.Kind.WELCOME, None, False, start)
        for phase in phases[game_id]:
            due = phase.index == args.phases - 1
            for player in players:
                mail(player, f"phase:{phase.pk}:{player.pk}", Dispatch.Kind.PHASE, phase, due, phase.deadline)
    Dispatch.objects.bulk_create(rows, batch_size=500)
    analyze()


def analyze() -> None:
    from django.db import connection

    from werewolf.games.models import Dispatch

    with connection.cursor() as cursor:  # as autovacuum would on a live site
        cursor.execute(f"VACUUM ANALYZE {Dispatch._meta.db_table}")


def empty() -> None:
    from django.db import connection

    from werewolf.games.models import Dispatch

    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {Dispatch._meta.db_table} RESTART IDENTITY")


def measure(side: Side, args: argparse.Namespace, walinspect: bool) -> None:
    """Each index's size, then `--marks` marks of the storm's mails as the sender makes
    them (taken in one statement, then one statement a mail), each under EXPLAIN."""
    import secrets

    from django.db import connection, transaction

    from werewolf.games.models import Dispatch
    from werewolf.mail import outbound

    table = Dispatch._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, pg_relation_size(c.oid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
            " WHERE i.indrelid = %s::regclass ORDER BY c.relname",
            [table],
        )
        side.sizes = dict(cursor.fetchall())
    due = list(Dispatch.objects.filter(status=Dispatch.Status.PENDING).order_by("pk").values_list("pk", flat=True))
    token = secrets.token_hex(8)
    taken = [row.pk for row in outbound._claim(due[: args.marks + 1], token)]
    assert len(taken) == args.marks + 1, len(taken)
    provider = "<{}.20261128@mail.provider.example>" if args.provider else ""
    xids: list[str] = []
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_insert_lsn()::text")
        (start,) = cursor.fetchone()
    # Mark by mark as the sender goes: each records the mail before as sent and marks the
    # next one `sending`. (The batch's first mark, which only marks one, is not counted.)
    first, params = outbound.mark_statement(connection, token, None, "", taken[0])
    with connection.cursor() as cursor:
        cursor.execute(first, params)
    for done, next_id in zip(taken[:-1], taken[1:], strict=True):
        sql, params = outbound.mark_statement(connection, token, done, provider.format(done), next_id)
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT pg_current_xact_id()::text")
            xids.append(cursor.fetchone()[0])
            cursor.execute(f"EXPLAIN (ANALYZE, WAL, COSTS OFF, FORMAT JSON) {sql}", params)
            plan = cursor_plan(cursor)
        side.wal_bytes += plan["WAL Bytes"]
        side.wal_records += plan["WAL Records"]
        side.fpi += plan["WAL FPI"]
        side.marks += 1
    assert Dispatch.objects.filter(pk__in=taken, status=Dispatch.Status.SENT).count() == args.marks
    if walinspect:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT resource_manager, record_type, description, record_length, fpi_length"
                " FROM pg_get_wal_records_info(%s::pg_lsn, pg_current_wal_flush_lsn())"
                " WHERE xid::text = ANY(%s) AND resource_manager IN ('Btree', 'Heap', 'Heap2')",
                [start, xids],
            )
            records = cursor.fetchall()
        side.entries = sum(1 for _, kind, description, _, _ in records if btree_entry(kind, description))
        side.bytes_without_fpi = sum(length - fpi for _, _, _, length, fpi in records)
        side.index_bytes = sum(length - fpi for manager, _, _, length, fpi in records if manager == "Btree")


def cursor_plan(cursor: Any) -> dict[str, Any]:
    found = cursor.fetchone()[0]
    plan = json.loads(found) if isinstance(found, str) else found
    return plan[0]["Plan"]


def btree_entry(kind: str, description: str) -> bool:
    """Whether a WAL record of a B-tree put an entry in a leaf: an insertion, or a leaf's
    split that carries the new entry (a split higher up only adds a downlink)."""
    if kind in ("INSERT_LEAF", "INSERT_POST"):
        return True
    return kind in ("SPLIT_L", "SPLIT_R") and re.match(r"level:? 0\b", description) is not None


def print_plans() -> None:
    """The plan of each query the project makes on the outbox, on the rows just written."""
    from django.db import connection, transaction
    from django.db.models import Q
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from werewolf.games.models import DISPATCH_DUE, DISPATCH_FAILED, Dispatch
    from werewolf.mail import outbound

    now = timezone.now()
    some = Dispatch.objects.order_by("-pk").first()
    assert some is not None
    queries = {
        "sweep: due batch": Dispatch.objects.filter(DISPATCH_DUE, next_attempt_at__lte=now)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[: outbound.BATCH],
        "sweep: stale taken": Dispatch.objects.filter(
            Q(status=Dispatch.Status.SENDING, claimed_at__lt=now)
            | Q(status=Dispatch.Status.CLAIMED, claimed_at__lt=now)
        ),
        "readyz: backlog": Dispatch.objects.filter(DISPATCH_DUE),
        "readyz: failed": Dispatch.objects.filter(DISPATCH_FAILED),
        "sender: taken rows": Dispatch.objects.filter(claimed_by="x", status=Dispatch.Status.CLAIMED),
        "queue: keys there": Dispatch.objects.filter(key__in=[some.key]),
        "phase's mails": Dispatch.objects.filter(phase_id=some.phase_id),
        "webhook: provider id": Dispatch.objects.filter(provider_id="<x@provider>"),
        "webhook, bounce: Message-ID": Dispatch.objects.filter(message_id__in=[some.message_id]),
        "dashboard: not sent": Dispatch.objects.filter(player__game_id=some.player.game_id)
        .exclude(status=Dispatch.Status.SENT)
        .order_by("-pk")[:100],
    }
    for name, query in queries.items():
        if name.startswith("readyz"):  # the count's own statement
            with CaptureQueriesContext(connection) as counted:
                query.count()
            with connection.cursor() as cursor:
                cursor.execute(f"EXPLAIN {counted[0]['sql']}")
                plan = "\n".join(row[0] for row in cursor.fetchall())
        else:
            plan = query.explain()
        print(f"-- {name}\n{plan}\n")
    # The sender runs its mark prepared (werewolf.database): the plan for any parameters.
    sql, params = outbound.mark_statement(connection, "x", some.pk, "", some.pk - 1)
    numbered = sql.split("%s")
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        cursor.execute(
            "PREPARE bench_mark AS " + "".join(f"{part}${n}" for n, part in enumerate(numbered[:-1], 1)) + numbered[-1]
        )
        cursor.execute("EXPLAIN EXECUTE bench_mark(" + ", ".join(["%s"] * len(params)) + ")", params)
        print("-- sender: a mark (prepared)\n" + "\n".join(row[0] for row in cursor.fetchall()) + "\n")
        cursor.execute("DEALLOCATE bench_mark")


def report(args: argparse.Namespace, old: Side, new: Side, walinspect: bool) -> None:
    from werewolf.games.models import Dispatch

    mails = Dispatch.objects.count()
    storm = args.games * args.players
    by = "a provider's API (a provider id each)" if args.provider else "SMTP (no provider id)"
    print(f"outbox: {mails} mails ({storm} due, the rest sent), sent by {by}; {args.marks} marks on each side")
    print(f"{'':28}{'old (0017)':>12}{'new (0018)':>12}{'new / old':>11}")

    def line(label: str, before: float | None, after: float | None, unit: str = "") -> None:
        if before is None or after is None:
            print(f"{label:28}{'n/a':>12}{'n/a':>12}")
            return
        ratio = f"{after / before:.2f}" if before else "-"
        print(f"{label:28}{before:>12.1f}{after:>12.1f}{ratio:>11}{unit}")

    def each(side: Side, value: int | None) -> float | None:
        return None if value is None else value / side.marks

    line("index entries a mark", each(old, old.entries), each(new, new.entries))
    line("WAL bytes a mark", each(old, old.wal_bytes), each(new, new.wal_bytes))
    line("  without full-page images", each(old, old.bytes_without_fpi), each(new, new.bytes_without_fpi))
    line("  of which the indexes'", each(old, old.index_bytes), each(new, new.index_bytes))
    line("WAL records a mark", each(old, old.wal_records), each(new, new.wal_records))
    print(f"{'full-page images (all)':28}{old.fpi:>12}{new.fpi:>12}")
    assert old.sizes is not None and new.sizes is not None
    line("indexes (KiB)", sum(old.sizes.values()) / 1024, sum(new.sizes.values()) / 1024)
    if not walinspect:
        print("(index entries: pg_walinspect needs a superuser)")
    for label, sizes in (("old", old.sizes), ("new", new.sizes)):
        print(f"{label} indexes: " + ", ".join(f"{name} {size // 1024} KiB" for name, size in sizes.items()))


if __name__ == "__main__":
    sys.exit(main())
