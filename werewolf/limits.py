"""How often one account, seat, game or network address may do something: every limit of
the site, counted in the shared cache (Redis in production, a database table on the
embedded defaults), so that it holds across every web process and machine.

Each limit is a count in a fixed window (`settings.WEREWOLF_RATES`, COUNT/SECONDS). A
refusal raises `Limited`, which says how many seconds remain until the window ends: what a
refusal tells the visitor ("try again in N minutes").
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest


@dataclass(frozen=True)
class Rate:
    count: int
    seconds: int

    @classmethod
    def parse(cls, text: str) -> Rate:
        count, _, seconds = text.partition("/")
        return cls(int(count), int(seconds))


class Limited(Exception):
    """Too many of `kind` for now; `retry_after` seconds until it may happen again."""

    def __init__(self, kind: str, retry_after: int) -> None:
        super().__init__(kind)
        self.kind = kind
        self.retry_after = max(1, retry_after)

    @property
    def minutes(self) -> int:
        """The wait in whole minutes, rounded up (what a refusal says)."""
        return math.ceil(self.retry_after / 60)


def rate(kind: str) -> Rate:
    return Rate.parse(settings.WEREWOLF_RATES[kind])


def _key(kind: str, who: str, window: int) -> str:
    # Hashed: an address or a name never lands in the cache as it is, and any text fits.
    digest = hashlib.blake2b(who.encode(), digest_size=12).hexdigest()
    return f"limit:{kind}:{digest}:{window}"


def _window(kind: str) -> tuple[Rate, int, int]:
    limit = rate(kind)
    now = time.time()
    window = int(now // limit.seconds)
    return limit, window, int((window + 1) * limit.seconds - now)


def _incr(key: str, limit: Rate) -> int:
    # The window's count is there on every hit but its first: count it, and make it only
    # when it is missing (one cache operation fewer a hit than making it first).
    try:
        return cache.incr(key)
    except ValueError:  # the window's first hit
        if cache.add(key, 1, timeout=limit.seconds + 1):
            return 1
        return cache.incr(key)  # another process made it meanwhile


def hit(kind: str, who: str) -> None:
    """Count one `kind` for `who`, or raise `Limited` if the window's count is spent (the
    refused one is not counted)."""
    limit, window, left = _window(kind)
    key = _key(kind, who, window)
    if _incr(key, limit) > limit.count:
        cache.decr(key)
        raise Limited(kind, left)


def hit_all(*hits: tuple[str, str]) -> None:
    """`hit` each (kind, who) in order, all or none: when one is spent, those counted
    before it are taken back, so a refusal by a narrow limit (one network address) never
    spends a broad one (a whole game's). Name the narrowest first."""
    counted: list[tuple[str, str]] = []
    try:
        for kind, who in hits:
            hit(kind, who)
            counted.append((kind, who))
    except Limited:
        for kind, who in counted:
            uncount(kind, who)
        raise


def check(kind: str, who: str) -> None:
    """Raise `Limited` if `who` has spent `kind` for now, without counting anything (a log
    in is checked before the password, and only a wrong password is counted)."""
    limit, window, left = _window(kind)
    if (cache.get(_key(kind, who, window)) or 0) >= limit.count:
        raise Limited(kind, left)


def count(kind: str, who: str) -> None:
    """Count one `kind` for `who`, never refusing (a wrong password, counted after the
    fact)."""
    limit, window, _ = _window(kind)
    _incr(_key(kind, who, window), limit)


def uncount(kind: str, who: str) -> None:
    """Take back one `kind` counted for `who` (counted, then not done after all)."""
    _, window, _ = _window(kind)
    try:
        cache.decr(_key(kind, who, window))
    except ValueError:  # the window ended meanwhile: nothing to take back
        pass


def client_address(request: HttpRequest) -> str:
    """The visitor's network address: behind a proxy (WEREWOLF_BEHIND_PROXY), the one the
    proxy saw, which it appends last to X-Forwarded-For."""
    if settings.WEREWOLF_BEHIND_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        if forwarded:
            return str(forwarded).rsplit(",", 1)[-1].strip()
    return str(request.META.get("REMOTE_ADDR", ""))
