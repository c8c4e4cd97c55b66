"""Inbound mail: a player's reply read as a notecard.

Every message is stored first, in its own transaction, and only then read: whatever
happens next (a refusal, a crash, a duplicate), the raw mail stays for the organiser.
A message is matched to a seat and a phase by the signed reference in the address it
was sent to (see `links.reference_for`), never by its From line alone; it must also
come from the seat's own address. Replies go only to a seat's registered address, so
a forged message never makes the server mail a stranger.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser
from typing import Any

from django.conf import settings

from werewolf import engine
from werewolf.games import links, selectors, services
from werewolf.games.models import Game, InboundMessage, Order, Phase, Player

from .grammar import KEYWORDS, CardError, read_card

logger = logging.getLogger(__name__)

ADDRESS_HEADERS = ("To", "Cc", "Delivered-To", "X-Original-To", "Envelope-To")


@dataclass
class Reading:
    """What reading one message came to: who it is from, what became of it, and who (if
    anybody) should be told."""

    status: str
    code: str = ""
    player: Player | None = None
    phase: Phase | None = None
    order: Order | None = None
    card: str = ""
    reply_to: Player | None = None
    params: dict[str, Any] = field(default_factory=dict)


def receive(raw: bytes, recipients: Sequence[str] = (), size: int | None = None) -> InboundMessage:
    """Keep `raw` (as delivered to `recipients`, the SMTP envelope if known), then read it.
    `size` is the whole message's length when `raw` is already cut to what is kept."""
    keep = settings.WEREWOLF_INBOUND_KEEP_BYTES
    size = len(raw) if size is None else size
    message = message_from_bytes(raw[:keep], policy=policy.default)
    row = InboundMessage.objects.create(
        raw=raw[:keep],
        size=size,
        truncated=size > keep,
        message_id=_text(_header(message, "Message-ID"))[:255],
        sender=_text(_sender(message))[:320],
        subject=_text(_header(message, "Subject"))[:255],
        recipients=_text("\n".join(recipients)),
    )
    try:
        reading = read(row, message, size)
    except Exception:
        logger.exception("could not read inbound message %s", row.pk)
        InboundMessage.objects.filter(pk=row.pk).update(status=InboundMessage.Status.FAILED, code="server_error")
        row.refresh_from_db()
        return row
    row.status, row.code, row.card = reading.status, reading.code, _text(reading.card)[:2000]
    row.player, row.phase, row.order = reading.player, reading.phase, reading.order
    row.game = reading.player.game if reading.player else None
    row.save(update_fields=["status", "code", "card", "player", "phase", "order", "game"])
    if reading.reply_to is not None:
        from .outbound import send_inbound_reply

        try:
            send_inbound_reply(row, reading)
        except Exception:  # the message and its outcome are kept and shown to the organiser
            logger.exception("could not reply to inbound message %s", row.pk)
    return row


def read(row: InboundMessage, message: EmailMessage, size: int) -> Reading:
    """Match the message to a seat and a phase and hand its card in, or say why not."""
    Status = InboundMessage.Status
    if row.message_id and (
        InboundMessage.objects.filter(message_id=row.message_id, pk__lt=row.pk)
        .exclude(status__in=[Status.FAILED, Status.RECEIVED])
        .exists()
    ):
        return Reading(Status.DUPLICATE, "duplicate")
    player, index, problem = _addressee(row, message)
    if player is None:
        # Tell the sender only if the From line is a seat's own address in a running game.
        known = _known_sender(row.sender)
        return Reading(Status.UNMATCHED, problem, reply_to=known)
    game = player.game
    if not _same_address(row.sender, player.email):
        return Reading(Status.REFUSED, "wrong_sender", player=player, reply_to=player, params={"sender": row.sender})
    if size > settings.WEREWOLF_INBOUND_READ_BYTES:
        return Reading(Status.REFUSED, "too_large", player=player, reply_to=player)
    phase = game.current_phase() if game.is_running else None
    if phase is None:
        code = "game_not_running" if game.status == Game.Status.DRAFT else "game_over"
        return Reading(Status.REFUSED, code, player=player, reply_to=player)
    if phase.index != index:
        return Reading(Status.REFUSED, "phase_closed", player=player, phase=phase, reply_to=player)
    texts = card_texts(message) or [""]
    reading = Reading(Status.REFUSED, "", player=player, phase=phase, card=texts[0], reply_to=player)
    names = selectors.names(game)
    slot = engine.phase(game.engine_state).asks(player.seat)
    problems = []
    for text in texts:
        try:
            order = read_card(text, names, slot)
            reading.card = text
            break
        except CardError as problem:
            problems.append(problem)
    else:
        reading.code, reading.params = problems[0].code, {"card_error": problems[0]}
        return reading
    try:
        reading.order = services.submit_order(game, player.seat, order, phase_id=phase.pk, source=Order.Source.MAIL)
    except services.ServiceError as refusal:
        reading.code, reading.params = refusal.code, {"service_error": refusal}
        return reading
    reading.status = Status.APPLIED
    reading.phase = Phase.objects.get(pk=phase.pk)
    return reading


def _addressee(row: InboundMessage, message: EmailMessage) -> tuple[Player | None, int, str]:
    """The seat and phase named by the first valid reference among the addresses the
    message went to; else (None, 0, why)."""
    problem = "no_reference"
    for address in _addresses(row.recipients.splitlines(), message):
        local = address.rsplit("@", 1)[0]
        if "+" not in local:
            continue
        try:
            player, index = links.player_for_reference(local.split("+", 1)[1])
        except links.LinkError as refused:
            problem = "revoked_reference" if refused.code == "revoked" else "forged_reference"
            continue
        return player, index, ""
    return None, 0, problem


def _addresses(envelope: Iterable[str], message: EmailMessage) -> list[str]:
    found = [address.strip().lower() for address in envelope if address.strip()]
    for name in ADDRESS_HEADERS:
        try:
            values = [str(value) for value in message.get_all(name, [])]
        except Exception:  # a header too broken to parse is no address
            continue
        found += [address.strip().lower() for _, address in getaddresses(values) if address]
    return list(dict.fromkeys(found))


def _known_sender(sender: str) -> Player | None:
    if not sender:
        return None
    return (
        Player.objects.select_related("game")
        .filter(email__iexact=sender, is_bot=False, game__status=Game.Status.RUNNING)
        .order_by("-game__created_at")
        .first()
    )


def _same_address(sender: str, email: str) -> bool:
    return bool(sender) and sender.strip().casefold() == email.strip().casefold()


def _text(value: str) -> str:
    """Text fit for any database: PostgreSQL refuses NUL characters, which mail may hold."""
    return value.replace("\x00", "\ufffd")


def _header(message: EmailMessage, name: str) -> str:
    try:
        value = message.get(name)
    except Exception:  # undecodable header: keep nothing rather than fail the message
        return ""
    return " ".join(str(value).split()) if value is not None else ""


def _sender(message: EmailMessage) -> str:
    return parseaddr(_header(message, "From"))[1].lower()


# Reading the card out of a reply ----------------------------------------------------

_QUOTE_STARTS = [
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"^>",
        r"^on\b.*\bwrote:?$",
        r"^il giorno\b.*\bha scritto:?$",
        r"^le\b.*\ba écrit ?:?$",
        r"^am\b.*\bschrieb\b.*:?$",
        r"^-{2,}\s*original message\s*-{2,}$",
        r"^-{2,}\s*messaggio originale\s*-{2,}$",
        r"^_{8,}$",
        r"^from:\s",
        r"^da:\s",
        r"^-- ?$",
        r"^sent from my\b",
        r"^inviato da\b",
    )
]


def card_texts(message: EmailMessage) -> list[str]:
    """The cards a reply may hold, best first. Only the reply's own text counts (quoted
    mail and signature are left out): the first paragraph that starts with a notecard
    word or, without one, each paragraph in turn (the first that names players wins)."""
    lines = []
    for line in _body(message).splitlines():
        stripped = line.strip().replace("\u00a0", " ")
        if any(pattern.search(stripped) for pattern in _QUOTE_STARTS):
            break
        lines.append(stripped)
    paragraphs: list[list[str]] = [[]]
    for line in lines:
        if line:
            paragraphs[-1].append(line)
        elif paragraphs[-1]:
            paragraphs.append([])
    texts = ["\n".join(paragraph) for paragraph in paragraphs if paragraph]
    for text in texts:
        if _starts_with_keyword(text):
            return [text]
    return texts[:5]


def _starts_with_keyword(line: str) -> bool:
    lowered = " ".join(line.lower().split())
    return any(lowered == word or lowered.startswith((word + " ", word + ":")) for word in KEYWORDS)


def _body(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        content = part.get_content()
    except Exception:  # an encoding Python cannot undo: read the bytes as UTF-8
        payload = part.get_payload(decode=True)
        content = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else str(payload)
    if not isinstance(content, str):
        return ""
    if part.get_content_subtype() == "html":
        return _html_text(content)
    return content


class _HTMLText(HTMLParser):
    """The text of an HTML reply, up to where it starts quoting."""

    BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6"}
    HIDDEN = {"style", "script", "head", "title"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden: list[str] = []
        self.quoting = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "blockquote" or "quote" in (dict(attrs).get("class") or ""):
            self.quoting = True
        elif tag in self.HIDDEN:
            self.hidden.append(tag)
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if self.hidden and tag == self.hidden[-1]:
            self.hidden.pop()
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden and not self.quoting:
            self.parts.append(data)


def _html_text(html: str) -> str:
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)
