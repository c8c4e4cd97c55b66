"""Talk: posting in a game's channels, hiding a post, and the mailed digests. Which
channels exist and who may write in each comes from the engine (`werewolf.engine.talk`);
what each viewer reads is `rooms`'s."""

from __future__ import annotations

import functools
import unicodedata
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, models, transaction
from django.utils import timezone

from werewolf import limits
from werewolf.engine import talk

from . import links
from .models import Game, Phase, Player, Post, SeatLink
from .outbox import outbox
from .rooms import channels_for
from .services import ServiceError, _mail

PACES = {"each": timedelta(0), "hourly": timedelta(hours=1), "daily": timedelta(days=1)}
"""How long a player's talk digests wait after the last one, by the pace they chose."""


def clean_text(text: str) -> str:
    """A post's text as kept: NFC, line ends made \\n, control characters (but the line
    end and the tab) and trailing blanks gone."""
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    kept = "".join(c for c in text if c in "\n\t" or unicodedata.category(c)[0] != "C")
    return "\n".join(line.rstrip() for line in kept.split("\n")).strip()


def post(
    game: Game,
    seat: int | None,
    channel: str,
    text: str,
    *,
    author: Player | None = None,
    source: str = Post.Source.WEB,
) -> Post:
    """Post `text` in `channel` for `seat` (None: the moderator), as `author` (the seat's
    player, when the caller has it). Refused with `ServiceError` (the engine's code:
    "no_channel", "dead", "den_closed", "post_empty", "post_too_long", or
    "game_not_running"); nothing is kept then.

    No lock is taken, and the game is read as the caller has it: a post changes nothing
    the game's state depends on, and who may write is read from the state as it stands.
    A post racing the resolution that kills its writer is taken, as a word said just
    before the dawn. The phase a post belongs to is the last one opened."""
    text = clean_text(text)
    _check(game.status, game.state, seat, channel, text)
    if seat is not None:
        _count(game.pk, seat)
    if seat is None:
        name = ""
    elif author is not None and author.seat == seat:
        name = author.name
    else:
        name = game.players.get(seat=seat).name
    phase = game.phases.order_by("-index").values_list("pk", flat=True).first()
    return Post.objects.create(
        game=game, channel=channel, seat=seat, author=name, text=text, source=source, phase_id=phase
    )


def post_by_link(token: str, channel: str, text: str) -> None:
    """`post` for the seat a link opens (the web's post): refused the same ways, with
    `links.LinkError` for a link that opens nothing and `ServiceError` for the rest.

    A seat's posts come in bursts while its game's state stands still, so what the
    link's read found is kept (per process, `_RECENT`) and the next post of the same link
    checks against it and writes with one statement: an INSERT that takes its row only
    if the link is still in force and the game's status and state are still those the
    check read (`_insert_if_unchanged`). One round trip to the database instead of two
    (issue 10). When anything changed (a resolution, an act, a replaced link), or the
    check refuses, the post reads afresh and goes as `_post_as`: a refusal is only ever
    said from what the database holds now."""
    if not links.looks_like_token(token):
        raise links.LinkError("unknown")
    text = clean_text(text)
    key = links.digest(token)
    known = _RECENT.get(key)
    if known is not None and _allowed(known, channel, text):
        _count(known.game, known.seat)
        if _insert_if_unchanged(known, key, channel, text):
            return
        _uncount(known.game, known.seat)
    speaker = links.speaker_for(token)
    _RECENT.remember(key, speaker)
    _check(speaker.status, speaker.state, speaker.seat, channel, text)
    _count(speaker.game, speaker.seat)
    _post_as(speaker, channel, text)


_RECENT: links.LastReads[links.Speaker] = links.LastReads()
"""The links that posted lately: what their read found."""


def _allowed(speaker: links.Speaker, channel: str, text: str) -> bool:
    """Whether `_check` takes the post: for a seat, from the channels its game's state
    has (`_writing`, kept per state), without working them out again for every post."""
    if speaker.seat is None or speaker.state is None:
        try:
            _check(speaker.status, speaker.state, speaker.seat, channel, text)
        except ServiceError:
            return False
        return True
    if speaker.status not in (Game.Status.RUNNING, Game.Status.FINISHED, Game.Status.ENDED):
        return False
    if not text.strip() or len(text) > talk.MAX_POST:
        return False
    return speaker.seat in _writing(speaker.state).get(channel, ())


@functools.lru_cache(maxsize=256)
def _writing(state: str) -> dict[str, frozenset[int]]:
    """Who may write in each channel of the game whose state is `state` (JSON text): by
    name, the seats among the first such channel's readers and writers, which is what
    `talk.refusal` asks of a seat (tests/web/test_talk_check.py compares the two)."""
    found: dict[str, frozenset[int]] = {}
    for channel in talk.channels(links.state_from(state)):
        found.setdefault(channel.name, channel.readers & channel.writers)
    return found


def _insert_if_unchanged(speaker: links.Speaker, key: str, channel: str, text: str) -> bool:
    """Write the post as `_post_as` would, in one statement that finds nothing to insert
    unless the link is in force and its seat and game are as `speaker` says: whether it
    was written."""
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    values = [channel, text, Post.Source.WEB, now, key, speaker.player, speaker.seat, speaker.status, speaker.state]
    written, _ = links.run(_insert_if_unchanged_sql(connection.vendor), values)
    return written == 1


@functools.cache
def _insert_if_unchanged_sql(vendor: str) -> str:
    quote = connection.ops.quote_name
    columns = ", ".join(quote(column) for column in _inserted_columns())
    # PostgreSQL types the parameters of a SELECT list only when told.
    text, stamp = ("%s::text", "%s::timestamptz") if vendor == "postgresql" else ("%s", "%s")
    same = "IS NOT DISTINCT FROM" if vendor == "postgresql" else "IS"  # equal, NULL too (SQLite before 3.39)
    return f"""
    INSERT INTO {quote(Post._meta.db_table)} ({columns})
    SELECT game.id, {text}, player.seat, player.name, {text}, {text},
           (SELECT phase.id FROM {Phase._meta.db_table} phase
             WHERE phase.game_id = game.id ORDER BY phase."index" DESC LIMIT 1),
           {stamp}, NULL
      FROM {SeatLink._meta.db_table} link
      JOIN {Player._meta.db_table} player ON player.id = link.player_id
      JOIN {Game._meta.db_table} game ON game.id = player.game_id
     WHERE link.token_hash = %s AND link.revoked_at IS NULL AND player.id = %s
       AND player.seat {same} %s AND game.status = %s
       AND {links.state_sql(vendor)} {same} {text}
"""


def _count(game: int, seat: int | None) -> None:
    """Count a seat's post against its limit (`limits`, per seat): refused with
    `ServiceError("limited")`, which says when to try again, once the limit is spent."""
    try:
        limits.hit("talk_post", f"{game}:{seat}")
    except limits.Limited as limited:
        raise ServiceError("limited", limited=limited) from None


def _uncount(game: int, seat: int | None) -> None:
    """Take back `_count` for a post that was not written after all."""
    limits.uncount("talk_post", f"{game}:{seat}")


def _post_as(speaker: links.Speaker, channel: str, text: str) -> None:
    """`post` for a seat by its own link (`links.speaker_for`), once checked and counted:
    one INSERT, on the state as the link's query read it. Nothing else is read. `text` is
    cleaned already (`clean_text`)."""
    # One plain INSERT, in autocommit: one statement, one round trip. Compiling the
    # ORM's took longer than the database did (and bulk_create adds a transaction: two
    # more round trips on PostgreSQL). tests/web/test_talk.py checks that the row is
    # the one `post` writes, field by field.
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    values = [speaker.game, channel, speaker.seat, speaker.name, text, Post.Source.WEB, speaker.phase, now, None]
    links.run(_insert_sql(), values)


_INSERTED = ("game", "channel", "seat", "author", "text", "source", "phase", "created_at", "hidden_at")


def _inserted_columns() -> list[str]:
    """The columns of `_INSERTED`, in its order."""
    columns = {field.name: field.column for field in Post._meta.concrete_fields}
    return [columns[name] for name in _INSERTED]


@functools.cache
def _insert_sql() -> str:
    quote = connection.ops.quote_name  # the same on SQLite and PostgreSQL
    columns = ", ".join(quote(column) for column in _inserted_columns())
    marks = ", ".join(["%s"] * len(_INSERTED))
    return f"INSERT INTO {quote(Post._meta.db_table)} ({columns}) VALUES ({marks})"


def _check(status: str, state: Any, seat: int | None, channel: str, text: str) -> None:
    """Refuse (`ServiceError`) a post the game's status or its rules do not take; `state`
    is the game's state as JSON, decoded or not."""
    if status not in (Game.Status.RUNNING, Game.Status.FINISHED, Game.Status.ENDED):
        raise ServiceError("game_not_running")
    refusal = talk.refusal(links.state_from(state), seat, channel, text)
    if refusal is not None:
        raise ServiceError(refusal)


def hide(game: Game, post_id: int | None, *, hidden: bool = True) -> Post:
    """The organiser hides a post (kept, marked) or shows it again."""
    found = Post.objects.filter(game=game, pk=post_id).first() if post_id is not None else None
    if found is None:
        raise ServiceError("no_post")
    found.hidden_at = timezone.now() if hidden else None
    found.save(update_fields=["hidden_at"])
    return found


def set_pace(player: Player, pace: str) -> None:
    """How often `player` is mailed the talk: "each" post, "hourly", "daily" or "never"."""
    if pace not in (*PACES, "never"):
        raise ServiceError("bad_pace")
    Player.objects.filter(pk=player.pk).update(talk_mail=pace)


def send_digests(now: datetime | None = None) -> int:
    """Mail each player with an address what was said, since their last digest, in the
    places they read, at the pace they chose; once per range of posts, whatever races
    (the player's row is locked while its digest is queued). The number queued."""
    now = now or timezone.now()
    running = (Game.Status.RUNNING, Game.Status.FINISHED, Game.Status.ENDED)
    newest = dict(
        Post.objects.filter(game__status__in=running)
        .values("game")
        .annotate(top=models.Max("pk"))
        .values_list("game", "top")
    )
    readers = (
        Player.objects.filter(game__in=newest.keys(), is_bot=False, pending=False)
        .exclude(email="")
        .exclude(seat=None)
        .exclude(talk_mail="never")
    )
    queued: list[list[int]] = []
    for candidate in readers:
        top = newest[candidate.game_id]
        if candidate.talk_mailed_upto >= top:
            continue
        last = candidate.talk_mailed_at
        if last is not None and now - last < PACES.get(candidate.talk_mail, PACES["daily"]):
            continue
        with transaction.atomic():
            player = Player.objects.select_for_update().select_related("game").get(pk=candidate.pk)
            if player.talk_mailed_upto >= top:
                continue
            seat = player.seat
            assert seat is not None
            names = [channel.name for channel in channels_for(player.game, seat)]
            posts = list(
                player.game.posts.filter(channel__in=names, hidden_at=None, pk__gt=player.talk_mailed_upto, pk__lte=top)
                .exclude(seat=seat)  # what they wrote themselves they know
                .order_by("pk")
            )
            if posts:
                queued.append(outbox().queue_talk_digest(player, posts, top))
                player.talk_mailed_at = now
            player.talk_mailed_upto = top
            player.save(update_fields=["talk_mailed_upto", "talk_mailed_at"])
    _mail(queued)
    return sum(len(batch) for batch in queued)
