"""Replies that a mail provider posts to its webhook (django-anymail), handed to the same
inbound path as the MTA's pipe: kept first, then read. Anymail has checked the
provider's signature (or the webhook's basic-auth secret) before this runs; if the
message cannot be stored, the exception makes the webhook answer 500, and the provider
posts it again later."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, register

from . import inbound


def take(sender: Any, event: Any, esp_name: str, **kwargs: Any) -> None:
    message = event.message
    if message is None:
        return
    recipients = [message.envelope_recipient] if getattr(message, "envelope_recipient", None) else []
    inbound.receive(message.as_bytes(), recipients)


PERMANENT = {"bounced", "rejected"}
TEMPORARY = {"failed"}
DELAYED = {"deferred"}


def track(sender: Any, event: Any, esp_name: str, **kwargs: Any) -> None:
    """A provider's delivery report (its tracking webhook): a bounce, a rejection or a
    failure of one of our mails is recorded as a bounce of that mail (werewolf/mail/
    bounces.py), found by the id the provider gave it or else by our Message-ID."""
    from werewolf.games.models import Dispatch

    from . import bounces

    kind = str(getattr(event, "event_type", "") or "")
    if kind not in PERMANENT | TEMPORARY | DELAYED or not event.message_id:
        return
    # The provider's id first: a mail its API sent has one, and the index on it holds those
    # mails only. A report that names our Message-ID instead (a mail relayed by SMTP) is
    # rare, and looked up without an index: a scan of the outbox.
    found = (
        Dispatch.objects.select_related("player__game").filter(provider_id=event.message_id).first()
        or Dispatch.objects.select_related("player__game").filter(message_id=event.message_id).first()
    )
    if found is None:
        return
    reason = " ".join(str(event.mta_response or event.description or event.reject_reason or kind).split())
    permanent = kind in PERMANENT and not _soft(event, reason)
    bounces.record(bounces.Bounce(found, permanent, kind in DELAYED, reason[: bounces.MAX_REASON]))


def _soft(event: Any, reason: str) -> bool:
    """A bounce the provider calls soft (Postmark's SoftBounce), or whose status is 4.x.x:
    counted, but mail goes on until it comes back BOUNCES_TO_STOP times."""
    from . import bounces

    esp = getattr(event, "esp_event", None)
    if isinstance(esp, dict) and esp.get("Type") == "SoftBounce":
        return True
    status = bounces.STATUS.search(reason)
    return bool(status and status.group(0).startswith("4"))


def connect() -> None:
    from anymail.signals import inbound as inbound_signal
    from anymail.signals import tracking

    inbound_signal.connect(take, dispatch_uid="werewolf.mail.providers.take")
    tracking.connect(track, dispatch_uid="werewolf.mail.providers.track")


@register()
def check_webhook_secret(app_configs: Any, **kwargs: Any) -> list[Error]:
    """A provider's webhook must be authenticated: by the shared basic-auth secret, or by
    Mailgun's signing key."""
    if not settings.WEREWOLF_MAIL_PROVIDER:
        return []
    anymail = getattr(settings, "ANYMAIL", {})
    if anymail.get("WEBHOOK_SECRET") or anymail.get("MAILGUN_WEBHOOK_SIGNING_KEY"):
        return []
    return [
        Error(
            "The mail provider's webhook would take mail from anyone.",
            hint="Set WEREWOLF_ANYMAIL_WEBHOOK_SECRET (user:password, also put in the webhook URL at the provider)"
            " or, for Mailgun, WEREWOLF_ANYMAIL_MAILGUN_WEBHOOK_SIGNING_KEY.",
            id="werewolf.E001",
        )
    ]
