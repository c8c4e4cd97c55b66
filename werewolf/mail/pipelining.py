"""Hand a message to an SMTP server in two round trips instead of four, where the
server offers it (RFC 2920, PIPELINING).

`smtplib.SMTP.sendmail` waits for the server's reply to each command in turn: MAIL,
RCPT, DATA, then the message, four round trips a mail of one recipient. A server that
offers PIPELINING takes the envelope (MAIL, every RCPT and DATA) in one write and
answers the three in order; only the message waits for DATA's go-ahead. The outbox
sends a phase's mails one after another on one connection, so a relay 20 ms away costs
it 40 ms a mail instead of 80: a storm of 12,000 mails reaches the relay minutes sooner.
On loopback it spares the sender half its writes and waits.

Nothing else changes: the mail is the server's once it answers the message's final dot,
as before, and the outbox records it then (werewolf/mail/outbound.py). The errors are
smtplib's own (`SMTPSenderRefused`, `SMTPRecipientsRefused`, `SMTPDataError`,
`SMTPServerDisconnected`), raised in the same cases, and a refused envelope leaves the
connection ready for the next mail (RSET), as smtplib leaves it. A server that does not
offer PIPELINING, or an envelope that is not plain ASCII or holds a line break, goes
through `smtplib.SMTP.sendmail` itself, which says what it says of them.
"""

from __future__ import annotations

import re
import smtplib
from collections.abc import Sequence

_LEADING_DOT = re.compile(rb"(?m)^\.")
CRLF = b"\r\n"

Refused = dict[str, tuple[int, bytes]]


def sendmail(smtp: smtplib.SMTP, from_addr: str, to_addrs: Sequence[str], data: bytes) -> Refused:
    """Send `data` (the whole message, lines ended by CRLF) from `from_addr` to
    `to_addrs` on the open connection `smtp`, as `smtp.sendmail` does; the recipients
    the server refused while it took the message for the others, as it returns them."""
    smtp.ehlo_or_helo_if_needed()
    envelope = [from_addr, *to_addrs]
    if not (smtp.does_esmtp and smtp.has_extn("pipelining")) or not all(map(_plain, envelope)):
        return smtp.sendmail(from_addr, list(to_addrs), data)
    size = f" SIZE={len(data)}" if smtp.has_extn("size") else ""
    commands = [f"MAIL FROM:{smtplib.quoteaddr(from_addr)}{size}"]
    commands += [f"RCPT TO:{smtplib.quoteaddr(to)}" for to in to_addrs]
    commands.append("DATA")
    smtp.send("".join(command + "\r\n" for command in commands))
    mail = smtp.getreply()
    recipients = [smtp.getreply() for _ in to_addrs]
    go_ahead = smtp.getreply()
    refused: Refused = {to: reply for to, reply in zip(to_addrs, recipients, strict=True) if reply[0] not in (250, 251)}
    failure: smtplib.SMTPException | None = None
    if mail[0] != 250:
        failure = smtplib.SMTPSenderRefused(mail[0], mail[1], from_addr)
    elif len(refused) == len(to_addrs):
        failure = smtplib.SMTPRecipientsRefused(refused)
    elif go_ahead[0] != 354:
        failure = smtplib.SMTPDataError(*go_ahead)
    if failure is not None:
        if go_ahead[0] == 354:  # a server that said go ahead anyway is given an empty message to end it
            smtp.send(b"." + CRLF)
            smtp.getreply()
        _reset(smtp, (mail, *recipients, go_ahead))
        raise failure
    message = _LEADING_DOT.sub(b"..", data)
    if not message.endswith(CRLF):
        message += CRLF
    smtp.send(message + b"." + CRLF)
    taken = smtp.getreply()
    if taken[0] != 250:
        _reset(smtp, (taken,))
        raise smtplib.SMTPDataError(*taken)
    return refused


def _plain(address: str) -> bool:
    """An address this module writes into a command itself: plain ASCII with no line
    break. Any other goes through smtplib, which reads one address out of it where, written
    as it is, a line break could smuggle in another command."""
    return address.isascii() and "\r" not in address and "\n" not in address


def _reset(smtp: smtplib.SMTP, replies: Sequence[tuple[int, bytes]]) -> None:
    """After a refusal: a server that is closing (421) is hung up on, any other is told
    to forget the envelope (RSET), as smtplib does."""
    if any(code == 421 for code, _ in replies):
        smtp.close()
        return
    try:
        smtp.rset()
    except smtplib.SMTPServerDisconnected:
        pass
