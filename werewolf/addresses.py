"""An account's mail addresses, as far as the site trusts them: an address belongs to an
account only once the account confirmed it (a link mailed to it was opened, the sign-up
came by an invitation mailed to it, or the operator gave it with `ensure_organiser
--email`). Whatever an account merely typed (an address it added and never confirmed,
`User.email`) reaches nothing: every lookup by address goes through here."""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.db import transaction


class Taken(Exception):
    """The address is confirmed by another account already."""


def owner(email: str) -> Any | None:
    """The active account that confirmed `email`, or None."""
    found = (
        EmailAddress.objects.filter(email__iexact=email.strip(), verified=True, user__is_active=True)
        .select_related("user")
        .first()
    )
    return found.user if found is not None else None


def confirmed(user: Any, email: str) -> bool:
    """Whether `user` confirmed `email`."""
    return bool(EmailAddress.objects.filter(user=user, email__iexact=email.strip(), verified=True).exists())


def primary(user: Any) -> str:
    """The account's confirmed address to show those it runs games with ("" if none): its
    primary one if confirmed, else any confirmed one."""
    found = EmailAddress.objects.filter(user=user, verified=True).order_by("-primary", "pk").first()
    return found.email if found is not None else ""


def confirm_for(user: Any, email: str) -> None:
    """Record `email` as confirmed and primary for `user` (the operator's word for it: an
    account made with `ensure_organiser --email`). Raises `Taken` when another account
    confirmed it first. Rows other accounts left unconfirmed for this address are taken
    away, so that nobody who typed it can hold it."""
    email = email.strip()
    with transaction.atomic():
        if EmailAddress.objects.filter(email__iexact=email, verified=True).exclude(user=user).exists():
            raise Taken(email)
        release_others(user, email)
        EmailAddress.objects.filter(user=user, primary=True).exclude(email__iexact=email).update(primary=False)
        row = EmailAddress.objects.filter(user=user, email__iexact=email).first()
        if row is None:
            EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
        else:
            row.verified = row.primary = True
            row.save(update_fields=["verified", "primary"])
        get_user_model().objects.filter(pk=user.pk).update(email=email)
        user.email = email


def release_others(user: Any, email: str) -> None:
    """Take away `email` from every other account that typed it and never confirmed it
    (`user` has confirmed it, or is about to)."""
    EmailAddress.objects.filter(email__iexact=email.strip(), verified=False).exclude(user=user).delete()
