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


def test_the_sweep_runs_each_step_though_one_fails(monkeypatch, caplog) -> None:
    """The beat's one task a sweep runs the deadlines' hand-out first, then the other
    steps; one that fails is logged and the others still run (the next sweep tries it
    again, as its own task's next run did)."""
    from tasks import phases

    assert [step.name for step in phases.SWEEP] == [
        "tasks.phases.sweep_due_phases",
        "tasks.phases.send_reminders",
        "tasks.phases.post_vote_counts",
        "tasks.mail.send_talk_digests",
        "tasks.standbys.sweep_take_overs",
    ]
    ran = []

    class Step:
        def __init__(self, name: str, fails: bool) -> None:
            self.name, self.fails = name, fails

        def run(self) -> int:
            ran.append(self.name)
            if self.fails:
                raise RuntimeError("down")
            return 1

    monkeypatch.setattr(phases, "SWEEP", (Step("first", True), Step("second", False), Step("third", False)))
    phases.sweep.run()
    assert ran == ["first", "second", "third"]
    assert "the sweep's step first failed" in caplog.text
