"""The outbox's indexes and the queries that read them: each partial index's condition is
the very `Q` its queries filter by (written once, in werewolf/games/models.py), the key is
unique without a LIKE index, and on PostgreSQL each query is planned on its index."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection, models, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from werewolf.games.models import DISPATCH_DUE, DISPATCH_FAILED, Dispatch
from werewolf.mail import outbound

from ..web.play import started_game

pytestmark = pytest.mark.django_db(transaction=True)

Status = Dispatch.Status
AUTH = "Basic " + base64.b64encode(b"hook:secret-words").decode()


def index(name: str) -> models.Index:
    return next(index for index in Dispatch._meta.indexes if index.name == name)


def where(condition: models.Q) -> str:
    """`condition` as this database's SQL reads it in a statement Django logged."""
    query = Dispatch.objects.filter(condition).query
    sql, params = query.get_compiler(connection=connection).compile(query.where)
    return sql % tuple(f"'{value}'" for value in params)


def test_each_partial_index_holds_the_rows_of_the_condition_its_queries_filter_by() -> None:
    assert index("dispatch_due").condition == DISPATCH_DUE  # (Django keeps a copy of each index)
    assert index("dispatch_failed").condition == DISPATCH_FAILED
    assert dict(DISPATCH_DUE.children)["status__in"] == [Status.PENDING, Status.RETRYING]
    assert dict(DISPATCH_FAILED.children)["status__in"] == [Status.FAILED, Status.UNCERTAIN]
    # One index for the key: a constraint, and no `unique`/`db_index` field that would add
    # a second one (for LIKE) on PostgreSQL; the provider's id only where it has one.
    key = Dispatch._meta.get_field("key")
    assert not key.unique and not key.db_index
    assert [constraint.fields for constraint in Dispatch._meta.constraints] == [("key",)]
    assert not Dispatch._meta.get_field("provider_id").db_index
    assert index("dispatch_provider").condition == ~models.Q(provider_id="")


def test_the_sweep_and_readyz_filter_by_the_index_conditions(organiser) -> None:
    started_game(organiser, "Indexes")
    with CaptureQueriesContext(connection) as swept:
        outbound.send_pending()
    assert any(where(DISPATCH_DUE) in query["sql"] for query in swept.captured_queries)
    with CaptureQueriesContext(connection) as ready:
        report = Client().get("/readyz").json()
    counted = [query["sql"] for query in ready.captured_queries if "COUNT(" in query["sql"].upper()]
    assert any(where(DISPATCH_DUE) in sql for sql in counted)
    assert any(where(DISPATCH_FAILED) in sql for sql in counted)
    assert report["mail_backlog"] == Dispatch.objects.filter(status__in=[Status.PENDING, Status.RETRYING]).count()
    Dispatch.objects.filter(pk=Dispatch.objects.latest("pk").pk).update(status=Status.UNCERTAIN)
    assert Client().get("/readyz").json()["mail_failed"] == 1


def postmark_bounce(provider_id: str, email: str) -> str:
    return json.dumps(
        {
            "RecordType": "Bounce",
            "ID": 4323372036854775807,
            "Type": "HardBounce",
            "TypeCode": 1,
            "MessageID": provider_id,
            "Description": "The server was unable to deliver your message.",
            "Details": "smtp;550 5.1.1 The email account does not exist",
            "Email": email,
            "BouncedAt": "2026-11-24T10:00:00Z",
        }
    )


def test_the_providers_webhook_looks_the_mail_up_by_the_providers_id_first(organiser) -> None:
    game = started_game(organiser, "Tracked")
    player = game.players.get(seat=1)
    dispatch = Dispatch.objects.filter(player=player).latest("pk")
    Dispatch.objects.filter(pk=dispatch.pk).update(provider_id="pm-7f3c")
    with CaptureQueriesContext(connection) as looked:
        response = Client().post(
            "/mail/provider/postmark/tracking/",
            postmark_bounce("pm-7f3c", player.email),
            content_type="application/json",
            HTTP_AUTHORIZATION=AUTH,
        )
    assert response.status_code == 200
    dispatch.refresh_from_db()
    assert dispatch.status == Status.BOUNCED
    lookups = [query["sql"] for query in looked.captured_queries if '"games_dispatch"' in query["sql"]]
    assert "provider_id" in lookups[0] and "message_id" not in lookups[0].split("WHERE")[1]
    # Found by the provider's id: our Message-ID is not looked for at all.
    assert not any('"message_id" =' in sql.split("WHERE")[-1] for sql in lookups if "SELECT" in sql)


@contextmanager
def no_seq_scans() -> Iterator[None]:
    """The planner told to take any index it can: a plan without one means none fits the
    query (the outbox of a test is too small for a real choice)."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        yield


def plan(query: models.QuerySet[Dispatch], count: bool = False) -> str:
    if not count:
        return query.explain()
    with CaptureQueriesContext(connection) as counted:
        query.count()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN {counted.captured_queries[-1]['sql']}")
        return "\n".join(row[0] for row in cursor.fetchall())


def test_on_postgresql_each_query_is_planned_on_its_partial_index(organiser) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's plans: run in the PostgreSQL pass")
    started_game(organiser, "Plans")
    with no_seq_scans():
        due = Dispatch.objects.filter(DISPATCH_DUE, next_attempt_at__lte=timezone.now()).order_by("next_attempt_at")
        assert "dispatch_due" in plan(due.values_list("pk", flat=True)[: outbound.BATCH])
        assert "dispatch_due" in plan(Dispatch.objects.filter(DISPATCH_DUE), count=True)
        assert "dispatch_failed" in plan(Dispatch.objects.filter(DISPATCH_FAILED), count=True)
        assert "dispatch_provider" in plan(Dispatch.objects.filter(provider_id="pm-7f3c"))
        assert "dispatch_key" in plan(Dispatch.objects.filter(key__in=["welcome:1"]))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = %s AND indexdef LIKE %s",
            [Dispatch._meta.db_table, "%pattern_ops%"],
        )
        assert cursor.fetchall() == []  # no LIKE index: no query makes one
