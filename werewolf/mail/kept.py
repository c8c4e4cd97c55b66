"""One mail server connection per thread, kept open between batches for a little while.

A worker resolving a storm of deadlines sends one phase's mails after another: opening a
connection for each (TCP, the greeting, EHLO, often STARTTLS and AUTH, then QUIT) costs
more round trips than the twelve mails themselves. A batch borrows the thread's kept
connection and gives it back when it is done; the next batch takes it if it is still
good:

- it was given back less than `KEEP_SECONDS` ago (servers close idle connections after a
  minute or more; RFC 5321 asks them to wait five);
- it goes to the server the settings name now, with the same credentials;
- the server has sent nothing since. Between two mails a server says nothing unasked; one
  that timed the connection out or shut down has said 421 or closed it, and its socket
  has something to read. That is asked of the kernel, without a round trip.

Anything else is closed and a new connection opened. A connection that broke in a batch is
never given back. Only Django's SMTP backend is kept; any other backend (a provider's
API, the console, the tests' outbox) is opened and closed per batch as before.
"""

from __future__ import annotations

import logging
import os
import select
import threading
import time
from typing import Any

from django.core.mail import get_connection
from django.core.mail.backends.smtp import EmailBackend as SMTPBackend

logger = logging.getLogger(__name__)

KEEP_SECONDS = 20.0
"""How long a connection given back stays ready for the next batch."""

_SAME_SERVER = ("host", "port", "username", "password", "use_tls", "use_ssl", "ssl_keyfile", "ssl_certfile")


class _Kept(threading.local):
    backend: Any = None
    since: float = 0.0
    pid: int = 0


_kept = _Kept()


def borrow() -> Any:
    """An open connection to the mail server (a Django mail backend): the kept one if it
    is still good, else a new one."""
    wanted = get_connection()
    kept, _kept.backend = _kept.backend, None
    if kept is not None:
        if _kept.pid == os.getpid() and _good(kept, wanted):
            return kept
        if _kept.pid == os.getpid():  # (a forked child leaves its parent's alone)
            close_quietly(kept)
    wanted.open()
    return wanted


def give_back(backend: Any) -> None:
    """A batch is done with `backend`, which still works: kept if it is an SMTP
    connection, else closed."""
    if not isinstance(backend, SMTPBackend) or backend.connection is None:
        close_quietly(backend)
        return
    old = _kept.backend
    _kept.backend, _kept.since, _kept.pid = backend, time.monotonic(), os.getpid()
    if old is not None and old is not backend:
        close_quietly(old)


def close() -> None:
    """Close this thread's kept connection, if any (a worker shutting down)."""
    kept, _kept.backend = _kept.backend, None
    if kept is not None and _kept.pid == os.getpid():
        close_quietly(kept)


def close_quietly(backend: Any) -> None:
    try:
        backend.close()
    except Exception:  # an SMTP server that hung up already
        logger.debug("closing the mail connection failed", exc_info=True)


def _good(kept: Any, wanted: Any) -> bool:
    if time.monotonic() - _kept.since > KEEP_SECONDS or type(kept) is not type(wanted):
        return False
    if any(getattr(kept, name, None) != getattr(wanted, name, None) for name in _SAME_SERVER):
        return False
    sock = getattr(getattr(kept, "connection", None), "sock", None)
    if sock is None:
        return False
    try:
        if getattr(sock, "pending", lambda: 0)():  # TLS bytes already read and not yet used
            return False
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):  # closed under us
        return False
    return not readable
