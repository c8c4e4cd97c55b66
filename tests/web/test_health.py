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
