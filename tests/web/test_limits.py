"""The site's limits (werewolf/limits.py): wrong passwords per account and per network
address, a seat's posts per minute, sign-ups by a join link per game, per mail address
and per network address. Each refusal says when to try again, changes nothing, and the
counts live in the shared cache, so a second process sees the same ones."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from werewolf import limits
from werewolf.games import links
from werewolf.games.models import Player, Post

from .play import started_game
from .test_join import ask, open_game, text

pytestmark = pytest.mark.django_db


def _rate(monkeypatch: pytest.MonkeyPatch, kind: str, value: str) -> None:
    monkeypatch.setitem(settings.WEREWOLF_RATES, kind, value)


def test_wrong_passwords_are_limited_per_account_even_for_the_right_one(
    organiser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _rate(monkeypatch, "login_account", "3/900")
    client = Client()
    for _ in range(3):
        response = client.post("/accounts/login/", {"username": "organiser", "password": "wrong"})
        assert response.status_code == 200 and "Please enter a correct" in text(response)
    right = client.post("/accounts/login/", {"username": "organiser", "password": "correct horse battery"})
    assert right.status_code == 200 and "Too many wrong passwords" in text(right)
    assert re.search(r"Try again in ([1-9]|1[0-5]) minutes?, or reset your password", text(right))
    assert "_auth_user_id" not in client.session
    # Another account is not held up by it.
    other = Client().post("/accounts/login/", {"username": "somebody", "password": "wrong"})
    assert "Too many" not in text(other)


def test_wrong_passwords_are_limited_per_network_address(organiser: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _rate(monkeypatch, "login_address", "4/900")
    client = Client(REMOTE_ADDR="203.0.113.9")
    for number in range(4):
        client.post("/accounts/login/", {"username": f"guess{number}", "password": "wrong"})
    refused = client.post("/accounts/login/", {"username": "organiser", "password": "correct horse battery"})
    assert "Too many wrong passwords" in text(refused)
    elsewhere = Client(REMOTE_ADDR="198.51.100.7")
    assert (
        elsewhere.post("/accounts/login/", {"username": "organiser", "password": "correct horse battery"}).status_code
        == 302
    )


def test_the_admin_logs_in_through_the_same_door() -> None:
    response = Client().get("/admin/login/?next=/admin/games/game/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/admin/games/game/"


def test_a_seat_posting_too_fast_is_told_when_to_try_again_and_its_text_is_kept(
    organiser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _rate(monkeypatch, "talk_post", "3/60")
    game = started_game(organiser, "Chatty")
    path = links.url_for(game.players.get(seat=0), absolute=False)
    client = Client()
    for number in range(3):
        assert client.post(path + "talk/", {"channel": "square", "text": f"Post {number}"}).status_code == 302
    refused = client.post(path + "talk/", {"channel": "square", "text": "One too many"})
    assert refused.status_code == 429 and 0 < int(refused["Retry-After"]) <= 60
    assert "Try again in 1 minute" in text(refused) and "One too many" in text(refused)
    assert Post.objects.filter(game=game).count() == 3
    # Another seat of the same game still posts.
    other = links.url_for(game.players.get(seat=1), absolute=False)
    assert client.post(other + "talk/", {"channel": "square", "text": "Me too"}).status_code == 302


def test_sign_ups_are_limited_per_address_per_game_and_per_network(
    organiser_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = open_game(organiser_client)
    _rate(monkeypatch, "join_email", "2/3600")
    client = Client()
    assert ask(client, game, "Zoe", "zoe@example.org").status_code == 200
    assert ask(client, game, "Zoe", "ZOE@example.org").status_code == 200  # asked again: replaces her own
    refused = ask(client, game, "Zoe", "zoe@example.org")
    assert refused.status_code == 429 and "Too many sign-ups" in text(refused)
    assert Player.objects.filter(game=game, pending=True).count() == 1
    _rate(monkeypatch, "join_address", "1/3600")
    assert ask(Client(REMOTE_ADDR="203.0.113.1"), game, "Ugo", "ugo@example.org").status_code == 200
    assert ask(Client(REMOTE_ADDR="203.0.113.1"), game, "Vera", "vera@example.org").status_code == 429
    # Refusals by the narrower limits spent nothing of the game's: three sign-ups taken so far.
    for _ in range(5):
        assert ask(Client(REMOTE_ADDR="203.0.113.1"), game, "Vera", "vera@example.org").status_code == 429
    _rate(monkeypatch, "join_game", "4/3600")
    assert ask(Client(REMOTE_ADDR="203.0.113.2"), game, "Wanda", "wanda@example.org").status_code == 200
    assert ask(Client(REMOTE_ADDR="203.0.113.3"), game, "Xena", "xena@example.org").status_code == 429


def test_a_limit_is_shared_by_every_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The count one process makes is seen by another (the shared cache, never one
    process's memory)."""
    _rate(monkeypatch, "login_account", "2/600")
    limits.hit("login_account", "game:seat")
    code = (
        "import django, os; django.setup(); from werewolf import limits; "
        "limits.hit('login_account', 'game:seat')\n"
        "try:\n    limits.hit('login_account', 'game:seat')\nexcept limits.Limited:\n    print('limited')"
    )
    env = {"DJANGO_SETTINGS_MODULE": "tests.settings", "WEREWOLF_RATES": "login_account=2/600"}
    out = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "limited"
    with pytest.raises(limits.Limited):
        limits.hit("login_account", "game:seat")
