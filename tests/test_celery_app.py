"""The Celery app's hooks into Django, run as a worker runs them (no worker started)."""

from __future__ import annotations

import pytest
from celery.fixups.django import DjangoWorkerFixup
from celery.signals import task_postrun, task_prerun
from django.db import connection

from tasks.phases import resolve_due_phase as task
from werewolf.celery import app

pytestmark = pytest.mark.django_db(transaction=True)  # autocommit on, as in a worker


def run_signals(task, fixup: DjangoWorkerFixup) -> None:
    """What a worker does around a task: Celery's Django fixup and our own handlers."""
    fixup.on_task_prerun(sender=task)
    task_prerun.send(sender=task, task=task, task_id="t", args=(), kwargs={})
    task_postrun.send(sender=task, task=task, task_id="t", args=(), kwargs={}, retval=None, state="SUCCESS")
    fixup.on_task_postrun(sender=task)


def test_a_task_keeps_the_database_connection_as_a_request_does() -> None:
    fixup = DjangoWorkerFixup(app)
    connection.ensure_connection()
    kept = connection.connection
    for _ in range(3):
        run_signals(task, fixup)
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    assert connection.connection is kept


def test_a_task_drops_a_connection_that_broke() -> None:
    connection.ensure_connection()
    broken = connection.connection
    connection.errors_occurred = True  # as after a failed statement
    connection.close_at = 0  # (and past its age: either one closes it)
    run_signals(task, DjangoWorkerFixup(app))
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    assert connection.connection is not broken
