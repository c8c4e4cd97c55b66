"""How long a game keeps its players' personal data: a finished game can be deleted
whole, or keep its record (names, cards, events) with the mail addresses removed; the
site removes them on its own from games that ended `WEREWOLF_KEEP_ADDRESSES_DAYS` ago.

A player's address sits in the seat (`Player.email`), the seat's holders record
(`SeatHolding.email`), an absence a standby stood in for (`Absence.away_email`), the
mails sent to it (`Dispatch.recipient`), the mails it sent (`InboundMessage.sender` and
the raw message, whose headers carry it) and the reasons its bounced mails came back
with. All go; what the players wrote stays."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from .models import Absence, Dispatch, Event, Game, InboundMessage, Player, SeatHolding, Standby

OVER = (Game.Status.FINISHED, Game.Status.ENDED)
"""The games whose players' data may go: those that no longer need to reach anyone."""

REMOVED = b""
"""A raw message once its sender's address is removed: its text was the address's carrier."""


class StillRunning(Exception):
    """A running game keeps its players' addresses: it still mails them."""


def delete_game(game: Game) -> None:
    """Delete `game` with everything that names its players, the mails they sent
    included (kept otherwise, unlinked, as every inbound message is)."""
    with transaction.atomic():
        InboundMessage.objects.filter(game=game).delete()
        InboundMessage.objects.filter(player__game=game).delete()
        game.delete()


def delete_finished(game: Game) -> None:
    """The organiser's "delete this game", for a game that is over (a draft goes by
    `services.delete_draft`)."""
    if game.status not in OVER:
        raise StillRunning(game.pk)
    delete_game(game)


def forget_addresses(game: Game, now: Any = None) -> int:
    """Remove every mail address of `game`'s players from its record, once; the names,
    the cards and the events stay. Returns how many seats had one."""
    if game.status not in OVER:
        raise StillRunning(game.pk)
    now = now or timezone.now()
    with transaction.atomic():
        seats = (
            Player.objects.filter(game=game).exclude(email="").update(email="", bounce_reason="", mail_stopped=False)
        )
        SeatHolding.objects.filter(game=game).exclude(email="").update(email="")
        Dispatch.objects.filter(player__game=game).update(recipient="", headers={})
        # Who was away while a standby stood in.
        Absence.objects.filter(game=game).exclude(away_email="").update(away_email="")
        Standby.objects.filter(game=game).update(email="")  # (their mails go with the organisers', by age)
        inbound = InboundMessage.objects.filter(game=game) | InboundMessage.objects.filter(player__game=game)
        inbound.update(sender="", raw=REMOVED)
        # A bounce's reason is the mail server's words, which often quote the address.
        for event in Event.objects.filter(game=game, kind="mail_bounced"):
            event.data = {**event.data, "reason": ""}
            event.save(update_fields=["data"])
        Game.objects.filter(pk=game.pk).update(addresses_removed_at=now)
    return seats


def forget_old_addresses(now: Any = None) -> int:
    """The beat's task: remove the addresses of every game that ended more than
    `WEREWOLF_KEEP_ADDRESSES_DAYS` ago, and of the mails to organisers' accounts and the
    unmatched inbound mails as old. 0 days keeps them (the operator's choice)."""
    days = settings.WEREWOLF_KEEP_ADDRESSES_DAYS
    if days <= 0:
        return 0
    now = now or timezone.now()
    before = now - timedelta(days=days)
    done = 0
    for game in Game.objects.filter(status__in=OVER, finished_at__lt=before, addresses_removed_at__isnull=True):
        forget_addresses(game, now)
        done += 1
    Dispatch.objects.filter(player__isnull=True, created_at__lt=before).exclude(recipient="").update(
        recipient="", body_text="", body_html="", headers={}
    )
    InboundMessage.objects.filter(game__isnull=True, player__isnull=True, received_at__lt=before).exclude(
        sender=""
    ).update(sender="", raw=REMOVED)
    return done
