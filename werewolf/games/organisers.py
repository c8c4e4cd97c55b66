"""The people who run a game: its organiser and the co-organisers it invites.

Writes only; `access` answers who may do what. Nobody is added to a game by the
organiser's word alone: a co-organiser is invited at an address and runs the game once an
account that confirmed that address takes the invitation up (`werewolf.accounts`).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from werewolf.accounts import invitations

from .models import Game
from .services import ServiceError


def invite_co_organiser(game: Game, email: str, by: Any, *, language: str) -> str:
    """Mail `email` an invitation to run `game` with its organiser; the address, cleaned.
    Whether an account has that address changes nothing in what happens or what the
    organiser is told. Counted against the inviter's invitations (`limits.Limited`)."""
    email = email.strip()
    try:
        validate_email(email)
    except ValidationError:
        raise ServiceError("not_an_address", who=email) from None
    invitations.invite(by, email, game, language=language)
    return email


def withdraw_invitation(game: Game, invitation_id: int | None) -> None:
    """Take back an invitation to run `game` that nobody has taken up yet."""
    invitations.withdraw(game, invitation_id)


def remove_co_organiser(game: Game, user_id: int | None) -> None:
    """Take back a co-organiser's access to `game` (nothing else of theirs changes)."""
    if user_id is not None:
        game.co_organisers.remove(user_id)
