"""A mail handed to the SMTP backend is written by werewolf.mail.mime, byte for byte as
Django would write it (boundaries and Date aside, which are drawn anew for each mail),
on any text; a mail it does not lay out is left to Django."""

from __future__ import annotations

import itertools
import smtplib
from email import message_from_bytes, policy

import pytest
from django.core.mail import message as django_message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from werewolf.mail import mime, outbound

DATE = "Thu, 26 Nov 2026 07:40:00 -0000"
TEXT = st.text(max_size=300)
LINES = st.lists(st.one_of(TEXT, st.text(alphabet="ab \t=.-", max_size=60)), max_size=8).flatmap(
    lambda lines: st.sampled_from(["\n", "\r\n", "\r"]).map(lambda brk: brk.join(lines))
)
NAME = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=40)


@pytest.fixture(autouse=True)
def _steady(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(django_message, "formatdate", lambda **_: DATE)
    monkeypatch.setattr(mime, "formatdate", lambda **_: DATE)


def both(message: outbound._Mail) -> tuple[bytes, bytes | None]:
    """Django's bytes and ours, each with boundaries drawn from the same sequence."""
    counter = itertools.count()

    def boundary() -> str:
        return f"=_{next(counter):032x}"

    original = outbound._boundary
    outbound._boundary = boundary
    try:
        theirs = message.message().as_bytes(linesep="\r\n")
    finally:
        outbound._boundary = original
    counter = itertools.count()
    try:
        ours: bytes | None = mime.as_bytes(message, boundary, outbound.WIRE.fold_binary)
    except mime.Unsupported:
        ours = None
    return theirs, ours


def mail(
    subject: str,
    body: str,
    name: str = "Zoë",
    html: str | None = None,
    calendar: str | None = None,
    reply_to: str | None = None,
    extra: dict[str, str] | None = None,
) -> outbound._Mail:
    headers = {
        **(extra or {}),
        "Message-ID": "<0123456789abcdef0123456789abcdef@werewolf.example.org>",
        "Auto-Submitted": "auto-generated",
        "X-Auto-Response-Suppress": "All",
    }
    message = outbound._Mail(
        subject,
        body,
        from_email="Werewolf moderator <moderator@werewolf.example.org>",
        to=[outbound.recipient(name, "zoe@example.org")],
        reply_to=[reply_to] if reply_to else None,
        headers=headers,
    )
    if html is not None:
        message.attach_alternative(html, "text/html")
    if calendar is not None:
        message.attach("deadline.ics", calendar, "text/calendar")
    return message


def test_a_phase_mail_is_written_as_django_writes_it() -> None:
    message = mail(
        "[Città] Notte 1 è finita",
        "Ciao Zoë,\n\nNotte 1:\n- Nessuno è morto.\n",
        html="<p>Ciao Zoë,</p>\n",
        calendar="BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n",
        extra={"From": "Werewolf moderator <moderator@werewolf.example.org>"},
    )
    theirs, ours = both(message)
    assert ours == theirs
    parsed = message_from_bytes(ours, policy=policy.default)
    assert parsed["Subject"] == "[Città] Notte 1 è finita"
    assert [part.get_content_type() for part in parsed.walk()] == [
        "multipart/mixed",
        "multipart/alternative",
        "text/plain",
        "text/html",
        "text/calendar",
    ]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    subject=st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=150),
    body=LINES,
    name=NAME,
    html=st.one_of(st.none(), LINES),
    calendar=st.one_of(st.none(), st.text(alphabet="ABCDEFGHIJ:;,.\\ 0123456789\r\n", max_size=200)),
    reply_to=st.one_of(st.none(), st.just("orders+abc123@werewolf.example.org")),
    threaded=st.booleans(),
)
def test_any_mail_is_written_as_django_writes_it_or_left_to_django(
    subject: str, body: str, name: str, html: str | None, calendar: str | None, reply_to: str | None, threaded: bool
) -> None:
    extra = {"In-Reply-To": "<a@b.example>", "References": "<a@b.example>"} if threaded else {}
    message = mail(subject, body, name, html, calendar, reply_to, extra)
    try:
        theirs, ours = both(message)
    except (ValueError, UnicodeError):  # Django refuses the mail (e.g. a lone surrogate): so must we
        with pytest.raises((ValueError, UnicodeError)):
            mime.as_bytes(message, lambda: "=_x", outbound.WIRE.fold_binary)
        return
    if ours is None:
        # Left to Django only for what it writes another way: no body, or a long line.
        assert not body or any(len(line) > 998 for part in (body, html or "") for line in part.encode().splitlines())
    else:
        assert ours == theirs


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.from_regex(outbound._BARE_ADDRESS, fullmatch=True),
        st.text(alphabet="ab.@+-_ ", max_size=30),
        st.emails(),
        st.builds(outbound.recipient, st.text(max_size=20), st.emails()),
        st.builds("{} <{}>".format, st.text(max_size=20), st.from_regex(outbound._BARE_ADDRESS, fullmatch=True)),
    )
)
def test_an_envelope_address_reaches_the_server_as_django_gives_it(address: str) -> None:
    """smtplib puts on the wire only the address in angle brackets (`quoteaddr`)."""
    try:
        expected: object = smtplib.quoteaddr(django_message.sanitize_address(address, "utf-8"))
    except Exception as refused:  # (the standard library's parser even raises TypeError on some)
        expected = type(refused)
    try:
        ours: object = smtplib.quoteaddr(outbound._envelope(address))
    except Exception as refused:
        ours = type(refused)
    assert ours == expected


def test_a_line_too_long_for_8bit_is_left_to_django() -> None:
    message = mail("Long", "x" * 1200)
    theirs, ours = both(message)
    assert ours is None
    assert b"quoted-printable" in theirs


def test_the_smtp_backend_is_handed_our_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[tuple[str, list[str], bytes]] = []

    class Wire:  # an SMTP connection to a server that offers no PIPELINING
        does_esmtp = False

        def ehlo_or_helo_if_needed(self) -> None:
            pass

        def sendmail(self, sender: str, recipients: list[str], data: bytes) -> None:
            sent.append((sender, recipients, data))

    backend = outbound.SMTPBackend(host="127.0.0.1", port=1)
    backend.connection = Wire()
    message = mail("Zoë's night", "Hello", name='Zoë "Z" O\'Neil')
    message.connection = backend
    assert outbound._hand_over(message)
    ((sender, recipients, data),) = sent
    assert smtplib.quoteaddr(sender) == smtplib.quoteaddr(django_message.sanitize_address(message.from_email, "utf-8"))
    assert [smtplib.quoteaddr(to) for to in recipients] == [
        smtplib.quoteaddr(django_message.sanitize_address(message.to[0], "utf-8"))
    ]
    assert message_from_bytes(data, policy=policy.default)["Subject"] == "Zoë's night"
