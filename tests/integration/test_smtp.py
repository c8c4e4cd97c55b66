"""Mail goes out over real SMTP to a server on loopback (aiosmtpd), one message per
player, each with that player's link and nobody else's."""

from __future__ import annotations

import email
import re
import socket
from datetime import timedelta
from email import policy

import pytest
from aiosmtpd.controller import Controller
from django.test import Client
from django.utils import timezone

from werewolf.games import links, services

from ..conftest import require
from ..web.play import NAMES, pack_of, seat_roles

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


class Pipelining:
    """An aiosmtpd handler that offers PIPELINING (RFC 2920), as Postfix, Exim and the big
    mail providers do: the outbox then sends each envelope in one write
    (werewolf/mail/pipelining.py). aiosmtpd reads pipelined commands in order but does
    not offer them itself."""

    async def handle_EHLO(self, server, session, envelope, hostname, responses):  # noqa: N802 - aiosmtpd's name
        session.host_name = hostname
        responses.insert(-1, "250-PIPELINING")
        return responses


class Inbox(Pipelining):
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


def test_each_envelope_goes_in_one_write_and_a_refused_address_waits_for_a_retry(organiser, smtp, monkeypatch) -> None:
    """The server offers PIPELINING: each mail is two writes (werewolf/mail/pipelining.py),
    and the one address it refuses is kept for a retry while the batch goes on."""
    import smtplib

    from werewolf.games.models import Dispatch

    writes: list[bytes] = []
    send = smtplib.SMTP.send

    def counted(self, data) -> None:
        writes.append(data.encode("ascii") if isinstance(data, str) else data)
        send(self, data)

    monkeypatch.setattr(smtplib.SMTP, "send", counted)
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    seats[3] = services.Seating(NAMES[3], "dora@elsewhere.test")
    services.start_game(services.create_game(organiser, name="Pipelined", seats=seats, options={"wolves": 2}))
    assert sorted(message["To"].addresses[0].addr_spec for message in smtp.messages) == sorted(
        seat.email for seat in seats if seat.email.endswith("@example.org")
    )
    envelopes = [write for write in writes if write.startswith(b"MAIL FROM:")]
    assert len(envelopes) == 7
    assert all(envelope.endswith(b"\r\nDATA\r\n") and envelope.count(b"\r\n") == 3 for envelope in envelopes)
    refused = Dispatch.objects.get(recipient__contains="dora@elsewhere.test")
    assert refused.status == Dispatch.Status.RETRYING and "SMTPRecipientsRefused" in refused.last_error


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
    monkeypatch.setattr(outbound, "_send_fresh", lambda *args: 0)  # ... and the resolver died after its commit
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    game = services.start_game(services.create_game(organiser, name="Lost", seats=seats, options={"wolves": 2}))
    services.resolve_now(game)
    assert smtp.messages == []
    # The welcomes were due at once; the phase's mails, written already taken by the
    # resolver, once its hold on them is stale.
    assert outbound.send_pending() == 7
    assert outbound.send_pending(timezone.now() + outbound.CLAIM_STALE + timedelta(seconds=1)) == 7
    assert len(smtp.messages) == 14
    assert outbound.send_pending(timezone.now() + outbound.CLAIM_STALE + timedelta(seconds=1)) == 0


@pytest.fixture
def orders_server():
    """The orders listener on loopback, as `manage.py mail_server` runs it."""
    from werewolf.mail.server import OrdersHandler

    port = free_port()
    controller = Controller(OrdersHandler(), hostname="127.0.0.1", port=port, data_size_limit=200_000)
    try:
        controller.start()
    except Exception as failure:  # pragma: no cover - reported through require
        require("aiosmtpd on loopback", False, str(failure))
    yield port
    controller.stop()


def test_a_card_mailed_over_smtp_is_handed_in_and_answered_over_smtp(organiser, smtp, orders_server) -> None:
    import smtplib

    from werewolf.games.models import InboundMessage, Order

    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    game = services.start_game(services.create_game(organiser, name="Über mail", seats=seats, options={"wolves": 2}))
    wolf = game.players.get(seat=pack_of(game)[0])
    victim = game.players.get(seat=seat_roles(game).index("villager"))
    welcome = next(m for m in smtp.messages if m["To"].addresses[0].addr_spec == wolf.email)
    reply_to = welcome["Reply-To"].addresses[0].addr_spec
    reply = email.message.EmailMessage()
    reply["From"], reply["To"], reply["Subject"] = wolf.email, reply_to, "Re: " + welcome["Subject"]
    reply["Message-ID"] = "<smtp-card@example.org>"
    reply.set_content(f"KILL {victim.name}\n\n> quoted text\n", charset="iso-8859-1")
    with smtplib.SMTP("127.0.0.1", orders_server) as client:
        client.send_message(reply)
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            client.sendmail(wolf.email, ["someone@elsewhere.example"], b"Subject: relay me\r\n\r\nno")
        with pytest.raises((smtplib.SMTPSenderRefused, smtplib.SMTPDataError)) as too_big:
            client.sendmail(wolf.email, [reply_to], b"Subject: big\r\n\r\n" + b"x" * 300_000)
        assert too_big.value.smtp_code == 552
    kept = InboundMessage.objects.get(message_id="<smtp-card@example.org>")
    assert kept.status == InboundMessage.Status.APPLIED, kept.code
    assert Order.objects.get(phase__game=game, seat=wolf.seat).source == Order.Source.MAIL
    answer = smtp.messages[-1]
    assert answer["To"].addresses[0].addr_spec == wolf.email
    assert answer["In-Reply-To"] == "<smtp-card@example.org>"
    assert "your card is in" in answer.get_body(("plain",)).get_content()


def test_the_receive_mail_command_keeps_what_the_mta_pipes_in(organiser, monkeypatch, capsys) -> None:
    import io
    import sys

    from django.core.management import call_command

    from werewolf.games.models import InboundMessage

    raw = b"From: someone@example.org\r\nTo: orders@werewolf.test\r\nSubject: hello\r\n\r\nKILL everybody\r\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    call_command("receive_mail", "--recipient", "orders@werewolf.test")
    kept = InboundMessage.objects.get()
    assert bytes(kept.raw) == raw and kept.recipients == "orders@werewolf.test"
    assert kept.status == InboundMessage.Status.UNMATCHED
    assert f"kept as inbound message {kept.pk}: unmatched (no_reference)" in capsys.readouterr().out
