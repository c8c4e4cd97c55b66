"""The rows every seat page reads of its game, each in one statement written once.

A seat's page (and the public page, the mails, the replay, which read the same) asks the
database the same few things on every visit: the game's phases, its seated players and
its events, the open phase's cards, and the talk's newest posts and counts. Each is a
plain `SELECT` of one table, and building it in the ORM costs more than running it: on
the benchmarks' machine 0.6 ms of CPU a query to write its SQL (the filter, the
ordering, the columns), against 0.2 ms for the same rows through `raw()`, which takes
the SQL as it is and builds the same model instances (each column through its field's
converters, the JSON decoded). Here each statement is the ORM query it replaces, written
once; the rows come back as the same instances, each with its game already attached (as
a related manager's query attaches it), so reading `phase.game` costs no query.

What a page reads, and which rows it may show, is still the selectors': these are only
the reads (`tests/web/test_rows.py` holds each to the ORM query it replaces)."""

from __future__ import annotations

from typing import Any, TypeVar

from django.db import connection

from .models import Event, Game, Order, Phase, Player, Post

M = TypeVar("M", Phase, Player, Event, Post)


def _table(model: type[Any]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _of_game(
    model: type[M], game: Game, where: str = "", params: list[Any] | None = None, order: str = "id", limit: int = 0
) -> list[M]:
    """`model`'s rows of `game` that also meet `where` (SQL, with `params`), by `order`
    (SQL), the first `limit` if any, each with its game attached."""
    condition = f" AND {where}" if where else ""
    first = f" LIMIT {int(limit)}" if limit else ""
    sql = f"SELECT * FROM {_table(model)} WHERE game_id = %s{condition} ORDER BY {order}{first}"
    found = list(model.objects.raw(sql, [game.pk, *(params or [])]))
    for row in found:
        row.game = game
    return found


def phases(game: Game) -> list[Phase]:
    """`game.phases.order_by("index")`."""
    return _of_game(Phase, game, order=connection.ops.quote_name("index"))


def seated(game: Game) -> list[Player]:
    """`game.players.exclude(seat=None).order_by("seat")`."""
    return _of_game(Player, game, "seat IS NOT NULL", order="seat")


def events(game: Game) -> list[Event]:
    """`game.events.order_by("pk")`."""
    return _of_game(Event, game)


def newest_posts(game: Game, channels: list[str] | None, hidden: bool, before: int | None, limit: int) -> list[Post]:
    """The newest `limit` posts of `game`, oldest first: in `channels` (None: any),
    hidden ones too if `hidden`, only those before the post numbered `before` if given.
    (`game.posts`, filtered so, `.order_by("-pk")[:limit]`, reversed.)"""
    if channels == []:
        return []
    where: list[str] = []
    params: list[Any] = []
    if not hidden:
        where.append("hidden_at IS NULL")
    if channels is not None:
        where.append(f"channel IN ({', '.join(['%s'] * len(channels))})")
        params += channels
    if before is not None:
        where.append("id < %s")
        params.append(before)
    return _of_game(Post, game, " AND ".join(where), params, order="id DESC", limit=limit)[::-1]


def post_counts(game: Game, channels: list[str]) -> list[tuple[str, int, int]]:
    """Each of `channels` that holds posts, by name: (channel, its posts, of them hidden)."""
    if not channels:
        return []
    marks = ", ".join(["%s"] * len(channels))
    sql = (
        f"SELECT channel, COUNT(*), COUNT(hidden_at) FROM {_table(Post)}"
        f" WHERE game_id = %s AND channel IN ({marks}) GROUP BY channel ORDER BY channel"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [game.pk, *channels])
        return [(channel, total, hidden) for channel, total, hidden in cursor.fetchall()]


def cards(phase: Phase) -> list[tuple[int, Any, int | None]]:
    """`phase.orders.order_by("pk").values_list("seat", "payload", "act")`."""
    sql = f"SELECT id, seat, payload, act FROM {_table(Order)} WHERE phase_id = %s ORDER BY id"
    return [(row.seat, row.payload, row.act) for row in Order.objects.raw(sql, [phase.pk])]
