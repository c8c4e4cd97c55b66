"""The people who run a game: its organiser and the co-organisers it invites.

Writes only; `access` answers who may do what.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Q

from .models import Game
from .services import ServiceError


def add_co_organiser(game: Game, who: str) -> Any:
    """Let the account named `who` (its user name or e-mail address) run `game` too. The
    account must exist; the game's own organiser is refused (they run it already)."""
    who = who.strip()
    users = get_user_model().objects.filter(is_active=True)
    found = list(users.filter(Q(username__iexact=who) | Q(email__iexact=who))[:2]) if who else []
    if len(found) != 1:
        raise ServiceError("no_such_account" if not found else "ambiguous_account", who=who)
    user = found[0]
    if user.pk == game.organiser_id:
        raise ServiceError("already_organiser", who=who)
    game.co_organisers.add(user)
    return user


def remove_co_organiser(game: Game, user_id: int | None) -> None:
    """Take back a co-organiser's access to `game` (nothing else of theirs changes)."""
    if user_id is not None:
        game.co_organisers.remove(user_id)
