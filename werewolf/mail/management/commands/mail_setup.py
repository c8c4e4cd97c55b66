"""Print the lines a mail system needs to hand the players' replies to this install."""

from __future__ import annotations

import getpass
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.template.loader import render_to_string

from werewolf.mail import ready


class Command(BaseCommand):
    help = (
        "Print the configuration that routes replies to the orders address into this install, "
        "with this install's own paths: for Postfix, the main.cf, master.cf and transport lines "
        "(a pipe to receive_mail run as --user, or with --listener a relay to mail_server), then "
        "the commands that load them. Nothing is changed: read the lines, then add them."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("mta", choices=["postfix"], help="The mail system (Postfix).")
        parser.add_argument(
            "--user",
            default=getpass.getuser(),
            help="The user the pipe runs as: the app's own, who can read the env file, the secret key "
            "and the database (default: you). Never nobody.",
        )
        parser.add_argument(
            "--listener",
            action="store_true",
            help="Relay to `manage.py mail_server` over SMTP instead of a pipe.",
        )
        parser.add_argument("--port", type=int, default=2525, help="mail_server's port, with --listener.")
        parser.add_argument(
            "--config-directory",
            default="/etc/postfix",
            help="Postfix's configuration directory (default /etc/postfix; another one for an instance of "
            "your own, started with postfix -c).",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        local, _, domain = settings.WEREWOLF_ORDERS_ADDRESS.rpartition("@")
        if opts["user"] in ("nobody", "root"):
            raise CommandError(
                f"The pipe must not run as {opts['user']}: use the user that owns the app's files "
                "(--user), so that it reads the settings and its mail never goes out as root."
            )
        base = Path(settings.BASE_DIR)
        context = {
            "domain": domain,
            "local": local,
            "address": settings.WEREWOLF_ORDERS_ADDRESS,
            "user": opts["user"],
            "python": sys.executable,
            "manage": base / "manage.py",
            "env_file": settings.ENV_FILE or base / "werewolf.env",
            "has_env_file": settings.ENV_FILE is not None,
            # An env file elsewhere than beside manage.py is named on the pipe's command
            # line: Postfix gives the pipe no environment of its own.
            "env_named": settings.ENV_FILE is not None and Path(settings.ENV_FILE) != base / "werewolf.env",
            "directory": opts["config_directory"].rstrip("/"),
            "instance": opts["config_directory"].rstrip("/") != "/etc/postfix",
            "listener": opts["listener"],
            "port": opts["port"],
            "problems": ready.problems(),
            "access": [] if opts["listener"] else ready.access_problems(opts["user"]),
        }
        self.stdout.write(render_to_string("mail_setup/postfix.txt", context))
