"""Make sure an organiser account exists, and print how to log in as it."""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Create the organiser account if it is missing (its password is kept in var/organiser-password)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="organiser")

    def handle(self, *args: Any, **opts: Any) -> None:
        username = opts["username"]
        path = settings.VAR_DIR / "organiser-password"
        users = get_user_model().objects
        user = users.filter(username=username).first()
        if user is None or not path.exists():
            password = secrets.token_urlsafe(9)
            if user is None:
                user = users.create_superuser(username, "", password)
            else:
                user.set_password(password)
                user.save()
            path.write_text(password + "\n")
            path.chmod(0o600)
        password = path.read_text().strip()
        self.stdout.write(f"Organiser log in: {settings.SITE_URL}/accounts/login/ user {username} password {password}")
