"""What an operator sees: structured logs of every resolution, mail and inbound message,
with their ids; the outbox in the admin, with its backlog counted and a failed mail
sent again."""

from __future__ import annotations

import json
import logging

import pytest
from django.core import mail
from django.test import Client

from werewolf.games import services
from werewolf.games.models import Dispatch
from werewolf.logs import JSONFormatter
from werewolf.mail import inbound

from ..mail.test_inbound import letter, seat_of
from .play import started_game

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def json_lines():
    """The werewolf loggers' records, formatted as WEREWOLF_LOG_FORMAT=json writes them."""
    lines: list[dict] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(json.loads(JSONFormatter().format(record)))

    handler = Keep(level=logging.INFO)
    logger = logging.getLogger("werewolf")
    logger.addHandler(handler)
    yield lines
    logger.removeHandler(handler)


def test_resolutions_mails_and_inbound_messages_are_logged_with_their_ids(organiser, json_lines) -> None:
    game = started_game(organiser, "Logs")
    phase = game.current_phase()
    seer = seat_of(game, "seer")
    inbound.receive(letter(game, seer, "SLEEP"))
    services.resolve_now(game)
    resolved = [line for line in json_lines if line["message"].startswith("resolved phase")]
    assert resolved and resolved[-1]["game"] == game.pk and resolved[-1]["phase"] == phase.pk
    assert resolved[-1]["resolution"] == "moderator" and resolved[-1]["level"] == "INFO"
    sent = [line for line in json_lines if line["message"].startswith("sent dispatch")]
    assert len(sent) >= 7 and all("dispatch" in line and "kind" in line for line in sent)
    read = [line for line in json_lines if line["message"].startswith("inbound message")]
    assert read[-1]["status"] == "applied" and read[-1]["game"] == game.pk and read[-1]["seat"] == seer
    assert all(set(line) >= {"time", "level", "logger", "message"} for line in json_lines)


def test_the_admin_counts_the_outbox_and_sends_a_failed_mail_again(organiser, django_user_model) -> None:
    game = started_game(organiser, "Admin")
    failed = Dispatch.objects.filter(player__game=game).first()
    Dispatch.objects.filter(pk=failed.pk).update(status=Dispatch.Status.FAILED, last_error="SMTPServerDisconnected")
    django_user_model.objects.create_superuser("operator", "op@example.org", "secret-pass-1")
    client = Client()
    client.login(username="operator", password="secret-pass-1")
    page = client.get("/admin/games/dispatch/").content.decode()
    assert "SMTPServerDisconnected" in page and "failed, gave up" in page
    outbox = len(mail.outbox)
    response = client.post(
        "/admin/games/dispatch/", {"action": "send_again", "_selected_action": [str(failed.pk)]}, follow=True
    )
    assert response.status_code == 200 and "1 mail will be sent again" in response.content.decode()
    failed.refresh_from_db()
    assert failed.status == Dispatch.Status.SENT and len(mail.outbox) == outbox + 1
