"""Standbys: the missed-cards policy's take-over of a seat, after the resolution commits."""

from __future__ import annotations

from celery import shared_task

from werewolf.games import standbys
from werewolf.games.queue import run_here

MAIL = "tasks.mail.deliver"


@shared_task(name="tasks.standbys.take_over")
def take_over(player_id: int, missed: int) -> bool:
    """Seat the next standby in a seat that reached its limit (nothing, if run again)."""
    with run_here(MAIL):
        return standbys.take_over(player_id, missed) is not None


@shared_task(name="tasks.standbys.sweep_take_overs")
def sweep_take_overs() -> int:
    """The beat's net: seats at their limit taken over while a standby waits."""
    with run_here(MAIL):
        return standbys.sweep_take_overs()
