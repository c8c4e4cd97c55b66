"""What the site tidies on its own: sign-ups never confirmed."""

from __future__ import annotations

from celery import shared_task

from werewolf.games import services


@shared_task(name="tasks.housekeeping.drop_expired_signups")
def drop_expired_signups() -> int:
    return services.drop_expired_signups()
