"""Orders from a mailbox, for organisers with a mail account rather than a mail server.

`fetch()` logs in to an IMAP mailbox (over TLS unless told otherwise), hands every
message in the orders folder to the same inbound path as the MTA's pipe
(`inbound.receive`), then moves it to a done folder. Exactly once: each message is
stored with its source (host, user, folder, UIDVALIDITY and UID) before it is moved, so a
fetch cut short (a crash, a dropped connection) finds it again, sees it was taken, and
only moves it; a message that arrives twice under two UIDs is one Message-ID, which
the inbound path takes once. `watch()` keeps fetching: it waits with IDLE where the
server has it (the next message is read within seconds), else polls.

Settings (environment): WEREWOLF_IMAP_HOST, _PORT (993, or 143 with STARTTLS or none),
_USER, _PASSWORD, _SECURITY (`tls`, `starttls`, or `none` for a server on loopback),
_CAFILE (a CA bundle, for a server with its own certificate), _FOLDER (INBOX),
_DONE_FOLDER (Werewolf/Done), _POLL_SECONDS (60).
"""

from __future__ import annotations

import imaplib
import logging
import re
import ssl
import threading
from dataclasses import dataclass

from django.conf import settings

from werewolf.games.models import InboundMessage

from . import inbound

logger = logging.getLogger(__name__)

BATCH = 200
"""Messages read in one fetch at most; the next fetch takes the rest."""
IDLE_SECONDS = 25 * 60
"""How long one IDLE waits before it is renewed (servers drop it after 30 minutes)."""


class MailboxError(Exception):
    """The mailbox could not be reached or read: the fetch is tried again later."""


@dataclass
class Fetched:
    """What one fetch did: messages stored and read, and messages found already stored
    (a fetch cut short before it moved them) and only moved now."""

    taken: int = 0
    already: int = 0


def configured() -> bool:
    return bool(settings.WEREWOLF_IMAP_HOST)


def connect() -> imaplib.IMAP4:
    """A logged-in connection, with the folder of orders selected."""
    host, port = settings.WEREWOLF_IMAP_HOST, settings.WEREWOLF_IMAP_PORT
    security = settings.WEREWOLF_IMAP_SECURITY
    context = ssl.create_default_context(cafile=settings.WEREWOLF_IMAP_CAFILE or None)
    try:
        if security == "tls":
            connection: imaplib.IMAP4 = imaplib.IMAP4_SSL(host, port, ssl_context=context, timeout=60)
        else:
            connection = imaplib.IMAP4(host, port, timeout=60)
            if security == "starttls":
                connection.starttls(ssl_context=context)
        connection.login(settings.WEREWOLF_IMAP_USER, settings.WEREWOLF_IMAP_PASSWORD)
        status, _ = connection.select(_quoted(settings.WEREWOLF_IMAP_FOLDER))
        if status != "OK":
            raise MailboxError(f"no folder {settings.WEREWOLF_IMAP_FOLDER!r} in the mailbox")
        connection.create(_quoted(settings.WEREWOLF_IMAP_DONE_FOLDER))  # NO when it exists: fine
        return connection
    except (OSError, imaplib.IMAP4.error) as failure:
        raise MailboxError(f"{type(failure).__name__}: {failure}") from failure


def fetch(connection: imaplib.IMAP4 | None = None) -> Fetched:
    """Take every message waiting in the folder of orders (BATCH at most), each once."""
    own = connection is None
    connection = connection or connect()
    done = Fetched()
    try:
        validity = _uidvalidity(connection)
        status, data = connection.uid("SEARCH", "ALL")
        if status != "OK":
            raise MailboxError(f"SEARCH failed: {data!r}")
        uids = (data[0] or b"").split()[:BATCH]
        for uid in uids:
            source = _source(validity, uid.decode())
            if InboundMessage.objects.filter(source=source).exists():
                done.already += 1  # stored by a fetch cut short: only the move is left
            else:
                raw = _message(connection, uid)
                if raw is None:
                    continue  # gone meanwhile (another client moved it)
                inbound.receive(raw, source=source)
                done.taken += 1
            _move(connection, uid)
        return done
    except (OSError, imaplib.IMAP4.error) as failure:
        raise MailboxError(f"{type(failure).__name__}: {failure}") from failure
    finally:
        if own:
            _logout(connection)


def watch(stop: threading.Event | None = None) -> None:
    """Fetch, then wait for the next message (IDLE) or poll, until interrupted (or `stop`
    is set). A lost connection is opened again after a pause; an IDLE that ran its time
    is renewed on a new connection."""
    stop = stop or threading.Event()
    while not stop.is_set():
        try:
            connection = connect()
            try:
                while not stop.is_set():
                    fetch(connection)
                    if b"IDLE" not in _capabilities(connection):
                        stop.wait(settings.WEREWOLF_IMAP_POLL_SECONDS)
                    elif not _idle(connection, IDLE_SECONDS):
                        break
            finally:
                _logout(connection)
        except (MailboxError, OSError, imaplib.IMAP4.error) as failure:
            logger.warning("mailbox: %s; trying again in a minute", failure)
            stop.wait(60)


def _idle(connection: imaplib.IMAP4, seconds: float) -> bool:
    """RFC 2177: wait until the server says a message arrived (True: the connection goes
    on), or `seconds` pass (False: a socket that timed out reads nothing more, so the
    caller opens a new connection)."""
    tag = connection._new_tag()
    connection.send(tag + b" IDLE\r\n")
    if not _line(connection).startswith(b"+"):
        raise MailboxError("the server refused IDLE")
    sock = connection.socket()
    sock.settimeout(seconds)
    try:
        while b"EXISTS" not in _line(connection):
            pass
    except TimeoutError:
        return False
    sock.settimeout(60)
    connection.send(b"DONE\r\n")
    while not _line(connection).startswith(tag):
        pass
    return True


def _line(connection: imaplib.IMAP4) -> bytes:
    line = connection.readline()
    if not line:
        raise MailboxError("the server closed the connection")
    return line


def _capabilities(connection: imaplib.IMAP4) -> bytes:
    status, data = connection.capability()
    return data[0] if status == "OK" and data and data[0] else b""


def _uidvalidity(connection: imaplib.IMAP4) -> str:
    status, data = connection.response("UIDVALIDITY")
    value = data[0] if data and data[0] else None
    if value is None:
        status, data = connection.status(_quoted(settings.WEREWOLF_IMAP_FOLDER), "(UIDVALIDITY)")
        found = re.search(rb"UIDVALIDITY (\d+)", data[0] or b"") if status == "OK" else None
        value = found.group(1) if found else b"0"
    return value.decode() if isinstance(value, bytes) else str(value)


def _source(validity: str, uid: str) -> str:
    return (
        f"imap://{settings.WEREWOLF_IMAP_USER}@{settings.WEREWOLF_IMAP_HOST}/"
        f"{settings.WEREWOLF_IMAP_FOLDER};UIDVALIDITY={validity}/;UID={uid}"
    )


def _message(connection: imaplib.IMAP4, uid: bytes) -> bytes | None:
    status, data = connection.uid("FETCH", uid.decode(), "(BODY.PEEK[])")
    if status != "OK":
        raise MailboxError(f"FETCH {uid!r} failed")
    for item in data:
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], bytes):
            return item[1]
    return None


def _move(connection: imaplib.IMAP4, uid: bytes) -> None:
    """Into the done folder: MOVE where the server has it, else copy, flag, expunge."""
    done = _quoted(settings.WEREWOLF_IMAP_DONE_FOLDER)
    if b"MOVE" in _capabilities(connection):
        status, data = connection.uid("MOVE", uid.decode(), done)
    else:
        status, data = connection.uid("COPY", uid.decode(), done)
        if status == "OK":
            connection.uid("STORE", uid.decode(), "+FLAGS.SILENT", r"(\Deleted)")
            connection.expunge()
    if status != "OK":
        raise MailboxError(f"could not move {uid!r} to {settings.WEREWOLF_IMAP_DONE_FOLDER}: {data!r}")


def _quoted(folder: str) -> str:
    return '"' + folder.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _logout(connection: imaplib.IMAP4) -> None:
    try:
        connection.logout()
    except Exception:  # the connection is gone already
        pass
