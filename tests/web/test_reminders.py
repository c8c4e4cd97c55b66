"""Reminders: before a deadline, each seat whose card is not in is mailed once, at a lead
time scaled to the phase; the organiser sees who was reminded."""

from __future__ import annotations

from datetime import timedelta
from html import unescape

import pytest
from django.core import mail
from django.test import Client

from werewolf import engine
from werewolf.games import services
from werewolf.games.models import Dispatch, Game

from .play import seat_roles, started_game

pytestmark = pytest.mark.django_db(transaction=True)


def reminders() -> list:
    return [message for message in mail.outbox if "Your card is not in yet" in message.subject]


def test_the_lead_time_scales_with_the_phase(organiser) -> None:
    game = started_game(organiser, "Leads")
    phase = game.current_phase()
    phase.deadline = phase.opened_at + timedelta(hours=24)
    assert services.reminder_lead(phase) == timedelta(hours=2)
    phase.deadline = phase.opened_at + timedelta(minutes=10)
    assert services.reminder_lead(phase) == timedelta(minutes=2)
    phase.deadline = phase.opened_at + timedelta(hours=6)
    assert services.reminder_lead(phase) == timedelta(minutes=30)


def test_each_seat_without_a_card_is_reminded_once(organiser, organiser_client: Client) -> None:
    game = started_game(organiser, "Reminded")
    phase = game.current_phase()
    villager = seat_roles(game).index("villager")
    services.submit_order(game, villager, engine.SLEEP_ORDER)
    lead = services.reminder_lead(phase)
    mail.outbox.clear()
    assert services.send_reminders(now=phase.deadline - lead - timedelta(seconds=1)) == 0
    assert services.send_reminders(now=phase.deadline - lead + timedelta(seconds=1)) == 6
    assert services.send_reminders(now=phase.deadline - timedelta(seconds=5)) == 0  # once
    sent = reminders()
    assert len(sent) == 6
    assert not any(game.players.get(seat=villager).email in message.to[0] for message in sent)
    body = sent[0].body
    assert "Your card is not in yet" in body and "/p/" in body
    dashboard = unescape(organiser_client.get(f"/games/{game.pk}/").content.decode())
    assert dashboard.count(">reminded<") == 6
    assert Dispatch.objects.filter(kind=Dispatch.Kind.REMINDER).count() == 6


def test_no_reminder_after_the_deadline_or_in_a_finished_phase(organiser) -> None:
    game = started_game(organiser, "Late")
    phase = game.current_phase()
    mail.outbox.clear()
    assert services.send_reminders(now=phase.deadline + timedelta(seconds=1)) == 0
    services.resolve_now(Game.objects.get(pk=game.pk))
    services.send_reminders(now=phase.deadline - timedelta(seconds=30))
    assert not Dispatch.objects.filter(kind=Dispatch.Kind.REMINDER, phase=phase).exists()


def test_a_reminder_mail_asks_for_the_card_like_the_phase_mail(organiser, settings) -> None:
    settings.WEREWOLF_MAIL_ORDERS = True
    game = started_game(organiser, "By mail")
    phase = game.current_phase()
    mail.outbox.clear()
    services.send_reminders(now=phase.deadline - timedelta(seconds=30))
    message = reminders()[0]
    assert message.reply_to and message.reply_to[0].startswith("orders+")
    assert "reply to this mail with your card" in message.body


def test_a_reminded_phase_is_not_read_again_by_later_sweeps(organiser) -> None:
    """Every beat tick in a phase's reminder window used to read its game, its cards
    and its seats again; once reminded, a phase costs later sweeps nothing but the one
    query that finds nothing due."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    game = started_game(organiser, "Once")
    phase = game.current_phase()
    lead = services.reminder_lead(phase)
    assert services.send_reminders(now=phase.deadline - lead + timedelta(seconds=1)) == 7
    phase.refresh_from_db()
    assert phase.reminded_at is not None
    with CaptureQueriesContext(connection) as queries:
        assert services.send_reminders(now=phase.deadline - timedelta(seconds=5)) == 0
    assert len(queries.captured_queries) == 1
