"""What the site tidies on its own: sign-ups never confirmed, and the players' mail
addresses of games long over (werewolf/games/retention.py)."""

from __future__ import annotations

from celery import shared_task

from werewolf.games import services


@shared_task(name="tasks.housekeeping.drop_expired_signups")
def drop_expired_signups() -> int:
    return services.drop_expired_signups()


@shared_task(name="tasks.housekeeping.forget_old_addresses")
def forget_old_addresses() -> int:
    from werewolf.games import retention

    return retention.forget_old_addresses()
