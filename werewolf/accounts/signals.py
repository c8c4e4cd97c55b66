"""An invitation is taken up by the account signed up with it; a password reset
confirms the address it was mailed to."""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from allauth.account.signals import email_confirmed, password_reset, user_signed_up
from django.dispatch import receiver
from django.http import HttpRequest

from werewolf import addresses

from . import invitations
from .models import Profile


@receiver(user_signed_up, dispatch_uid="werewolf.accounts.invitation_taken")
def _taken(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    """The account is one the site's sign-up made (it logs in once it confirmed its
    address), and takes up the invitation it came by, if it signed up with the address
    the invitation was mailed to (else the invitation stays open for that address)."""
    Profile.objects.update_or_create(user=user, defaults={"signed_up": True})
    for address in EmailAddress.objects.filter(user=user, verified=True):  # by the invitation's link
        addresses.release_others(user, address.email)
    invitation = invitations.pending(request)
    if invitation is not None:
        try:
            invitations.accept(invitation, user)
        except invitations.NotTheirs:
            return
        request.session.pop(invitations.SESSION_KEY, None)


@receiver(password_reset, dispatch_uid="werewolf.accounts.reset_confirms")
def _reset_confirms(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    """A password reset by the link mailed to the account's address proves the address
    as its confirmation would."""
    EmailAddress.objects.filter(user=user, email__iexact=user.email, verified=False).update(verified=True)


@receiver(email_confirmed, dispatch_uid="werewolf.accounts.address_claimed")
def _claimed(sender: Any, request: HttpRequest, email_address: Any, **kwargs: Any) -> None:
    """A confirmed address is its account's alone: the rows other accounts typed for it
    and never confirmed go."""
    addresses.release_others(email_address.user, email_address.email)
