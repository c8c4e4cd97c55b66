"""A card handed in by a seat's own link, on PostgreSQL, in one or two statements (issue 11).

The seat page's POST read the link, the game, its open phase and the seats' names, and
handed the card in through `services.submit_order`: ten statements (a transaction, the
game's row locked and read again, the phase again, the acts counted), most of the time
spent building the ORM's queries. Here a card that goes in costs one read
(`_read_sql`: the link, its seat, the game's state as text and the open phase), its
values read as the card form reads them but without building it (`forms.posted_card`,
which took most of the request's time), and one INSERT that locks the game's row itself
and writes the card only if the game's status and state are still those the card was
checked against, the phase is still open and its deadline not passed (`_insert_sql`).
The lock makes it wait for a resolution under way (or any write of the game's row), as
`submit_order` would; the state it then finds is the new one, the condition fails, and
nothing is written. It is a shared lock (FOR SHARE): a resolution, which locks the row
FOR UPDATE, and any UPDATE of it wait for the cards going in, and the cards wait for
them, but cards of the same game do not wait for one another. With the row locked FOR
UPDATE, eight players handing cards in at once queued one behind another, which cost
PostgreSQL twice the CPU a card (289 to 405 us against 211, eight threads on one game).

A link's next card (a vote changed as the day's talk goes on; a player who taps twice)
is checked against what its last read found, remembered per process, and costs one
statement: the INSERT, also only if the link is still in force and opens that seat,
which returns the game's early resolution as it stands (`_write_again_sql`). When it
writes nothing (the game moved on since that read: once a phase, not once a card), the
link is read afresh and the two-statement way goes on from there. Every round trip saved
is one wait less for the database, which costs a web thread more CPU than the statement
itself. (The read afresh used to come in the same round trip, as part of the statement:
it cost PostgreSQL about 40 us of a card's 320, every card, for a read that one card in
many needs.)

Anything else goes the usual way (`views.seat`): a link that opens nothing, a game not
running, a seat asked for nothing, a form or card refused, an instant card (an act
applied at once), a condition that failed. That way says why, from what the database
holds then; this one never refuses anything. When the card may end the phase (a
decisive stage, or early resolution on), the phase's cards are read after it is in, as
`submit_order` does under its lock, and the phase resolved if they end it: the last card
to go in sees every other.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from django.conf import settings
from django.db import connection
from django.http import HttpRequest
from django.utils import timezone

from werewolf import engine

from . import links, services
from .forms import posted_card
from .models import Game, Order, Phase, Player, SeatLink


@dataclass(frozen=True, slots=True)
class Handed:
    """A card that went in: the phase it was for."""

    phase: int
    index: int


@dataclass(frozen=True, slots=True)
class Read:
    """What the read of a link found, of a running game with an open phase that asks the
    link's seat for a card: what a card is checked against, and written only if still so."""

    seat: int
    game: int
    status: str
    text: str
    """The game's state as PostgreSQL prints it (`game.state::text`)."""
    early: bool
    phase: int
    index: int


def hand_in(token: str, data: Mapping[str, str]) -> Handed | None:
    """Hand in the card `data` (the seat page's form) for the seat `token` opens, or
    None when this way does not take it (the caller then goes the usual way).

    A link that handed a card in lately (in this process, `_RECENT`) has its read
    remembered: its next card is checked against it and written by one statement that
    writes only if the link, its seat, the game and the phase are still as read
    (`_write_again_sql`); when they are not, they are read afresh for the two-statement
    way."""
    if connection.vendor != "postgresql" or not links.looks_like_token(token):
        return None
    key = links.digest(token)
    known = _RECENT.get(key)
    checked = _checked(known, data) if known is not None else None
    if known is not None and checked is not None:
        state, payload = checked
        _, row = links.run(_write_again_sql(), [*_written(known, payload), key, known.seat, known.game])
        if row is not None:
            return _handed(known, state, early=row[0])  # early resolution as the game has it now
        # Not written: read afresh. A game that moved on (a resolution came first, the
        # write waiting for it) reads otherwise, and the card is checked against that.
    _, row = links.run(_read_sql(), [key])
    read = _read(row)
    if read is None:
        _RECENT.forget(key)
        return None
    if read == known and checked is not None:
        return None  # as read, yet not written (the deadline passed): the usual way says why
    _RECENT.remember(key, read)
    checked = _checked(read, data)
    if checked is None:
        return None
    state, payload = checked
    written, _ = links.run(_insert_sql(), _written(read, payload))
    if written != 1:
        return None
    return _handed(read, state, early=read.early)


def form_of(request: HttpRequest) -> Mapping[str, str]:
    """The posted form, as `hand_in` reads it: a form the browser sent urlencoded (what
    the seat page's form sends) read into a plain dict, each field's last value as
    `request.POST` gives it, by the same reading (Django's QueryDict: the body decoded
    by the default charset, or as Latin-1 if it is not that; urllib's `parse_qsl` with
    blank values kept, up to DATA_UPLOAD_MAX_NUMBER_FIELDS), without building the
    QueryDict, which cost a card 28 us of the 40 its reading cost. Anything else, or a
    form already read (a cross-site check reads the token), is `request.POST` itself; so
    is a form with too many fields, which `request.POST` then refuses as Django does."""
    if (
        request.content_type != "application/x-www-form-urlencoded"
        or request.encoding not in (None, settings.DEFAULT_CHARSET)
        or hasattr(request, "_post")
    ):
        return request.POST
    body = request.body  # (as request.POST would: refused past DATA_UPLOAD_MAX_MEMORY_SIZE)
    try:
        text = body.decode(settings.DEFAULT_CHARSET)
    except UnicodeDecodeError:
        text = body.decode("iso-8859-1")
    try:
        return dict(
            parse_qsl(
                text,
                keep_blank_values=True,
                encoding=settings.DEFAULT_CHARSET,
                max_num_fields=settings.DATA_UPLOAD_MAX_NUMBER_FIELDS,
            )
        )
    except ValueError:
        return request.POST


def _read(row: Any) -> Read | None:
    """The read, if it is of a link in force whose game runs and has a phase open."""
    if row is None:
        return None
    revoked, seat, game, status, text, early, phase, index = row
    if revoked or status != Game.Status.RUNNING or phase is None or seat is None or text is None:
        return None
    return Read(seat, game, status, text, early, phase, index)


def _checked(read: Read, data: Mapping[str, str]) -> tuple[engine.State, str] | None:
    """The game's state and the card as it is written (JSON), if the seat's card form
    posted one that the game as read takes from the seat now; None for anything else."""
    state = links.state_from(read.text)
    slot = engine.phase(state).asks(read.seat)
    if slot is None or slot.card.instant:
        return None
    posted = posted_card(slot, data)  # the card form's values, read as the form reads them
    if posted is None or posted[0] != read.phase:
        return None
    card = engine.validate(state, read.seat, posted[1])
    if isinstance(card, engine.OrderError):
        return None
    return state, json.dumps(card.to_json())


def _written(read: Read, payload: str) -> list[object]:
    """The parameters of `_insert_sql`, which `_write_again_sql` begins with."""
    return [read.seat, payload, Order.Source.WEB, timezone.now(), read.game, read.status, read.text, read.phase]


def _handed(read: Read, state: engine.State, *, early: bool) -> Handed:
    """The card is in: the phase resolves now if its cards end it."""
    if early or engine.phase(state).stage.decisive:  # else `early_trigger` reads nothing and says None
        trigger = services.early_trigger(early, state, Phase(pk=read.phase))
        if trigger:
            services.resolve_phase(read.phase, trigger)
    return Handed(read.phase, read.index)


_RECENT: links.LastReads[Read] = links.LastReads()
"""The links that handed a card in lately: what their read found."""


_READ_COLUMNS = (
    "link.revoked_at IS NOT NULL, player.seat, game.id, game.status, game.state::text, "
    'game.early_resolution, phase.id, phase."index"'
)


@functools.cache
def _read_sql() -> str:
    return f"SELECT {_READ_COLUMNS} {links.from_link()}"


def _insert(source: str, condition: str = "") -> str:
    """The INSERT of a card, checked as it is written: the game as the read found it
    (running, its state unchanged), the phase open and before its deadline, read `FROM
    source` (which names the game `game`), and `condition` besides. Both ways in build
    their statement here, so a check is never in one and not the other."""
    return f"""
    INSERT INTO {Order._meta.db_table} (phase_id, seat, payload, source, entered_by_id, submitted_at, act)
    SELECT phase.id, %s::smallint, %s::jsonb, %s::text, NULL, %s::timestamptz, NULL
      FROM {source}
      JOIN {Phase._meta.db_table} phase ON phase.game_id = game.id
     WHERE game.id = %s AND game.status = %s::text AND game.state::text = %s::text
       AND phase.id = %s AND phase.status = '{Phase.Status.OPEN}' AND phase.deadline > now(){condition}
       FOR SHARE OF game"""


@functools.cache
def _insert_sql() -> str:
    return _insert(f"{Game._meta.db_table} game") + "\n"


@functools.cache
def _write_again_sql() -> str:
    """`_insert_sql`, also only if the link (its hash the next parameter) is in force and
    opens the seat in that game; it returns, when it wrote, the game's early resolution
    (the game's id the last parameter) as the statement found it."""
    link = f"""{SeatLink._meta.db_table} link
      JOIN {Player._meta.db_table} player ON player.id = link.player_id
      JOIN {Game._meta.db_table} game ON game.id = player.game_id"""
    condition = "\n       AND link.token_hash = %s AND link.revoked_at IS NULL AND player.seat = %s::smallint"
    returning = f"\n    RETURNING (SELECT early_resolution FROM {Game._meta.db_table} WHERE id = %s)\n"
    return _insert(link, condition) + returning
