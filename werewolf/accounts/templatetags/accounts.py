"""The accounts' part of a game's dashboard: who runs the game, and the invitations to run
it that wait (`{% co_organisers_panel game %}`). A template tag, so that the games app's
dashboard shows it without the games importing the accounts."""

from __future__ import annotations

from typing import Any

from django import template

from werewolf import addresses
from werewolf.games import access

from .. import invitations

register = template.Library()


@register.inclusion_tag("accounts/co_organisers.html", takes_context=True)
def co_organisers_panel(context: Any, game: Any) -> dict[str, Any]:
    user = context["request"].user
    owner = access.may(user, game, access.Action.OWN)
    return {
        "game": game,
        "owner": owner,
        # Each co-organiser with the address it confirmed (never one it merely typed).
        "co_organisers": [(person, addresses.primary(person)) for person in game.co_organisers.order_by("username")],
        "invited": invitations.open_for(game) if owner else [],
        "csrf_token": context.get("csrf_token"),
    }
