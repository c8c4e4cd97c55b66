"""Take the orders waiting in an IMAP mailbox (WEREWOLF_IMAP_*), once or continuously."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from werewolf.mail import imap
from werewolf.site import address

EX_TEMPFAIL = 75


class Command(BaseCommand):
    help = (
        "Read every message waiting in the IMAP mailbox of orders (WEREWOLF_IMAP_HOST, _USER, _PASSWORD, "
        "_FOLDER...), hand each to the inbound path once, and move it to the done folder. With --watch, "
        "go on: wait for new mail with IDLE where the server has it, else poll every WEREWOLF_IMAP_POLL_SECONDS. "
        "Exits 75 when the mailbox cannot be reached (try again later)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--watch", action="store_true", help="Keep fetching until stopped.")

    def handle(self, *args: Any, **opts: Any) -> None:
        if not imap.configured():
            raise CommandError("No mailbox is configured: set WEREWOLF_IMAP_HOST, _USER and _PASSWORD.")
        refused = address.refusal()
        if refused:  # the mail stays in the mailbox until the settings are right
            raise CommandError(f"fetch_mail does not start. {refused}")
        if opts["watch"]:
            imap.watch()
            return
        try:
            done = imap.fetch()
        except imap.MailboxError as failure:
            self.stderr.write(f"The mailbox could not be read: {failure}")
            sys.exit(EX_TEMPFAIL)
        self.stdout.write(f"{done.taken} messages taken, {done.already} moved that an earlier fetch had taken")
