"""A mail's envelope goes to a server that offers PIPELINING in one write, its message
in a second (werewolf/mail/pipelining.py), against a real SMTP server on loopback
(aiosmtpd); what the server refuses raises what smtplib raises, and the connection
carries the next mail."""

from __future__ import annotations

import smtplib
import socket
import socketserver
import threading
from collections.abc import Iterator

import pytest
from aiosmtpd.controller import Controller

from werewolf.mail import pipelining

MESSAGE = (
    b"From: moderator@example.org\r\nTo: anna@example.org\r\nSubject: Night 1\r\n\r\n"
    b"What you may know of the night.\r\n.A line that begins with a dot\r\n..and one with two\r\n"
)


class Server:
    """An SMTP server on loopback that offers PIPELINING (or not), refuses what it is told
    to refuse, and keeps each message as it arrived."""

    def __init__(self, pipelining: bool = True) -> None:
        self.pipelining = pipelining
        self.refuse: dict[str, str] = {}  # a command ("MAIL", "RCPT", "DATA") -> its reply
        self.refuse_recipients: set[str] = set()
        self.messages: list[tuple[str, list[str], bytes]] = []

    async def handle_EHLO(self, server, session, envelope, hostname, responses):  # noqa: N802 - aiosmtpd's name
        session.host_name = hostname
        if self.pipelining:
            responses.insert(-1, "250-PIPELINING")
        return responses

    async def handle_MAIL(self, server, session, envelope, address, mail_options):  # noqa: N802
        if "MAIL" in self.refuse:
            return self.refuse["MAIL"]
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):  # noqa: N802
        if address in self.refuse_recipients:
            return "550 no such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: N802
        if "DATA" in self.refuse:
            return self.refuse["DATA"]
        self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content))
        return "250 Message accepted"


@pytest.fixture(params=[True], ids=["pipelining"])
def server(request) -> Iterator[tuple[Server, int]]:
    handler = Server(pipelining=request.param)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    yield handler, port
    controller.stop()


@pytest.fixture
def client(server) -> Iterator[tuple[smtplib.SMTP, list[bytes]]]:
    """An open connection, and what each of its writes sent after the greeting."""
    _, port = server
    smtp = smtplib.SMTP("127.0.0.1", port, timeout=10)
    smtp.ehlo()
    writes: list[bytes] = []
    send = smtp.send

    def counted(data) -> None:
        writes.append(data.encode("ascii") if isinstance(data, str) else data)
        send(data)

    smtp.send = counted  # type: ignore[method-assign]
    yield smtp, writes
    smtp.close()


def test_the_envelope_goes_in_one_write_and_the_message_in_a_second(server, client) -> None:
    handler, _ = server
    smtp, writes = client
    assert pipelining.sendmail(smtp, "moderator@example.org", ["anna@example.org"], MESSAGE) == {}
    assert handler.messages == [("moderator@example.org", ["anna@example.org"], MESSAGE)]
    envelope, message = writes
    assert envelope == (
        f"MAIL FROM:<moderator@example.org> SIZE={len(MESSAGE)}\r\nRCPT TO:<anna@example.org>\r\nDATA\r\n".encode()
    )
    assert b"\r\n..A line that begins with a dot\r\n...and one with two\r\n.\r\n" in message


@pytest.mark.parametrize("server", [False], indirect=True, ids=["no-pipelining"])
def test_a_server_that_does_not_offer_it_gets_smtplibs_conversation(server, client) -> None:
    handler, _ = server
    smtp, writes = client
    assert pipelining.sendmail(smtp, "moderator@example.org", ["anna@example.org"], MESSAGE) == {}
    assert handler.messages == [("moderator@example.org", ["anna@example.org"], MESSAGE)]
    assert len(writes) == 4  # MAIL, RCPT, DATA, the message: each after the reply before it


def test_a_message_with_no_line_end_at_its_end_is_ended_for_it(server, client) -> None:
    handler, _ = server
    smtp, _ = client
    pipelining.sendmail(smtp, "moderator@example.org", ["anna@example.org"], b"Subject: x\r\n\r\nno end")
    assert handler.messages[0][2] == b"Subject: x\r\n\r\nno end\r\n"


def test_each_recipient_is_in_the_one_write_and_a_refused_one_is_returned(server, client) -> None:
    handler, _ = server
    handler.refuse_recipients = {"bruno@example.org"}
    smtp, writes = client
    refused = pipelining.sendmail(
        smtp, "moderator@example.org", ["anna@example.org", "bruno@example.org", "carla@example.org"], MESSAGE
    )
    assert refused == {"bruno@example.org": (550, b"no such mailbox")}
    assert handler.messages == [("moderator@example.org", ["anna@example.org", "carla@example.org"], MESSAGE)]
    assert writes[0].count(b"RCPT TO:") == 3 and len(writes) == 2


REFUSALS = [
    pytest.param(
        {"MAIL": "553 that sender is not allowed here"},
        set(),
        lambda e: (
            isinstance(e, smtplib.SMTPSenderRefused) and e.smtp_code == 553 and e.sender == "moderator@example.org"
        ),
        id="the-sender",
    ),
    pytest.param(
        {},
        {"anna@example.org"},
        lambda e: (
            isinstance(e, smtplib.SMTPRecipientsRefused)
            and e.recipients == {"anna@example.org": (550, b"no such mailbox")}
        ),
        id="every-recipient",
    ),
    pytest.param(
        {"DATA": "554 that message looks like spam"},
        set(),
        lambda e: isinstance(e, smtplib.SMTPDataError) and e.smtp_code == 554,
        id="the-message",
    ),
]


@pytest.mark.parametrize("refuse,refuse_recipients,raised", REFUSALS)
def test_a_refusal_raises_smtplibs_error_and_the_connection_carries_the_next_mail(
    server, client, refuse, refuse_recipients, raised
) -> None:
    handler, _ = server
    handler.refuse, handler.refuse_recipients = refuse, refuse_recipients
    smtp, _ = client
    with pytest.raises(smtplib.SMTPException) as refused:
        pipelining.sendmail(smtp, "moderator@example.org", ["anna@example.org"], MESSAGE)
    assert raised(refused.value), refused.value
    assert handler.messages == []
    handler.refuse, handler.refuse_recipients = {}, set()
    pipelining.sendmail(smtp, "moderator@example.org", ["dora@example.org"], MESSAGE)
    assert handler.messages == [("moderator@example.org", ["dora@example.org"], MESSAGE)]


def test_a_server_closing_on_the_sender_is_hung_up_on(server, client) -> None:
    handler, _ = server
    handler.refuse["MAIL"] = "421 closing, try later"
    smtp, _ = client
    with pytest.raises((smtplib.SMTPSenderRefused, smtplib.SMTPServerDisconnected)):
        pipelining.sendmail(smtp, "moderator@example.org", ["anna@example.org"], MESSAGE)
    assert handler.messages == []


def test_an_envelope_not_in_ascii_takes_smtplibs_own_path(server, client) -> None:
    handler, _ = server
    smtp, writes = client
    with pytest.raises(UnicodeEncodeError):  # what smtplib.sendmail does with it, unchanged
        pipelining.sendmail(smtp, "moderator@example.org", ["änna@example.org"], MESSAGE)
    assert handler.messages == []


def test_an_address_with_a_line_break_smuggles_no_command_in(server, client) -> None:
    handler, _ = server
    smtp, writes = client
    forged = "anna@example.org>\r\nRCPT TO:<eve@example.org"
    pipelining.sendmail(smtp, "moderator@example.org", [forged], MESSAGE)  # smtplib's path, which reads one address
    assert [recipients for _, recipients, _ in handler.messages] == [["anna@example.org"]]
    assert not any(b"eve@" in write for write in writes)


class _GoAheadAnyway(socketserver.StreamRequestHandler):
    """A server that refuses the only recipient and still says go ahead to DATA (which
    RFC 2920 forbids): what it is sent, line by line."""

    seen: list[bytes] = []

    def handle(self) -> None:
        self.wfile.write(b"220 odd.test ESMTP\r\n")
        replies = {b"EHLO": b"250-odd.test\r\n250 PIPELINING\r\n", b"MAIL": b"250 OK\r\n"}
        replies |= {b"RCPT": b"550 no\r\n", b"DATA": b"354 go ahead\r\n", b".": b"554 no recipients\r\n"}
        replies |= {b"RSET": b"250 OK\r\n", b"QUIT": b"221 Bye\r\n"}
        for line in self.rfile:
            self.seen.append(line)
            self.wfile.write(replies.get(line.split()[0].upper() if line.strip() else b"", b"500 what?\r\n"))
            if line.startswith(b"QUIT"):
                return


def test_a_server_that_says_go_ahead_to_a_refused_envelope_is_given_an_empty_message() -> None:
    _GoAheadAnyway.seen = []
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), _GoAheadAnyway) as odd:
        threading.Thread(target=odd.serve_forever, daemon=True).start()
        smtp = smtplib.SMTP("127.0.0.1", odd.server_address[1], timeout=10)
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            pipelining.sendmail(smtp, "moderator@example.org", ["anna@example.org"], MESSAGE)
        smtp.quit()
        odd.shutdown()
    seen = [line.split()[0].upper() for line in _GoAheadAnyway.seen]
    assert seen == [b"EHLO", b"MAIL", b"RCPT", b"DATA", b".", b"RSET", b"QUIT"]
