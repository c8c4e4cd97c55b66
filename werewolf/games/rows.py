"""The rows every seat page reads of its game, each in one statement written once.

A seat's page (and the public page, the mails, the replay, which read the same) asks the
database the same few things on every visit: the game's phases, its seated players and
its events, the open phase's cards, and the talk's newest posts and counts. Each is a
plain `SELECT` of one table, and building it in the ORM costs more than running it: on
the benchmarks' machine 0.6 ms of CPU a query to write its SQL (the filter, the
ordering, the columns), against 0.2 ms for the same rows through `raw()`, which takes
the SQL as it is and builds the same model instances (each column through its field's
converters, the JSON decoded), and for less again through `reading.read`, which builds
them as `raw()` does with what `raw()` works out of a statement's columns kept by the
connection. Here each statement is the ORM query it replaces, written once; the rows
come back as the same instances, each with its game already attached (as a related
manager's query attaches it), so reading `phase.game` costs no query.

What a page reads, and which rows it may show, is still the selectors': these are only
the reads (`tests/web/test_rows.py` holds each to the ORM query it replaces).

A deadline's task reads the same way (its phase if due, the players, the phase's events
and the seats' holders for its mails), and writes one way more: its rows (its events,
its next phase, its twelve mails), which
`bulk_create` builds value by value through every field's conversions and a compiler
(on PostgreSQL, one array a column, which psycopg escapes in Python), are inserted by
`insert` in one statement written once for the model and the number of rows, each value
as the field's own conversion gives it where it converts anything (JSON, times), and
prepared once per connection on PostgreSQL (`links.statements`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from django.db import DEFAULT_DB_ALIAS, connection, connections, models

from . import links
from .models import Event, Game, Order, Phase, Player, Post, SeatHolding
from .reading import read

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
    found = read(model, sql, [game.pk, *(params or [])])
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


def players_of(game: Game) -> list[Player]:
    """`game.players.all()` (by seat, then id: the model's ordering)."""
    return _of_game(Player, game, order="seat, id")


def due_phase(phase_id: int, now: Any) -> Phase | None:
    """`Phase.objects.filter(pk=phase_id, status=Phase.Status.OPEN, deadline__lte=now).first()`."""
    sql = f"SELECT * FROM {_table(Phase)} WHERE id = %s AND status = %s AND deadline <= %s"
    moment = connection.ops.adapt_datetimefield_value(now)
    return next(iter(read(Phase, sql, [phase_id, Phase.Status.OPEN, moment])), None)


def phase_events(phase: Phase) -> list[Event]:
    """`phase.events.order_by("pk")`, each with its game and phase attached."""
    found = _of_game(Event, phase.game, "phase_id = %s", [phase.pk])
    for row in found:
        row.phase = phase
    return found


def holdings(game: Game) -> list[tuple[int, str, str, str, Any, int | None, int]]:
    """`SeatHolding.objects.filter(game=game).order_by("seat", "since", "pk")
    .values_list("seat", "name", "email", "reason", "since", "phase__index", "player_id")`."""
    index = connection.ops.quote_name("index")
    sql = (
        f"SELECT holding.id, holding.seat, holding.name, holding.email, holding.reason, holding.since,"
        f" phase.{index} AS phase_index, holding.player_id"
        f" FROM {_table(SeatHolding)} holding LEFT JOIN {_table(Phase)} phase ON phase.id = holding.phase_id"
        " WHERE holding.game_id = %s ORDER BY holding.seat, holding.since, holding.id"
    )
    found: Any = read(SeatHolding, sql, [game.pk])  # (each row with its step's index as `phase_index`)
    return [(row.seat, row.name, row.email, row.reason, row.since, row.phase_index, row.player_id) for row in found]


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
    return [(row.seat, row.payload, row.act) for row in read(Order, sql, [phase.pk])]


# Writing ---------------------------------------------------------------------------

# Fields whose value, as a model holds it (a str, a number, a key's id, None), is what the
# database driver takes: their conversions (`get_db_prep_save`) give it back unchanged.
_AS_IT_IS = frozenset(
    {
        "CharField",
        "TextField",
        "IntegerField",
        "SmallIntegerField",
        "BigIntegerField",
        "PositiveIntegerField",
        "PositiveSmallIntegerField",
        "PositiveBigIntegerField",
        "BooleanField",
        "ForeignKey",
    }
)


def insert(objs: Sequence[models.Model], returning: bool = False) -> None:
    """`type(objs[0]).objects.bulk_create(objs)` for new rows of one model, in the open
    transaction: each field's value taken as `bulk_create` takes it (`pre_save`: a time
    `auto_now_add` stamps), converted only where its field converts anything, and the
    rows inserted in one statement (`returning`: their ids given back to `objs`)."""
    if not objs:
        return
    model = type(objs[0])
    database = connections[DEFAULT_DB_ALIAS]  # (this thread's, looked up once: not at every value)
    reads, kinds = _writing(model)
    converts = [_converter(kind, field, database) for kind, field in zip(kinds, _inserted(model), strict=True)]
    batch = max(1, database.ops.bulk_batch_size(_inserted(model), objs) or len(objs))  # (SQLite's limit)
    for start in range(0, len(objs), batch):
        chunk = objs[start : start + batch]
        values: list[Any] = []
        for obj in chunk:
            values += [convert(read(obj)) for read, convert in zip(reads, converts, strict=True)]
        with links.statements() as cursor:
            cursor.execute(_insert_sql(model, database.vendor, len(chunk), returning), values)
            if returning:
                for obj, found in zip(chunk, cursor.fetchall(), strict=True):
                    obj.pk = found[0]
        for obj in chunk:
            obj._state.adding, obj._state.db = False, database.alias


def _same(value: Any) -> Any:
    return value


def _inserted(model: type[models.Model]) -> list[Any]:
    """A model's fields an insert writes: all but the id the database numbers."""
    return [field for field in model._meta.concrete_fields if not isinstance(field, models.AutoField)]


@functools.cache
def _writing(model: type[models.Model]) -> tuple[list[Callable[[Any], Any]], list[str]]:
    """For each field an insert writes, the reading of its value off an instance
    (`pre_save` where the field's class has its own: a time `auto_now_add` stamps) and
    how it is converted for the database: "same" where the field's conversion gives the
    value back (`_AS_IT_IS`), "time", or "field" (its own `get_db_prep_save`)."""
    reads: list[Callable[[Any], Any]] = []
    kinds: list[str] = []
    for field in _inserted(model):
        if type(field).pre_save is not models.Field.pre_save:
            reads.append(functools.partial(_pre_save, field))
        else:
            reads.append(functools.partial(_attribute, field.attname))
        kind = field.get_internal_type()
        kinds.append("same" if kind in _AS_IT_IS else "time" if kind == "DateTimeField" else "field")
    return reads, kinds


def _converter(kind: str, field: Any, database: Any) -> Callable[[Any], Any]:
    if kind == "same":
        return _same
    if kind == "time":
        return database.ops.adapt_datetimefield_value  # type: ignore[no-any-return]
    return functools.partial(field.get_db_prep_save, connection=database)


def _pre_save(field: Any, obj: models.Model) -> Any:
    return field.pre_save(obj, True)


def _attribute(name: str, obj: models.Model) -> Any:
    return getattr(obj, name)


@functools.cache
def _insert_sql(model: type[models.Model], vendor: str, rows: int, returning: bool) -> str:
    quote = connection.ops.quote_name
    columns = [field.column for field in _inserted(model)]
    row = "(" + ", ".join(["%s"] * len(columns)) + ")"
    back = f" RETURNING {quote(model._meta.pk.column)}" if returning else ""
    names = ", ".join(quote(column) for column in columns)
    return f"INSERT INTO {_table(model)} ({names}) VALUES {', '.join([row] * rows)}{back}"  # noqa: S608 - no input in the names
