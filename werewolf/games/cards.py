"""A card handed in by a seat's own link, on PostgreSQL, in one or two statements (issue 11),
by the rules every way a card comes in asks (`acceptance`).

The seat page's POST read the link, the game, its open phase and the seats' names, and
handed the card in through `services.submit_order`: ten statements (a transaction, the
game's row locked and read again, the phase again, the acts counted), most of the time
spent building the ORM's queries. Here a card costs one read (`_read_sql`: the link, its
seat, the game's status and state as text, the open phase and its deadline), its values
read as the card form reads them but without building it (`forms.posted_card`), the
card checked by `acceptance`'s rules and the engine's (`acceptance.checked`) against
what the read found, and one INSERT (`_insert_sql`) that writes the card only while all
of it still holds: the link in force and opening that seat, the game's state the one the
card was checked against, and every rule of `acceptance.RULES`, its `WHERE` built from
their SQL. A rule added there is asked by both ways at once.

The INSERT locks the game's row itself (FOR SHARE), so it waits for a resolution under
way (or any write of the game's row), as `submit_order` waits for the row's lock; the
state it then finds is the new one, and nothing is written. A resolution, which locks
the row FOR UPDATE, and any UPDATE of it wait for the cards going in, and the cards wait
for them, but cards of the same game do not wait for one another.

A link's next card (a vote changed as the day's talk goes on; a player who taps twice)
is checked against what its last read found, remembered per process (`_RECENT`), and
costs the INSERT alone. When it writes nothing (the game moved on since that read: once
a phase, not once a card), the link is read afresh and the card checked against that.

Anything else goes the usual way (`views.seat`): a link that opens nothing, a seat asked
for nothing, a form or card refused, a rule not met, an instant card (an act applied at
once, which only `submit_orders` applies). That way says why, from what the database
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
from datetime import datetime
from typing import Any

from django.db import connection
from django.utils import timezone

from werewolf import engine

from . import acceptance, links, services, validators
from .forms import posted_card
from .models import Game, Order, Phase, Player, SeatLink


@dataclass(frozen=True, slots=True)
class Handed:
    """A card that went in: the phase it was for."""

    phase: int
    index: int


@dataclass(frozen=True, slots=True)
class Read:
    """What the read of a link in force found: what a card is checked against, and
    written only if still so."""

    seat: int
    game: int
    status: str
    text: str | None
    """The game's state as PostgreSQL prints it (`game.state::text`)."""
    early: bool
    phase: int | None
    """The open phase's id; None when none is open."""
    index: int | None
    deadline: datetime | None


def hand_in(token: str, data: Mapping[str, str]) -> Handed | None:
    """Hand in the card `data` (the seat page's form) for the seat `token` opens, or
    None when this way does not take it (the caller then goes the usual way).

    A link that handed a card in lately (in this process, `_RECENT`) has its read
    remembered: its next card is checked against it and written by the one statement,
    which writes only if all is still as read; when it is not, the link is read afresh
    and the card checked against that."""
    if connection.vendor != "postgresql" or not links.looks_like_token(token):
        return None
    key = links.digest(token)
    now = timezone.now()
    known = _RECENT.get(key)
    if known is not None:
        handed = _write(key, known, data, now)
        if handed is not None:
            return handed
        # Not taken as the last read found the game: read afresh. A game that moved on
        # (a resolution came first, the write waiting for it) reads otherwise.
    _, row = links.run(_read_sql(), [key])
    read = _read(row)
    if read is None:
        _RECENT.forget(key)
        return None
    if read == known:
        return None  # as read, yet not taken: the usual way says why
    _RECENT.remember(key, read)
    return _write(key, read, data, now)


def _read(row: Any) -> Read | None:
    """The read, if it is of a link in force that opens a seat."""
    if row is None:
        return None
    revoked, seat, game, status, text, early, phase, index, deadline = row
    if revoked or seat is None:
        return None
    return Read(seat, game, status, text, early, phase, index, deadline)


def _write(key: str, read: Read, data: Mapping[str, str], now: datetime) -> Handed | None:
    """The card `data` written, if the game as read takes it from the seat now (the
    rules of `acceptance`, checked here and again by the INSERT itself) and the
    statement found everything still as read."""
    card_phase = validators.ascii_number(data.get("phase", "").strip())
    standing = acceptance.Standing(read.status, read.phase, read.deadline, card_phase, now)
    if card_phase is None or read.text is None or read.index is None or acceptance.refusal(standing) is not None:
        return None
    state = links.state_from(read.text)
    slot = engine.phase(state).asks(read.seat)
    if slot is None or slot.card.instant:
        return None
    posted = posted_card(slot, data)  # the card form's values, read as the form reads them
    if posted is None:
        return None
    card = acceptance.checked(state, read.seat, posted[1])
    if isinstance(card, engine.OrderError):
        return None
    payload = json.dumps(card.to_json())
    params = [payload, Order.Source.WEB, now, card_phase, key, read.seat, read.text]
    written, row = links.run(_insert_sql(), [*params, *acceptance.values(standing), read.game])
    if written != 1 or row is None:
        return None
    return _handed(card_phase, read.index, state, early=row[0])  # early resolution as the game has it now


def _handed(phase: int, index: int, state: engine.State, *, early: bool) -> Handed:
    """The card is in: the phase resolves now if its cards end it."""
    if early or engine.phase(state).stage.decisive:  # else `early_trigger` reads nothing and says None
        trigger = services.early_trigger(early, state, Phase(pk=phase))
        if trigger:
            services.resolve_phase(phase, trigger)
    return Handed(phase, index)


_RECENT: links.LastReads[Read] = links.LastReads()
"""The links that handed a card in lately: what their read found."""


_READ_COLUMNS = (
    "link.revoked_at IS NOT NULL, player.seat, game.id, game.status, game.state::text, "
    'game.early_resolution, phase.id, phase."index", phase.deadline'
)


@functools.cache
def _read_sql() -> str:
    return f"SELECT {_READ_COLUMNS} {links.from_link()}"


@functools.cache
def _insert_sql() -> str:
    """The INSERT of a card for the card's phase (its id a parameter), by the link (its
    hash the next) in force that opens the seat (the next), in the game whose state is
    the one the card was checked against (its text the next), while every rule of
    `acceptance` holds (their parameters next); it returns, when it wrote, the game's
    early resolution (the game's id the last parameter) as the statement found it."""
    return f"""
    INSERT INTO {Order._meta.db_table} (phase_id, seat, payload, source, entered_by_id, submitted_at, act)
    SELECT phase.id, player.seat, %s::jsonb, %s::text, NULL, %s::timestamptz, NULL
      FROM {SeatLink._meta.db_table} link
      JOIN {Player._meta.db_table} player ON player.id = link.player_id
      JOIN {Game._meta.db_table} game ON game.id = player.game_id
      JOIN {Phase._meta.db_table} phase ON phase.game_id = game.id AND phase.id = %s
     WHERE link.token_hash = %s AND link.revoked_at IS NULL AND player.seat = %s::smallint
       AND game.state::text = %s::text
       AND {acceptance.where()}
       FOR SHARE OF game
    RETURNING (SELECT early_resolution FROM {Game._meta.db_table} WHERE id = %s)
"""
