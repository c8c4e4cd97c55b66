"""Every phase mail carries the open phase's deadline as an iCalendar event (RFC 5545),
read back here with the icalendar library."""

from __future__ import annotations

from datetime import timedelta

import icalendar
import pytest
from django.core import mail

from werewolf.games import services
from werewolf.games.models import Game

from ..web.play import started_game

pytestmark = pytest.mark.django_db(transaction=True)


def events_in(message) -> list[icalendar.Event]:
    found = []
    for filename, content, mimetype in message.attachments:
        assert filename == "deadline.ics" and mimetype.startswith("text/calendar")
        raw = content.encode() if isinstance(content, str) else content
        assert all(len(line) <= 75 for line in raw.split(b"\r\n")), "a content line over 75 octets"
        found += icalendar.Calendar.from_ical(raw).walk("VEVENT")
    return found


@pytest.fixture
def game(organiser) -> Game:
    return started_game(organiser, "Calendar, with; commas\\ and a long name to fold over the line")


def test_the_welcome_and_each_phase_mail_carry_the_deadline(game: Game) -> None:
    phase = game.current_phase()
    welcomes = list(mail.outbox)
    uids = set()
    for message in welcomes:
        (event,) = events_in(message)
        deadline = phase.deadline.replace(microsecond=0)  # iCalendar counts whole seconds
        assert event.decoded("DTEND") == deadline
        assert event.decoded("DTSTART") == deadline - timedelta(minutes=15)
        assert str(event["SUMMARY"]).startswith(f"[{game.name}] Night 1")
        assert "/p/" in str(event["URL"]) and str(event["URL"]) in str(event["DESCRIPTION"])
        uids.add(str(event["UID"]))
    assert len(uids) == len(welcomes)  # one event per seat
    services.extend_deadline(game, 30)
    phase.refresh_from_db()
    moved = mail.outbox[len(welcomes) :]  # the new deadline, told to every seat
    assert len(moved) == len(welcomes)
    for message in moved:
        (event,) = events_in(message)
        assert event.decoded("DTEND") == phase.deadline.replace(microsecond=0)
    services.resolve_now(game, phase.index)
    following = game.current_phase()
    results = mail.outbox[len(welcomes) + len(moved) :]
    assert results
    for message in results:
        (event,) = events_in(message)
        assert event.decoded("DTEND") == following.deadline.replace(microsecond=0)


def test_an_extended_deadline_is_a_later_sequence_of_the_same_event(game: Game) -> None:
    from werewolf.mail import outbound

    player = game.players.get(seat=0)
    phase = game.current_phase()
    context = outbound._context(player)
    before = icalendar.Calendar.from_ical(outbound.calendar(player, phase, context)).walk("VEVENT")[0]
    services.extend_deadline(game, 60)
    phase.refresh_from_db()
    after = icalendar.Calendar.from_ical(outbound.calendar(player, phase, outbound._context(player))).walk("VEVENT")[0]
    assert after["UID"] == before["UID"] and int(after["SEQUENCE"]) > int(before["SEQUENCE"])
    assert after.decoded("DTEND") - before.decoded("DTEND") == timedelta(minutes=60)


def test_a_moved_deadline_is_told_to_every_player_and_in_the_public_log(game: Game, settings) -> None:
    """Players reminded of one deadline hear of the new one (issue 28): a mail to every
    seat, a ghost's too, saying the new deadline in the game's time zone, and the
    public log says it too."""
    from zoneinfo import ZoneInfo

    from werewolf.games.templatetags.werewolf import render_event

    settings.WEREWOLF_MAIL_ORDERS = True
    Game.objects.filter(pk=game.pk).update(timezone="Europe/Rome")
    game.refresh_from_db()
    sent = len(mail.outbox)
    phase = services.extend_deadline(game, 12)
    moved = mail.outbox[sent:]
    seated = game.players.exclude(seat=None)
    assert sorted(message.to[0].split("<")[-1].rstrip(">") for message in moved) == sorted(
        player.email for player in seated
    )
    local = phase.deadline.astimezone(ZoneInfo("Europe/Rome"))
    clock = f"{local.hour}:{local.minute:02d}"
    for message in moved:
        assert "The deadline has moved" in message.subject
        assert "moved the deadline" in message.body and clock in message.body, message.body
        assert message.reply_to, "the mail names no reply address"
    event = game.events.filter(kind="deadline_extended").get()
    words = str(render_event(event, [player.name for player in seated.order_by("seat")], None))
    assert "extended the deadline by 12 minutes" in words and clock in words and "Europe/Rome" in words, words
