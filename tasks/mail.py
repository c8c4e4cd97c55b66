"""Outbound mail: each player is sent what they may know, once (see werewolf.mail.outbound).

Failures are kept on each mail's row and retried by the sweep with back-off, so these
tasks never retry themselves: a retried task could only find the rows already claimed."""

from __future__ import annotations

from celery import shared_task

from werewolf.mail import outbound


@shared_task(name="tasks.mail.deliver")
def deliver(ids: list[int]) -> int:
    return outbound.deliver(ids)


@shared_task(name="tasks.mail.send_pending_mail")
def send_pending_mail() -> int:
    return outbound.send_pending()


@shared_task(name="tasks.mail.send_phase_mails")
def send_phase_mails(phase_id: int) -> int:
    return outbound.send_phase_mails(phase_id)


@shared_task(name="tasks.mail.send_talk_digests")
def send_talk_digests() -> int:
    from werewolf.games import talk

    return talk.send_digests()


@shared_task(name="tasks.mail.fetch_mail")
def fetch_mail() -> int:
    """Orders from the IMAP mailbox, when one is configured (WEREWOLF_IMAP_HOST)."""
    from werewolf.mail import imap

    if not imap.configured():
        return 0
    try:
        return imap.fetch().taken
    except imap.MailboxError:  # logged; the next beat tries again
        import logging

        logging.getLogger(__name__).warning("could not fetch the mailbox", exc_info=True)
        return 0
