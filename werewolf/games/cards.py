"""A card handed in by a seat's own link, on PostgreSQL, in two statements (issue 11).

The seat page's POST read the link, the game, its open phase and the seats' names, and
handed the card in through `services.submit_order`: ten statements (a transaction, the
game's row locked and read again, the phase again, the acts counted), most of the time
spent building the ORM's queries. Here a card that goes in costs one read
(`_read_sql`: the link, its seat, the game's state as text and the open phase), its
values read as the card form reads them but without building it (`forms.posted_card`,
which took most of the request's time), and one INSERT that takes the game's lock itself and writes the card only if
the game's status and state are still those the card was checked against, the phase is
still open and its deadline not passed (`_insert_sql`). The lock makes it wait for a
resolution under way, as `submit_order` would; the state it then finds is the new one,
the condition fails, and nothing is written.

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
from dataclasses import dataclass

from django.db import connection
from django.http import QueryDict
from django.utils import timezone

from werewolf import engine

from . import links, services, talk
from .forms import posted_card
from .models import Game, Order, Phase, Player, SeatLink


@dataclass(frozen=True, slots=True)
class Handed:
    """A card that went in: the phase it was for."""

    phase: int
    index: int


def hand_in(token: str, data: QueryDict) -> Handed | None:
    """Hand in the card `data` (the seat page's form) for the seat `token` opens, or
    None when this way does not take it (the caller then goes the usual way)."""
    if connection.vendor != "postgresql" or not links.looks_like_token(token):
        return None
    with links.statements() as cursor:
        cursor.execute(_read_sql(), [links.digest(token)])
        row = cursor.fetchone()
    if row is None:
        return None
    revoked, seat, game, status, text, early, phase, index = row
    if revoked or status != Game.Status.RUNNING or phase is None or seat is None or text is None:
        return None
    state = talk._state(text)
    spec = engine.phase(state)
    slot = spec.asks(seat)
    if slot is None or slot.card.instant:
        return None
    posted = posted_card(slot, data)  # the card form's values, read as the form reads them
    if posted is None or posted[0] != phase:
        return None
    card = engine.validate(state, seat, posted[1])
    if isinstance(card, engine.OrderError):
        return None
    values = [seat, json.dumps(card.to_json()), Order.Source.WEB, timezone.now(), game, status, text, phase]
    with links.statements() as cursor:
        cursor.execute(_insert_sql(), values)
        if cursor.rowcount != 1:
            return None
    if early or spec.stage.decisive:  # else `early_trigger` reads nothing and says None
        trigger = services.early_trigger(early, state, Phase(pk=phase))
        if trigger:
            services.resolve_phase(phase, trigger)
    return Handed(phase, index)


@functools.cache
def _read_sql() -> str:
    return f"""
    SELECT link.revoked_at IS NOT NULL, player.seat, game.id, game.status, game.state::text,
           game.early_resolution, phase.id, phase."index"
      FROM {SeatLink._meta.db_table} link
      JOIN {Player._meta.db_table} player ON player.id = link.player_id
      JOIN {Game._meta.db_table} game ON game.id = player.game_id
      LEFT JOIN LATERAL (
           SELECT opened.id, opened."index" FROM {Phase._meta.db_table} opened
            WHERE opened.game_id = game.id AND opened.status = '{Phase.Status.OPEN}'
            ORDER BY opened."index" LIMIT 1) phase ON TRUE
     WHERE link.token_hash = %s
"""


@functools.cache
def _insert_sql() -> str:
    return f"""
    INSERT INTO {Order._meta.db_table} (phase_id, seat, payload, source, entered_by_id, submitted_at, act)
    SELECT phase.id, %s::smallint, %s::jsonb, %s::text, NULL, %s::timestamptz, NULL
      FROM {Game._meta.db_table} game
      JOIN {Phase._meta.db_table} phase ON phase.game_id = game.id
     WHERE game.id = %s AND game.status = %s::text AND game.state::text = %s::text
       AND phase.id = %s AND phase.status = '{Phase.Status.OPEN}' AND phase.deadline > now()
       FOR UPDATE OF game
"""
