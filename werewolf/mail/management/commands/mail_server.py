"""Listen for mailed orders over SMTP (aiosmtpd) until stopped."""

from __future__ import annotations

import time
from typing import Any

from aiosmtpd.controller import Controller
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from werewolf.mail import ready
from werewolf.mail.server import OrdersHandler


class Command(BaseCommand):
    help = (
        "Accept mail for the orders address (WEREWOLF_ORDERS_ADDRESS and its +reference forms) over SMTP, "
        "keep every message, and hand in the cards they hold. Put it behind your MTA; it relays nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=2525)

    def handle(self, *args: Any, **opts: Any) -> None:
        problems = ready.problems()
        if problems:
            raise CommandError("The orders listener does not start. " + " ".join(problems))
        controller = Controller(
            OrdersHandler(),
            hostname=opts["host"],
            port=opts["port"],
            data_size_limit=settings.WEREWOLF_INBOUND_KEEP_BYTES,
        )
        controller.start()
        self.stdout.write(
            f"Taking orders for {settings.WEREWOLF_ORDERS_ADDRESS} on {opts['host']}:{opts['port']} (Ctrl-C stops)."
        )
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
        finally:
            controller.stop()
