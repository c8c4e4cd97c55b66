"""Enqueueing Celery tasks once the surrounding transaction commits.

Tasks are named, not imported, so services never import the task modules. With
`WEREWOLF_INLINE_TASKS` (used by the web tests, which drive deadlines themselves) a
task runs in-process at commit instead, and a task with an ETA is left to the sweeper.
"""

from __future__ import annotations

import importlib
import logging
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction

logger = logging.getLogger(__name__)


def after_commit(task: str, *args: Any, eta: datetime | None = None) -> None:
    transaction.on_commit(lambda: _send(task, args, eta), robust=True)


def _send(task: str, args: tuple[Any, ...], eta: datetime | None) -> None:
    if getattr(settings, "WEREWOLF_INLINE_TASKS", False):
        if eta is None:
            module, name = task.rsplit(".", 1)
            getattr(importlib.import_module(module), name).run(*args)
        return
    from werewolf.celery import app

    try:
        app.send_task(task, args=args, eta=eta)
    except Exception:  # the broker is down: the sweeper and the next retry cover it
        logger.exception("could not enqueue %s%r", task, args)
