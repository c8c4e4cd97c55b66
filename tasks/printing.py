"""Printed documents too large to render during a web request (werewolf/printing/jobs.py)."""

from __future__ import annotations

from celery import shared_task

from werewolf.printing import jobs


@shared_task(name="tasks.printing.render")
def render(job_id: int) -> bool:
    return jobs.run_job(job_id)
