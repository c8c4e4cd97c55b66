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

Django's cursors bind parameters on the client side and never prepare anything (a
pooler such as PgBouncer in transaction mode, before its version 1.21, loses prepared
statements). The few statements a busy request runs every time (a card handed in, a
post, a page's poll, the outbox's marks) go through `prepared_cursor` instead: psycopg's
own server-side cursor, each statement prepared on its first run by psycopg
(`execute(..., prepare=True)`) and kept with the connection, which halves the server's
work for a post. Django turns psycopg's prepared statements off unless OPTIONS names a
`prepare_threshold`; the settings name one, or None (WEREWOLF_DB_PREPARED=0), which
turns them off for these too, as psycopg documents. Only documented means are used: psycopg's
`Cursor`, `execute(prepare=...)`, `info` and `fileno()`, and Django's public cursor
wrappers.
"""

from __future__ import annotations

import select
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from django.db.backends.postgresql import base, operations
from psycopg import pq


class PreparedCursor(psycopg.Cursor[Any]):
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

    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed:
            return False
        if connection.info.transaction_status != pq.TransactionStatus.IDLE:
            return bool(super().is_usable())
        try:
            poll = select.poll()
            poll.register(connection.fileno(), select.POLLIN)
            quiet = not poll.poll(0)
        except (OSError, ValueError, psycopg.Error):
            return False
        return quiet or bool(super().is_usable())

    @contextmanager
    def prepared_cursor(self) -> Iterator[Any]:
        """A cursor as `cursor()` gives (the connection checked, the cursor wrapped and,
        when queries are logged, logged, so that tests count its queries) whose
        statements are prepared (`PreparedCursor`)."""
        self.close_if_health_check_failed()
        self.ensure_connection()
        self.validate_thread_sharing()
        with self.wrap_database_errors:
            raw: Any = PreparedCursor(self.connection)  # (django-stubs types Django's own wrapper here)
        cursor = self.make_debug_cursor(raw) if self.queries_logged else self.make_cursor(raw)
        with cursor:
            yield cursor

    def run_prepared(self, sql: str, params: Sequence[Any]) -> tuple[int, tuple[Any, ...] | None]:
        """Run `sql` with `params` by a `prepared_cursor`: how many rows it wrote (or
        read), and its first row if it returns any."""
        with self.prepared_cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.rowcount, (cursor.fetchone() if cursor.description else None)
