"""Read one mail from standard input and take it as a mailed order: the command a mail
system pipes the orders mailbox into (see docs/organiser-guide.md)."""

from __future__ import annotations

import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from werewolf.mail import inbound, ready

EX_TEMPFAIL = 75  # sysexits: the mail system keeps the message and tries again


class Command(BaseCommand):
    help = (
        "Read one mail (RFC 5322, as delivered) from standard input, keep it, and hand in the card it holds. "
        "Exits 0 once the message is stored, whatever it holds; 75 (try again later) only if it could not be stored."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--recipient",
            action="append",
            default=[],
            help="The envelope recipient, e.g. Postfix's ${recipient} (may be given more than once).",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        problems = ready.problems()
        if problems:
            # Exits 75: the mail system keeps the message until the settings are right.
            self.stderr.write(" ".join(problems))
            sys.exit(EX_TEMPFAIL)
        try:
            raw, size = self.read(sys.stdin.buffer)
            row = inbound.receive(raw, opts["recipient"], size=size)
        except Exception as failure:  # not stored: the mail system keeps it and tries again
            self.stderr.write(f"could not store the message: {failure}")
            sys.exit(EX_TEMPFAIL)
        # Stored: whatever became of it (refused, unreadable, failed), the answer is 0, or
        # the mail system would deliver it again and again.
        try:
            outcome = f"{row.status} ({row.code})" if row.code else row.status
            self.stdout.write(f"kept as inbound message {row.pk}: {outcome}")
        except Exception:
            pass

    @staticmethod
    def read(stream: Any) -> tuple[bytes, int]:
        """What is kept of the message (WEREWOLF_INBOUND_KEEP_BYTES) and its whole size."""
        raw, size = bytearray(), 0
        keep = settings.WEREWOLF_INBOUND_KEEP_BYTES
        while chunk := stream.read(1 << 16):
            size += len(chunk)
            if len(raw) <= keep:
                raw += chunk[: keep + 1 - len(raw)]
        return bytes(raw), size
