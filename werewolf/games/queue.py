"""Enqueueing Celery tasks once the surrounding transaction commits.

Tasks are named, not imported, so services never import the task modules. With
`WEREWOLF_INLINE_TASKS` (used by the web tests, which drive deadlines themselves) a
task runs in-process at commit instead, and a task with an ETA is left to the sweeper.
Within `run_here`, the tasks it names run in-process at commit too (a worker that
resolves a phase sends the phase's mails itself).
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction

logger = logging.getLogger(__name__)


_here: ContextVar[frozenset[str]] = ContextVar("werewolf_tasks_run_here", default=frozenset())


@contextmanager
def run_here(*tasks: str) -> Iterator[None]:
    """Within the block, the named tasks that a commit would enqueue run in this process
    at that commit instead. A worker that resolves a phase sends the phase's mails
    itself, at once, rather than queueing them behind every other phase of a deadline
    storm; if it dies first, the mail sweep sends them, as it would a lost task."""
    token = _here.set(_here.get() | frozenset(tasks))
    try:
        yield
    finally:
        _here.reset(token)


def runs_here(task: str) -> bool:
    """Whether a commit now would run `task` in this process rather than enqueue it."""
    return bool(getattr(settings, "WEREWOLF_INLINE_TASKS", False)) or task in _here.get()


def after_commit(task: str, *args: Any, eta: datetime | None = None) -> None:
    transaction.on_commit(lambda: _send(task, args, eta), robust=True)


def _send(task: str, args: tuple[Any, ...], eta: datetime | None) -> None:
    if getattr(settings, "WEREWOLF_INLINE_TASKS", False) or (eta is None and task in _here.get()):
        if eta is None:
            module, name = task.rsplit(".", 1)
            getattr(importlib.import_module(module), name).run(*args)
        return
    from werewolf.celery import app

    try:
        app.send_task(task, args=args, eta=eta)
    except Exception:  # the broker is down: the sweeper and the next retry cover it
        logger.exception("could not enqueue %s%r", task, args)
