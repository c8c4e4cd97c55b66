"""Joining by a link: a person asks for a seat, confirms it by the link mailed to them,
and takes a seat when the organiser starts; every refusal says what to do."""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape

import pytest
from django.conf import settings
from django.core import mail, signing
from django.test import Client
from django.utils import timezone

from werewolf.games import services
from werewolf.games.models import Game, Player

from .play import GAME_FORM, NAMES

pytestmark = pytest.mark.django_db(transaction=True)


def open_game(organiser_client: Client, listed: int = 2, **fields: object) -> Game:
    players = "\n".join(f"{name} <{name.lower()}@example.org>" for name in NAMES[:listed])
    data = {**GAME_FORM, "players": players, "signup": "on", **fields}
    response = organiser_client.post("/games/new/", data)
    assert response.status_code == 302, unescape(response.content.decode())[:3000]
    return Game.objects.get()


def join_path(game: Game) -> str:
    game.refresh_from_db()
    return f"/join/{game.signup_key}/"


def ask(client: Client, game: Game, name: str, email: str):
    return client.post(join_path(game), {"name": name, "email": email})


def confirm_link(email: str) -> str:
    [message] = [message for message in mail.outbox if email in message.to[0]]
    return re.search(r"http://[^\s]+/join/confirm/[^\s/]+/", message.body).group(0)


def text(response) -> str:
    return unescape(response.content.decode())


def test_a_person_signs_up_confirms_by_mail_and_is_seated_at_the_start(organiser_client: Client) -> None:
    game = open_game(organiser_client)
    dashboard = text(organiser_client.get(f"/games/{game.pk}/"))
    assert join_path(game) in dashboard and "Close the sign-up" in dashboard
    client = Client()
    assert "2 players have a seat so far." in text(client.get(join_path(game)))
    done = ask(client, game, "Zoë", "zoe@example.org")
    assert done.status_code == 200 and "a link to confirm your seat is on its way to zoe@example.org" in text(done)
    player = Player.objects.get(name="Zoë")
    assert player.pending
    assert "to confirm by mail" in text(organiser_client.get(f"/games/{game.pk}/"))

    link = confirm_link("zoe@example.org")
    path = link.split("testserver", 1)[-1]
    asked = client.get(path)  # a mail scanner opening the link changes nothing
    assert "Confirm my seat" in text(asked)
    player.refresh_from_db()
    assert player.pending
    confirmed = client.post(path)
    assert "Your seat is confirmed, Zoë." in text(confirmed)
    assert client.post(path).status_code == 200  # twice: nothing more happens
    player.refresh_from_db()
    assert not player.pending

    for name in NAMES[2:6]:
        ask(client, game, name, f"{name.lower()}@example.org")
        client.post(confirm_link(f"{name.lower()}@example.org").split("testserver", 1)[-1])
    ask(Client(), game, "Late", "late@example.org")  # never confirms
    game = services.start_game(Game.objects.get(pk=game.pk))
    seated = set(game.players.exclude(seat=None).values_list("name", flat=True))
    assert seated == {*NAMES[:6], "Zoë"} and not game.players.filter(name="Late").exists()
    assert game.signup_key == "" and client.get(f"/join/{'x' * 22}/").status_code == 404


def test_each_refusal_says_what_to_do_and_changes_nothing(organiser_client: Client) -> None:
    game = open_game(organiser_client, signup_limit=7)
    client = Client()
    taken = ask(client, game, "Someone", "alba@example.org")
    assert taken.status_code == 400 and "That address already has a seat in this game" in text(taken)
    same = ask(client, game, "ALBA", "other@example.org")
    assert same.status_code == 400 and "already called ALBA" in text(same)
    word = ask(client, game, "Vote", "vote@example.org")
    assert word.status_code == 400 and "VOTE" in text(word)
    assert ask(client, game, "", "nobody@example.org").status_code == 400
    assert ask(client, game, "Bad", "not an address").status_code == 400
    assert Player.objects.count() == 2
    for name in NAMES[2:7]:
        ask(client, game, name, f"{name.lower()}@example.org")
        client.post(confirm_link(f"{name.lower()}@example.org").split("testserver", 1)[-1])
    full = ask(client, game, "Eighth", "eighth@example.org")
    assert full.status_code == 400 and "The game is full" in text(full)
    assert Player.objects.count() == 7


def test_forged_and_expired_confirmation_links_open_nothing(organiser_client: Client, monkeypatch) -> None:
    game = open_game(organiser_client)
    client = Client()
    ask(client, game, "Zoë", "zoe@example.org")
    path = confirm_link("zoe@example.org").split("testserver", 1)[-1]
    forged = path.replace("/confirm/", "/confirm/x")
    assert client.post(forged).status_code == 404
    other = signing.dumps(Player.objects.get(name="Alba").pk, salt="other")
    assert client.post(f"/join/confirm/{other}/").status_code == 404
    monkeypatch.setattr(settings, "WEREWOLF_SIGNUP_HOURS", -1)
    expired = client.post(path)
    assert expired.status_code == 404 and "Ask for a seat again" in text(expired)
    assert Player.objects.get(name="Zoë").pending


def test_closing_the_sign_up_drops_those_not_confirmed(organiser_client: Client) -> None:
    game = open_game(organiser_client)
    ask(Client(), game, "Zoë", "zoe@example.org")
    response = organiser_client.post(f"/games/{game.pk}/signup/", {"action": "close_signup"})
    assert response.status_code == 302
    assert not Player.objects.filter(name="Zoë").exists()
    assert Client().get(join_path(game)).status_code == 404
    path = confirm_link("zoe@example.org").split("testserver", 1)[-1]
    assert Client().post(path).status_code == 404


def test_a_start_with_too_few_players_is_refused_clearly(organiser_client: Client) -> None:
    game = open_game(organiser_client)
    refused = organiser_client.post(f"/games/{game.pk}/", {"action": "start"})
    assert refused.status_code == 400
    assert "The game has 2 players: it needs between 5 and 30." in text(refused)
    assert Game.objects.get().status == Game.Status.DRAFT


def test_the_join_link_as_a_qr_code_on_the_dashboard_and_on_a_screen(organiser_client: Client) -> None:
    import io

    import segno
    from django.conf import settings

    game = open_game(organiser_client)
    url = settings.SITE_URL + join_path(game)
    out = io.BytesIO()
    code = segno.make(url, error="m")
    code.save(out, kind="svg", border=2, xmldecl=False, svgclass="qr", lineclass=None, omitsize=True)
    path = re.search(r'd="([^"]+)"', out.getvalue().decode()).group(1)  # the modules: what the code says
    dashboard = organiser_client.get(f"/games/{game.pk}/").content.decode()
    assert '<svg role="img" aria-label="The join link as a QR code"' in dashboard and path in dashboard
    screen = organiser_client.get(f"/games/{game.pk}/join-code/").content.decode()
    assert path in screen and url in screen and re.search(r"<svg [^>]*width=\"\d+\"[^>]*class=\"qr\"", screen)
    assert Client().get(f"/games/{game.pk}/join-code/").status_code == 302  # the organiser's only
    services.close_signup(game)
    assert organiser_client.get(f"/games/{game.pk}/join-code/").status_code == 302


def test_a_sign_up_not_confirmed_holds_no_seat_and_expires(organiser_client: Client) -> None:
    game = open_game(organiser_client, signup_limit=7)
    client = Client()
    for name in NAMES[2:7]:  # five pending: seven in all, two of them confirmed
        assert ask(client, game, name, f"{name.lower()}@example.org").status_code == 200
    # The table is not full: a pending sign-up squats no seat.
    assert ask(client, game, "Zoë", "zoe@example.org").status_code == 200
    for name in NAMES[2:7]:
        client.post(confirm_link(f"{name.lower()}@example.org").split("testserver", 1)[-1])
    # Now it is: the last to confirm finds it full, and is told so.
    late = client.post(confirm_link("zoe@example.org").split("testserver", 1)[-1])
    assert late.status_code == 400 and "full" in text(late)
    assert Player.objects.get(name="Zoë").pending
    # Past WEREWOLF_SIGNUP_HOURS, the beat drops it.
    Player.objects.filter(name="Zoë").update(joined_at=timezone.now() - timedelta(hours=49))
    assert services.drop_expired_signups() == 1
    assert not Player.objects.filter(name="Zoë").exists()


def test_the_organiser_sees_and_removes_a_pending_sign_up(organiser_client: Client) -> None:
    game = open_game(organiser_client)
    ask(Client(), game, "Zoë", "zoe@example.org")
    dashboard = text(organiser_client.get(f"/games/{game.pk}/"))
    assert "to confirm by mail" in dashboard and "Remove Zoë's sign-up" in dashboard
    zoe = Player.objects.get(name="Zoë")
    response = organiser_client.post(f"/games/{game.pk}/", {"action": "remove_signup", "player": zoe.pk})
    assert response.status_code == 302 and not Player.objects.filter(pk=zoe.pk).exists()
    # A confirmed player is never removed this way.
    alba = Player.objects.get(name="Alba")
    organiser_client.post(f"/games/{game.pk}/", {"action": "remove_signup", "player": alba.pk})
    assert Player.objects.filter(pk=alba.pk).exists()
    assert Client().post(confirm_link("zoe@example.org").split("testserver", 1)[-1]).status_code == 404
