"""No mail loops (RFC 3834): what the server sends says it is automatic, what robots send
is kept and never answered, and a seat whose mail keeps being refused is answered a few
times an hour at most, while a card taken is always confirmed."""

from __future__ import annotations

import pytest
from django.core import mail
from django.test import override_settings

from werewolf.games.models import Game, InboundMessage
from werewolf.mail import inbound

from ..web.play import snapshot, started_game
from .test_inbound import letter, name_of, seat_of

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def game(organiser) -> Game:
    return started_game(organiser, "Loops")


def test_every_mail_the_server_sends_says_it_is_automatic(game: Game) -> None:
    welcomes = list(mail.outbox)
    assert welcomes and all(m.extra_headers["Auto-Submitted"] == "auto-generated" for m in welcomes)
    assert all(m.extra_headers["X-Auto-Response-Suppress"] == "All" for m in welcomes)
    seer = seat_of(game, "seer")
    inbound.receive(letter(game, seer, "INQUIRE Nobody-at-all"))
    answer = mail.outbox[-1]
    assert answer.extra_headers.get("In-Reply-To") and answer.extra_headers["Auto-Submitted"] == "auto-replied"


@pytest.mark.parametrize(
    "marker",
    [
        {"List-Id": "<players.example.org>"},
        {"X-Autoreply": "yes"},
        {"X-Autorespond": "Out of office"},
        {"X-Failed-Recipients": "someone@example.org"},
        {"Precedence": "junk"},
        {"Precedence": "list"},
        {"Precedence": " List "},
        {"Precedence": "bulk"},
        {"Return-Path": "<MAILER-DAEMON@mx.example.org>"},
        {"Auto-Submitted": "auto-generated"},
    ],
)
def test_mail_from_a_robot_is_kept_and_never_answered_nor_read(game: Game, marker: dict[str, str]) -> None:
    seer = seat_of(game, "seer")
    target = next(seat for seat in game.engine_state.living() if seat != seer)
    raw = letter(game, seer, f"INQUIRE {name_of(game, target)}")
    name, value = next(iter(marker.items()))
    raw = f"{name}: {value}\r\n".encode() + raw
    before, outbox = snapshot(game), len(mail.outbox)
    kept = inbound.receive(raw)
    assert kept.status == "refused" and kept.code == "auto_submitted"
    assert snapshot(game) == before and len(mail.outbox) == outbox
    assert InboundMessage.objects.filter(pk=kept.pk, raw=raw).exists()


def test_a_mailing_lists_copy_of_a_card_is_kept_and_never_answered_nor_read(game: Game) -> None:
    """A list the player's address is on sends the player's card on to the orders
    address (`Precedence: list` and `List-Id`, as list servers write them): kept for the
    organiser, never answered, never read as a card; the same card sent by the player
    afterwards is taken."""
    seer = seat_of(game, "seer")
    target = next(seat for seat in game.engine_state.living() if seat != seer)
    card = f"INQUIRE {name_of(game, target)}"
    listed = (
        b"Precedence: list\r\nList-Id: Werewolf players <players.lists.example.org>\r\n"
        b"List-Unsubscribe: <mailto:players-leave@lists.example.org>\r\n"
    ) + letter(game, seer, card, message_id="<list-copy@lists.example.org>")
    before, outbox = snapshot(game), len(mail.outbox)
    kept = inbound.receive(listed)
    assert (kept.status, kept.code) == ("refused", "auto_submitted")
    assert kept.player == game.players.get(seat=seer) and kept.answer != "sent"
    assert snapshot(game) == before and len(mail.outbox) == outbox
    assert InboundMessage.objects.get(pk=kept.pk).raw == listed
    taken = inbound.receive(letter(game, seer, card, message_id="<own@example.org>"))
    assert taken.status == "applied" and len(mail.outbox) == outbox + 1


def test_a_bounce_from_the_mailer_daemon_is_never_answered(game: Game) -> None:
    seer = seat_of(game, "seer")
    player = game.players.get(seat=seer)
    raw = letter(game, seer, "Delivery failed.\n\nSLEEP\n", sender="MAILER-DAEMON@mx.example.org")
    outbox = len(mail.outbox)
    kept = inbound.receive(raw)
    assert kept.status == "refused" and kept.code == "auto_submitted" and kept.player == player
    assert len(mail.outbox) == outbox


@override_settings(WEREWOLF_REFUSALS_ANSWERED_PER_HOUR=3)
def test_a_seat_whose_mail_keeps_being_refused_is_answered_a_few_times_an_hour(game: Game) -> None:
    """A responder that ignores Auto-Submitted answers each answer: the server stops
    answering after three refusals in the hour, keeps every message, and still confirms
    a card taken."""
    seer = seat_of(game, "seer")
    player = game.players.get(seat=seer)
    before = len(mail.outbox)
    rows = [inbound.receive(letter(game, seer, "I am out of the office until Monday.")) for _ in range(10)]
    assert all(row.status == "refused" for row in rows)
    answers = [m for m in mail.outbox[before:] if m.to[0].endswith(f"<{player.email}>") or m.to[0] == player.email]
    assert len(answers) == 3
    assert [row.answer for row in InboundMessage.objects.filter(pk__in=[r.pk for r in rows]).order_by("pk")] == [
        "sent"
    ] * 3 + ["held"] * 7
    target = next(seat for seat in game.engine_state.living() if seat != seer)
    taken = inbound.receive(letter(game, seer, f"INQUIRE {name_of(game, target)}"))
    assert taken.status == "applied"
    assert "your card is in" in mail.outbox[-1].body
    assert InboundMessage.objects.get(pk=taken.pk).answer == "sent"


def test_message_ids_use_the_sites_domain_rather_than_localhost(settings) -> None:
    from werewolf.mail.outbound import message_id_for

    settings.DEFAULT_FROM_EMAIL = "Werewolf moderator <moderator@localhost>"
    settings.SITE_URL = "https://werewolf.example.org"
    assert message_id_for("x").endswith("@werewolf.example.org>")
    settings.DEFAULT_FROM_EMAIL = "Werewolf <games@club.example.net>"
    assert message_id_for("x").endswith("@club.example.net>")
