"""Personal data kept no longer than needed (werewolf/games/retention.py): an organiser
deletes a game that is over, or keeps its record with the players' mail addresses
removed; the beat removes them from games over for WEREWOLF_KEEP_ADDRESSES_DAYS. A running
game keeps them (it still mails its players), and only the game's own organiser decides."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from tasks import housekeeping
from werewolf import engine
from werewolf.games import retention, services
from werewolf.games.models import Absence, Dispatch, Event, Game, InboundMessage, Player, SeatHolding

from .play import started_game
from .test_accounts import text

pytestmark = pytest.mark.django_db


def _mailed_game(organiser: Any, name: str = "Over") -> Game:
    """A game whose players were mailed, and one of whom mailed back, then ended."""
    game = started_game(organiser, name)
    player = game.players.get(seat=0)
    InboundMessage.objects.create(
        raw=f"From: {player.email}\r\n\r\nKILL Bruno".encode(), size=30, sender=player.email, game=game, player=player
    )
    InboundMessage.objects.create(raw=b"From: lost@example.org", size=22, sender="lost@example.org")
    # A standby stood in for seat 2 while its player was away (the player's address is kept).
    seat = game.players.get(seat=2)
    Absence.objects.create(
        game=game, player=seat, start=timezone.now().date(), end=timezone.now().date(), away_email=seat.email
    )
    Event.objects.create(
        game=game,
        kind="mail_bounced",
        data={"seat": 1, "reason": "550 bruno@example.org unknown"},
        audience=engine.Audience.moderator().to_json(),
    )
    return services.end_game(game)


def _addresses(game: Game) -> list[str]:
    """Every place of the game's record a player's address could be."""
    found = [player.email for player in game.players.all() if player.email]
    found += [row.recipient for row in Dispatch.objects.filter(player__game=game) if row.recipient]
    found += [row.sender for row in InboundMessage.objects.filter(game=game) if row.sender]
    found += [
        bytes(row.raw).decode() for row in InboundMessage.objects.filter(game=game) if "@" in bytes(row.raw).decode()
    ]
    found += [str(event.data) for event in Event.objects.filter(game=game) if "@" in str(event.data)]
    found += [holding.email for holding in SeatHolding.objects.filter(game=game) if holding.email]
    found += [absence.away_email for absence in Absence.objects.filter(game=game) if absence.away_email]
    return found


def test_the_organiser_keeps_the_record_without_the_addresses(organiser: Any, organiser_client: Client) -> None:
    game = _mailed_game(organiser)
    assert _addresses(game)
    names = sorted(game.players.values_list("name", flat=True))
    events = Event.objects.filter(game=game).count()
    dashboard = text(organiser_client.get(f"/games/{game.pk}/"))
    assert "Remove the addresses or delete the game" in dashboard
    assert organiser_client.post(f"/games/{game.pk}/delete/", {"action": "forget_addresses"}).status_code == 302
    game.refresh_from_db()
    assert game.addresses_removed_at is not None and _addresses(game) == []
    assert sorted(game.players.values_list("name", flat=True)) == names
    assert Event.objects.filter(game=game).count() == events
    assert "were removed on" in text(organiser_client.get(f"/games/{game.pk}/"))
    assert organiser_client.get(f"/games/{game.pk}/print/record.pdf").status_code == 200
    # Mail unmatched to any game is the beat's, not this game's.
    assert InboundMessage.objects.filter(sender="lost@example.org").exists()


def test_the_organiser_deletes_a_game_that_is_over_but_not_one_running(
    organiser: Any, organiser_client: Client
) -> None:
    running = started_game(organiser, "Running")
    assert organiser_client.post(f"/games/{running.pk}/delete/", {"action": "delete"}).status_code == 302
    assert organiser_client.post(f"/games/{running.pk}/delete/", {"action": "forget_addresses"}).status_code == 302
    running.refresh_from_db()
    assert running.is_running and all(player.email for player in running.players.all())
    game = _mailed_game(organiser)
    assert organiser_client.post(f"/games/{game.pk}/delete/", {"action": "delete"}).status_code == 302
    assert not Game.objects.filter(pk=game.pk).exists()
    assert not InboundMessage.objects.filter(sender__contains="example.org").exclude(sender="lost@example.org").exists()


def test_only_the_games_organiser_removes_or_deletes(organiser: Any) -> None:
    game = _mailed_game(organiser)
    User = get_user_model()
    co = User.objects.create_user("co", password="x")
    game.co_organisers.add(co)
    stranger = User.objects.create_user("stranger", password="x")
    for user in (co, stranger):
        client = Client()
        client.force_login(user)
        for action in ("forget_addresses", "delete"):
            assert client.post(f"/games/{game.pk}/delete/", {"action": action}).status_code == 404
    assert Client().post(f"/games/{game.pk}/delete/", {"action": "delete"}).status_code == 302  # to the log in
    game.refresh_from_db()
    assert game.addresses_removed_at is None and _addresses(game)


def test_the_beat_removes_the_addresses_of_games_long_over(organiser: Any, settings: Any) -> None:
    settings.WEREWOLF_KEEP_ADDRESSES_DAYS = 30
    old = _mailed_game(organiser, "Old")
    recent = _mailed_game(organiser, "Recent")
    running = started_game(organiser, "Running")
    Game.objects.filter(pk=old.pk).update(finished_at=timezone.now() - timedelta(days=31))
    InboundMessage.objects.filter(game__isnull=True).update(received_at=timezone.now() - timedelta(days=31))
    Dispatch.objects.create(
        key="account:old", kind=Dispatch.Kind.ACCOUNT, message_id="<x@y>", recipient="teacher@example.org"
    )
    Dispatch.objects.filter(key="account:old").update(created_at=timezone.now() - timedelta(days=31))
    assert housekeeping.forget_old_addresses() == 1
    for game in (old, recent, running):
        game.refresh_from_db()
    assert _addresses(old) == [] and old.addresses_removed_at is not None
    assert _addresses(recent) and recent.addresses_removed_at is None
    assert all(player.email for player in running.players.all())
    assert not InboundMessage.objects.filter(sender="lost@example.org").exists()
    assert Dispatch.objects.get(key="account:old").recipient == ""
    assert housekeeping.forget_old_addresses() == 0  # once
    settings.WEREWOLF_KEEP_ADDRESSES_DAYS = 0
    Game.objects.filter(pk=recent.pk).update(finished_at=timezone.now() - timedelta(days=400))
    assert retention.forget_old_addresses() == 0
    assert Player.objects.filter(game=recent).exclude(email="").exists()
