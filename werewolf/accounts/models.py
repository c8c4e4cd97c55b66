"""An organiser's profile, and the invitations organisers send to become one."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Profile(models.Model):
    """What an organiser tells the site about themselves: the name shown to those they run
    games with, and the language and time zone a new game starts from."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="organiser_profile")
    name = models.CharField(_("your name"), max_length=120, blank=True)
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES, default="en")
    timezone = models.CharField(_("time zone"), max_length=64, default="UTC")
    signed_up = models.BooleanField(
        default=False,
        help_text="Made by the site's sign-up, not by the operator: logs in once an address is confirmed.",
    )

    def __str__(self) -> str:
        return self.name or self.user.get_username()

    @classmethod
    def of(cls, user: Any) -> Profile:
        """The user's profile, made with the defaults the first time it is asked for."""
        profile, _created = cls.objects.get_or_create(user=user)
        return profile


def key_digest(key: str) -> str:
    """What is stored of an invitation's key: its hash, so that the table alone opens
    nothing."""
    return hashlib.sha256(key.encode()).hexdigest()


class Invitation(models.Model):
    """An organiser's invitation to an address: to sign up as an organiser (the site's
    policy "invite"), and, when it names a game, to run that game as a co-organiser."""

    email = models.EmailField(_("e-mail address"))
    key_hash = models.CharField(max_length=64, unique=True)
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations_sent")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, null=True, blank=True, related_name="invitations")
    created_at = models.DateTimeField(auto_now_add=True)
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.email

    @property
    def expires_at(self) -> Any:
        return self.created_at + timedelta(days=settings.WEREWOLF_INVITATION_DAYS)

    @property
    def is_open(self) -> bool:
        """Not taken up yet, and not expired."""
        return self.accepted_at is None and timezone.now() < self.expires_at
