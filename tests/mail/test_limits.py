"""Inbound mail within limits: every message is stored before it is parsed, a message
too deep, too many-parted or with monstrous headers is kept and answered plainly, and
the two doors (`receive_mail`, the SMTP listener) tell the MTA to retry only when the
message could not be stored."""

from __future__ import annotations

import asyncio
import io
import sys
from types import SimpleNamespace

import pytest
from django.core import mail
from django.core.management import call_command
from django.db import OperationalError

from werewolf.games.models import Game, InboundMessage
from werewolf.mail import inbound
from werewolf.mail.server import OrdersHandler

from ..web.play import reply_address, seat_roles, snapshot, started_game

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def game(organiser) -> Game:
    return started_game(organiser, "Limits")


def seer_and_target(game: Game) -> tuple[int, str]:
    seer = seat_roles(game).index("seer")
    target = next(seat for seat in game.engine_state.living() if seat != seer)
    return seer, game.players.get(seat=target).name


def headers(game: Game, seat: int, **extra: str) -> bytes:
    player = game.players.get(seat=seat)
    fields = {
        "From": player.email,
        "To": reply_address(player),
        "Subject": "Re: your seat",
        "Message-ID": f"<{InboundMessage.objects.count()}.limits@example.org>",
        **extra,
    }
    return "".join(f"{name}: {value}\r\n" for name, value in fields.items()).encode()


def nested(depth: int, card: str) -> bytes:
    """`depth` multiparts, each holding the next, the innermost holding the card."""
    body = f"Content-Type: text/plain; charset=utf-8\r\n\r\n{card}\r\n".encode()
    for level in range(depth):
        boundary = f"b{level}".encode()
        body = (
            b"Content-Type: multipart/mixed; boundary=" + boundary + b"\r\n\r\n--" + boundary + b"\r\n"
            b"" + body + b"\r\n--" + boundary + b"--\r\n"
        )
    return body


def siblings(count: int, card: str) -> bytes:
    parts = [f"INQUIRE {card}" if index == 0 else f"part {index}" for index in range(count)]
    body = b"".join(f"--sep\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n".encode() for text in parts)
    return b"Content-Type: multipart/mixed; boundary=sep\r\n\r\n" + body + b"--sep--\r\n"


def replies_to(player_email: str) -> list[str]:
    return [m.body for m in mail.outbox if player_email in m.to[0] and m.extra_headers.get("In-Reply-To")]


def test_a_message_within_the_limits_is_read(game: Game) -> None:
    seer, name = seer_and_target(game)
    kept = inbound.receive(headers(game, seer) + nested(inbound.MAX_DEPTH - 1, f"INQUIRE {name}"))
    assert kept.status == "applied", kept.code
    kept = inbound.receive(headers(game, seer) + siblings(inbound.MAX_PARTS - 1, name))
    assert kept.status == "applied", kept.code


def test_a_thousand_nested_multiparts_are_kept_refused_and_answered(game: Game) -> None:
    """58 KB of nesting once hit the recursion limit before anything was stored."""
    seer, name = seer_and_target(game)
    player = game.players.get(seat=seer)
    before = snapshot(game)
    raw = headers(game, seer) + nested(1000, f"INQUIRE {name}")
    kept = inbound.receive(raw)
    kept.refresh_from_db()
    assert bytes(kept.raw) == raw and kept.size == len(raw)
    assert kept.status == "refused" and kept.code == "unreadable"
    assert kept.sender == player.email and kept.message_id.endswith(".limits@example.org>")
    assert kept.player == player
    assert snapshot(game) == before
    assert "It was too complicated to read" in replies_to(player.email)[-1]


def test_too_many_parts_are_refused(game: Game) -> None:
    seer, name = seer_and_target(game)
    before = snapshot(game)
    kept = inbound.receive(headers(game, seer) + siblings(inbound.MAX_PARTS + 5, name))
    assert kept.status == "refused" and kept.code == "unreadable"
    assert snapshot(game) == before


def test_an_unreadable_message_from_a_stranger_is_kept_and_answered_by_nobody(game: Game) -> None:
    seer, name = seer_and_target(game)
    outbox = len(mail.outbox)
    raw = headers(game, seer, From="stranger@evil.test", To="orders@werewolf.test") + nested(1000, "SLEEP")
    kept = inbound.receive(raw)
    assert kept.status == "unmatched" and kept.code == "no_reference"
    assert bytes(kept.raw) == raw and len(mail.outbox) == outbox


def test_the_row_is_stored_before_the_message_is_parsed(game: Game, monkeypatch) -> None:
    seer, _ = seer_and_target(game)
    seen: list[int] = []

    def parse(raw: bytes, headers_only: bool = False):
        seen.append(InboundMessage.objects.filter(raw=raw).count())
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(inbound, "parse", parse)
    raw = headers(game, seer) + b"\r\nSLEEP\r\n"
    kept = inbound.receive(raw)
    assert seen and seen[0] == 1
    assert kept.status == "failed" and kept.code == "unreadable"
    assert InboundMessage.objects.get(pk=kept.pk).status == "failed"


def test_a_subject_of_encoded_words_is_cut_before_it_is_parsed(game: Game, monkeypatch) -> None:
    """Counting, not timing: the header parser never sees more than MAX_HEADER_CHARS of
    a header, so the encoded words it decodes stay bounded however many were sent."""
    import email._header_value_parser as parser

    decoded = []
    original = parser.get_encoded_word

    def counting(value, *args, **kwargs):
        decoded.append(1)
        return original(value, *args, **kwargs)

    monkeypatch.setattr(parser, "get_encoded_word", counting)
    seer, _ = seer_and_target(game)
    word = "=?utf-8?q?w=C3=A9rd?="
    bound = inbound.MAX_HEADER_CHARS // len(word) + 1
    for words in (100, 8_000):
        decoded.clear()
        raw = headers(game, seer, Subject=" ".join([word] * words)) + b"\r\nSLEEP\r\n"
        kept = inbound.receive(raw)
        assert bytes(kept.raw) == raw
        assert kept.subject.startswith("wérdwérd") and len(kept.subject) <= 255
        assert len(decoded) <= min(words, bound)


def test_a_long_to_header_still_finds_the_reference_first(game: Game) -> None:
    seer, name = seer_and_target(game)
    player = game.players.get(seat=seer)
    crowd = ", ".join(f"someone{index}@example.net" for index in range(5_000))
    raw = headers(game, seer, To=f"{reply_address(player)}, {crowd}") + f"\r\nINQUIRE {name}\r\n".encode()
    assert inbound.receive(raw).status == "applied"


def test_thousands_of_address_headers_are_not_all_read(game: Game, monkeypatch) -> None:
    seer, name = seer_and_target(game)
    player = game.players.get(seat=seer)
    fetched = []
    original = type(inbound.POLICY).header_fetch_parse

    def counting(policy, name, value):
        fetched.append(name)
        return original(policy, name, value)

    monkeypatch.setattr(type(inbound.POLICY), "header_fetch_parse", counting)
    crowd = "".join(f"Cc: someone{index}@example.net\r\n" for index in range(5_000)).encode()
    raw = headers(game, seer) + crowd + f"\r\nINQUIRE {name}\r\n".encode()
    kept = inbound.receive(raw)
    assert kept.status == "applied"
    assert kept.player == player and fetched.count("Cc") <= inbound.MAX_ADDRESS_HEADERS


def test_a_charset_no_mail_client_writes_is_read_as_utf8(game: Game) -> None:
    """Python's punycode codec is quadratic: a body that claims it is read as UTF-8."""
    seer, name = seer_and_target(game)
    for charset in ("punycode", "idna", "unicode_escape", "zlib", "x-\x00-nul"):
        raw = headers(game, seer) + (f"Content-Type: text/plain; charset={charset}\r\n\r\nINQUIRE {name}\r\n").encode()
        kept = inbound.receive(raw)
        assert kept.status == "applied", (charset, kept.code, kept.card)


@pytest.mark.parametrize(
    "junk",
    ["<a" * 20_000, "</" * 20_000, "<![CDATA[" * 5_000, "<!--" + "x" * 50_000, "<!" * 20_000],
)
def test_an_html_reply_with_pathological_markup_is_read(game: Game, junk: str) -> None:
    seer, name = seer_and_target(game)
    html = f"<html><body><div>INQUIRE&nbsp;{name}</div><div>{junk}</div></body></html>"
    raw = headers(game, seer) + f"Content-Type: text/html; charset=utf-8\r\n\r\n{html}\r\n".encode()
    kept = inbound.receive(raw)
    assert kept.status == "applied", (kept.code, kept.card[:80])


def test_html_text_keeps_blocks_and_drops_quotes_and_hidden_parts() -> None:
    html = (
        "<!doctype html><html><head><title>T</title><style>p{color:red}</style></head><body>"
        "<!-- hidden --><p>KILL&nbsp;Alba,<br>Brio &amp; co</p><script>alert(1)</script>"
        'a < b<div class="gmail_quote">On Monday wrote:<blockquote>KILL Cato</blockquote></div>'
    )
    text = inbound._html_text(html)
    assert text.split() == ["KILL", "Alba,", "Brio", "&", "co", "a", "<", "b"]
    assert "KILL\u00a0Alba,\n" in text and "Cato" not in text and "alert" not in text and "T" not in text.split()


def test_an_auto_reply_is_kept_and_never_answered(game: Game) -> None:
    seer, name = seer_and_target(game)
    before, outbox = snapshot(game), len(mail.outbox)
    for extra in ({"Auto-Submitted": "auto-replied"}, {"Precedence": "bulk"}, {"Return-Path": "<>"}):
        kept = inbound.receive(headers(game, seer, **extra) + f"\r\nINQUIRE {name}\r\n".encode())
        assert kept.status == "refused" and kept.code == "auto_submitted"
    report = headers(game, seer) + b"Content-Type: multipart/report; boundary=x\r\n\r\n--x\r\n\r\nSLEEP\r\n--x--\r\n"
    assert inbound.receive(report).code == "auto_submitted"
    assert snapshot(game) == before and len(mail.outbox) == outbox
    assert inbound.receive(headers(game, seer, **{"Auto-Submitted": "no"}) + b"\r\nSLEEP\r\n").code != "auto_submitted"


def test_a_card_longer_than_any_notecard_is_refused(game: Game) -> None:
    seer, name = seer_and_target(game)
    before = snapshot(game)
    kept = inbound.receive(headers(game, seer) + ("INQUIRE " + f"{name}, " * 2_000).encode() + b"\r\n")
    assert kept.status == "refused" and kept.code == "too_long"
    assert snapshot(game) == before


# The two doors -----------------------------------------------------------------------


def run_receive_mail(monkeypatch, raw: bytes, *args: str) -> int:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    try:
        call_command("receive_mail", *args, stdout=io.StringIO(), stderr=io.StringIO())
    except SystemExit as exit:
        return int(exit.code or 0)
    return 0


def test_receive_mail_exits_0_once_the_message_is_stored(game: Game, monkeypatch) -> None:
    seer, name = seer_and_target(game)
    raw = headers(game, seer) + nested(1000, f"INQUIRE {name}")
    assert run_receive_mail(monkeypatch, raw, "--recipient", "orders@werewolf.test") == 0
    kept = InboundMessage.objects.get()
    assert bytes(kept.raw) == raw and kept.code == "unreadable"


def test_receive_mail_exits_75_only_when_the_message_could_not_be_stored(game: Game, monkeypatch) -> None:
    def down(*args, **kwargs):
        raise OperationalError("the database is down")

    monkeypatch.setattr(InboundMessage.objects, "create", down)
    assert run_receive_mail(monkeypatch, b"Subject: hi\r\n\r\nSLEEP\r\n") == 75


def test_receive_mail_exits_0_when_reading_fails_after_storing(game: Game, monkeypatch) -> None:
    def broken(*args, **kwargs):
        raise RuntimeError("database went away")

    monkeypatch.setattr(inbound, "read", broken)
    assert run_receive_mail(monkeypatch, b"Subject: hi\r\n\r\nSLEEP\r\n") == 0
    assert InboundMessage.objects.get().status == "failed"


def smtp_data(raw: bytes) -> str:
    envelope = SimpleNamespace(original_content=raw, content=raw, rcpt_tos=["orders@werewolf.test"])
    return asyncio.run(OrdersHandler("orders@werewolf.test").handle_DATA(None, None, envelope))


def test_the_smtp_listener_answers_250_once_the_message_is_stored(game: Game) -> None:
    seer, name = seer_and_target(game)
    raw = headers(game, seer) + nested(1000, f"INQUIRE {name}")
    assert smtp_data(raw).startswith("250 ")
    assert bytes(InboundMessage.objects.get().raw) == raw


def test_the_smtp_listener_answers_451_when_it_cannot_store(game: Game, monkeypatch) -> None:
    def down(*args, **kwargs):
        raise OperationalError("the database is down")

    monkeypatch.setattr(InboundMessage.objects, "create", down)
    assert smtp_data(b"Subject: hi\r\n\r\nSLEEP\r\n").startswith("451 ")
