"""Where the site's address is recorded, and who may not send links without it.

Settings take the address from WEREWOLF_SITE_URL (the environment, then the env file
every process reads) or from the file `dev.py run` writes under the var directory, and
say which (SITE_URL_SOURCE). A process started apart from the rest (a mail system's
`receive_mail`, a worker under another service manager) may have none of them, and
would put the built-in http://127.0.0.1:8000 into every link it mails. So `migrate`
records the address it was given in the sites framework's row, and a process whose own
address is only the built-in one while the row holds another refuses to send anything:
the row is what the whole site shares (the database), the message says where to set
the address."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.sites.models import Site
from django.db import DatabaseError

UNRECORDED = "example.com"
"""The domain django.contrib.sites gives the row it makes: no address recorded yet."""


def domain(url: str) -> str:
    """The host (and port) of an address, as the sites framework keeps it."""
    return urlsplit(url).netloc or url


def record(using: str = "default", **kwargs: Any) -> None:
    """After `migrate`: the site's row takes this process's address if it was set (the
    environment, the env file, `dev.py run`), and the site's name (WEREWOLF_SITE_NAME).
    The built-in address is recorded only where nothing was: it never overwrites an
    address a site set."""
    row = Site.objects.using(using).filter(pk=settings.SITE_ID).first()
    values = {"name": settings.SITE_NAME}
    if settings.SITE_URL_SOURCE != "default" or row is None or row.domain == UNRECORDED:
        values["domain"] = domain(settings.SITE_URL)
    Site.objects.using(using).update_or_create(pk=settings.SITE_ID, defaults=values)
    Site.objects.clear_cache()


def recorded() -> str | None:
    """The domain `migrate` recorded for the site, read afresh; None when nothing was
    (no row yet, or the database not migrated)."""
    try:
        found = Site.objects.filter(pk=settings.SITE_ID).values_list("domain", flat=True).first()
    except DatabaseError:
        return None
    return found if found and found != UNRECORDED else None


def where_to_set() -> str:
    """The env file every process reads, in words: the one this process read, else where
    it would have found one."""
    if settings.ENV_FILE is not None:
        return f"the env file every process reads ({settings.ENV_FILE})"
    beside = settings.BASE_DIR / "werewolf.env"
    return f"the env file every process reads ({beside}, or the file WEREWOLF_ENV_FILE names)"


def refusal() -> str | None:
    """Why this process must not send links, in words for the operator: its address is
    the built-in one, while the site recorded another (its links would lead nowhere).
    None when it may."""
    if settings.SITE_URL_SOURCE != "default":
        return None
    site = recorded()
    if site is None or site == domain(settings.SITE_URL):
        return None
    return (
        f"The links it would mail point to the built-in {settings.SITE_URL}, not to the site's address {site} "
        f"(recorded by migrate): set WEREWOLF_SITE_URL in {where_to_set()}."
    )
