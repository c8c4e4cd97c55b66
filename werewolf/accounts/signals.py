"""An invitation is taken up by the account signed up with it; a password reset
confirms the address it was mailed to."""

from __future__ import annotations

from typing import Any

from allauth.account.signals import password_reset, user_signed_up
from django.dispatch import receiver
from django.http import HttpRequest

from . import invitations


@receiver(user_signed_up, dispatch_uid="werewolf.accounts.invitation_taken")
def _taken(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    invitation = invitations.pending(request)
    if invitation is not None:
        invitations.accept(invitation, user)
        request.session.pop(invitations.SESSION_KEY, None)


@receiver(password_reset, dispatch_uid="werewolf.accounts.reset_confirms")
def _reset_confirms(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    """A password reset by the link mailed to the account's address proves the address
    as its confirmation would."""
    from allauth.account.models import EmailAddress

    EmailAddress.objects.filter(user=user, email__iexact=user.email, verified=False).update(verified=True)
