"""Inbound mail: a player's reply read as a notecard.

Every message is stored first, in its own transaction, before it is even parsed: whatever
happens next (a refusal, a crash, a duplicate, a message built to break the parser), the
raw mail stays for the organiser. It is then parsed within limits (MIME nesting and part
count, the length of each header, the text read for a card), so that no message costs
more than a bounded amount of work; one beyond them is refused as `unreadable`.
A message is matched to a seat and a phase by the signed reference in the address it
was sent to (see `links.reference_for`), never by its From line alone; it must also
come from the seat's own address. Replies go only to a seat's registered address, so
a forged message never makes the server mail a stranger, and never to a robot
(auto-replies and bounces), so that two robots never talk forever. The one other
address answered is that of a person who held the seat before, replying to a mail of
their link since revoked (held.py): kept with the game, answered, nothing changed.
"""

from __future__ import annotations

import codecs
import html as htmllib
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from email.message import EmailMessage, MIMEPart
from email.parser import BytesParser
from email.policy import EmailPolicy
from email.utils import collapse_rfc2231_value, getaddresses, parseaddr
from typing import Any, cast

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from werewolf import engine
from werewolf.engine.grammar import CardError, Grammar, command, grammar, read_card
from werewolf.games import absences, dates, links, selectors, services, talk
from werewolf.games.models import Absence, Game, InboundMessage, Order, Phase, Player, Post

from . import bounces, held, replies

logger = logging.getLogger(__name__)

ADDRESS_HEADERS = ("To", "Cc", "Delivered-To", "X-Original-To", "Envelope-To")

# Limits on what one message may cost to read. Real replies are far inside them.
MAX_DEPTH = 20  # MIME parts inside parts (a reply with a forwarded mail in it: 3 or 4)
MAX_PARTS = 200  # MIME parts in all (a reply with its quoted mail and attachments: a dozen)
MAX_HEADER_CHARS = 8192  # of each header, cut before it is parsed (RFC 5322 lines: 998)
MAX_ADDRESS_HEADERS = 10  # of each address header (To, Cc, ...) read for a reference
MAX_TEXT_CHARS = 100_000  # of the reply's text searched for a card
MAX_SIZE = 2**31 - 1  # what the size column holds
# Codecs Python has that no mail charset means; punycode's decoder is quadratic.
NOT_MAIL_CHARSETS = {"punycode", "idna", "undefined", "unicode_escape", "raw_unicode_escape"}


class Unreadable(Exception):
    """A message beyond the limits: MIME nested too deep or in too many parts."""


class BoundedPolicy(EmailPolicy):
    """`policy.default`, but a header is cut to MAX_HEADER_CHARS before anything parses
    it: the header parser's cost grows faster than the header (a Subject of 32,000
    encoded words took 23 seconds)."""

    def header_source_parse(self, sourcelines: list[str]) -> tuple[str, str]:
        name, value = super().header_source_parse(sourcelines)
        if len(value) > MAX_HEADER_CHARS:
            value = value[:MAX_HEADER_CHARS].rstrip("\r\n")
        return name, value


POLICY = BoundedPolicy()


class _Part(EmailMessage):
    """A message part that knows how deep it sits and refuses to go deeper than MAX_DEPTH."""

    depth = 0

    def attach(self, payload: Any) -> None:
        if self.depth >= MAX_DEPTH:
            raise Unreadable(f"MIME parts nested deeper than {MAX_DEPTH}")
        payload.depth = self.depth + 1
        super().attach(payload)


def parse(raw: bytes, headers_only: bool = False) -> EmailMessage:
    """The message in `raw`, or `Unreadable` if it is nested too deep or has too many
    parts. Only its headers are parsed if `headers_only`."""
    made = 0

    def part(policy: Any = POLICY) -> _Part:
        nonlocal made
        made += 1
        if made > MAX_PARTS + 1:  # the parser makes one to try the factory out
            raise Unreadable(f"more than {MAX_PARTS} MIME parts")
        return _Part(policy=policy)

    return cast(EmailMessage, BytesParser(_class=part, policy=POLICY).parsebytes(raw, headersonly=headers_only))


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
    game: Game | None = None
    """The game, for a message matched to no seat (a reply to an old link's mail)."""
    author: str = ""
    """Who wrote it, when the game knows: the seat's person, or who held it before."""
    former: held.Former | None = None
    """The person who held the seat before, to be answered at their own address."""
    away: str = ""
    """What became of the absence lines, if any (the first refusal's code, or "away_declared")."""


def receive(raw: bytes, recipients: Sequence[str] = (), size: int | None = None, source: str = "") -> InboundMessage:
    """Keep `raw` (as delivered to `recipients`, the SMTP envelope if known), then read it.
    `size` is the whole message's length when `raw` is already cut to what is kept;
    `source` names where a fetched message came from (werewolf/mail/imap.py).

    Raises only if the message could not be stored; once it is, whatever the message
    holds, the row is returned with what became of it."""
    keep = settings.WEREWOLF_INBOUND_KEEP_BYTES
    size = len(raw) if size is None else size
    kept = bytes(raw[:keep])
    with transaction.atomic():
        row = InboundMessage.objects.create(
            raw=kept,
            size=min(size, MAX_SIZE),
            truncated=size > keep,
            recipients=_text("\n".join(recipients)),
            source=source[:300],
        )
    try:
        _take(row, kept, size)
    except Exception:
        logger.exception("could not read inbound message %s", row.pk)
        _settle(row, InboundMessage.Status.FAILED, "server_error")
    return row


def _take(row: InboundMessage, raw: bytes, size: int) -> None:
    """Parse the stored message within the limits, read it and answer it."""
    readable, limit = True, settings.WEREWOLF_INBOUND_READ_BYTES
    try:
        # A message too large to read is refused from its headers alone (in its first bytes).
        message = parse(raw[:limit], headers_only=True) if size > limit else parse(raw)
    except Exception as problem:  # Unreadable, RecursionError, or whatever else the parser met
        logger.warning("inbound message %s cannot be parsed: %s", row.pk, problem)
        readable = False
        try:
            message = parse(raw[:limit], headers_only=True)
        except Exception:
            logger.exception("inbound message %s has no readable headers", row.pk)
            _settle(row, InboundMessage.Status.FAILED, "unreadable")
            return
    row.message_id = _text(_header(message, "Message-ID"))[:255]
    row.sender = _text(_sender(message))[:320]
    row.subject = _text(_header(message, "Subject"))[:255]
    with transaction.atomic():
        row.save(update_fields=["message_id", "sender", "subject"])
    reading = read(row, message, size, readable=readable)
    row.status, row.code, row.card = reading.status, reading.code, _text(reading.card)[:2000]
    row.player, row.phase, row.order = reading.player, reading.phase, reading.order
    row.game = reading.player.game if reading.player else reading.game
    row.author, row.away = _author(reading)[:60], reading.away[:40]
    with transaction.atomic():
        row.save(update_fields=["status", "code", "card", "player", "phase", "order", "game", "author", "away"])
    logger.info(
        "inbound message %s: %s %s",
        row.pk,
        reading.status,
        reading.code,
        extra={
            "inbound": row.pk,
            "status": str(reading.status),
            "code": reading.code,
            "game": row.game.pk if row.game else None,
            "phase": row.phase.pk if row.phase else None,
            "seat": row.player.seat if row.player else None,
        },
    )
    if reading.reply_to is not None or reading.former is not None:
        _answer(row, reading)


WRITTEN = (
    InboundMessage.Status.APPLIED,
    InboundMessage.Status.REFUSED,
    InboundMessage.Status.COMMAND,
    InboundMessage.Status.POSTED,
)
"""The outcomes of a mail its seat's person wrote, sent from the seat's own address."""


def _author(reading: Reading) -> str:
    """Who wrote the mail, as the game knows them now that it arrives: the person who
    held the seat before (`Reading.former`), or the seat's person if it came from their
    address; else nobody known (a stranger's mail, a robot's, a bounce)."""
    if reading.author:
        return reading.author
    if reading.player is None or reading.status not in WRITTEN:
        return ""
    if reading.code in ("wrong_sender", "auto_submitted"):
        return ""
    return reading.player.name


def _answer(row: InboundMessage, reading: Reading) -> None:
    """Tell the seat (or the person who held it before) what became of its mail, unless
    it was refused and they have had WEREWOLF_REFUSALS_ANSWERED_PER_HOUR refusals
    answered within the hour: then the answer is held back (the mail is kept and shown
    to the organiser), so that nothing, not even a robot that answers every mail, can
    keep a loop going. A card taken is always confirmed."""
    from .outbound import send_handed_on_reply, send_inbound_reply

    player, former = reading.reply_to, reading.former
    if reading.status not in (InboundMessage.Status.APPLIED, InboundMessage.Status.COMMAND):
        since = timezone.now() - timedelta(hours=1)
        answers = InboundMessage.objects.filter(answer=InboundMessage.Answer.SENT, received_at__gte=since)
        if former is not None:  # answered at their own address: counted by it
            answers = answers.filter(sender__iexact=former.email, code__in=held.CODES)
        else:
            answers = answers.filter(answered=player)
        answered = answers.exclude(status=InboundMessage.Status.APPLIED).count()
        if answered >= settings.WEREWOLF_REFUSALS_ANSWERED_PER_HOUR:
            InboundMessage.objects.filter(pk=row.pk).update(answer=InboundMessage.Answer.HELD, answered=player)
            return
    InboundMessage.objects.filter(pk=row.pk).update(answer=InboundMessage.Answer.SENT, answered=player)
    try:
        if former is not None:
            send_handed_on_reply(row, reading)
        else:
            send_inbound_reply(row, reading)
    except Exception:  # the message and its outcome are kept and shown to the organiser
        logger.exception("could not reply to inbound message %s", row.pk)


def _settle(row: InboundMessage, status: str, code: str) -> None:
    """Mark `row` with an outcome without raising: it is stored, whatever happens now."""
    row.status, row.code = status, code
    try:
        with transaction.atomic():
            InboundMessage.objects.filter(pk=row.pk).update(status=status, code=code)
    except Exception:
        logger.exception("could not mark inbound message %s %s", row.pk, status)


def read(row: InboundMessage, message: EmailMessage, size: int, readable: bool = True) -> Reading:
    """Match the message to a seat and a phase and hand its card in (and do what its
    absence lines say), or say why not. `readable` is False for a message whose headers
    alone could be parsed."""
    Status = InboundMessage.Status
    if row.message_id and (
        InboundMessage.objects.filter(message_id=row.message_id, pk__lt=row.pk)
        .exclude(status__in=[Status.FAILED, Status.RECEIVED])
        .exists()
    ):
        return Reading(Status.DUPLICATE, "duplicate")
    addresses = _addresses(row.recipients.splitlines(), message)
    bounce = bounces.find(message, addresses)
    if bounce is not None:
        bounced = bounces.record(bounce)
        return Reading(Status.BOUNCE, "bounce_delayed" if bounce.delayed else "bounce", player=bounced)
    speaker = _speaker(addresses)
    if isinstance(speaker, links.LinkError):
        return _handed_on(row, speaker, _automatic(message))
    if speaker is not None:
        return _talk(row, message, speaker, size, readable)
    player, index, problem = _addressee(addresses)
    robot = _automatic(message)
    if isinstance(problem, links.LinkError):
        return _handed_on(row, problem, robot)
    if player is None:
        # Tell the sender only if the From line is a seat's own address in a running game.
        known = None if robot else _known_sender(row.sender)
        return Reading(Status.UNMATCHED, problem, reply_to=known)
    if robot:
        return Reading(Status.REFUSED, "auto_submitted", player=player)
    game = player.game
    if not _same_address(row.sender, player.email):
        return Reading(Status.REFUSED, "wrong_sender", player=player, reply_to=player, params={"sender": row.sender})
    if size > settings.WEREWOLF_INBOUND_READ_BYTES:
        return Reading(Status.REFUSED, "too_large", player=player, reply_to=player, author=player.name)
    if not readable:
        return Reading(Status.REFUSED, "unreadable", player=player, reply_to=player, author=player.name)
    phase = game.current_phase() if game.is_running else None
    names, words = selectors.names(game), grammar(game.ruleset)
    reply = own_text(message, words, names)
    away = replies.absence_lines(reply)
    texts = replies.cards(reply, words, names) or [""]
    asked = command(texts[0])
    if asked is None and away and not replies.holds_card(reply, words, names):
        # An absence and nothing else (a greeting above it, a word of thanks below).
        return _absences(Reading(Status.COMMAND, "", player=player, phase=phase, reply_to=player), away, alone=True)
    return _absences(_card(player, phase, index, texts, names), away)


def _card(player: Player, phase: Phase | None, index: int, texts: list[str], names: Sequence[str]) -> Reading:
    """The reply's card (or its HELP or STATUS) for `player`'s seat, handed in for the
    phase its reference names, or refused and why."""
    Status = InboundMessage.Status
    game = player.game
    asked = command(texts[0])
    if asked is not None:
        # HELP and STATUS are answered from any of the seat's mails, old ones too: the
        # answer is about the phase open now.
        return Reading(Status.COMMAND, asked, player=player, phase=phase, card=texts[0], reply_to=player)
    if phase is None:
        code = "game_not_running" if game.status == Game.Status.DRAFT else "game_over"
        return Reading(Status.REFUSED, code, player=player, reply_to=player)
    if phase.index != index:
        # A reply to the mail of a phase already resolved: late, whatever the open step
        # asks (a ghost's accusation vote arriving as the ballot opens is late, not a
        # ghost's ballot). `unasked` says the open step asks the seat for nothing, so the
        # answer does not tell it to reply to the newest mail with a card.
        params = {"unasked": bool(selectors.unasked(game.engine_state, player.occupied_seat))}
        return Reading(Status.REFUSED, "phase_closed", player=player, phase=phase, reply_to=player, params=params)
    reading = Reading(Status.REFUSED, "", player=player, phase=phase, card=texts[0], reply_to=player)
    seat = player.occupied_seat
    slot = engine.phase(game.engine_state).asks(seat)
    problems = []
    for text in texts:
        try:
            order = read_card(text, names, slot, game.ruleset)
            reading.card = text
            break
        except CardError as problem:
            problems.append(problem)
    else:
        reading.code, reading.params = problems[0].code, {"card_error": problems[0]}
        return reading
    try:
        reading.order = services.submit_order(game, seat, order, phase_id=phase.pk, source=Order.Source.MAIL)
    except services.ServiceError as refusal:
        reading.code, reading.params = refusal.code, {"service_error": refusal}
        return reading
    reading.status = Status.APPLIED
    reading.phase = Phase.objects.get(pk=phase.pk)
    return reading


@dataclass
class Away:
    """What one absence line came to: `done` ("declared", "withdrawn") with the
    absences it touched, or the refusal's `code` (and the service's refusal, if any)."""

    text: str
    code: str
    done: bool = False
    absences: list[Absence] = field(default_factory=list)
    service_error: services.ServiceError | None = None


def _absences(reading: Reading, lines: Sequence[str], alone: bool = False) -> Reading:
    """Do what each absence line says for the reading's seat, from any of its mails
    (games/absences.py), and add each outcome to the reading for the answer; `alone`:
    the lines are the whole reply, so its outcome is theirs (done, or refused)."""
    if not lines:
        return reading
    assert reading.player is not None
    outcomes = [_away(reading.player, line) for line in lines]
    failed = next((outcome for outcome in outcomes if not outcome.done), None)
    reading.away = (failed or outcomes[0]).code
    reading.params = {**reading.params, "away": outcomes, "away_alone": alone}
    if alone:
        reading.status = InboundMessage.Status.COMMAND if failed is None else InboundMessage.Status.REFUSED
        reading.code, reading.card = reading.away, "\n".join(lines)
    return reading


def _away(player: Player, text: str) -> Away:
    """An absence line (AWAY, NOT AWAY: games/absences.py): done, or refused with what
    to write, nothing changed."""
    try:
        done, changed = absences.apply_line(player, text, Absence.Source.MAIL)
    except dates.DateError as problem:
        return Away(text, problem.code)
    except services.ServiceError as refusal:
        return Away(text, refusal.code, service_error=refusal)
    return Away(text, f"away_{done}", done=True, absences=changed)


def _handed_on(row: InboundMessage, refused: links.LinkError, robot: bool) -> Reading:
    """A reply to a mail of a seat's link since revoked (werewolf/mail/held.py): kept
    with its game under the person who wrote it, and answered at their address with who
    holds the seat and what to do; the game is not changed. A sender the seat never
    had is told nothing."""
    Status = InboundMessage.Status
    assert refused.link is not None
    seat = refused.link.player
    former = held.former(refused.link, row.sender)
    if former is None:
        return Reading(Status.UNMATCHED, "revoked_reference", game=seat.game)
    if robot:
        return Reading(Status.REFUSED, "auto_submitted", player=seat)
    if former.code == held.MOVED:  # still the seat's person: answered at its address
        return Reading(Status.REFUSED, former.code, player=seat, reply_to=seat, author=former.name)
    return Reading(Status.REFUSED, former.code, player=seat, author=former.name, former=former)


def _speaker(addresses: Iterable[str]) -> Player | LinkErrorCode | links.LinkError | None:
    """The seat a talk reply address names (a reply to a talk digest), or why it is no
    good (the refusal of a revoked one, which names its link), or None when the message
    went to no talk address."""
    for address in addresses:
        local = address.rsplit("@", 1)[0]
        if "+t-" not in local:
            continue
        try:
            return links.player_for_talk(local.split("+", 1)[1])
        except links.LinkError as refused:
            if refused.code == "revoked" and refused.link is not None:
                return refused
            return LinkErrorCode("forged_reference")
    return None


@dataclass(frozen=True)
class LinkErrorCode:
    code: str


def _talk(
    row: InboundMessage, message: EmailMessage, speaker: Player | LinkErrorCode, size: int, readable: bool
) -> Reading:
    """A reply to a talk digest: what the player wrote above the quote is posted in the
    town square, as that seat, if the sender is the seat's own address and the ruleset
    lets the seat speak there now; else refused, and the seat told why."""
    Status = InboundMessage.Status
    if isinstance(speaker, LinkErrorCode):
        return Reading(
            Status.UNMATCHED, speaker.code, reply_to=None if _automatic(message) else _known_sender(row.sender)
        )
    if _automatic(message):
        return Reading(Status.REFUSED, "auto_submitted", player=speaker)
    if not _same_address(row.sender, speaker.email):
        return Reading(Status.REFUSED, "wrong_sender", player=speaker, reply_to=speaker, params={"sender": row.sender})
    if size > settings.WEREWOLF_INBOUND_READ_BYTES:
        return Reading(Status.REFUSED, "too_large", player=speaker, reply_to=speaker)
    if not readable:
        return Reading(Status.REFUSED, "unreadable", player=speaker, reply_to=speaker)
    game = speaker.game
    text = "\n".join(replies.split(_body(message)[:MAX_TEXT_CHARS], grammar(game.ruleset), ()).own).strip()
    try:
        posted = talk.post(game, speaker.seat, engine.talk.SQUARE, text, author=speaker, source=Post.Source.MAIL)
    except services.ServiceError as refusal:
        return Reading(
            Status.REFUSED,
            refusal.code,
            player=speaker,
            card=text[:2000],
            reply_to=speaker,
            params={"talk_error": refusal.code},
        )
    return Reading(Status.POSTED, "posted", player=speaker, card=posted.text[:2000])


def _addressee(addresses: Iterable[str]) -> tuple[Player | None, int, str | links.LinkError]:
    """The seat and phase named by the first valid reference among the addresses the
    message went to; else (None, 0, why): the refusal of a revoked reference (it names
    the link, and so the seat), or the code of what else went wrong."""
    problem: str | links.LinkError = "no_reference"
    for address in addresses:
        local = address.rsplit("@", 1)[0]
        if "+" not in local:
            continue
        try:
            player, index = links.player_for_reference(local.split("+", 1)[1])
        except links.LinkError as refused:
            if not isinstance(problem, links.LinkError):
                problem = refused if refused.code == "revoked" and refused.link is not None else "forged_reference"
            continue
        return player, index, ""
    return None, 0, problem


def _addresses(envelope: Iterable[str], message: EmailMessage) -> list[str]:
    """The envelope's addresses, then those of the first MAX_ADDRESS_HEADERS headers of
    each name in ADDRESS_HEADERS (each cut to MAX_HEADER_CHARS by the policy)."""
    found = [address.strip().lower() for address in envelope if address.strip()]
    raw = list(message.raw_items())
    for wanted in ADDRESS_HEADERS:
        values = [(name, value) for name, value in raw if name.lower() == wanted.lower()]
        for name, value in values[:MAX_ADDRESS_HEADERS]:
            try:
                text = str(message.policy.header_fetch_parse(name, value))
                found += [address.strip().lower() for _, address in getaddresses([text]) if address]
            except Exception:  # a header too broken to parse is no address
                continue
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
    """Text fit for any database: PostgreSQL refuses NUL characters, which mail may hold,
    and no database takes the lone surrogates undecodable bytes become."""
    return value.replace("\x00", "\ufffd").encode("utf-8", "replace").decode("utf-8")


def _header(message: EmailMessage, name: str) -> str:
    try:
        value = message.get(name)
    except Exception:  # undecodable header: keep nothing rather than fail the message
        return ""
    return " ".join(str(value).split()) if value is not None else ""


def _sender(message: EmailMessage) -> str:
    return parseaddr(_header(message, "From"))[1].lower()


_ROBOT_PRECEDENCE = {"bulk", "junk", "list", "auto_reply"}
_ROBOT_SENDERS = ("mailer-daemon@", "postmaster@")


def _automatic(message: EmailMessage) -> bool:
    """Mail no person wrote: an auto-reply, a mailing list's, or a bounce (RFC 3834's
    Auto-Submitted, and the markers responders and lists use). Kept and shown, never
    answered nor read as a card, so that two robots never talk forever."""
    submitted = _header(message, "Auto-Submitted").lower()
    if submitted and submitted != "no":
        return True
    if _header(message, "Precedence").lower() in _ROBOT_PRECEDENCE:
        return True
    if any(_header(message, name) for name in ("X-Autoreply", "X-Autorespond", "List-Id", "X-Failed-Recipients")):
        return True
    return_path = _header(message, "Return-Path")
    if return_path in ("<>", "") and "Return-Path" in message:
        return True
    if _bounce(message) or any(marker in return_path.lower() for marker in _ROBOT_SENDERS):
        return True
    return _sender(message).startswith(_ROBOT_SENDERS)


def _bounce(message: EmailMessage) -> bool:
    """A delivery status notification (RFC 3464), or a non-delivery report that says so."""
    try:
        return message.get_content_type() == "multipart/report"
    except Exception:
        return False


# Reading the card out of a reply ----------------------------------------------------


def own_text(message: EmailMessage, words: Grammar, names: Sequence[str]) -> replies.Reply:
    """What the player wrote in a reply, its cards and absence lines to be read from
    (see replies.py: quoted mail, sign-offs and signatures never count)."""
    return replies.split(_body(message)[:MAX_TEXT_CHARS], words, names)


def _body(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        payload = part.get_payload(decode=True)
    except Exception:  # a transfer encoding too broken to undo
        return ""
    if not isinstance(payload, bytes):
        return ""
    content = _decode(payload, part)
    if part.get_content_subtype() == "html":
        return _html_text(content)
    if _param(part, "format").lower() == "flowed":
        return _unflow(content, _param(part, "delsp").lower() == "yes")
    return content


def _param(part: MIMEPart, name: str) -> str:
    """A Content-Type parameter of `part`, "" if it has none. (`get_param` gives an RFC 2231
    value as a tuple under the compat32 policy; this module's policy decodes it already.)"""
    value = part.get_param(name, "")
    return collapse_rfc2231_value(value) if isinstance(value, tuple) else value


def _unflow(text: str, delsp: bool) -> str:
    """format=flowed text (RFC 3676) as the player wrote it: a line ending in a space
    goes on on the next line of the same quote depth (the space dropped with
    DelSp=yes); "-- " stays alone."""
    lines: list[str] = []
    depths: list[int] = []
    joining = False
    for line in text.splitlines():
        depth = len(line) - len(line.lstrip(">"))
        body = line[depth:]
        if body.startswith(" "):
            body = body[1:]  # space-stuffed
        if joining and lines and depths[-1] == depth:
            lines[-1] += body
        else:
            lines.append(">" * depth + (" " if depth else "") + body)
            depths.append(depth)
        joining = line.endswith(" ") and body != "-- "
        if joining and delsp:
            lines[-1] = lines[-1][:-1]
    return "\n".join(lines)


def _decode(payload: bytes, part: MIMEPart) -> str:
    """The text of a part: in its charset if that is one mail uses and Python knows,
    else as UTF-8 (which ASCII is too)."""
    try:
        charset = part.get_content_charset() or "utf-8"
        codec = codecs.lookup(charset).name.replace("-", "_")
        if codec not in NOT_MAIL_CHARSETS:
            return payload.decode(codec, "replace")
    except Exception:  # LookupError, or a charset name no codec could have
        pass
    return payload.decode("utf-8", "replace")


# The text of an HTML reply, read in one pass: html.parser.HTMLParser takes quadratic time
# on some markup ("<a" repeated 300,000 times: over five minutes).

_BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6"}
_HIDDEN = {
    name: re.compile(rf"</{name}\s*>" + (r"|<body[\s>]" if name == "head" else ""), re.IGNORECASE)
    for name in ("style", "script", "head", "title")
}
_TAG_NAME = re.compile(r"/?([a-zA-Z][^\s/>]*)")
_CLASS = re.compile(r"""\bclass\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.IGNORECASE)


def _html_text(html: str) -> str:
    """The text of an HTML reply up to where it starts quoting (a blockquote, or an
    element whose class says quote), without what is never shown, a line break for
    each block. Every character is looked at a bounded number of times."""
    parts: list[str] = []
    position, end = 0, len(html)
    while position < end:
        opening = html.find("<", position)
        if opening < 0:
            parts.append(htmllib.unescape(html[position:]))
            break
        parts.append(htmllib.unescape(html[position:opening]))
        if html.startswith("<!--", opening):
            closing = html.find("-->", opening + 4)
            if closing < 0:
                break  # the rest is an unclosed comment
            position = closing + 3
            continue
        following = html[opening + 1 : opening + 2]
        if not following or not (following.isascii() and following.isalpha() or following in "/!?"):
            parts.append("<")  # "a < b": a character, not a tag
            position = opening + 1
            continue
        closing = html.find(">", opening + 1)
        if closing < 0:
            break  # an unclosed tag: nothing after it is shown
        tag, position = html[opening + 1 : closing], closing + 1
        named = _TAG_NAME.match(tag)
        if named is None:  # <!doctype>, <?xml?>, <![CDATA[ and the like
            continue
        name = named.group(1).lower()
        if tag.startswith("/"):
            if name in _BLOCKS:
                parts.append("\n")
            continue
        found = _CLASS.search(tag)
        if name == "blockquote" or (found and "quote" in "".join(filter(None, found.groups())).lower()):
            break  # the quoted mail starts here
        if name in _HIDDEN:
            ended = _HIDDEN[name].search(html, position)
            if ended is None:
                break  # hidden to the end
            # A head left open ends where the body starts: the body's tag is read next.
            position = ended.end() if ended.group(0).startswith("</") else ended.start()
            continue
        if name in _BLOCKS:
            parts.append("\n")
    return "".join(parts)
