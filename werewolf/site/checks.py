"""`manage.py check --deploy`: a site served to others says its address."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import checks

from .address import where_to_set


@checks.register(checks.Tags.security, deploy=True)
def check_site_url(app_configs: Any, **kwargs: Any) -> list[checks.CheckMessage]:
    """WEREWOLF_SITE_URL is set (the environment or the env file): without it the links in
    mail point to the built-in address, or to the one `dev.py run` wrote for this machine,
    and HTTPS-only cookies stay off."""
    if settings.SITE_URL_SOURCE not in ("default", "dev.py run"):
        return []
    came = "the built-in default" if settings.SITE_URL_SOURCE == "default" else f"{settings.SITE_URL_FILE} (dev.py run)"
    return [
        checks.Warning(
            f"WEREWOLF_SITE_URL is not set: the links in mail point to {settings.SITE_URL}, from {came}.",
            hint=f"Set WEREWOLF_SITE_URL to the public address (https://werewolf.example.org) in {where_to_set()}.",
            id="werewolf.W010",
        )
    ]
