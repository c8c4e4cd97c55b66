"""The words of a slow game say what happened (issue 42's smaller points): a missing card
is worded for the step it missed, a short pause for the minute the deadline moved, a
card mailed while paused is told the game is paused (not the old deadline), the mail
of a resume asks only the seats without a card, and STATUS after the end says so."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from django.template.defaultfilters import date as date_filter
from django.test import Client
from django.utils import timezone

from werewolf.games import pauses, services
from werewolf.games.calendar import DaysOff
from werewolf.games.models import Game, InboundMessage, Phase
from werewolf.mail import inbound

from ..web.play import seat_roles, started_game, text_of
from .test_inbound import last_reply_to, letter

pytestmark = pytest.mark.django_db(transaction=True)


def inbound_receive(game: Game, seat: int, body: str) -> InboundMessage:
    return inbound.receive(letter(game, seat, body))


def fresh(game: Game) -> Game:
    return Game.objects.get(pk=game.pk)


def name_of(game: Game, role: str) -> str:
    return game.players.get(seat=seat_roles(game).index(role)).name


def test_a_missing_card_is_worded_for_the_step_it_missed(organiser, organiser_client: Client) -> None:
    game = started_game(organiser, "Missing")
    villager = name_of(game, "villager")
    services.resolve_now(fresh(game))  # a night without a card
    log = text_of(organiser_client.get(f"/games/{game.pk}/").content.decode())
    assert f"No card from {villager}: counted as SLEEP." in log and "as no vote by day" not in log
    services.resolve_now(fresh(game))  # a day without a vote
    log = text_of(organiser_client.get(f"/games/{game.pk}/").content.decode())
    assert f"No card from {villager}: counted as no vote." in log


def test_a_short_pause_says_the_minute_the_deadline_moved(organiser) -> None:
    game = started_game(organiser, "Short pause")
    before = game.current_phase().deadline
    start = timezone.now()
    with mock.patch("django.utils.timezone.now", return_value=start):
        pauses.pause(game)
    with mock.patch("django.utils.timezone.now", return_value=start + timedelta(seconds=35)):
        pauses.resume(fresh(game))
    after = fresh(game).current_phase().deadline
    assert after - before == timedelta(minutes=1)
    page = text_of(Client().get(f"/g/{game.public_key}/").content.decode())
    assert "after a pause of 1 minute." in page and "pause of 0 minutes" not in page


def test_a_pause_of_no_time_says_the_deadline_did_not_move(organiser) -> None:
    game = started_game(organiser, "No pause")
    before = game.current_phase().deadline
    mail.outbox.clear()
    with mock.patch("django.utils.timezone.now", return_value=timezone.now()):
        pauses.pause(game)
        pauses.resume(fresh(game))  # in the same instant
    assert fresh(game).current_phase().deadline == before
    page = text_of(Client().get(f"/g/{game.public_key}/").content.decode())
    assert "after a pause of less than a minute. The deadline did not move: it is still" in page
    assert "0 minutes" not in page and "moved on by as much" not in page
    resumed = [" ".join(message.body.split()) for message in mail.outbox if "resumed" in message.body]
    assert resumed and all("has not moved" in body and "as long as the pause" not in body for body in resumed)


def test_a_resume_onto_a_day_off_says_the_calendar_moved_the_deadline_on_again(organiser) -> None:
    game = started_game(organiser, "Weekend words")
    phase = game.current_phase()
    utc = timezone.get_fixed_timezone(0)
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.datetime(2026, 12, 5, 10, 0, tzinfo=utc))  # Saturday
    Game.objects.filter(pk=game.pk).update(days_off=DaysOff(frozenset({5, 6})).to_json())
    now = timezone.datetime(2026, 12, 5, 9, 0, tzinfo=utc)
    mail.outbox.clear()
    with mock.patch("django.utils.timezone.now", return_value=now):
        pauses.pause(fresh(game))
    with mock.patch("django.utils.timezone.now", return_value=now + timedelta(seconds=35)):
        pauses.resume(fresh(game))
    assert fresh(game).current_phase().deadline == timezone.datetime(2026, 12, 7, 10, 1, tzinfo=utc)  # Monday
    page = text_of(Client().get(f"/g/{game.public_key}/").content.decode())
    assert (
        "after a pause of 1 minute. The deadline moved on by the pause, then on again past the game's days off" in page
    )
    assert "moved on by as much" not in page
    resumed = [" ".join(message.body.split()) for message in mail.outbox if "resumed" in message.body]
    assert resumed and all("then on again past the game's days off" in body for body in resumed)


def test_a_card_mailed_while_paused_is_told_the_game_is_paused_not_the_old_deadline(organiser) -> None:
    game = started_game(organiser, "Paused mail")
    seat = seat_roles(game).index("villager")
    deadline = game.current_phase().deadline.astimezone(ZoneInfo(game.timezone))
    pauses.pause(game)
    kept = inbound_receive(game, seat, "SLEEP")
    assert kept.code == "game_paused"
    body = " ".join(last_reply_to(game, seat).split())
    assert "the game is paused, so no deadline runs" in body
    assert date_filter(deadline, "DATETIME_FORMAT") not in body


def test_the_mail_of_a_resume_asks_only_the_seats_without_a_card(organiser) -> None:
    game = started_game(organiser, "Resume")
    roles = seat_roles(game)
    seer, villager = roles.index("seer"), roles.index("villager")
    target = next(seat for seat in range(len(roles)) if seat != seer)
    target_name = game.players.get(seat=target).name
    assert inbound_receive(game, seer, f"INQUIRE {target_name}").status == "applied"
    pauses.pause(fresh(game))
    mail.outbox.clear()
    pauses.resume(fresh(game))
    told = {message.to[0]: " ".join(message.body.split()) for message in mail.outbox}
    seers = next(body for address, body in told.items() if game.players.get(seat=seer).email in address)
    assert f"Your card is in: INQUIRE {target_name}." in seers and "Hand in your card" not in seers
    villagers = next(body for address, body in told.items() if game.players.get(seat=villager).email in address)
    assert "Hand in your card on your page" in villagers and "Your card is in" not in villagers


def test_status_after_the_end_says_the_game_is_over(organiser) -> None:
    game = started_game(organiser, "Over")
    services.end_game(game)
    kept = inbound_receive(fresh(game), 2, "STATUS")
    assert kept.code == "status"
    body = last_reply_to(game, 2)
    assert "The game is over" in body and "No phase is open" not in body
