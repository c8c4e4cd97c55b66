"""A seat's link is the seat page's URL with the seat's token, however the site is mounted."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.urls import get_script_prefix, reverse, set_script_prefix

from werewolf.games import links

from .play import started_game

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("prefix", ["/", "/werewolf/"])
def test_a_link_is_the_seat_page_reversed(organiser, prefix: str) -> None:
    game = started_game(organiser, "Links")
    before = get_script_prefix()
    set_script_prefix(prefix)
    try:
        for player in game.players.all():
            token = links.token_for(links.current(player).nonce)
            path = reverse("games:seat", args=[token])
            assert path.startswith(prefix)
            assert links.url_for(player, absolute=False) == path
            assert links.url_for(player) == settings.SITE_URL + path
            assert links.player_for(token) == player
    finally:
        set_script_prefix(before)
