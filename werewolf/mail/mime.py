"""A mail's bytes written straight from its parts, for the SMTP backend.

Django builds a tree of `email` objects for every mail and has the standard library's
generator walk it; for the mails this server writes (a text body, perhaps its HTML
twin, perhaps text attachments such as the deadline's calendar event) that is most of
the cost of sending. `as_bytes` writes the same bytes directly: every header value still
goes through Django's own checks and encodings (`forbid_multi_line_headers`) and is
folded by the mail's policy, and every part is laid out as the generator lays it out.
tests/mail/test_mime.py holds it to Django's output byte for byte, on any text.

A mail of another shape (a long line that needs quoted-printable, a binary or non-ASCII
named attachment, a message in a message, Cc or Bcc) is not written here: `as_bytes`
raises `Unsupported` and the caller lets Django build it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from email.utils import formatdate
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.core.mail.message import RFC5322_EMAIL_LINE_LENGTH_LIMIT, forbid_multi_line_headers

CRLF = "\r\n"
_LINE_BREAK = re.compile(rb"\r\n|\r|\n")
_MIME_VERSION = ("MIME-Version", "1.0")


class Unsupported(ValueError):
    """A mail this writer does not lay out; Django's own path writes it."""


def as_bytes(message: Any, boundary: Callable[[], str], fold: Callable[[str, str], bytes]) -> bytes:
    """The bytes Django's SMTP backend would send for `message` (an
    EmailMultiAlternatives), with `boundary()` for each multipart's boundary and `fold`
    writing one header line (the `fold_binary` of the mail's policy, its line
    separator CRLF)."""
    if message.cc or message.bcc or (message.encoding or settings.DEFAULT_CHARSET) != "utf-8":
        raise Unsupported("cc, bcc or a charset other than UTF-8")
    if not message.body:
        raise Unsupported("no text body")
    out: list[bytes] = []
    body = _text_part(message.body, message.content_subtype)
    if message.alternatives:
        body = _multipart(
            "alternative", [body, *(_alternative(content, mimetype) for content, mimetype in message.alternatives)]
        )
    if message.attachments:
        body = _multipart("mixed", [body, *(_attachment(*attachment) for attachment in message.attachments)])
    _write(body, _top_headers(message), boundary, fold, out)
    return b"".join(out)


# A part: its Content-Type value, its own headers after Content-Type and MIME-Version,
# and either its body (already in bytes, lines as given) or its subparts.
Part = tuple[str, tuple[tuple[str, str], ...], bytes | list[Any]]


def _text_part(text: Any, subtype: str, extra: tuple[tuple[str, str], ...] = ()) -> Part:
    if not isinstance(text, str):
        raise Unsupported("a body that is not text")
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as error:  # (a lone surrogate: Django refuses it too)
        raise Unsupported("text that is not Unicode") from error
    if (
        len(data) > RFC5322_EMAIL_LINE_LENGTH_LIMIT
        and max(map(len, data.splitlines())) > RFC5322_EMAIL_LINE_LENGTH_LIMIT
    ):
        raise Unsupported("a line too long for 8bit: Django writes it as quoted-printable")
    encoding = "7bit" if data.isascii() else "8bit"
    return (f'text/{subtype}; charset="utf-8"', (("Content-Transfer-Encoding", encoding), *extra), data)


def _alternative(content: Any, mimetype: str) -> Part:
    basetype, _, subtype = mimetype.partition("/")
    if basetype != "text":
        raise Unsupported("an alternative that is not text")
    return _text_part(content, subtype)


def _attachment(filename: str, content: Any, mimetype: str | None) -> Part:
    basetype, _, subtype = (mimetype or "").partition("/")
    if basetype != "text" or not filename or not filename.isascii() or '"' in filename or "\\" in filename:
        raise Unsupported("an attachment other than ASCII-named text")
    return _text_part(content, subtype, (("Content-Disposition", f'attachment; filename="{filename}"'),))


def _multipart(subtype: str, parts: list[Part]) -> Part:
    return (f"multipart/{subtype}", (), parts)


def _top_headers(message: Any) -> list[tuple[str, str]]:
    """The top's headers after Content-Type and MIME-Version, in Django's order."""
    extra = message.extra_headers
    names = {name.lower() for name in extra}
    headers = [("Subject", message.subject), ("From", extra.get("From", message.from_email))]
    for name, values in (("To", message.to), ("Reply-To", message.reply_to)):
        if name in extra:
            headers.append((name, extra[name]))
        elif values:
            headers.append((name, ", ".join(str(value) for value in values)))
    if "date" not in names:
        headers.append(("Date", formatdate(localtime=settings.EMAIL_USE_LOCALTIME)))
    if "message-id" not in names:
        raise Unsupported("no Message-ID of ours")
    headers += [(name, value) for name, value in extra.items() if name.lower() not in {"from", "to", "cc", "reply-to"}]
    return headers


def _write(
    part: Part,
    headers: list[tuple[str, str]],
    boundary: Callable[[], str],
    fold: Callable[[str, str], bytes],
    out: list[bytes],
) -> None:
    content_type, own, body = part
    if not isinstance(body, list) and not headers:  # a part inside a multipart
        out += (_head(fold, content_type, own), _crlf(body))
        return
    separator = boundary() if isinstance(body, list) else ""
    if separator:  # (a line of its own: never written again)
        out.append(fold("Content-Type", f'{content_type}; boundary="{separator}"'))
    else:
        out.append(_line(fold, "Content-Type", content_type))
    out.append(_line(fold, *_MIME_VERSION))
    out += [_checked_line(fold, name, value) for name, value in [*own, *headers]]
    out.append(b"\r\n")
    if not isinstance(body, list):
        out.append(_crlf(body))
        return
    for number, subpart in enumerate(body):
        out.append(f"{CRLF if number else ''}--{separator}{CRLF}".encode("ascii"))
        _write(subpart, [], boundary, fold, out)
    out.append(f"{CRLF}--{separator}--{CRLF}".encode("ascii"))


@lru_cache(maxsize=256)
def _head(fold: Callable[[str, str], bytes], content_type: str, own: tuple[tuple[str, str], ...]) -> bytes:
    """The headers of a part inside a multipart and the blank line after them, written
    once for every mail that has such a part (a text part, its HTML twin, a calendar
    event under its name): what the lines of `_write` would be."""
    lines = [_line(fold, "Content-Type", content_type), _line(fold, *_MIME_VERSION)]
    return b"".join([*lines, *(_checked_line(fold, name, value) for name, value in own), b"\r\n"])


@lru_cache(maxsize=256)
def _line(fold: Callable[[str, str], bytes], name: str, value: str) -> bytes:
    """A header line as `fold` writes it, written once for every mail that has it (a
    text part's Content-Type, MIME-Version)."""
    return fold(name, value)


@lru_cache(maxsize=1024)
def _checked_line(fold: Callable[[str, str], bytes], name: str, value: str) -> bytes:
    """A header line after Django's checks and encodings, as `fold` writes it: the same
    for every mail that has the same header (the phase's subject, the sender, the
    automatic-mail headers, the second's Date), so written once for all of them, as a
    function of the name and value only. (A value it refuses raises every time: nothing
    is kept of it.)"""
    return fold(*forbid_multi_line_headers(name, value, "utf-8"))


def _crlf(data: bytes) -> bytes:
    """Every line break as CRLF, as the generator writes a body (a last line without one
    stays without)."""
    if b"\r" not in data:
        return data.replace(b"\n", b"\r\n")
    if data.count(b"\r\n") == data.count(b"\r") == data.count(b"\n"):  # CRLF already (a calendar event)
        return data
    return _LINE_BREAK.sub(b"\r\n", data)
