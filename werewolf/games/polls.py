"""An open seat page's poll for news (`version.json`) on PostgreSQL, in one statement.

Every open page asks whether it has news every WEREWOLF_POLL_SECONDS (15): in a served
game the request asked most, twelve a game every quarter of a minute. The usual way
(`views.seat_version`, `selectors.version`) read the link, the events, the open phase,
who has a card in, the seat's own card and the talk's counts: six queries, most of a
poll's 4 ms of CPU spent building them in the ORM. Here one prepared statement
(`_poll_sql`, straight to libpq as `links.run` does) reads all of it for the link:
the events' audiences only (never their data), the seats with a card in, the seat's own
card, and every channel's counts, in the order PostgreSQL sorts their names. What the
viewer may see of them is then chosen exactly as `selectors.version` chooses it, and
the same digest is taken (`selectors.version_of`): the events its audience admits, the
channels its seat reads (`talk.seat_channels`, `talk.digest_of`). A public tally (a day's vote) needs the
phase's counted cards: read then, by the usual query (`services.current_orders`).

Anything else goes the usual way, which answers as it always has: another database, a
token that is not one, a link that opens nothing or is revoked, a player not seated.
`tests/web/test_poll_version.py` compares the two for every seat at every step of whole
games of every ruleset, talk and hidden posts included."""

from __future__ import annotations

import functools
import json

from django.db import connection

from werewolf import engine

from . import links, selectors, services, talk
from .models import Event, Game, Order, Phase, Post


def seat_version(token: str) -> str | None:
    """The version of the page `token` opens (`selectors.version` of its seat), or None
    when this way does not answer (the caller then goes the usual way)."""
    if connection.vendor != "postgresql" or not links.looks_like_token(token):
        return None
    _, row = links.run(_poll_sql(), [links.digest(token)])
    if row is None:
        return None
    revoked, seat, status, text, ruleset, audiences, phase, index, deadline, handed, own, talked = row
    if revoked or seat is None:
        return None
    state = links.state_from(text) if text is not None else None
    opened = None
    if status == Game.Status.RUNNING and phase is not None and state is not None:
        opened = selectors.OpenPhase(
            index,
            deadline,
            selectors.handed_of(state, set(handed)),
            selectors.tally_of(
                state, ruleset.startswith("lupusburg"), lambda: services.current_orders(Phase(pk=phase))
            ),
            engine.Order.from_json(json.loads(own)) if own is not None else None,
        )
    readable = [channel.name for channel in talk.seat_channels(status, state, seat)]
    return selectors.version_of(
        status, _seen(audiences, seat), seat, opened, talk.digest_of(readable, json.loads(talked))
    )


@functools.lru_cache(maxsize=256)
def _seen(audiences: str, seat: int) -> int:
    """How many of the events whose audiences are `audiences` (a JSON list) the seat may
    see. A game's polls between two of its events ask the same again."""
    return sum(engine.Audience.from_json(audience).admits(seat) for audience in json.loads(audiences))


@functools.cache
def _poll_sql() -> str:
    """The link, its seat and game, the game's events' audiences, its open phase, the
    seats with a card in it and the seat's own newest card, and the talk's counts by
    channel (channel, posts, hidden posts), by channel's name."""
    return f"""
    SELECT link.revoked_at IS NOT NULL, player.seat, game.status, game.state::text, game.ruleset,
           (SELECT coalesce(json_agg(event.audience ORDER BY event.id), '[]')::text
              FROM {Event._meta.db_table} event WHERE event.game_id = game.id),
           phase.id, phase."index", phase.deadline,
           (SELECT coalesce(array_agg(DISTINCT handed.seat), '{{}}')
              FROM {Order._meta.db_table} handed WHERE handed.phase_id = phase.id),
           (SELECT own.payload::text FROM {Order._meta.db_table} own
             WHERE own.phase_id = phase.id AND own.seat = player.seat ORDER BY own.id DESC LIMIT 1),
           (SELECT coalesce(json_agg(json_build_array(said.channel, said.total, said.hidden)
                                     ORDER BY said.channel), '[]')::text
              FROM (SELECT post.channel, count(*) AS total,
                           count(*) FILTER (WHERE post.hidden_at IS NOT NULL) AS hidden
                      FROM {Post._meta.db_table} post WHERE post.game_id = game.id GROUP BY post.channel) said)
    {links.from_link()}"""
