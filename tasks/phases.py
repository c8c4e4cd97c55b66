"""Phase deadlines: an ETA shortcut for near ones, and the sweeper for all."""

from __future__ import annotations

import logging

from celery import shared_task

from tasks.mail import send_talk_digests
from tasks.standbys import sweep_take_overs
from werewolf.games import services, vote_counts
from werewolf.games.queue import run_here

# The worker that resolves a phase hands its mails to SMTP itself, right after the commit.
MAIL = "tasks.mail.deliver"

logger = logging.getLogger(__name__)


@shared_task(name="tasks.phases.resolve_due_phase")
def resolve_due_phase(phase_id: int) -> bool:
    with run_here(MAIL):
        return services.resolve_if_due(phase_id)


@shared_task(name="tasks.phases.resolve_due_phases")
def resolve_due_phases(phase_ids: list[int]) -> int:
    """Several phases the sweep handed out at once (a storm: services.hand_out)."""
    with run_here(MAIL):
        return services.resolve_each_if_due(phase_ids)


@shared_task(name="tasks.phases.resolve_ready_phase")
def resolve_ready_phase(phase_id: int) -> bool:
    with run_here(MAIL):
        return services.resolve_if_ready(phase_id)


@shared_task(name="tasks.phases.sweep_due_phases")
def sweep_due_phases() -> int:
    with run_here(MAIL):  # (when the broker is down, the sweep resolves, and mails, itself)
        return services.fan_out_due_phases()


@shared_task(name="tasks.phases.send_reminders")
def send_reminders() -> int:
    return services.send_reminders()


@shared_task(name="tasks.phases.post_vote_counts")
def post_vote_counts() -> int:
    return vote_counts.post_due()


@shared_task(name="tasks.phases.sweep")
def sweep() -> int:
    """The beat's one task every WEREWOLF_SWEEP_SECONDS: the deadlines handed out first,
    then the reminders, the vote counts, the talk digests and the standbys' take-overs,
    each as its own task does it (`SWEEP`); one that fails is logged and the others run.
    One message and one task for the five: the beat's and Celery's own work for a task
    (some 3 to 4 ms of CPU each side) was most of what a sweep cost with nothing due.
    The number of phases handed out (or resolved)."""
    handed = 0
    for step in SWEEP:
        try:
            done = step.run()
        except Exception:  # the next sweep tries again; the other steps go on
            logger.exception("the sweep's step %s failed", step.name)
            continue
        if step is sweep_due_phases:
            handed = done
    return handed


SWEEP = (sweep_due_phases, send_reminders, post_vote_counts, send_talk_digests, sweep_take_overs)
"""What `sweep` runs, in this order. Each stays a task of its own, which a beat of an
earlier release may still send."""
