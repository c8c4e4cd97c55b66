"""The notecard grammar and the inbound reader, fuzzed with Hypothesis.

- `read_card` returns an order naming seats of the game, or raises `CardError`: nothing else.
- `inbound.receive` never raises for any bytes: every message is stored, and is either
  taken (`applied`) or refused with a code (`refused`, `unmatched`, `duplicate`); only a
  refused or taken message from a seat is answered, once, at a registered seat address,
  and nothing but a taken card changes the game.

The runs are derandomized (the same examples every run) and small; set
WEREWOLF_FUZZ_EXAMPLES to search harder locally."""

from __future__ import annotations

import base64
import itertools
import os
import quopri
from typing import Any

import pytest
from django.core import mail
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from werewolf import engine
from werewolf.engine.grammar import CardError, grammar, read_card
from werewolf.engine.rulesets import classic
from werewolf.games import links
from werewolf.games.models import Game, InboundMessage, Order
from werewolf.mail import inbound
from werewolf.mail.outbound import orders_address

from ..web.play import NAMES, snapshot, started_game

EXAMPLES = int(os.environ.get("WEREWOLF_FUZZ_EXAMPLES", "200"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)

# The grammar ----------------------------------------------------------------------------

CARD_NAMES = ["Ada", "Bruno", "Brunella", "Chloé", "Dmitri", "Ana", "Aña", "Zoë", "Çelik"]
PLAIN_NAMES = ["Alba", "Brio", "Cato", "Dara", "Ezio", "Fenna", "Gusto"]  # none folds to another
SLOTS = [
    None,
    engine.Slot(engine.SLEEP),
    engine.Slot(classic.KILL, ((1, 2, 3, 4),)),
    engine.Slot(classic.KILL_AND_SWAP, ((1, 2, 3, 4), (1, 2, 3, 4))),
    engine.Slot(classic.INQUIRE, ((0, 1, 2, 3),)),
    engine.Slot(classic.PROTECT, ((0, 1, 2, 3, 4),)),
    engine.Slot(classic.SHOOT, ((0, 1, 2),)),
    engine.Slot(classic.PAIR, ((0, 1, 2, 3),)),
    engine.Slot(classic.VOTE, ((0, 1, 2, 3, 4),)),
]
WORDS = [*grammar("classic").words, "swap", "swap:", "KILL:", "SWAP", "Then", "AND", ">", ";", ","]
SEPARATORS = [", ", ",", "; ", " then ", " and ", " > ", "\n", " ", "  ,  ", "\t"]


def spelled(name: str) -> st.SearchStrategy[str]:
    """A name as a player might write it: whole, in any case, or its beginning."""
    return st.one_of(
        st.just(name),
        st.sampled_from([name.upper(), name.lower(), name.casefold()]),
        st.integers(1, len(name)).map(lambda length: name[:length]),
    )


def card_text(names: list[str]) -> st.SearchStrategy[str]:
    """Cards built from a game's names and notecard words, with random junk mixed in."""
    piece = st.one_of(
        st.sampled_from(names).flatmap(spelled),
        st.sampled_from(WORDS),
        st.sampled_from(SEPARATORS),
        st.text(max_size=8),
    )
    return st.lists(piece, max_size=12).map(" ".join)


@FUZZ
@given(
    text=st.one_of(card_text(CARD_NAMES), st.text(max_size=300)),
    names=st.one_of(st.just(CARD_NAMES), st.lists(st.text(max_size=10), max_size=8)),
    slot=st.sampled_from(SLOTS),
)
def test_read_card_returns_an_order_or_says_why_not(text: str, names: list[str], slot: engine.Slot | None) -> None:
    try:
        order = read_card(text, names, slot)
    except CardError as problem:
        assert problem.code and isinstance(problem.text, str)
        return
    assert isinstance(order, engine.Order)
    assert order.kind in {"sleep", "kill", "inquire", "protect", "shoot", "pair", "vote"}
    assert all(0 <= seat < len(names) for _, values in order.fields for seat in values)


@FUZZ
@given(
    seats=st.lists(st.integers(0, len(PLAIN_NAMES) - 1), min_size=1, max_size=4),
    keyword=st.sampled_from(["", "KILL", "kill:", "Kill "]),
    separators=st.lists(st.sampled_from([", ", ",", "; ", " then ", " and ", " > ", "\n"]), min_size=3, max_size=3),
    upper=st.booleans(),
)
def test_a_card_of_whole_names_reads_back_as_those_seats(
    seats: list[int], keyword: str, separators: list[str], upper: bool
) -> None:
    names = [PLAIN_NAMES[seat].upper() if upper else PLAIN_NAMES[seat] for seat in seats]
    listed = names[0] + "".join(separator + name for separator, name in zip(separators, names[1:], strict=False))
    order = read_card(f"{keyword} {listed}", PLAIN_NAMES, SLOTS[2])
    assert order == engine.Order("kill", tuple(seats))


# The inbound reader ---------------------------------------------------------------------

GAME_NAMES = NAMES[:7]  # started_game's seats
CHARSETS = [
    "utf-8",
    "us-ascii",
    "windows-1252",
    "iso-8859-1",
    "iso-2022-jp",
    "shift_jis",
    "koi8-r",
    "utf-16",
    "x-unknown",
    "punycode",
    "unicode_escape",
    "",
]
ENCODINGS = ["", "7bit", "8bit", "base64", "quoted-printable", "x-uuencode", "bogus"]
ENCODED_WORD = "=?utf-8?q?w=C3=A9rd?="
SERIAL = itertools.count()

letters = st.fixed_dictionaries(
    {
        "seat": st.integers(0, len(GAME_NAMES) - 1),
        "sender": st.sampled_from(["seat"] * 6 + ["other seat", "stranger", "missing", "broken"]),
        "to": st.sampled_from(["reference"] * 5 + ["envelope"] * 2 + ["forged", "orders", "missing"]),
        "subject": st.one_of(
            st.text(max_size=40), st.integers(0, 3_000).map(lambda words: " ".join([ENCODED_WORD] * words))
        ),
        "message_id": st.sampled_from(
            ["unique"] * 12 + [None, "<again@example.org>", "", "<nul\x00@example.org>", "<" + "x" * 400 + ">"]
        ),
        "card": st.one_of(card_text(GAME_NAMES), st.integers(0, 100)),  # a number: a legal card
        "junk": st.one_of(st.just(""), st.text(max_size=200)),
        "quote": st.booleans(),
        "charset": st.sampled_from(CHARSETS),
        "encoding": st.sampled_from(ENCODINGS),
        "html": st.booleans(),
        "markup": st.one_of(st.just(""), st.sampled_from(["<a", "</", "<!--", "<![CDATA[", "<style>", "<p"])),
        "depth": st.one_of(st.just(0), st.integers(0, inbound.MAX_DEPTH + 2), st.just(1_000)),
        "siblings": st.one_of(st.just(0), st.integers(0, inbound.MAX_PARTS + 20)),
        "rfc822": st.booleans(),
        "long_header": st.one_of(st.just(0), st.integers(0, 20_000)),
        "nul": st.booleans(),
        "automatic": st.sampled_from([""] * 8 + ["auto-replied", "report"]),
        "bare_lf": st.booleans(),
    }
)


def address(game: Game, spec: dict[str, Any]) -> tuple[str, str]:
    """(From, To) of a letter as `spec` says."""
    player = game.players.get(seat=spec["seat"])
    other = game.players.exclude(pk=player.pk).first()
    sender = {
        "seat": player.email,
        "other seat": other.email,
        "stranger": "stranger@evil.test",
        "missing": "",
        "broken": "<<@@>>\x00",
    }[spec["sender"]]
    phase = game.current_phase()
    reference = links.reference_for(player, phase.index if phase else 0)
    to = {
        "reference": orders_address(reference),
        "envelope": "orders@werewolf.test",
        "forged": orders_address(reference[:-3] + "zzz"),
        "orders": "orders@werewolf.test",
        "missing": "",
    }[spec["to"]]
    return sender, to


def legal_card(game: Game, seat: int, pick: int) -> str:
    """A card the open phase would take from `seat` (if it is still in the game)."""
    phase = game.current_phase() if game.is_running else None
    slot = engine.phase(game.engine_state).asks(seat) if phase else None
    if slot is None or slot.kind == "sleep" or not slot.choices:
        return "SLEEP"
    names = [game.players.get(seat=choice).name for choice in slot.choices]
    chosen = [names[(pick + step) % len(names)] for step in range(2 if slot.kind == "pair" else 1)]
    return f"{slot.kind.upper()} {', '.join(chosen)}"


def body_part(spec: dict[str, Any], card: str) -> bytes:
    text = card + ("\n\n" + spec["junk"] if spec["junk"] else "")
    if spec["quote"]:
        text += "\n\nOn Monday the moderator wrote:\n> KILL Alba\n"
    if spec["html"]:
        text = "<html><body>" + "".join(f"<div>{line}</div>" for line in text.split("\n")) + spec["markup"] * 50
        text += "</body></html>"
    charset, encoding = spec["charset"], spec["encoding"]
    try:
        data = text.encode(charset if charset not in ("x-unknown", "") else "utf-8", "replace")
    except (LookupError, UnicodeError, TypeError):
        data = text.encode("utf-8", "surrogateescape")
    if encoding == "base64":
        data = base64.encodebytes(data)
    elif encoding == "quoted-printable":
        data = quopri.encodestring(data)
    if spec["nul"]:
        data = data[: len(data) // 2] + b"\x00" + data[len(data) // 2 :]
    head = f"Content-Type: text/{'html' if spec['html'] else 'plain'}"
    head += f"; charset={charset}" if charset else ""
    head += f"\r\nContent-Transfer-Encoding: {encoding}" if encoding else ""
    return head.encode() + b"\r\n\r\n" + data + b"\r\n"


def wrapped(part: bytes, spec: dict[str, Any]) -> bytes:
    """The part among `siblings` others, inside `depth` multiparts (or forwarded mails)."""
    if spec["siblings"]:
        others = b"".join(b"--s\r\nContent-Type: text/plain\r\n\r\nattachment\r\n" for _ in range(spec["siblings"]))
        part = b"Content-Type: multipart/mixed; boundary=s\r\n\r\n--s\r\n" + part + b"\r\n" + others + b"--s--\r\n"
    for level in range(spec["depth"]):
        if spec["rfc822"] and level % 2:
            part = b"Content-Type: message/rfc822\r\n\r\nSubject: forwarded\r\n" + part
        else:
            boundary = f"n{level}".encode()
            part = (
                b"Content-Type: multipart/alternative; boundary=" + boundary + b"\r\n\r\n"
                b"--" + boundary + b"\r\n" + part + b"\r\n--" + boundary + b"--\r\n"
            )
    return part


def letter(game: Game, spec: dict[str, Any]) -> tuple[bytes, list[str]]:
    sender, to = address(game, spec)
    head = []
    if sender:
        head.append(f"From: Somebody <{sender}>")
    if to:
        head.append(f"To: {to}" + (", x@example.net" * (spec["long_header"] // 16) if spec["long_header"] else ""))
    head.append(f"Subject: {spec['subject']}")
    if spec["message_id"] == "unique":
        head.append(f"Message-ID: <{next(SERIAL)}.fuzz@example.org>")
    elif spec["message_id"] is not None:
        head.append(f"Message-ID: {spec['message_id']}")
    if spec["long_header"]:
        head.append("X-Long: " + "=?utf-8?b?w6k=?= " * (spec["long_header"] // 17))
    if spec["automatic"] == "auto-replied":
        head.append("Auto-Submitted: auto-replied")
    card = spec["card"] if isinstance(spec["card"], str) else legal_card(game, spec["seat"], spec["card"])
    part = wrapped(body_part(spec, card), spec)
    if spec["automatic"] == "report":
        part = b"Content-Type: multipart/report; boundary=r\r\n\r\n--r\r\n" + part + b"\r\n--r--\r\n"
    raw = "\r\n".join(head).encode("utf-8", "surrogateescape") + b"\r\n" + part
    if spec["bare_lf"]:
        raw = raw.replace(b"\r\n", b"\n")
    envelope = []
    if spec["to"] == "envelope":  # the reference in the envelope only, the To line plain
        envelope = [address(game, {**spec, "to": "reference"})[1]]
    return raw, envelope


@pytest.fixture
def game(organiser) -> Game:
    return started_game(organiser, "Fuzz")


def check_kept(game: Game, raw: bytes, envelope: list[str], automatic: bool = False) -> InboundMessage:
    """Receive `raw` and check what every message must come to."""
    before, outbox, orders = snapshot(game), len(mail.outbox), Order.objects.count()
    row = inbound.receive(raw, envelope)
    row.refresh_from_db()
    Status = InboundMessage.Status
    keep = inbound.settings.WEREWOLF_INBOUND_KEEP_BYTES
    assert bytes(row.raw) == raw[:keep] and row.size == len(raw)
    assert row.status in {Status.APPLIED, Status.REFUSED, Status.UNMATCHED, Status.DUPLICATE}, (row.status, row.code)
    assert row.status == Status.APPLIED or row.code
    seats = {email.lower() for email in game.players.values_list("email", flat=True)}
    replies = [m for m in mail.outbox[outbox:] if m.subject.endswith(("Your card is in", "not taken as a card"))]
    assert len(replies) <= 1
    for reply in replies:
        assert reply.to[0].split("<")[-1].rstrip(">").lower() in seats
    if row.status == Status.APPLIED:
        assert Order.objects.count() == orders + 1 and row.order is not None
    else:
        assert Order.objects.count() == orders and snapshot(game) == before
    if automatic or row.status == Status.DUPLICATE or row.answer == InboundMessage.Answer.HELD:
        assert not replies
        # Only a refusal is ever held back (too many within the hour), never a card taken.
        assert row.answer != InboundMessage.Answer.HELD or row.status != Status.APPLIED
    elif row.status in (Status.APPLIED, Status.REFUSED):
        assert len(replies) == 1 and row.player.email in replies[0].to[0]
    return row


@pytest.mark.django_db(transaction=True)
@FUZZ
@given(spec=letters)
def test_every_letter_is_kept_and_taken_or_refused(game: Game, spec: dict[str, Any]) -> None:
    raw, envelope = letter(game, spec)
    row = check_kept(game, raw, envelope, automatic=bool(spec["automatic"]))
    if spec["depth"] > inbound.MAX_DEPTH or spec["siblings"] + 2 > inbound.MAX_PARTS:
        assert row.status != InboundMessage.Status.APPLIED
    if spec["subject"].startswith(ENCODED_WORD):
        assert row.subject.startswith("wérd") and len(row.subject) <= 255


@pytest.mark.django_db(transaction=True)
@FUZZ
@given(
    data=st.binary(max_size=4096),
    addressed=st.sampled_from(["", "seat", "stranger"]),
    envelope=st.lists(st.text(max_size=30), max_size=2),
)
def test_any_bytes_are_kept_and_never_raise(game: Game, data: bytes, addressed: str, envelope: list[str]) -> None:
    """Random bytes, alone or after the headers of a letter from a seat or a stranger."""
    head = b""
    if addressed:
        spec = {"seat": 0, "sender": "seat" if addressed == "seat" else "stranger", "to": "reference"}
        sender, to = address(game, spec)
        head = f"From: {sender}\r\nTo: {to}\r\n".encode()
    check_kept(game, head + data, envelope)
