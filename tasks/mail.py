"""Outbound mail: each player is sent what they may know, once."""

from __future__ import annotations

from celery import shared_task

from werewolf.mail import outbound


@shared_task(name="tasks.mail.send_welcome", autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def send_welcome(player_id: int, request: str = "") -> bool:
    return outbound.send_welcome(player_id, request)


@shared_task(name="tasks.mail.send_pending_mail")
def send_pending_mail() -> int:
    return outbound.send_pending()


@shared_task(name="tasks.mail.send_phase_mails", autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def send_phase_mails(phase_id: int) -> int:
    return outbound.send_phase_mails(phase_id)
