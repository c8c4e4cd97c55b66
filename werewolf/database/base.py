"""Django's PostgreSQL backend with a health check that costs no round trip, and cursors
whose statements the server parses and plans once per connection.

A kept connection (CONN_MAX_AGE) is checked before each request or task uses it
(CONN_HEALTH_CHECKS), so that a database that restarted meanwhile costs a reconnect, not
an error. Django checks with a `SELECT 1`: one more round trip per request, as many as a
town-square post's own work (issue 10). Here an idle connection is checked by asking the
kernel whether its socket has anything to read, which costs no round trip: between two
requests the server sends nothing unasked, and a server that shut down, restarted or
ended the session has sent its goodbye and closed the socket, which makes it readable.
Only then, or inside a transaction, does the check ask the server as Django's does.

Django turns psycopg's prepared statements off (a pooler such as PgBouncer in transaction
mode, before its version 1.21, loses them). Here they are on for `prepared_cursor` only,
unless OPTIONS says otherwise (prepare_threshold None: WEREWOLF_DB_PREPARED=0 in the
settings): Django's own cursors bind on the client side and never prepare anything.

The busiest of those statements (a town-square post, a card handed in) go one step
further, `run_prepared`: straight to libpq, prepared once per connection by a name of
their own and run with one call that releases the GIL, without a cursor. psycopg's
cursor and Django's wrapper around it cost twice what libpq's own call does (74 us
against 37 for a post's INSERT). Whenever Django would want to see the statement (its
queries logged, an execute wrapper installed, a transaction open) or prepared
statements are off, it goes through `prepared_cursor` instead.

psycopg answers a rollback with DEALLOCATE ALL once a cursor of its own has prepared
anything on the connection (`prepared_cursor` does): the statements prepared here go
with its own. The next run of one finds it gone (SQLSTATE 26000, nothing ran), prepares
it again and runs it; without that, every card and post on that connection failed
until it was closed.
"""

from __future__ import annotations

import itertools
import select
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from django.db.backends.postgresql import base, operations
from psycopg import abc as psycopg_abc
from psycopg import pq
from psycopg.adapt import PyFormat, Transformer


class PreparedCursor(base.ServerBindingCursor):  # type: ignore[misc, name-defined]  # not in django-stubs 5.2
    """Server-side parameters, and every statement prepared on its first run and kept
    with the connection: for the few statements a busy request runs every time."""

    def execute(
        self, query: Any, params: Any = None, *, prepare: bool | None = True, binary: bool | None = None
    ) -> Any:
        return super().execute(query, params, prepare=prepare, binary=binary)


class DatabaseOperations(operations.DatabaseOperations):
    # Django's PostgreSQL operations answer None too, where django-stubs says str.
    def last_executed_query(self, cursor: Any, sql: str, params: Any) -> str | None:  # type: ignore[override]
        """The statement as run, for the debug log and the tests' query counts: a
        prepared one's with its parameters written in, as Django's client-side ones."""
        if isinstance(cursor, PreparedCursor):
            try:
                return str(self.compose_sql(sql, params))
            except psycopg.Error:
                return sql
        return super().last_executed_query(cursor, sql, params)


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations

    def get_connection_params(self) -> dict[str, Any]:
        params: dict[str, Any] = super().get_connection_params()
        if "prepare_threshold" not in self.settings_dict["OPTIONS"]:
            # What `prepared_cursor` asks for is prepared at once (prepare=True); a
            # statement run without asking would be after this many runs, and none is.
            params["prepare_threshold"] = 1_000_000
        return params

    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed:
            return False
        pgconn = connection.pgconn
        if pgconn.transaction_status != pq.TransactionStatus.IDLE:
            return bool(super().is_usable())
        try:
            poll = select.poll()
            poll.register(pgconn.socket, select.POLLIN)
            quiet = not poll.poll(0)
        except (OSError, ValueError, psycopg.Error):
            return False
        return quiet or bool(super().is_usable())

    @contextmanager
    def prepared_cursor(self) -> Iterator[Any]:
        """`cursor()`, whose statements are prepared (`PreparedCursor`): checked and
        wrapped as any other, so that tests count its queries."""
        self.close_if_health_check_failed()
        self.ensure_connection()
        with self.wrap_database_errors:
            raw = PreparedCursor(self.connection)
        # Django's own checks and wrapping of a new cursor: private, so django-stubs leaves it out.
        with self._prepare_cursor(raw) as cursor:  # type: ignore[attr-defined]
            yield cursor

    def run_prepared(self, sql: str, params: Sequence[Any]) -> tuple[int, tuple[Any, ...] | None]:
        """Run `sql` (%s placeholders, no other %) with `params`, prepared once per
        connection: how many rows it wrote (or read), and its first row if it returns
        any. Straight through libpq when nothing needs to see it (see the module's
        docstring), else through `prepared_cursor`, with the same answer."""
        if (
            self.queries_logged
            or self.execute_wrappers
            or self.in_atomic_block
            or self.settings_dict["OPTIONS"].get("prepare_threshold", 0) is None
        ):
            return self._run_with_cursor(sql, params)
        self.close_if_health_check_failed()
        self.ensure_connection()
        self.validate_thread_sharing()
        connection = self.connection
        pgconn = connection.pgconn
        if pgconn.transaction_status != pq.TransactionStatus.IDLE:
            return self._run_with_cursor(sql, params)
        with self.wrap_database_errors:
            statement = self._statement(connection, sql)
            transformer = statement.transformer
            values = transformer.dump_sequence(params, [PyFormat.TEXT] * len(params))
            result = pgconn.exec_prepared(statement.name, values)
            if result.error_field(pq.DiagnosticField.SQLSTATE) == _UNKNOWN_STATEMENT:
                # Deallocated since: psycopg answers a rollback, once a cursor of its own
                # has prepared anything on the connection, with DEALLOCATE ALL, and ours
                # went with its own. Nothing ran (outside a transaction, nothing is
                # left to undo): prepare them again as needed, this one now.
                connection._werewolf_prepared = {}
                statement = self._statement(connection, sql)
                result = pgconn.exec_prepared(statement.name, values)
            if result.status not in (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK):
                raise psycopg.errors.error_from_result(result, encoding=connection.info.encoding)
            count = result.command_tuples
            row = None
            if result.status == pq.ExecStatus.TUPLES_OK and result.ntuples:
                # A prepared statement's rows have the same columns every time: their
                # loaders are looked up the first time only.
                transformer.set_pgresult(result, set_loaders=not statement.loaders)
                statement.loaders = True
                row = transformer.load_row(0, tuple)
            return (count if count is not None else -1), row

    def _run_with_cursor(self, sql: str, params: Sequence[Any]) -> tuple[int, tuple[Any, ...] | None]:
        with self.prepared_cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.rowcount, (cursor.fetchone() if cursor.description else None)

    def _statement(self, connection: Any, sql: str) -> _Prepared:
        """`sql` as prepared on this connection, preparing it the first time (each
        connection, a new one after a reconnect, prepares its own)."""
        prepared: dict[str, _Prepared] | None = getattr(connection, "_werewolf_prepared", None)
        if prepared is None:
            prepared = connection._werewolf_prepared = {}
        statement = prepared.get(sql)
        if statement is None:
            parts = sql.split("%s")
            if any("%" in part for part in parts):
                raise ValueError("run_prepared takes %s placeholders and no other %")
            numbered = parts[0] + "".join(f"${number}{part}" for number, part in enumerate(parts[1:], start=1))
            name = f"werewolf_{next(_NAMES)}".encode()
            result = connection.pgconn.prepare(name, numbered.encode(connection.info.encoding))
            if result.status != pq.ExecStatus.COMMAND_OK:
                raise psycopg.errors.error_from_result(result, encoding=connection.info.encoding)
            statement = prepared[sql] = _Prepared(name, Transformer(connection))
        return statement


class _Prepared:
    """A statement prepared on a connection: its name, and its own transformer, kept as a
    cursor keeps one, so that the dumpers of its parameters' types and the loaders of its
    columns are looked up once (a new transformer for each run cost more than the
    statement's own call into libpq)."""

    __slots__ = ("name", "transformer", "loaders")

    def __init__(self, name: bytes, transformer: psycopg_abc.Transformer) -> None:
        self.name = name
        self.transformer = transformer
        self.loaders = False


_UNKNOWN_STATEMENT = b"26000"
"""PostgreSQL's invalid_sql_statement_name: a prepared statement the session does not have."""

_NAMES = itertools.count(1)
"""Names of the statements `run_prepared` prepares (psycopg's own are _pg3_...)."""
