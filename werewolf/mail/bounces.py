"""Mail that came back undelivered.

Every mail the server sends carries its own return path (VERP) when orders by mail are
on: `orders+b-<dispatch>-<mac>@domain`, signed, so a bounce names the very mail that
bounced and nobody can forge one for another. A delivery status notification (RFC 3464,
`multipart/report`) that reaches any address is also matched by the Message-ID of the
mail it returns. A matched bounce marks that mail `bounced` with the reason the remote
server gave, flags the seat on the organiser's dashboard and in the moderator's log,
and, for a permanent failure (a 5.x.x status) or BOUNCES_TO_STOP temporary ones in a
row, stops mail to the address until the organiser fixes it or resumes it. A bounce is
never read as a card and never answered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from email.message import EmailMessage, Message
from email.parser import HeaderParser

from django.db import transaction
from django.utils import timezone

from werewolf import engine
from werewolf.games import links
from werewolf.games.models import Dispatch, Event, Player

BOUNCES_TO_STOP = 3
"""Temporary failures in a row after which mail to an address stops too."""
MAX_REASON = 300
STATUS = re.compile(r"(?<![\d.])([245])\.\d{1,3}\.\d{1,3}(?![\d.])")
_MESSAGE_ID = re.compile(r"<[^<>\s@]+@[^<>\s]+>")


@dataclass(frozen=True)
class Bounce:
    """A bounce matched to the mail it returns: whether the failure is permanent, or
    only a delay (the remote server still tries), and the reason it gave."""

    dispatch: Dispatch
    permanent: bool
    delayed: bool
    reason: str


def find(message: EmailMessage, recipients: Iterable[str]) -> Bounce | None:
    """The bounce `message` is, if it is one of a mail of ours: sent to a signed return
    path, or a delivery report naming one of our Message-IDs. Else None."""
    pk = _verp(recipients)
    action, status, reason, returned = _report(message)
    if pk is None and action is None:
        return None
    dispatch = None
    if pk is not None:
        dispatch = Dispatch.objects.select_related("player__game").filter(pk=pk).first()
    elif returned:  # (no index on the Message-ID: a scan of the outbox, for a rare report)
        dispatch = Dispatch.objects.select_related("player__game").filter(message_id__in=returned).first()
    if dispatch is None:
        return None
    if status is None:
        found = STATUS.search(_text_of(message))
        status = found.group(0) if found else ""
    delayed = (action or "").lower() in ("delayed", "relayed", "delivered", "expanded")
    reason = " ".join((reason or status or "").split())[:MAX_REASON]
    return Bounce(dispatch, status.startswith("5"), delayed, reason)


def record(bounce: Bounce) -> Player | None:
    """Mark the mail bounced and the seat flagged; stop mail to an address that failed
    for good. A delay only notes the reason. A mail to an organiser's account (no seat)
    is only marked: the account's owner asks again."""
    now = timezone.now()
    if bounce.dispatch.player_id is None:
        if not bounce.delayed:
            Dispatch.objects.filter(pk=bounce.dispatch.pk).update(
                status=Dispatch.Status.BOUNCED, last_error=bounce.reason
            )
        return None
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=bounce.dispatch.player_id)
        if bounce.delayed:
            return player
        Dispatch.objects.filter(pk=bounce.dispatch.pk).update(status=Dispatch.Status.BOUNCED, last_error=bounce.reason)
        player.bounced_at, player.bounce_reason = now, bounce.reason
        player.bounces += 1
        stopped = bounce.permanent or player.bounces >= BOUNCES_TO_STOP
        player.mail_stopped = player.mail_stopped or stopped
        player.save(update_fields=["bounced_at", "bounce_reason", "bounces", "mail_stopped"])
        game = player.game
        data = {"seat": player.seat, "reason": bounce.reason, "stopped": player.mail_stopped}
        Event.objects.create(
            game=game,
            phase=game.current_phase(),
            kind="mail_bounced",
            data=data,
            audience=engine.Audience.moderator().to_json(),
        )
    return player


def _verp(recipients: Iterable[str]) -> int | None:
    for address in recipients:
        local = address.strip().lower().rsplit("@", 1)[0]
        if "+" not in local:
            continue
        try:
            return links.dispatch_for_bounce(local.split("+", 1)[1])
        except links.LinkError:
            continue
    return None


def _report(message: EmailMessage) -> tuple[str | None, str | None, str | None, list[str]]:
    """From a delivery status notification: the first recipient's Action, Status and
    Diagnostic-Code, and the Message-IDs of the returned mail; (None, None, None, [])
    for a message that is no such report."""
    try:
        if message.get_content_type() != "multipart/report":
            return None, None, None, []
        parts = list(message.walk())[:50]
    except Exception:
        return None, None, None, []
    action = status = reason = None
    returned: list[str] = []
    for part in parts:
        kind = part.get_content_type()
        if kind == "message/delivery-status":
            for block in _blocks(part):
                if block.get("Action") and action is None:
                    action = str(block.get("Action", "")).strip()
                    status = str(block.get("Status", "")).strip() or None
                    diagnostic = block.get("Diagnostic-Code")
                    reason = str(diagnostic).split(";", 1)[-1].strip() if diagnostic else None
        elif kind in ("message/rfc822", "text/rfc822-headers"):
            returned += _returned_ids(part)
    return action or "failed", status, reason, returned


def _returned_ids(part: Message) -> list[str]:
    """The Message-ID of the mail a report returns (its headers, or the whole mail)."""
    try:
        inner = part.get_payload()
        if isinstance(inner, list) and inner and isinstance(inner[0], Message):
            headers = inner[0]
        else:
            headers = HeaderParser().parsestr(_text_of(part)[:100_000])
        return _MESSAGE_ID.findall(str(headers.get("Message-ID", "")))
    except Exception:
        return []


def _blocks(part: Message) -> list[Message]:
    payload = part.get_payload()
    if isinstance(payload, list):
        return [block for block in payload if isinstance(block, Message)]
    return []


def _text_of(part: Message) -> str:
    try:
        payload = part.get_payload(decode=True)
        if isinstance(payload, bytes):
            return payload[:100_000].decode("utf-8", "replace")
        inner = part.get_payload()
        if isinstance(inner, list):
            return "\n".join(str(item)[:100_000] for item in inner[:5])
        return str(inner)[:100_000]
    except Exception:
        return ""
