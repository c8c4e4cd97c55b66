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


def connect() -> None:
    from anymail.signals import inbound as inbound_signal

    inbound_signal.connect(take, dispatch_uid="werewolf.mail.providers.take")


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
