#!/usr/bin/env python3
"""What reading hostile mail costs, before and after the inbound limits, in the same run.

For each input shape, the time at size n and 2n on both sides: the baseline (the standard
library as `inbound` used it before: `policy.default`, `html.parser`, the declared codec)
and `werewolf.mail.inbound` now. A ratio near 2 when n doubles is linear; near 4 is
quadratic. The ratios, not the absolute times, are the figures to compare.

    python benchmarks/inbound_limits.py [--scale 1.0]

No database is touched: only parsing and decoding are timed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from email import message_from_bytes, policy
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
os.environ.setdefault("WEREWOLF_VAR_DIR", tempfile.mkdtemp(prefix="werewolf-bench-"))


def timed(work: Callable[[Any], object], data: bytes | str) -> float:
    start = time.perf_counter()
    try:
        work(data)
    except RecursionError:
        return float("nan")  # the baseline gives up: nothing stored, the MTA retries
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every input size")
    args = parser.parse_args()

    import django

    django.setup()
    from werewolf.mail import inbound

    def subject(words: int) -> bytes:
        return b"From: a@example.org\r\nSubject: " + b" ".join([b"=?utf-8?q?w=C3=A9rd?="] * words) + b"\r\n\r\nx\r\n"

    def html(repeats: int) -> str:
        return "<div>INQUIRE Alba</div>" + "<a" * repeats

    def punycode(size: int) -> bytes:
        return b"Content-Type: text/plain; charset=punycode\r\n\r\n" + b"abc" * (size // 3)

    def nested(depth: int) -> bytes:
        body = b"Content-Type: text/plain\r\n\r\nSLEEP\r\n"
        for level in range(depth):
            boundary = b"b%d" % level
            body = (
                b"Content-Type: multipart/mixed; boundary=" + boundary + b"\r\n\r\n--" + boundary + b"\r\n"
                b"" + body + b"\r\n--" + boundary + b"--\r\n"
            )
        return body

    def html_before(text: str) -> None:
        reader = HTMLParser()
        reader.feed(text)
        reader.close()

    def body_before(raw: bytes) -> None:
        message_from_bytes(raw, policy=policy.default).get_body(("plain", "html")).get_content()

    def body_now(raw: bytes) -> None:
        inbound._body(inbound.parse(raw))

    cases = [
        (
            "Subject of n encoded words",
            8_000,
            subject,
            lambda raw: str(message_from_bytes(raw, policy=policy.default)["Subject"]),
            lambda raw: inbound._header(inbound.parse(raw), "Subject"),
        ),
        ("HTML body '<a' * n", 10_000, html, html_before, inbound._html_text),
        ("text/plain, charset=punycode, n bytes", 100_000, punycode, body_before, body_now),
        ("n nested multiparts", 500, nested, body_before, lambda raw: _refused(inbound, raw)),
    ]
    print(f"{'input':42} {'n':>8} {'before (s)':>11} {'x2n':>6} {'now (s)':>9} {'x2n':>6} {'before/now':>11}")
    for label, size, make, before, now in cases:
        n = max(1, int(size * args.scale))
        small, large = make(n), make(2 * n)
        before_small, before_large = timed(before, small), timed(before, large)
        now_small, now_large = timed(now, small), timed(now, large)
        print(
            f"{label:42} {n:>8} {before_large:>11.4f} {before_large / before_small:>6.1f} "
            f"{now_large:>9.4f} {now_large / now_small:>6.1f} {before_large / now_large:>11.0f}"
        )
    print("nan: the baseline raised RecursionError (before the limits, nothing was stored).")
    return 0


def _refused(inbound, raw: bytes) -> None:
    try:
        inbound.parse(raw)
    except inbound.Unreadable:
        inbound.parse(raw, headers_only=True)


if __name__ == "__main__":
    sys.exit(main())
