"""Make sure an organiser account exists, and print how to log in as it."""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from werewolf import addresses

DEFAULT = "organiser"


def password_file(username: str) -> Path:
    """Where the account's first password is kept: one file per account, so that making a
    second account never overwrites the first one's."""
    if username == DEFAULT:
        return settings.VAR_DIR / "organiser-password"
    return settings.VAR_DIR / f"organiser-password.{username}"


class Command(BaseCommand):
    help = (
        "Create an organiser account if it is missing, and print how to log in as it (its first password is "
        "kept in var/organiser-password, or var/organiser-password.USERNAME for another account). The account "
        "is a plain organiser: it sees its own games only. --staff makes it the site's staff instead, who see "
        "every game and the admin."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default=DEFAULT)
        parser.add_argument(
            "--email",
            default="",
            help="the account's e-mail address, confirmed by this command (password resets and invitations reach it)",
        )
        parser.add_argument(
            "--staff", action="store_true", help="the site's staff: every game, the admin and the mail outbox"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        username = opts["username"]
        if not re.fullmatch(r"[\w.@+-]{1,150}", username):
            raise CommandError(f"{username!r} is not a user name: letters, digits and @ . + - _ only.")
        path = password_file(username)
        users = get_user_model().objects
        user = users.filter(username=username).first()
        if user is None or not path.exists():
            password = secrets.token_urlsafe(9)
            if user is None:
                user = users.create_user(username, opts["email"], password)
            else:
                user.set_password(password)
            path.write_text(password + "\n")
            path.chmod(0o600)
        if opts["staff"] and not (user.is_staff and user.is_superuser):
            user.is_staff = user.is_superuser = True
        user.save()
        if opts["email"]:
            # The operator's word confirms the address: nobody who types it into another
            # account can hold it, and no password reset asked for it can lock this one.
            try:
                addresses.confirm_for(user, opts["email"])
            except addresses.Taken:
                raise CommandError(f"{opts['email']} is confirmed by another account already.") from None
        password = path.read_text().strip()
        kind = "Staff" if user.is_staff else "Organiser"
        self.stdout.write(f"{kind} log in: {settings.SITE_URL}/accounts/login/ user {username} password {password}")
