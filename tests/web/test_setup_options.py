"""The game form refuses a table decided before any vote, and carries the "Thing" free
test reading to the game's options."""

from __future__ import annotations

import pytest
from django.test import Client

from werewolf.games.models import Game

from .play import GAME_FORM, NAMES, create_game

pytestmark = pytest.mark.django_db


def test_a_table_won_at_the_first_dawn_is_refused_with_the_remedies(organiser_client: Client) -> None:
    players = "\n".join(f"{name} <{name.lower()}@example.org>" for name in NAMES[:5])
    response = organiser_client.post("/games/new/", {**GAME_FORM, "players": players})
    assert response.status_code == 200
    assert "before anyone could vote" in response.content.decode()
    assert Game.objects.count() == 0
    quiet = organiser_client.post("/games/new/", {**GAME_FORM, "players": players, "first_night": "quiet"})
    assert quiet.status_code == 302


def test_the_thing_free_test_reading_is_an_option(organiser_client: Client) -> None:
    assert create_game(organiser_client, thing="on").options["thing_free"] == "first_test"
    game = create_game(organiser_client, thing="on", thing_free="first_innocent")
    assert game.options["thing_free"] == "first_innocent"
