"""Health and readiness endpoints."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from werewolf.games.models import Phase

from .play import started_game

pytestmark = pytest.mark.django_db(transaction=True)


def test_healthz_answers_without_touching_anything(django_assert_num_queries) -> None:
    with django_assert_num_queries(0):
        response = Client().get("/healthz")
    assert response.status_code == 200 and response.content == b"ok\n"


def test_readyz_reports_the_database_the_broker_and_what_is_late(organiser) -> None:
    report = Client().get("/readyz").json()
    assert report["database"] == "ok" and report["broker"] == "ok" and report["ready"] is True
    assert report["overdue_phases"] == 0
    game = started_game(organiser, "Late")
    Phase.objects.filter(game=game).update(deadline=timezone.now() - timedelta(minutes=5))
    assert Client().get("/readyz").json()["overdue_phases"] == 1


def test_readyz_says_503_when_the_broker_is_down(monkeypatch) -> None:
    from kombu import Connection

    from werewolf.celery import app

    monkeypatch.setattr(app, "connection_for_write", lambda: Connection("redis://127.0.0.1:1/0", connect_timeout=1))
    response = Client().get("/readyz")
    assert response.status_code == 503 and response.json()["broker"].startswith("down")


def _backend_pid() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def test_a_kept_connection_the_server_ended_is_replaced_before_a_request_uses_it(monkeypatch) -> None:
    """werewolf/database: the health check of a kept connection asks the kernel, not the
    server (no round trip), and still finds a connection the server ended (a restart
    ends them all so), which the request then replaces instead of failing on it."""
    import psycopg
    from django.db import connection
    from django.db.backends.postgresql.base import DatabaseWrapper as Django

    from tests.integration.workers import wait_for

    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's kept connections")
    asked = []
    monkeypatch.setattr(Django, "is_usable", lambda self: asked.append(1) or True)
    old = _backend_pid()
    assert connection.health_check_enabled  # CONN_HEALTH_CHECKS (werewolf/settings.py)
    connection.close_if_unusable_or_obsolete()  # a request starts: the check is due
    assert _backend_pid() == old and asked == []  # an idle, healthy connection: no round trip
    monkeypatch.undo()

    params = connection.get_connection_params()
    with psycopg.connect(**{key: value for key, value in params.items() if key != "cursor_factory"}) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [old])
        assert wait_for(lambda: not other.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [old]).fetchone())
    connection.close_if_unusable_or_obsolete()  # the next request
    assert _backend_pid() != old  # replaced, without an error
