"""Outbound mail through an outbox: the welcome with a player's private link, after each
phase the events that player may know, and the answer to a mailed card.

Each mail is a `Dispatch` row, rendered and committed before anything talks to the mail
server (for phase results, in the very transaction that resolves the phase, so a lost
task loses no mail). Sending takes a batch of rows in one statement (`claimed`), hands
them to SMTP over one connection, marking each `sending` just before it goes and `sent`
once the server has taken it (the two marks of neighbouring mails share a statement). A
failure is kept on its row and retried with back-off; it never stops another message. A
row left `sending` by a worker that died is never sent again by the sweep: it becomes
`uncertain`, and the organiser may send it again (with the same Message-ID, which lets
mail clients drop a copy they already have); rows it had only taken are due again. See
docs/architecture.md, "Mail".
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, timedelta
from email.headerregistry import Address
from email.policy import Compat32
from email.utils import parseaddr
from functools import lru_cache, partial
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.core.mail.backends.smtp import EmailBackend as SMTPBackend
from django.core.mail.message import sanitize_address
from django.db import close_old_connections, connections, transaction
from django.db.models import Case, F, Q, TextField, Value, When
from django.db.utils import DatabaseError, InterfaceError
from django.template import Context, Engine
from django.template.loader import get_template, render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.html import escape

from werewolf import addresses, engine, kept_words
from werewolf.engine import grammar
from werewolf.games import attendance, links, queue, scores, selectors, standbys
from werewolf.games.models import (
    DISPATCH_DUE,
    Dispatch,
    Game,
    InboundMessage,
    Phase,
    Player,
    Post,
    SeatHolding,
    Standby,
)
from werewolf.games.outbox import READ, Default, HandOver
from werewolf.games.rows import insert as insert_rows
from werewolf.games.rows import phase_events
from werewolf.games.templatetags.werewolf import worded

from . import kept, mime, pipelining

logger = logging.getLogger(__name__)

Status = Dispatch.Status

RETRY_DELAYS = (
    timedelta(minutes=1),
    timedelta(minutes=5),
    timedelta(minutes=15),
    timedelta(hours=1),
    timedelta(hours=3),
    timedelta(hours=6),
)
"""How long to wait after the n-th failed attempt; after the last one the row is given up."""


BATCH = 200
"""How many due rows one sweep claims at a time."""

CLAIM_STALE = timedelta(minutes=2)
"""How long rows a sender took and has not tried stay its own, if it stops (dies)."""

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


# Queueing: called inside the transaction that makes the news ---------------------------


def queue_welcome(player: Player, request: str = "") -> list[int]:
    """The player's seat and link. `request` names a repeat the organiser asked for, so
    that it is sent once too. Call it after the game's first phase is open."""
    link = links.current(player)
    if link is None or not player.email or player.is_bot:
        return []
    key = f"welcome:{link.pk}" + (f":{request}" if request else "")
    return _queue([(player, key, Dispatch.Kind.WELCOME, None, partial(_render_welcome, player))])


def _render_welcome(player: Player) -> dict[str, Any]:
    # The game's missed-cards policy, told to every player at the start.
    game, seat = player.game, player.occupied_seat
    seen = selectors.visible_events(game, seat)
    context = {**_context(player, seen=seen), "policy": attendance.policy_of(game)}
    context["circle"] = selectors.circle(game, seat, seen)  # the seats, the dead marked
    return _render(player, "welcome", context)


HAND_OVER_MAILS: dict[SeatHolding.Reason, tuple[str, str]] = {
    SeatHolding.Reason.STOOD_IN: ("stand_in", "seat_held"),
    SeatHolding.Reason.BACK: ("seat_back", ""),
    SeatHolding.Reason.SUBSTITUTED: ("take_over", "seat_lost"),
    SeatHolding.Reason.TOOK_OVER: ("take_over", "seat_lost"),
}
"""Why a seat changed hands: the mail to the person who took it, and to the one who left
it. (The standby who gives a seat back is thanked by `queue_stand_in_over`; the same
person at a new address gets the welcome again.)"""


def queue_hand_over(player: Player, handed: HandOver) -> list[int]:
    """Each person a hand-over concerns, told what it means for them in a mail that
    stands alone, once per hand-over (the keys name the seat's new link): the one who
    took the seat, their link and the seat's story as the seat saw it (all of it, or
    what happened while its player was away); the one who left it, that the seat is
    held for them or no longer theirs, and no secret."""
    if handed.reason == SeatHolding.Reason.CORRECTED:
        return queue_welcome(player)
    link = links.current(player)
    if link is None:
        return []
    taking, leaving = HAND_OVER_MAILS[handed.reason]
    queued = []
    if player.email and not player.is_bot:
        build = partial(_render_hand_over, player, taking, handed)
        queued += _queue([(player, f"{taking}:{link.pk}", Dispatch.Kind.WELCOME, None, build)])
    if leaving and handed.email and not handed.mail_stopped:
        game = player.game
        context = {
            "game": game,
            "handed": handed,
            "seat": player.occupied_seat,
            "holder": player.name,
            "absence": handed.absence,
            "public": settings.SITE_URL + reverse("games:public", args=[game.public_key]),
        }
        row = (f"{leaving}:{link.pk}", Dispatch.Kind.WELCOME, None, handed.name, handed.email, leaving, context)
        queued += _queue_rows(game, [row])
    return queued


def _render_hand_over(player: Player, template: str, handed: HandOver) -> dict[str, Any]:
    """The mail to the person who took the seat: the welcome's words (role, link, the
    open phase, the seats), why they have the seat, and the seat's story as the seat
    saw it, read by the seat page's own selectors (`selectors.log`): nothing else."""
    game = player.game
    seat = player.occupied_seat
    seen = selectors.visible_events(game, seat)
    story = selectors.log(game, seat, seen)
    if handed.reason == SeatHolding.Reason.BACK and handed.absence is not None:
        story = _while_away(game, story, handed.absence)
    context = {
        **_context(player, seen=seen),
        "policy": attendance.policy_of(game),
        "handed": handed,
        "absence": handed.absence,
        "circle": selectors.circle(game, seat, seen),
        "story": story,
    }
    # The seat's card in the open phase, if whoever held it handed one in: the seat's own.
    context["standing"] = selectors.card_of(context["next_phase"], seat) if context["slot"] else None
    return _render(player, template, context)


def _while_away(game: Game, story: list[selectors.PhaseLog], absence: Any) -> list[selectors.PhaseLog]:
    """The part of a seat's story its player missed while a standby held it: from the
    phase whose results went to the standby (a stand-in begins as a phase opens, after
    the one before it resolved) on."""
    opened = game.phases.filter(opened_at__lte=absence.stood_in_at).order_by("-index").first()
    first = opened.index - 1 if opened is not None else 0
    return [group for group in story if group.phase is not None and group.phase.index >= first]


def queue_phase_mails(
    phase: Phase, *, players: list[Player] | None = None, following: Phase | None | Default = READ, fresh: bool = False
) -> list[int]:
    """Every player with an address: what the phase's resolution showed them. Call it
    after the next phase (if any) is open, so the mail can ask for its card.

    The resolution, which has them at hand, passes the game's players and the phase it
    opened (`following`, None if the game is over), and says the phase's mails are
    `fresh`: queued in the very transaction that closed it, so none can exist yet."""
    game = phase.game
    events = phase_events(phase)
    everyone = list(game.players.all()) if players is None else players
    readers = [player for player in everyone if player.email and not player.is_bot and player.seat is not None]
    links.prime(readers)
    if following is READ:
        following = game.current_phase() if game.is_running else None
    seated = sorted((player for player in everyone if player.seat is not None), key=lambda player: player.occupied_seat)
    # What every seat's mail reads alike, read once.
    shared = Shared(game.engine_state, following, [player.name for player in seated])
    # The step's events named as its log names them: each seat by its holder then (not
    # by a standby seated as the next step opened), each card by its writer.
    selectors.name_events(game, events)
    return _queue(
        [
            (
                player,
                f"phase:{phase.pk}:{player.pk}",
                Dispatch.Kind.PHASE,
                phase,
                partial(_render_phase, player, phase, events, shared),
            )
            for player in readers
        ],
        fresh=fresh,
    )


def queue_inbound_reply(row: InboundMessage, reading: Any) -> list[int]:
    """Tell the seat what became of its mailed card: taken, or refused and why. Sent to
    the seat's registered address only, and once per inbound message."""
    player = reading.reply_to
    if player is None or not player.email:
        return []
    # The card may have closed the step it was for: ask for the card of the step open now.
    player.game.refresh_from_db()
    context = _context(player)
    context.update(
        {
            "reading": reading,
            "inbound": row,
            "order": reading.order.order if reading.order else None,
            "taken_for": reading.phase,
            "standing": selectors.card_of(context["next_phase"], player.seat) if reading.code == "status" else None,
            "max_post": engine.talk.MAX_POST,
            # The words of the card asked of this seat now, and only those: not every word
            # the ruleset (or another) knows, nor another seat's card, which would tell
            # which roles are in play.
            "verbs": grammar.verbs(
                grammar.slot_cards([context["slot"]] if context["slot"] else []), player.game.ruleset
            ),
        }
    )
    headers = {"In-Reply-To": row.message_id, "References": row.message_id} if row.message_id else {}
    return _queue(
        [
            (
                player,
                f"inbound:{row.pk}",
                Dispatch.Kind.INBOUND_REPLY,
                None,
                lambda: _render(player, "inbound_reply", context, headers),
            )
        ]
    )


def queue_signup(player: Player) -> list[int]:
    """The link that confirms a sign-up by the join link (the address must be theirs)."""
    if not player.email:
        return []
    context = {"game": player.game, "player": player, "link": links.signup_url(player)}
    return _queue(
        [(player, f"signup:{player.pk}", Dispatch.Kind.SIGNUP, None, lambda: _render(player, "signup", context))]
    )


def queue_reminders(phase: Phase, players: list[Player]) -> list[int]:
    """A reminder to each of `players` that their card for `phase` is not in: once per
    seat and phase (the key), whatever the beat does."""
    return _queue(
        [
            (
                player,
                f"reminder:{phase.pk}:{player.pk}",
                Dispatch.Kind.REMINDER,
                phase,
                partial(_render_reminder, player),
            )
            for player in players
        ]
    )


def queue_deadline_moved(phase: Phase, players: list[Player], reason: str = "organiser") -> list[int]:
    """Tell each of `players` that the open phase's deadline moved (`reason`: the
    organiser moved it, an absence did, or the game was resumed after a pause): once
    per seat and new deadline (the key), with what the phase asks of the seat."""
    stamp = int(phase.deadline.timestamp())
    return _queue(
        [
            (
                player,
                f"deadline:{phase.pk}:{player.pk}:{stamp}",
                Dispatch.Kind.REMINDER,
                phase,
                partial(_render_deadline_moved, player, reason),
            )
            for player in players
            if player.email and not player.is_bot
        ]
    )


def _render_deadline_moved(player: Player, reason: str = "organiser") -> dict[str, Any]:
    # A seat whose card is in is told so (its own card), not asked for it again.
    context = _context(player)
    card_in = selectors.card_of(context["next_phase"], player.occupied_seat) if context["slot"] else None
    return _render(player, "deadline_moved", {**context, "reason": reason, "card_in": card_in})


def queue_paused(game: Game, phase: Phase | None, players: list[Player]) -> list[int]:
    """Tell each of `players` that the organiser paused the game: once per seat and
    pause (the key names when it began)."""
    stamp = int(game.paused_at.timestamp()) if game.paused_at else 0
    return _queue(
        [
            (
                player,
                f"paused:{game.pk}:{player.pk}:{stamp}",
                Dispatch.Kind.REMINDER,
                phase,
                partial(_render, player, "paused", {"game": game, "player": player, "link": links.url_for(player)}),
            )
            for player in players
            if player.email and not player.is_bot
        ]
    )


def _render_reminder(player: Player) -> dict[str, Any]:
    return _render(player, "reminder", _context(player))


def queue_talk_digest(player: Player, posts: list[Post], upto: int) -> list[int]:
    """What was said in the places `player` reads since their last digest (`posts`, all
    readable by the seat), once per range (the key names the newest post). Every digest
    of a game refers to one thread, so mail clients keep a game's talk together."""
    game = player.game
    thread = message_id_for(f"talk-thread:{game.pk}")
    reference = links.talk_reference(player) if settings.WEREWOLF_MAIL_ORDERS else None
    context = {
        "game": game,
        "player": player,
        "posts": posts,
        "link": links.url_for(player),
        "reply_to": orders_address(reference) if reference else "",
    }
    headers = {"In-Reply-To": thread, "References": thread}
    return _queue(
        [
            (
                player,
                f"talk:{player.pk}:{upto}",
                Dispatch.Kind.TALK,
                None,
                lambda: _render(player, "talk", context, headers),
            )
        ]
    )


def queue_account_mail(message: EmailMultiAlternatives, key: str = "") -> int:
    """A mail to an organiser's account (an address to confirm, a password reset, an
    invitation), written by the web process into the outbox and sent by a worker once
    the request's transaction commits, like every other mail: the web process never
    talks to the mail server, and a flood of requests is a flood of rows the limits
    already stopped, not of connections."""
    key = key or f"account:{secrets.token_hex(16)}"
    html = next((content for content, mimetype in message.alternatives if mimetype == "text/html"), "")
    row = Dispatch.objects.create(
        key=key,
        kind=Dispatch.Kind.ACCOUNT,
        message_id=message_id_for(key),
        recipient=_text(", ".join(message.to)),
        subject=_text(str(message.subject)),
        body_text=str(message.body) if message.content_subtype != "html" else "",
        body_html=str(message.body) if message.content_subtype == "html" else str(html),
        headers={
            "From": sender(),  # the moderator's name in the language the mail is written in
            **{name: value for name, value in message.extra_headers.items() if name != "Message-ID"},
        },
        next_attempt_at=timezone.now(),
    )
    queue.after_commit(MAIL_TASK, [row.pk])
    return row.pk


# Sending ---------------------------------------------------------------------------


def deliver(ids: Iterable[int]) -> int:
    """Send the given rows that are due (others have been sent, or are another worker's).
    Run outside any transaction: each claim and each "sent" is committed at once."""
    return _send(list(ids))


def send_pending(now: Any = None) -> int:
    """The beat's sweep: give up on rows a dead worker left `sending` (never resent) and
    put back the ones it had only taken, then send what is due, a batch at a time. Two
    indexed statements when nothing is due."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.WEREWOLF_MAIL_STALE_SECONDS)
    # Nothing of a row only taken has gone out, and a sender marks a row `sending` only
    # while it still holds it (its token): a taken row can be handed to another sender
    # far sooner than a row in doubt is given up, and never goes out twice.
    taken_stale = now - min(CLAIM_STALE, timedelta(seconds=settings.WEREWOLF_MAIL_STALE_SECONDS))
    Dispatch.objects.filter(
        Q(status=Status.SENDING, claimed_at__lt=stale) | Q(status=Status.CLAIMED, claimed_at__lt=taken_stale)
    ).update(
        status=Case(When(status=Status.SENDING, then=Value(Status.UNCERTAIN)), default=Value(Status.PENDING)),
        last_error=Case(
            When(status=Status.SENDING, then=Value("worker_lost")), default=F("last_error"), output_field=TextField()
        ),
        claimed_by="",
    )
    sent = 0
    while True:
        due = list(
            Dispatch.objects.filter(DISPATCH_DUE, next_attempt_at__lte=now)
            .order_by("next_attempt_at")
            .values_list("pk", flat=True)[:BATCH]
        )
        if not due:
            return sent
        sent += _send(due)
        if len(due) < BATCH:
            return sent


def send_inbound_reply(row: InboundMessage, reading: Any) -> bool:
    """Queue the answer to a mailed card and send it at once (the sweep retries it)."""
    return bool(deliver(queue_inbound_reply(row, reading)))


def queue_handed_on_reply(row: InboundMessage, reading: Any) -> list[int]:
    """Answer a reply from a person who held the seat before (werewolf/mail/held.py), at
    the address they held it with, once per inbound message: the seat is held by someone
    else for now (until when, and how to come back early) or for good, and nothing was
    changed. Nothing of the seat's since (its role, its cards, its link) is in it."""
    former, game = reading.former, row.game
    if former is None or game is None or not former.email:
        return []
    context = {
        "game": game,
        "former": former,
        "inbound": row,
        "public_url": settings.SITE_URL + reverse("games:public", args=[game.public_key]),
        "headers": {"In-Reply-To": row.message_id, "References": row.message_id} if row.message_id else {},
    }
    mail = (f"inbound:{row.pk}", Dispatch.Kind.INBOUND_REPLY, None, former.name, former.email, "handed_on_reply")
    return _queue_rows(game, [(*mail, context)])


def send_handed_on_reply(row: InboundMessage, reading: Any) -> bool:
    """Queue `queue_handed_on_reply`'s answer and send it at once (the sweep retries it)."""
    return bool(deliver(queue_handed_on_reply(row, reading)))


def send_phase_mails(phase_id: int) -> int:
    """Queue (if not yet) and send the phase's results. Safe to run any number of times."""
    phase = Phase.objects.select_related("game").filter(pk=phase_id).first()
    if phase is None:
        return 0
    queue_phase_mails(phase)
    return deliver(Dispatch.objects.filter(phase=phase).values_list("pk", flat=True))


def send_again(dispatch: Dispatch) -> bool:
    """The organiser's "send again" for a row that failed or may not have gone out: the
    same message, with the same Message-ID."""
    return bool(
        Dispatch.objects.filter(pk=dispatch.pk, status__in=[Status.FAILED, Status.UNCERTAIN]).update(
            status=Status.PENDING, next_attempt_at=timezone.now(), attempts=0, last_error=""
        )
    )


def _send(ids: list[int]) -> int:
    """Send the due rows among `ids` over one connection to the mail server, opened only
    if there is something to send.

    The rows are taken in one statement (`claimed`: nothing has gone out, so a sender
    that dies leaves them due again). Each is then marked `sending` just before it is
    handed over, in the same statement that records the one before it as `sent`: one
    commit a mail, and a sender that dies leaves at most the one message it was sending
    in doubt, never the rest of its batch."""
    token = secrets.token_hex(8)
    return _send_taken(token, _claim(ids, token))


def _send_taken(token: str, rows: list[Dispatch]) -> int:
    """Send `rows`, taken (`claimed`) by the sender `token`, as `_send` does."""
    if not rows:
        return 0
    connection = None
    handed: tuple[Dispatch, str] | None = None  # taken by the server, not yet recorded
    sent = 0
    left = len(rows)
    try:
        for row in rows:
            left -= 1
            # (Taken off before it is recorded: if the database is gone for good, that
            # mail stays `sending`, to end `uncertain`, and is not tried again below.)
            last, handed = handed, None
            if not _advance(token, last, row):
                continue
            try:
                if connection is None:  # one for the batch (send() alone opens one each), kept after it
                    connection = kept.borrow()
                message = _message(row, connection)
                if not _hand_over(message):
                    raise OSError("the mail backend took nothing")
            except Exception as failure:
                _failed(row, failure)
                if connection is not None:  # a broken connection would fail the next one too
                    kept.close_quietly(connection)
                    connection = None
                continue
            handed = (row, _provider_id(message))
            logger.info(
                "sent dispatch %s (%s)",
                row.pk,
                row.kind,
                extra={"dispatch": row.pk, "kind": row.kind, "phase": row.phase_id, "attempt": row.attempts + 1},
            )
            sent += 1
    finally:
        try:
            if handed is not None:
                _advance(token, handed, None)
        finally:
            if left:  # stopped early: what was taken and not tried is due again
                _release(token)
            if connection is not None:
                if left:  # (stopped by an error: not a connection to keep)
                    kept.close_quietly(connection)
                else:
                    kept.give_back(connection)
    return sent


def _table() -> str:
    return Dispatch._meta.db_table


def _claim(ids: list[int], token: str) -> list[Dispatch]:
    """Take the due rows among `ids` for this sender, in one statement; the rows taken,
    in order. Rows another sender holds, or that went out, are left alone."""
    if not ids:
        return []
    database = connections[Dispatch.objects.db]
    now = database.ops.adapt_datetimefield_value(timezone.now())
    marks = ", ".join(["%s"] * len(ids))
    with database.cursor() as cursor:
        cursor.execute(
            f"UPDATE {_table()} SET status = %s, claimed_by = %s, claimed_at = %s"  # noqa: S608 - no input in the names
            f" WHERE id IN ({marks}) AND status IN (%s, %s) AND next_attempt_at <= %s",
            [Status.CLAIMED, token, now, *ids, Status.PENDING, Status.RETRYING, now],
        )
        if not cursor.rowcount:
            return []
    return list(Dispatch.objects.filter(claimed_by=token, status=Status.CLAIMED).order_by("pk"))


def _advance(token: str, handed: tuple[Dispatch, str] | None, row: Dispatch | None) -> bool:
    """In one statement: record `handed` (the mail the server took last) as sent, and
    mark `row` (the next one) as being sent. Whether `row` is still ours to send.

    A database that is restarting is waited for a little: until this commits, the mail
    handed over says `sending` and would end `uncertain`."""
    database = connections[Dispatch.objects.db]
    done_id, provider_id = (handed[0].pk, handed[1]) if handed else (None, "")
    next_id = row.pk if row is not None else None
    sql, params = mark_statement(database, token, done_id, provider_id, next_id)
    expected = (handed is not None) + (row is not None)
    for attempt in range(20):
        try:
            if hasattr(database, "run_prepared"):  # PostgreSQL: parsed and planned once per connection
                changed, _ = database.run_prepared(sql, params)
            else:
                with database.cursor() as cursor:
                    cursor.execute(sql, params)
                    changed = cursor.rowcount
            break
        except (DatabaseError, InterfaceError):
            logger.warning("could not record dispatch %s as sent (try %s)", done_id or next_id, attempt + 1)
            close_old_connections()
            time.sleep(min(0.5 * (attempt + 1), 3))
    else:
        logger.error("dispatch %s was sent but could not be recorded: it will show as uncertain", done_id)
        raise DatabaseError("the outbox could not be written")
    if changed == expected or row is None:
        return row is not None
    # Fewer rows than asked: find out whether the next one is still ours.
    return Dispatch.objects.filter(pk=row.pk, claimed_by=token, status=Status.SENDING).exists()


def mark_statement(
    database: Any, token: str, done_id: int | None, provider_id: str, next_id: int | None
) -> tuple[str, list[Any]]:
    """The one statement of a mark (`_advance`), and its parameters: mail `done_id`
    recorded as sent (with the id its provider gave it, if any), mail `next_id` marked as
    being sent, both only while the sender `token` holds them. (Public: the outbox's
    benchmark runs the very statement.)"""
    now = database.ops.adapt_datetimefield_value(timezone.now())
    table = _table()
    sql = (
        f"UPDATE {table} SET"  # noqa: S608 - no input in the names
        " status = CASE WHEN id = %s THEN %s ELSE %s END,"
        " attempts = CASE WHEN id = %s THEN attempts + 1 ELSE attempts END,"
        " claimed_at = CASE WHEN id = %s THEN %s ELSE claimed_at END,"
        " sent_at = CASE WHEN id = %s THEN %s ELSE sent_at END,"
        " provider_id = CASE WHEN id = %s THEN %s ELSE provider_id END,"
        " last_error = CASE WHEN id = %s THEN '' ELSE last_error END"
        " WHERE claimed_by = %s AND ((id = %s AND status = %s) OR (id = %s AND status = %s))"
    )
    params = [
        *(next_id, Status.SENDING, Status.SENT),
        next_id,
        *(next_id, now),
        *(done_id, now),
        *(done_id, provider_id),
        done_id,
        token,
        *(next_id, Status.CLAIMED, done_id, Status.SENDING),
    ]
    return sql, params


def _release(token: str) -> None:
    """Put back the rows this sender took and never tried: due again, for anyone."""
    try:
        Dispatch.objects.filter(claimed_by=token, status=Status.CLAIMED).update(status=Status.PENDING, claimed_by="")
    except Exception:  # the database is away: the sweep puts them back once they are stale
        logger.exception("could not put back the mails taken by sender %s", token)


def _provider_id(message: Any) -> str:
    """The id a mail provider gave the message (django-anymail), if one sent it."""
    found = getattr(getattr(message, "anymail_status", None), "message_id", None)
    return "" if found is None else str(found)[:255]


def _failed(row: Dispatch, failure: BaseException) -> None:
    logger.warning(
        "could not send dispatch %s (%s): %s",
        row.pk,
        row.key,
        failure,
        extra={"dispatch": row.pk, "kind": row.kind, "phase": row.phase_id, "attempt": row.attempts + 1},
    )
    error = f"{type(failure).__name__}: {failure}"[:2000]
    attempts = row.attempts + 1  # counted in the database when the row was marked `sending`
    if attempts > len(RETRY_DELAYS):
        update: dict[str, Any] = {"status": Status.FAILED, "next_attempt_at": None}
    else:
        update = {"status": Status.RETRYING, "next_attempt_at": timezone.now() + RETRY_DELAYS[attempts - 1]}
    try:
        Dispatch.objects.filter(pk=row.pk, status=Status.SENDING).update(last_error=error, **update)
    except Exception:  # the database is away too: the row ends `uncertain`, never resent twice
        logger.exception("could not record the failure of dispatch %s", row.pk)


def _message(row: Dispatch, connection: Any) -> _Mail:
    # Every mail the server sends is automatic (RFC 3834): an answer to a player's mail
    # is auto-replied, the rest auto-generated; responders that honour it stay quiet,
    # and Exchange is asked not to send its out-of-office notes back.
    automatic = "auto-replied" if row.kind == Dispatch.Kind.INBOUND_REPLY else "auto-generated"
    headers = {
        **row.headers,
        "Message-ID": row.message_id,
        "Auto-Submitted": automatic,
        "X-Auto-Response-Suppress": "All",
    }
    # The From written with the mail, in its reader's language (`sender`); rows queued
    # before it was written take the site's.
    sender = headers.pop("From", None) or settings.DEFAULT_FROM_EMAIL
    if settings.WEREWOLF_MAIL_ORDERS and not settings.WEREWOLF_MAIL_PROVIDER:
        # The envelope's return path names this very mail (VERP): a bounce comes back
        # to the orders address and is matched to it (werewolf/mail/bounces.py). A mail
        # provider keeps its own return path (Postmark and SendGrid refuse another one,
        # Mailgun would send from the orders address's domain): its tracking webhook
        # reports the bounce, matched by the provider's id kept on the row.
        headers["From"] = sender
        sender = orders_address(links.bounce_reference(row.pk))
    message = _Mail(
        row.subject,
        row.body_text,
        from_email=sender,
        to=[row.recipient],
        reply_to=[headers.pop("Reply-To")] if headers.get("Reply-To") else None,
        headers=headers,
        connection=connection,
    )
    if row.body_html:
        message.attach_alternative(row.body_html, "text/html")
    for attachment in row.attachments or []:
        message.attach(attachment["filename"], attachment["content"], attachment["mimetype"])
    return message


def _hand_over(message: _Mail) -> bool:
    """Give the mail to the backend. To Django's SMTP backend, on its open connection, as
    bytes written by `mime` (what Django would write, without its tree of objects), its
    envelope in one write where the server takes that (`pipelining`); to any other
    backend (a provider's API, the console, the tests' outbox), as the mail."""
    backend = message.connection
    smtp = getattr(backend, "connection", None)
    # (`_send`, the SMTP backend's own step a subclass may change, is private: not in django-stubs.)
    if smtp is None or not isinstance(backend, SMTPBackend) or type(backend)._send is not SMTPBackend._send:  # type: ignore[attr-defined]
        return bool(message.send())
    try:
        data = mime.as_bytes(message, _boundary, WIRE.fold_binary)
    except mime.Unsupported:
        return bool(message.send())
    recipients = message.recipients()
    if not recipients:
        return False
    pipelining.sendmail(smtp, _envelope(message.from_email), [_envelope(to) for to in recipients], data)
    return True


def _envelope(address: str) -> str:
    """An address for the envelope, as the server will see it from Django's SMTP backend
    (`sanitize_address`, of which smtplib sends only the address between the angle
    brackets): a bare address of plain ASCII words (a return path made for one mail) is
    that address, and so is one after a display name of no special characters (a seat's,
    as `recipient` writes it); any other is worked out by Django, and kept."""
    if _BARE_ADDRESS.fullmatch(address):
        return address
    named = _NAMED_ADDRESS.fullmatch(address)
    return named.group(1) if named else _sanitized(address)


@lru_cache(maxsize=4096)
def _sanitized(address: str) -> str:
    return str(sanitize_address(address, "utf-8"))


_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = r"[A-Za-z0-9-]{1,63}"
_BARE_ADDRESS = re.compile(rf"{_ATOM}(?:\.{_ATOM})*@{_LABEL}(?:\.{_LABEL})*")
"""A bare address that `sanitize_address` gives back as it is (tests/mail/test_mime.py)."""
_NAMED_ADDRESS = re.compile(rf"[^\x00-\x1f\x7f<>\"\\(),.:;@\[\]]* <({_BARE_ADDRESS.pattern})>")
"""A display name of no special characters, then a bare address in angle brackets."""


def _boundary() -> str:
    """A multipart boundary: "=_" and 112 random bits. No quoted-printable or base64 body
    can hold it, and a text body only by a chance of one in 2^112. (Short enough that
    `Content-Type: multipart/alternative; boundary="..."` fits a header line of 78: the
    policy writes it as it is, not folded through a `Header`, in every mail.)"""
    return f"=_{secrets.token_hex(14)}"


class _Mail(EmailMultiAlternatives):
    """A mail whose MIME boundaries are chosen when it is built. Left to the standard
    library, each boundary is checked against the mail's text by a regular expression
    made for it (compiled anew for every part of every mail, and crowding the other
    patterns out of `re`'s cache): a tenth of a phase's sending went there. A random
    112-bit boundary after "=_", which no quoted-printable or base64 body can hold, is
    as safe and costs nothing."""

    def message(self) -> Any:
        built = super().message()
        for part in built.walk():
            if part.is_multipart() and part.get_boundary() is None:
                part.set_boundary(_boundary())
        built.policy = HEADERS  # (the generator writes every part by the top's policy)
        return built


class _Headers(Compat32):
    """The standard library's policy for Django's mails (compat32), but a header that
    needs no folding and no encoding is written as it is. compat32 builds a `Header`
    and re-splits every value, even `MIME-Version: 1.0`, some twenty times a mail: a
    third of building a mail. What it would write for such a value is the value itself
    (tests/mail/test_headers.py checks that on any value)."""

    def _fold(self, name: str, value: Any, sanitize: bool) -> str:
        if (
            isinstance(value, str)
            and value.isascii()
            and self.max_line_length
            and len(name) + 2 + len(value) <= self.max_line_length
            and _PLAIN_HEADER.fullmatch(value)
        ):
            return f"{name}: {value}{self.linesep}"
        return str(super()._fold(name, value, sanitize))  # type: ignore[misc]  # (not in typeshed)


_PLAIN_HEADER = re.compile(r"[!-~]+(?: [!-~]+)*")
"""Printable ASCII words with single spaces between them: nothing compat32 would fold."""

HEADERS = _Headers()
WIRE = HEADERS.clone(linesep="\r\n")
"""The policy as the SMTP backend writes a mail (`as_bytes(linesep="\r\n")`)."""


# Building the rows -----------------------------------------------------------------

Build = Callable[[], dict[str, Any]]


def _queue(wanted: list[tuple[Player, str, str, Phase | None, Build]], fresh: bool = False) -> list[int]:
    """Insert the rows not there yet (rendered now; a row that can't be rendered is kept
    as failed, with why); return the ids of those waiting to be sent.

    `fresh` rows can't be there yet (they are queued in the transaction that made their
    news): nothing is looked up. And if this process sends them itself once that
    transaction commits (`queue.runs_here`), they are written already taken by that
    sender, which saves taking them back from the database."""
    if not wanted:
        return []
    keys = [key for _, key, _, _, _ in wanted]
    existing = set() if fresh else set(Dispatch.objects.filter(key__in=keys).values_list("key", flat=True))
    now = timezone.now()
    rows = []
    for player, key, kind, phase, build in wanted:
        if key in existing:
            continue
        row = Dispatch(
            player=player, key=key, kind=kind, phase=phase, message_id=message_id_for(key), next_attempt_at=now
        )
        try:
            for name, value in build().items():
                setattr(row, name, value)
        except Exception as failure:  # one seat's mail must never stop the others'
            logger.exception("could not write mail %s", key)
            row.status, row.next_attempt_at = Status.FAILED, None
            row.last_error = f"{type(failure).__name__}: {failure}"[:2000]
            row.recipient = row.recipient or _text(player.email)
        if player.mail_stopped and row.status == Status.PENDING:
            # The address bounced for good: kept for the organiser, not sent.
            row.status, row.next_attempt_at, row.last_error = Status.FAILED, None, "address_stopped"
        rows.append(row)
    database = connections[Dispatch.objects.db]
    if not (fresh and database.features.can_return_rows_from_bulk_insert):
        Dispatch.objects.bulk_create(rows, ignore_conflicts=True)
        return list(
            Dispatch.objects.filter(key__in=keys, status=Status.PENDING).order_by("pk").values_list("pk", flat=True)
        )
    token = secrets.token_hex(8) if queue.runs_here(MAIL_TASK) else ""
    if token:
        for row in rows:
            if row.status == Status.PENDING:
                row.status, row.claimed_by, row.claimed_at = Status.CLAIMED, token, now
    insert_rows(rows, returning=True)  # (their ids come back: one statement, prepared on PostgreSQL)
    if token:
        taken = [row for row in rows if row.status == Status.CLAIMED]
        transaction.on_commit(partial(_send_fresh, token, taken), robust=True)
    return [row.pk for row in rows if row.status == Status.PENDING]


def _send_fresh(token: str, rows: list[Dispatch]) -> int:
    """The mails a transaction queued already taken, sent once it commits. If this
    process dies first, the sweep sends them once they are `CLAIM_STALE`."""
    return _send_taken(token, rows)


MAIL_TASK = "tasks.mail.deliver"
"""The task that sends queued mails (run by the beat's sweep if it is lost)."""


def message_id_for(key: str) -> str:
    """A Message-ID made from the dispatch key: the same mail always has the same one."""
    digest = hmac.new(settings.SECRET_KEY.encode(), f"dispatch:{key}".encode(), hashlib.sha256).hexdigest()[:32]
    return f"<{digest}@{message_id_domain()}>"


def message_id_domain() -> str:
    """The right-hand side of our Message-IDs: the sender's domain, unless that is a
    local name (the default moderator@localhost), then the site's own host name."""
    return _message_id_domain(settings.DEFAULT_FROM_EMAIL, settings.SITE_URL)


@lru_cache(maxsize=8)
def _message_id_domain(from_email: str, site_url: str) -> str:
    """(Worked out once per pair of settings, not twice a mail.)"""
    from urllib.parse import urlsplit

    sender = parseaddr(from_email)[1].rpartition("@")[2].lower()
    if sender and "." in sender and sender != "localhost":
        return sender
    site = (urlsplit(site_url).hostname or "").lower()
    if site and "." in site and not site.replace(".", "").isdigit():
        return site
    return sender or "werewolf.invalid"


@lru_cache(maxsize=4096)
def recipient(name: str, email: str) -> str:
    """`Name <address>` for any display name: quoted and escaped as RFC 5322 asks, with
    control characters (which no header may hold) turned into spaces. (Worked out once
    per seat and worker: a seat is written to every phase.)"""
    display = " ".join(_CONTROL.sub(" ", name).split())
    return str(Address(display_name=display, addr_spec=email.strip()))


MODERATOR = translation.gettext_noop("Werewolf moderator")
"""The display name the site sends from by default (settings.DEFAULT_FROM_EMAIL), which a
mail says in its reader's language."""


def sender() -> str:
    """Whom a mail written in the active language is from: the site's address
    (DEFAULT_FROM_EMAIL) under the default moderator's name in that language ("Il
    moderatore dei Lupi Mannari"); a name the site's operator chose stays as written."""
    return _sender(settings.DEFAULT_FROM_EMAIL, translation.get_language())


@kept_words.register
@lru_cache(maxsize=16)
def _sender(configured: str, language: str | None) -> str:
    name, address = parseaddr(configured)
    if name != MODERATOR or not address:
        return configured
    return recipient(translation.gettext(MODERATOR), address)


def _render_phase(player: Player, phase: Phase, events: list[Any], shared: Shared | None = None) -> dict[str, Any]:
    """The phase's mail to `player`: the events its seat may see, and their words, read
    once for the moment's mails (`Shared.seen`, `Shared.in_words`)."""
    shared = shared or _shared(player.game)
    seat = player.occupied_seat
    seen = shared.seen(events, seat)
    context = _context(player, phase=phase, events=seen, shared=shared)
    with translation.override(player.game.language):  # (the game's, as the whole mail)
        context["seen_words"] = shared.in_words(seen, seat, player.game.ruleset)
        return _rendered(player, "phase", context, None)


def _seen_words(context: dict[str, Any]) -> tuple[str, ...]:
    """The events a phase mail's reader sees, in words (each worded once for every mail:
    `render_event`): all that its story (`{% alike "story" seen_words %}`) reads of the
    seat, so that the story is written once for every seat that sees the same words."""
    ruleset = context["game"].ruleset
    return tuple(worded(event, context["names"], context["viewer"], ruleset) for event in context["events"])


def _render(
    player: Player, template: str, context: dict[str, Any], headers: dict[str, str] | None = None
) -> dict[str, Any]:
    """A mail in the game's language (what its players read)."""
    with translation.override(player.game.language):
        return _rendered(player, template, context, headers)


def _rendered(player: Player, template: str, context: dict[str, Any], headers: dict[str, str] | None) -> dict[str, Any]:
    link: str = context.get("link") or ""
    marked = bool(template in LINK_LAST and link and context.get("said_alike") is not None)
    if marked:  # written with the mark for the link, the seat's own link written in last
        context = {**context, "link": SEAT_LINK}
    if context.get("slot") and "slot_help" not in context:
        # What the seat's card asks, said in the mail and in its calendar event: once, and
        # once for all the seats asked the same card (all that the help reads of a seat).
        said = ("slot_help", context["slot"], context.get("alive"), context.get("viewer") == engine.MODERATOR)
        context = {**context, "slot_help": _said_alike(context, said, "includes/slot_help.html", _plain)}
    if context.get("next_phase") is not None and "next_phase_text" not in context:
        # What the open phase asks: said in the text and the HTML alike, written once. Its
        # first line, the phase and its deadline (in the game's zone, or its pause), is
        # every seat's alike: written once for the moment's mails.
        deadline = _said_alike(context, ("next_phase_deadline",), "emails/next_phase_deadline.txt", _plain)
        context = {**context, "next_phase_deadline": deadline.rstrip("\n")}
        context = {**context, "next_phase_text": _next_phase_text(context)}
    if template in STORY_MAILS and "seen_words" not in context:
        context = {**context, "seen_words": _seen_words(context)}
    subject_template = f"emails/{template}_subject.txt"
    if template in ALIKE_SUBJECTS:
        subject = _said_alike(context, ("subject", template), subject_template)
    else:
        subject = _line(subject_template, context)
    extra = {"From": sender(), **(headers or {})}
    if context.get("reply_to"):
        extra["Reply-To"] = context["reply_to"]
    text: str = render_to_string(f"emails/{template}.txt", context)
    html: str = render_to_string(f"emails/{template}.html", context)
    if marked:
        text, html = text.replace(SEAT_LINK, link), html.replace(SEAT_LINK, escape(link))
    rendered: dict[str, Any] = {
        "recipient": recipient(player.name, player.email),
        "subject": _text(subject),
        "body_text": _text(text),
        "body_html": _text(html),
        "headers": {name: _text(value) for name, value in extra.items()},
    }
    following = context.get("next_phase")
    if template in CALENDAR_MAILS and following is not None:
        event = calendar(player, following, context, link=link if marked else None)
        rendered["attachments"] = [{"filename": "deadline.ics", "content": event, "mimetype": "text/calendar"}]
    return rendered


LINK_LAST = ("phase",)
"""Mails written with `SEAT_LINK` for the seat's link, its own written in last: what
reads the link besides a seat's shape (the open phase's paragraph, the calendar event's
description, the last lines) is then written once for every seat of that shape."""

SEAT_LINK = "\x00seat-link\x00"
"""The seat's link while a `LINK_LAST` mail is written: no word, name or escaping
writes it (HTML escaping and `with_link` leave it as it is), and the link replaces it
in the text, escaped in the HTML (as `{{ link }}` writes it there). (A NUL nowhere
else: PostgreSQL refuses it in text, `_text` turns it into U+FFFD.)"""


def _next_phase_text(context: dict[str, Any]) -> str:
    """What the open phase asks of the seat (emails/next_phase.txt), written once for
    every seat of the moment it reads alike: the card asked and its help, the reply by
    mail, why nothing is asked, and the link (the mark, for a `LINK_LAST` mail). A seat
    told its card is in reads its own card: written for it alone."""
    if context.get("card_in") is not None:
        return _plain("emails/next_phase.txt", context)
    said = (
        "next_phase",
        context.get("slot"),
        context.get("slot_help"),
        context.get("mail_orders"),
        context.get("unasked"),
        context.get("link"),
        context.get("next_phase_deadline"),
    )
    return _said_alike(context, said, "emails/next_phase.txt", _plain)


STORY_MAILS = ("phase",)
"""Mails that tell the events of their phase the seat sees (`_seen_words`)."""

ALIKE_SUBJECTS = ("phase",)
"""Mails whose subject names only the game and the phase (tests/mail/test_alike.py)."""


def _said_alike(
    context: dict[str, Any],
    key: tuple[Any, ...],
    template: str,
    write: Callable[[str, dict[str, Any]], str] | None = None,
) -> str:
    """A template that every mail of one moment says alike, given what `key` names:
    written (by `write`; as one line unless told) for the first mail and kept for the
    others (`Shared.words`). A phase's subject names the game and the phase; its
    calendar event's summary names those and whether the seat's card is asked; the help
    for a card names the card, whether its seat lives, and the game and phase."""
    write = write or _line
    words: dict[tuple[Any, ...], str] | None = context.get("said_alike")
    if words is None:
        return write(template, context)
    said = words.get(key)
    if said is None:
        said = words[key] = write(template, context)
    return said


def _line(template: str, context: dict[str, Any]) -> str:
    """A template rendered as one line (a subject, a summary)."""
    return " ".join(render_to_string(template, context).split())


def _html(template: str, context: dict[str, Any]) -> str:
    """A template rendered as HTML, as it is (safe to show unescaped)."""
    return render_to_string(template, context)


def _stripped(template: str, context: dict[str, Any]) -> str:
    """A template rendered as it is, without the blank lines around it."""
    return render_to_string(template, context).strip()


def _plain(template: str, context: dict[str, Any]) -> str:
    """A template rendered as plain text (no HTML escaping), for a mail to say as it is."""
    return str(Engine.get_default().get_template(template).render(Context(context, autoescape=False)))


CALENDAR_MAILS = ("welcome", "stand_in", "seat_back", "take_over", "phase", "deadline_moved")
"""Mails that carry the open phase's deadline as an iCalendar event."""


def calendar(player: Player, phase: Phase, context: dict[str, Any], link: str | None = None) -> str:
    """The phase's deadline as an iCalendar event (RFC 5545) for the player's calendar: a
    quarter of an hour ending at the deadline, its words from the templates. One event per
    seat and phase (its UID); an extended deadline sends a later SEQUENCE of it. `link`:
    the seat's, where the context holds `SEAT_LINK` for it.

    The description reads of the seat its card's help and its link: written once for
    every seat asked the same (`_said_alike`), the seat's link written in before it is
    escaped and folded."""
    summary = _said_alike(context, ("deadline_summary", bool(context.get("slot"))), "emails/deadline_summary.txt")
    said = ("deadline_description", context.get("slot"), context.get("slot_help"), context.get("link"))
    description = _said_alike(context, said, "emails/deadline_description.txt", _stripped)
    if link is not None:
        description = description.replace(SEAT_LINK, link)
        context = {**context, "link": link}
    sequence, when = _calendar_when(phase.deadline.astimezone(UTC))
    lines = [
        f"UID:phase-{phase.pk}-seat-{player.pk}@{message_id_domain()}",
        sequence,
        f"DTSTAMP:{timezone.now().astimezone(UTC).strftime(_ICAL_STAMP)}",
    ]
    tail = [f"DESCRIPTION:{_ical_text(description)}", *([f"URL:{context['link']}"] if context.get("link") else [])]
    return "".join(
        [
            _CALENDAR_HEAD,
            *(_ical_fold(line) + "\r\n" for line in lines),
            when,
            _calendar_line(f"SUMMARY:{_ical_text(summary)}"),
            *(_ical_fold(line) + "\r\n" for line in tail),
            _CALENDAR_FOOT,
        ]
    )


_ICAL_STAMP = "%Y%m%dT%H%M%SZ"
_CALENDAR_HEAD = "".join(
    f"{line}\r\n"
    for line in (
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//Werewolf//Deadlines//EN",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        "BEGIN:VEVENT",
    )
)
_CALENDAR_FOOT = "END:VEVENT\r\nEND:VCALENDAR\r\n"


@lru_cache(maxsize=256)
def _calendar_when(deadline: Any) -> tuple[str, str]:
    """A deadline's SEQUENCE line, and its DTSTART and DTEND lines, written once for
    every seat's event of the phase."""
    start = (deadline - timedelta(minutes=15)).strftime(_ICAL_STAMP)
    return (
        f"SEQUENCE:{int(deadline.timestamp()) // 60}",
        f"DTSTART:{start}\r\nDTEND:{deadline.strftime(_ICAL_STAMP)}\r\n",
    )


@lru_cache(maxsize=256)
def _calendar_line(line: str) -> str:
    """A content line the phase's events share (the summary), folded once for them all."""
    return _ical_fold(line) + "\r\n"


def _ical_text(value: str) -> str:
    return value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def _ical_fold(line: str) -> str:
    """A content line folded at 75 octets, never inside a character (RFC 5545, 3.1)."""
    if len(line.encode("utf-8")) <= 75:
        return line
    if line.isascii():  # a character an octet: the same cut, without weighing each one
        return "\r\n ".join([line[:75], *(line[start : start + 74] for start in range(75, len(line), 74))])
    parts: list[str] = []
    current, size = "", 0
    for char in line:
        width = len(char.encode("utf-8"))
        if size + width > (75 if not parts else 74):
            parts.append(current)
            current, size = "", 0
        current += char
        size += width
    parts.append(current)
    return "\r\n ".join(parts)


def orders_address(reference: str) -> str:
    """The address a reply carrying `reference` goes to: orders+<reference>@domain."""
    local, _, domain = settings.WEREWOLF_ORDERS_ADDRESS.rpartition("@")
    return f"{local}+{reference}@{domain}"


def warm() -> None:
    """Read what writing mail needs before the first deadline does: each language's
    catalog and every template a mail is made of, compiled. A worker calls it as it
    starts (werewolf/celery.py), so a storm of deadlines is not what pays for it."""
    from pathlib import Path

    for code, _ in settings.LANGUAGES:
        with translation.override(code):
            pass
    for folder in settings.TEMPLATES[0]["DIRS"]:
        root = Path(folder)
        for family in ("emails", "events", "includes"):
            for path in sorted((root / family).rglob("*")):
                if path.suffix in {".txt", ".html"}:
                    get_template(path.relative_to(root).as_posix())


def _text(value: str) -> str:
    """PostgreSQL refuses NUL characters in text."""
    return value.replace("\x00", "\ufffd")


@dataclass(frozen=True)
class Shared:
    """What every seat's mail of one moment reads alike: the state, the phase open now
    and the seats' names. Read once for a phase's mails, not once a mail."""

    state: Any
    following: Phase | None
    names: list[str]
    words: dict[tuple[Any, ...], str] = field(default_factory=dict, compare=False)
    """Words every mail of the moment says alike (`_said_alike`), written by the first."""
    audiences: dict[int, tuple[Any, Any]] = field(default_factory=dict, compare=False)
    """Each event of the moment (by its `id`, kept with it) and its audience, read from
    its row once for every mail, not once a seat."""
    told: dict[tuple[int, Any], str] = field(default_factory=dict, compare=False)
    """Each event of the moment in words (in the game's language, as every mail of the
    moment), by its `id` and viewer: a public event's once for every seat
    (`render_event` words it alike for all of them)."""

    def audience(self, event: Any) -> Any:
        held = self.audiences.get(id(event))
        if held is None or held[0] is not event:
            held = self.audiences[id(event)] = (event, engine.Audience.from_json(event.audience))
        return held[1]

    def seen(self, events: list[Any], seat: int) -> list[Any]:
        """The events of `events` that `seat` may see."""
        return [event for event in events if self.audience(event).admits(seat)]

    def in_words(self, events: list[Any], viewer: int, ruleset: str) -> tuple[str, ...]:
        """`events` (seen by `viewer`) in words, as the seat's page words them (`worded`)."""
        said = []
        for event in events:
            key = (id(event), engine.PUBLIC if self.audience(event).admits(engine.PUBLIC) else viewer)
            words = self.told.get(key)
            if words is None:
                words = self.told[key] = worded(event, self.names, viewer, ruleset)
            said.append(words)
        return tuple(said)


def _shared(game: Game) -> Shared:
    return Shared(game.engine_state, game.current_phase() if game.is_running else None, selectors.names(game))


def _context(
    player: Player,
    phase: Phase | None = None,
    events: list[Any] | None = None,
    shared: Shared | None = None,
    seen: list[Any] | None = None,
) -> dict[str, Any]:
    """What one player's mail may show: events visible to the seat (`seen`, if the
    caller read them already), nothing else."""
    game: Game = player.game
    seat = player.occupied_seat
    shared = shared or _shared(game)
    state = shared.state
    following = shared.following
    slot = engine.phase(state).asks(seat) if following else None
    # Every mail carries the seat's reply address, asked for a card or not (a ghost, a
    # suspect, a game just over), so that HELP and STATUS reach the seat's game from any
    # of its mails; `mail_orders` says whether the mail also asks for a card by reply.
    replied = following or phase
    reference = links.reference_for(player, replied.index) if replied is not None else None
    mail_orders = bool(settings.WEREWOLF_MAIL_ORDERS and reference and slot)
    unasked = selectors.unasked(state, seat) if following else ""
    return {
        "game": game,
        "player": player,
        "viewer": seat,
        "names": shared.names,
        "role": selectors.role_shown(state, seat),
        "alive": state.alive[seat],
        "private": selectors.private_events(selectors.visible_events(game, seat) if seen is None else seen)
        if phase is None
        else [],
        "phase": phase,
        "events": events or [],
        "next_phase": following,
        "slot": slot,
        "unasked": unasked,
        "link": links.url_for(player),
        "mail_orders": mail_orders,
        "reply_to": orders_address(reference) if settings.WEREWOLF_MAIL_ORDERS and reference else "",
        "scores": _scores(game, state, shared.names),
        "said_alike": shared.words,
    }


def _scores(game: Game, state: Any, names: list[str]) -> list[dict[str, Any]]:
    """A finished game's score table (public by then), for the last mail, where the
    ruleset keeps scores."""
    if not game.capabilities.scores or not state.over:
        return []
    return scores.score_rows(selectors.outcome_event(game), names, game)


# Missed cards, late cards and standbys (games.attendance, games.standbys) ---------------


def queue_prods(phase: Phase, players: list[Player], policy: attendance.Policy) -> list[int]:
    """A prod to each of `players`, whose missed cards in a row reached the policy's
    `prod_after` when `phase` resolved: once per seat and phase (the key)."""
    return _queue(
        [
            (player, f"prod:{phase.pk}:{player.pk}", Dispatch.Kind.PROD, phase, partial(_render_prod, player, policy))
            for player in players
            if player.email and not player.is_bot
        ]
    )


def _render_prod(player: Player, policy: attendance.Policy) -> dict[str, Any]:
    context = {**_context(player), "policy": policy, "missed": player.missed_cards}
    return _render(player, "prod", context)


def queue_attendance(
    phase: Phase, prodded: list[Player], at_limit: list[Player], policy: attendance.Policy, standbys: int
) -> list[int]:
    """Tell the organiser, once per phase, which seats were prodded when `phase` resolved
    and which reached the policy's limit (and whether `standbys` take them over)."""
    game = phase.game
    context = {
        "game": game,
        "phase": phase,
        "prodded": prodded,
        "at_limit": at_limit,
        "taken_over": at_limit[:standbys],
        "left": at_limit[standbys:],
        "policy": policy,
        "dashboard": _dashboard_url(game),
    }
    return _queue_to_organiser(game, f"attendance:{phase.pk}", phase, "attendance", context)


def queue_late_list(phase: Phase, players: list[Player]) -> list[int]:
    """The organiser's late list at the phase's reminder time: which seats have no card
    in (never what a card says, nor a role). Once per phase; none if every card is in."""
    if not players:
        return []
    game = phase.game
    context = {"game": game, "phase": phase, "late": players, "dashboard": _dashboard_url(game)}
    return _queue_to_organiser(game, f"late:{phase.pk}", phase, "late_list", context)


def queue_away_unfilled(phase: Phase, players: list[Player]) -> list[int]:
    """Tell the organiser, once per phase, that no standby was waiting to play the seats
    of `players` while they are away (the `standby` absence policy): they play on their
    default cards. The caller tells of each absence once (`Absence.unfilled_at`)."""
    if not players:
        return []
    game = phase.game
    context = {"game": game, "phase": phase, "away": players, "dashboard": _dashboard_url(game)}
    return _queue_to_organiser(game, f"away-unfilled:{phase.pk}", phase, "away_unfilled", context)


def queue_stand_in_over(standby: Standby, key: str) -> list[int]:
    """Tell a standby who played an absent player's seat that it is back with its player
    (once per `key`: the absence's)."""
    if not standby.email:
        return []
    game = standby.game
    context = {"game": game, "standby": standby}
    row = (key, Dispatch.Kind.SIGNUP, None, standby.name, standby.email, "stand_in_over")
    return _queue_rows(game, [(*row, context)])


def queue_standby_signup(standby: Standby) -> list[int]:
    """The link a standby confirms by, which is also their own page."""
    game = standby.game
    context = {"game": game, "standby": standby, "link": standbys.page_url(standby)}
    row = (f"standby:{standby.pk}", Dispatch.Kind.SIGNUP, None, standby.name, standby.email, "standby_signup")
    return _queue_rows(game, [(*row, context)])


def _dashboard_url(game: Game) -> str:
    return settings.SITE_URL + reverse("games:dashboard", args=[game.pk])


def _queue_to_organiser(game: Game, key: str, phase: Phase, template: str, context: dict[str, Any]) -> list[int]:
    organiser = game.organiser
    # Only to an address the account confirmed: never one it merely typed (werewolf.addresses).
    address = addresses.primary(organiser)
    if not address:
        return []
    name = organiser.get_full_name() or organiser.get_username()
    return _queue_rows(game, [(key, Dispatch.Kind.ORGANISER, phase, name, address, template, context)])


def _queue_rows(game: Game, wanted: list[tuple[str, str, Phase | None, str, str, str, dict[str, Any]]]) -> list[int]:
    """Mails to someone who holds no seat (the organiser, a standby): written in the
    game's language, each once per key, as `_queue` writes a seat's."""
    keys = [key for key, *_ in wanted]
    existing = set(Dispatch.objects.filter(key__in=keys).values_list("key", flat=True))
    now = timezone.now()
    rows = []
    for key, kind, phase, name, email, template, context in wanted:
        if key in existing:
            continue
        headers = {"From": sender(), **context.get("headers", {})}
        with translation.override(game.language):
            rendered = {
                "recipient": recipient(name, email),
                "subject": _text(_line(f"emails/{template}_subject.txt", context)),
                "body_text": _text(render_to_string(f"emails/{template}.txt", context)),
                "body_html": _text(render_to_string(f"emails/{template}.html", context)),
                "headers": {name: _text(value) for name, value in headers.items()},
            }
        rows.append(
            Dispatch(key=key, kind=kind, phase=phase, message_id=message_id_for(key), next_attempt_at=now, **rendered)
        )
    Dispatch.objects.bulk_create(rows, ignore_conflicts=True)
    return list(
        Dispatch.objects.filter(key__in=keys, status=Status.PENDING).order_by("pk").values_list("pk", flat=True)
    )
