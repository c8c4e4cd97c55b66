"""An SMTP listener for mailed orders (aiosmtpd), for sites whose mail system can relay
the orders address to it. It accepts mail for the orders mailbox only, so it is never
an open relay. It answers 250 once a message is stored, whatever the message holds (one
that cannot be parsed is kept and refused, not bounced back to the sender's MTA), and 451
(try again later) only if it could not be stored."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from django.conf import settings
from django.db import close_old_connections

from . import inbound

logger = logging.getLogger(__name__)


class OrdersHandler:
    """aiosmtpd handler: RCPT checks the mailbox, DATA stores and reads the message."""

    def __init__(self, address: str | None = None) -> None:
        local, _, domain = (address or settings.WEREWOLF_ORDERS_ADDRESS).lower().rpartition("@")
        self.local, self.domain = local, domain

    def accepts(self, address: str) -> bool:
        local, _, domain = address.lower().rpartition("@")
        return domain == self.domain and (local == self.local or local.startswith(self.local + "+"))

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:  # noqa: N802
        if not self.accepts(address):
            return "550 5.1.1 No such mailbox here: this server takes orders only"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(None, self.store, raw, list(envelope.rcpt_tos))
        except Exception:
            logger.exception("could not store an inbound message")
            return "451 4.3.0 Could not store the message: try again later"
        return "250 2.0.0 Message kept"

    @staticmethod
    def store(raw: bytes, recipients: list[str]) -> None:
        close_old_connections()
        try:
            inbound.receive(raw, recipients)
        finally:
            close_old_connections()
