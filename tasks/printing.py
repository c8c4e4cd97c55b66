"""Printed documents too large to render during a web request (werewolf/printing.py)."""

from __future__ import annotations

from celery import shared_task

from werewolf import printing


@shared_task(name="tasks.printing.render")
def render(job_id: int) -> bool:
    return printing.run_job(job_id)
