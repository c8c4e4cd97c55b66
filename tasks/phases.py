"""Phase deadlines: an ETA shortcut for near ones, and the sweeper for all."""

from __future__ import annotations

from celery import shared_task

from werewolf.games import services, vote_counts
from werewolf.games.queue import run_here

# The worker that resolves a phase hands its mails to SMTP itself, right after the commit.
MAIL = "tasks.mail.deliver"


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
