"""An open seat page's poll for news (`version.json`) on PostgreSQL, in one statement.

Every open page asks whether it has news every WEREWOLF_POLL_SECONDS (15): in a served
game the request asked most, twelve a game every quarter of a minute. The usual way
(`views.seat_version`, `selectors.version`) read the link, the events, the open phase,
who has a card in, the seat's own card and the talk's counts: six queries, most of a
poll's 4 ms of CPU spent building them in the ORM. Here one prepared statement
(`_poll_sql`, prepared once per connection, `links.run`) reads all of it for the link:
the events' audiences only (never their data), the seats with a card in, the seat's own
card, and every channel's counts, in the order PostgreSQL sorts their names. What the
viewer may see of them is then chosen exactly as `selectors.version` chooses it, and
the same digest is taken (`selectors.version_of`): the events its audience admits, the
channels its seat reads (`rooms.seat_channels`, `rooms.digest_of`). A public tally (a day's vote) needs the
phase's counted cards: read then, by the usual query (`Phase.current_orders`).

The public page's poll (`public_version`, one for every spectator's open page) is read
the same way, by the game's public key: what the public may see of the same things,
and the square when the organiser shows it (`rooms.public_channels`).

Anything else goes the usual way, which answers as it always has: another database, a
token or key that is not one, a link that opens nothing or is revoked, a player not
seated, a key no game has. `tests/web/test_poll_version.py` compares the two for every
seat and the public at every step of whole games of every ruleset, talk and hidden
posts included."""

from __future__ import annotations

import functools
import json
from typing import Any

from django.db import connection

from werewolf import engine

from . import links, rooms, selectors
from .models import Event, Game, Order, Phase, Post


def seat_version(token: str) -> str | None:
    """The version of the page `token` opens (`selectors.version` of its seat), or None
    when this way does not answer (the caller then goes the usual way)."""
    if connection.vendor != "postgresql" or not links.looks_like_token(token):
        return None
    _, row = links.run(_seat_sql(), [links.digest(token)])
    if row is None:
        return None
    revoked, seat, status, text, ruleset, audiences, phase, index, deadline, handed, own, talked = row
    if revoked or seat is None:
        return None
    state = links.state_from(text) if text is not None else None
    opened = _opened(status, state, ruleset, phase, index, deadline, handed, own)
    readable = [channel.name for channel in rooms.seat_channels(status, state, seat)]
    return selectors.version_of(
        status, _seen(audiences, seat), seat, opened, rooms.digest_of(readable, json.loads(talked))
    )


def public_version(key: str) -> str | None:
    """The version of the public page of the game whose public key is `key`
    (`selectors.version` for the public), or None when this way does not answer."""
    if connection.vendor != "postgresql":
        return None
    _, row = links.run(_public_sql(), [key])
    if row is None:
        return None
    status, text, ruleset, public_square, audiences, phase, index, deadline, handed, talked = row
    state = links.state_from(text) if text is not None else None
    opened = _opened(status, state, ruleset, phase, index, deadline, handed, None)
    readable = [channel.name for channel in rooms.public_channels(status, state, public_square)]
    return selectors.version_of(
        status, _seen(audiences, engine.PUBLIC), engine.PUBLIC, opened, rooms.digest_of(readable, json.loads(talked))
    )


def _opened(
    status: str,
    state: engine.State | None,
    ruleset: str,
    phase: int | None,
    index: int | None,
    deadline: Any,
    handed: list[int],
    own: str | None,
) -> selectors.OpenPhase | None:
    """What the version takes of the open phase, from what the statement read of it."""
    if status != Game.Status.RUNNING or phase is None or index is None or state is None:
        return None
    return selectors.OpenPhase(
        index,
        deadline,
        selectors.handed_of(state, set(handed)),
        selectors.tally_of(state, engine.capabilities(ruleset).houses, Phase(pk=phase).current_orders),
        engine.Order.from_json(json.loads(own)) if own is not None else None,
    )


@functools.lru_cache(maxsize=256)
def _seen(audiences: str, viewer: engine.Viewer) -> int:
    """How many of the events whose audiences are `audiences` (a JSON list) the viewer
    may see. A game's polls between two of its events ask the same again."""
    return sum(engine.Audience.from_json(audience).admits(viewer) for audience in json.loads(audiences))


@functools.cache
def _seat_sql() -> str:
    """The link, its seat and game, what both polls read of the game (`_news`), and the
    seat's own newest card in the open phase."""
    own = f"""(SELECT own.payload::text FROM {Order._meta.db_table} own
             WHERE own.phase_id = phase.id AND own.seat = player.seat ORDER BY own.id DESC LIMIT 1)"""
    return f"""
    SELECT link.revoked_at IS NOT NULL, player.seat, {_news(own)}
    {links.from_link()}"""


@functools.cache
def _public_sql() -> str:
    """The game whose public key is the parameter: what both polls read of it (`_news`),
    with whether it shows its square."""
    return f"""
    SELECT {_news(None)}
      FROM {Game._meta.db_table} game
      {links.open_phase_join()}
     WHERE game.public_key = %s"""


def _news(own: str | None) -> str:
    """The columns both polls read of `game` and its open `phase`: the game's status,
    state and ruleset (the public's poll also whether it shows its square), its events'
    audiences, the open phase, the seats with a card in it, `own` (the seat's own card,
    for a seat's poll), and the talk's counts by channel (channel, posts, hidden posts),
    by channel's name."""
    square = "" if own is not None else " game.public_square,"
    own_card = "" if own is None else f"\n           {own},"
    return f"""game.status, game.state::text, game.ruleset,{square}
           (SELECT coalesce(json_agg(event.audience ORDER BY event.id), '[]')::text
              FROM {Event._meta.db_table} event WHERE event.game_id = game.id),
           phase.id, phase."index", phase.deadline,
           (SELECT coalesce(array_agg(DISTINCT handed.seat), '{{}}')
              FROM {Order._meta.db_table} handed WHERE handed.phase_id = phase.id),{own_card}
           (SELECT coalesce(json_agg(json_build_array(said.channel, said.total, said.hidden)
                                     ORDER BY said.channel), '[]')::text
              FROM (SELECT post.channel, count(*) AS total,
                           count(*) FILTER (WHERE post.hidden_at IS NOT NULL) AS hidden
                      FROM {Post._meta.db_table} post WHERE post.game_id = game.id GROUP BY post.channel) said)"""
