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


SEAT_URLS = [
    "games:seat",
    "games:seat_version",
    "games:seat_talk",
    "games:seat_away",
    "games:seat_talk_mail",
    "games:seat_role_card",
    "games:seat_display",
]


@pytest.mark.parametrize("prefix", ["/", "/werewolf/"])
def test_a_seats_own_links_are_its_urls_reversed(organiser, prefix: str) -> None:
    """The links a seat's page writes to its own pages (`{% seat_url %}`, `links.path_of`)
    are what reverse() writes, however the site is mounted."""
    game = started_game(organiser, "Own links")
    token = links.token_for(links.current(game.players.get(seat=0)).nonce)
    before = get_script_prefix()
    set_script_prefix(prefix)
    try:
        for name in SEAT_URLS:
            assert links.path_of(name, token) == reverse(name, args=[token])
    finally:
        set_script_prefix(before)


def test_a_seats_page_links_to_its_own_pages(organiser, client) -> None:
    game = started_game(organiser, "Own links on the page")
    player = game.players.get(seat=0)
    token = links.token_for(links.current(player).nonce)
    page = client.get(links.url_for(player, absolute=False)).content.decode()
    for name in SEAT_URLS[1:]:
        assert reverse(name, args=[token]) in page, name


@pytest.mark.parametrize("prefix", ["/", "/werewolf/"])
def test_the_frame_of_every_page_is_written_for_its_language_and_mount(prefix: str) -> None:
    """The frame's parts (`{% frame %}`: the stylesheets, the navigation bar's links, the
    scripts), kept per process, are what a fresh rendering writes under the script prefix
    and in the language of the moment, whichever was asked before."""
    from django.template.loader import get_template
    from django.utils import translation

    from werewolf.games.templatetags import werewolf as tags

    before = get_script_prefix()
    try:
        for mount in ("/", prefix):
            set_script_prefix(mount)
            for language in ("en", "it"):
                with translation.override(language):
                    for part in ("top", "log_in", "scripts"):
                        fresh = get_template(f"includes/frame/{part}.html").render({}).strip()
                        assert tags.frame(part) == fresh, (mount, language, part)
                    assert reverse("games:home") in tags.frame("top")
                    assert reverse("login") in tags.frame("log_in")
                    assert f'src="{settings.STATIC_URL}werewolf/app.js"' in tags.frame("scripts")
    finally:
        set_script_prefix(before)
