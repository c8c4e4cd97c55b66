"""Private seat links: a secret in the URL, stored only as a hash.

The secret is an HMAC of a random nonce under the site's secret key, in lowercase
base32, so the server can write the same link into every mail without keeping the
secret itself. Revoking a link sets `revoked_at`; a substitute gets a new nonce.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from .models import Player, SeatLink

TOKEN_LENGTH = 32


class LinkError(Exception):
    """A link that does not open a seat: `code` is "unknown" or "revoked"."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def issue(player: Player) -> SeatLink:
    """Give `player` a new link, revoking any earlier one."""
    player.links.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
    nonce = secrets.token_hex(16)
    return SeatLink.objects.create(player=player, nonce=nonce, token_hash=digest(token_for(nonce)))


def token_for(nonce: str) -> str:
    mac = hmac.new(settings.SECRET_KEY.encode(), b"seat-link:" + nonce.encode(), hashlib.sha256).digest()
    return base64.b32encode(mac).decode().rstrip("=").lower()[:TOKEN_LENGTH]


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def current(player: Player) -> SeatLink | None:
    return player.links.filter(revoked_at__isnull=True).order_by("-pk").first()


def url_for(player: Player, *, absolute: bool = True) -> str | None:
    link = current(player)
    if link is None:
        return None
    path = reverse("games:seat", args=[token_for(link.nonce)])
    return settings.SITE_URL + path if absolute else path


def player_for(token: str) -> Player:
    """The player a token opens, or `LinkError`. Never changes anything: mail
    scanners open links too."""
    if len(token) != TOKEN_LENGTH:
        raise LinkError("unknown")
    link = SeatLink.objects.select_related("player__game").filter(token_hash=digest(token)).first()
    if link is None:
        raise LinkError("unknown")
    if link.revoked_at is not None:
        raise LinkError("revoked")
    return link.player
