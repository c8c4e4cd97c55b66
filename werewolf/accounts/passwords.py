"""The one gate every password check goes through: the log in, deleting the account,
changing the password, re-authenticating (django-allauth's, by the adapter and the forms
`settings.ACCOUNT_FORMS` names), and the admin's password change (sent to allauth's).

Wrong passwords are counted per account and per network address in the shared cache
(`limits`: `login_account`, `login_address`), whichever door they came by, so that a
password cannot be guessed at one door while another is locked. Once either count is
spent no password is tried, the right one included, until the window ends; the refusal
says when to try again."""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from werewolf import limits


def account_key(user: Any) -> str:
    """What the per-account count is kept under for a known account."""
    return f"user:{user.pk}"


def key_for_name(name: str) -> str:
    """The per-account key for a name typed at the log in: the account's own when the name
    is its user name or an address it confirmed (so that every name of one account shares
    one count), else the name itself (a name no account has is counted all the same, and
    answers alike)."""
    name = name.strip()
    users = get_user_model().objects.filter(is_active=True)
    found = list(users.filter(username__iexact=name)[:2]) if name else []
    if len(found) != 1 and "@" in name:
        found = [
            row.user
            for row in EmailAddress.objects.filter(Q(email__iexact=name), verified=True).select_related("user")[:2]
        ]
    if len(found) == 1:
        return account_key(found[0])
    return "name:" + name.casefold()


def _hits(request: HttpRequest | None, key: str) -> list[tuple[str, str]]:
    address = limits.client_address(request) if request is not None else ""
    return [("login_account", key), ("login_address", address)]


def before(request: HttpRequest | None, key: str) -> None:
    """Raise `limits.Limited` if the account `key` or the request's network address has
    no password tries left for now."""
    for kind, who in _hits(request, key):
        limits.check(kind, who)


def failed(request: HttpRequest | None, key: str) -> None:
    """Count one wrong password for the account `key` and the request's address."""
    for kind, who in _hits(request, key):
        limits.count(kind, who)


def verify(request: HttpRequest | None, user: Any, password: str) -> bool:
    """Whether `password` is `user`'s, within the limits (`limits.Limited` once spent)."""
    key = account_key(user)
    before(request, key)
    if user.check_password(password):
        return True
    failed(request, key)
    return False


def refusal(limited: limits.Limited) -> forms.ValidationError:
    """What a form says once the tries are spent: when to try again."""
    message = mark_safe(render_to_string("includes/limited.html", {"limited": limited}).strip())
    return forms.ValidationError(message, code="limited")


def clean_password(form: forms.Form, field: str, user: Any, request: HttpRequest | None, wrong: Any) -> str:
    """A form's `clean_<field>` for a password that must be `user`'s: `wrong` is the
    refusal of a wrong one; the limits' refusal once the tries are spent."""
    password = str(form.cleaned_data.get(field) or "")
    try:
        ok = verify(request, user, password)
    except limits.Limited as limited:
        form.limited = limited  # type: ignore[attr-defined]  # the view answers 429 with Retry-After
        raise refusal(limited) from None
    if not ok:
        raise wrong
    return password
