"""Mail goes out over real SMTP to a server on loopback (aiosmtpd), one message per
player, each with that player's link and nobody else's."""

from __future__ import annotations

import email
import re
import socket
from email import policy

import pytest
from aiosmtpd.controller import Controller
from django.test import Client

from werewolf.games import links, services

from ..conftest import require
from ..web.play import NAMES

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


class Inbox:
    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):  # noqa: N802
        if not address.endswith("@example.org"):
            return "550 not relaying to that domain"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: N802
        self.messages.append(email.message_from_bytes(envelope.content, policy=policy.default))
        return "250 Message accepted for delivery"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def smtp(settings):
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    try:
        controller.start()
    except Exception as failure:  # pragma: no cover - reported through require
        require("aiosmtpd on loopback", False, str(failure))
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    yield inbox
    controller.stop()


def test_each_player_is_mailed_their_own_link_over_smtp(organiser, smtp) -> None:
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    game = services.create_game(organiser, name="Über café ☕", seats=seats, options={"wolves": 2, "seers": 1})
    services.start_game(game)
    assert len(smtp.messages) == 7
    tokens = {player.email: links.token_for(links.current(player).nonce) for player in game.players.all()}
    for message in smtp.messages:
        address = message["To"].addresses[0].addr_spec
        text = message.get_body(("plain",)).get_content()
        html = message.get_body(("html",)).get_content()
        assert "Über café ☕" in message["Subject"]
        own = tokens[address]
        assert own in text and own in html
        for other, token in tokens.items():
            if other != address:
                assert token not in text and token not in html
        path = re.search(r"/p/[a-z2-7]{32}/", text).group(0)
        assert Client().get(path).status_code == 200


def test_phase_results_are_mailed_once_even_if_the_task_runs_again(organiser, smtp) -> None:
    from werewolf.mail import outbound

    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    game = services.start_game(services.create_game(organiser, name="Once", seats=seats, options={"wolves": 2}))
    night = game.current_phase()
    services.resolve_now(game)
    count = len(smtp.messages)
    assert count == 14
    assert outbound.send_phase_mails(night.pk) == 0
    assert len(smtp.messages) == count


def test_mail_a_lost_task_left_unsent_goes_out_with_the_next_sweep(organiser, smtp, monkeypatch) -> None:
    from werewolf.games import queue
    from werewolf.mail import outbound

    monkeypatch.setattr(queue, "_send", lambda *args: None)  # the broker lost every task
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    game = services.start_game(services.create_game(organiser, name="Lost", seats=seats, options={"wolves": 2}))
    services.resolve_now(game)
    assert smtp.messages == []
    assert outbound.send_pending() == 14
    assert len(smtp.messages) == 14
    assert outbound.send_pending() == 0
