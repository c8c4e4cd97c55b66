"""Say the address the site's links use and where it comes from; or write the address
`dev.py run` serves on, for every process of this machine without WEREWOLF_SITE_URL."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

SOURCES = {
    "environment": "WEREWOLF_SITE_URL in the environment",
    "env file": "WEREWOLF_SITE_URL in the env file {env_file}",
    "dev.py run": "{file}, written by dev.py run",
    "default": "the built-in default: WEREWOLF_SITE_URL is not set",
}


class Command(BaseCommand):
    help = (
        "Print the address the links in mail point to, and where it comes from. With ADDRESS, write it to "
        "var/site-url, which every process of this machine reads when WEREWOLF_SITE_URL is set neither in its "
        "environment nor in the env file (dev.py run does this with the address it serves on)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("address", nargs="?", help="http://HOST:PORT, the address to write.")

    def handle(self, *args: Any, **opts: Any) -> None:
        address = opts["address"]
        source = SOURCES.get(settings.SITE_URL_SOURCE, settings.SITE_URL_SOURCE).format(
            env_file=settings.ENV_FILE, file=settings.SITE_URL_FILE
        )
        if not address:
            self.stdout.write(f"{settings.SITE_URL} ({source})")
            return
        if not address.startswith(("http://", "https://")):
            raise CommandError(f"{address!r} is not an address: write http://HOST:PORT or https://HOST.")
        settings.SITE_URL_FILE.write_text(address.rstrip("/") + "\n", encoding="utf-8")
        if settings.SITE_URL_SOURCE in ("environment", "env file") and settings.SITE_URL != address.rstrip("/"):
            self.stderr.write(f"The links in mail point to {settings.SITE_URL} nonetheless ({source}).")
