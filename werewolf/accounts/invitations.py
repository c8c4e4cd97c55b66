"""Invitations to become an organiser, or to run one game as its co-organiser: made by
an organiser, mailed as a link, taken up once by signing up with the address it was
mailed to, or by an account that confirmed that address (logged in, by the button on the
link's page: opening the link changes nothing, since mail scanners open links too).

An invitation is the only way into someone else's game: the organiser names an address,
never an account, and is answered alike whether or not an account has it."""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from werewolf import addresses, limits

from .models import Invitation, key_digest

SESSION_KEY = "werewolf_invitation"
"""Where the session keeps the key of the invitation its visitor came by."""


def invite(organiser: Any, email: str, game: Any = None, *, language: str = "en") -> Invitation:
    """Invite `email` (to the game `game` as a co-organiser, if given) and queue the mail
    that carries the link. Counted against the organiser's limit of invitations
    (`limits.Limited` once it is spent)."""
    from django.core.mail import EmailMultiAlternatives
    from django.utils import translation

    from werewolf.mail import outbound

    limits.hit("invite", str(organiser.pk))
    key = secrets.token_urlsafe(24)
    with transaction.atomic():
        invitation = Invitation.objects.create(email=email, key_hash=key_digest(key), invited_by=organiser, game=game)
        context = {
            "invitation": invitation,
            "inviter": getattr(getattr(organiser, "organiser_profile", None), "name", "") or organiser.get_username(),
            "link": settings.SITE_URL + reverse("accounts:invitation", args=[key]),
            "days": int(settings.WEREWOLF_INVITATION_DAYS),
            "policy": settings.WEREWOLF_SIGNUP_POLICY,
        }
        with translation.override(language):
            subject = " ".join(render_to_string("accounts/email/invitation_subject.txt", context).split())
            body = render_to_string("accounts/email/invitation_message.txt", context)
        outbound.queue_account_mail(EmailMultiAlternatives(subject, body, to=[email]))
    return invitation


class NotAnAddress(ValueError):
    """What the organiser wrote is not a mail address."""


def invite_co_organiser(game: Any, email: str, by: Any, *, language: str) -> str:
    """Mail `email` an invitation to run `game` with its organiser; the address, cleaned.
    Whether an account has that address changes nothing in what happens or what the
    organiser is told: nobody runs the game before they take the invitation up. Raises
    `NotAnAddress`, or `limits.Limited` once the inviter's invitations are spent."""
    email = email.strip()
    try:
        validate_email(email)
    except ValidationError:
        raise NotAnAddress(email) from None
    invite(by, email, game, language=language)
    return email


def withdraw(game: Any, pk: int | None) -> None:
    """Take back an invitation to run `game` that is not taken up yet."""
    if pk is not None:
        Invitation.objects.filter(pk=pk, game=game, accepted_at__isnull=True).delete()


def open_for(game: Any) -> list[Invitation]:
    """The invitations to run `game` still waiting to be taken up."""
    return [invitation for invitation in game.invitations.filter(accepted_at__isnull=True) if invitation.is_open]


def find(key: str) -> Invitation | None:
    """The open invitation `key` names, or None (unknown, taken up, or expired)."""
    invitation = Invitation.objects.select_related("game").filter(key_hash=key_digest(key)).first()
    return invitation if invitation is not None and invitation.is_open else None


def pending(request: HttpRequest) -> Invitation | None:
    """The open invitation the visitor came by, if any."""
    key = request.session.get(SESSION_KEY) if hasattr(request, "session") else None
    return find(key) if key else None


class NotTheirs(Exception):
    """The account has not confirmed the address the invitation was mailed to."""


def may_accept(invitation: Invitation, user: Any) -> bool:
    """Whether `user` may take up `invitation`: the account confirmed its address."""
    return addresses.confirmed(user, invitation.email)


def accept(invitation: Invitation, user: Any) -> None:
    """Take up `invitation` as `user`, once: with a game, `user` runs it from now on.
    Raises `NotTheirs` unless `user` confirmed the address it was mailed to: whoever
    merely typed that address into their account reaches nothing."""
    if not may_accept(invitation, user):
        raise NotTheirs(invitation.email)
    with transaction.atomic():
        taken = Invitation.objects.filter(pk=invitation.pk, accepted_at__isnull=True).update(
            accepted_at=timezone.now(), accepted_by=user
        )
        if taken and invitation.game is not None and invitation.game.organiser_id != user.pk:
            invitation.game.co_organisers.add(user)
