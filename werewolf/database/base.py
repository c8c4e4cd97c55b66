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
"""

from __future__ import annotations

import select
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from django.db.backends.postgresql import base
from psycopg import pq


class PreparedCursor(base.ServerBindingCursor):  # type: ignore[misc, name-defined]
    """Server-side parameters, and every statement prepared on its first run and kept
    with the connection: for the few statements a busy request runs every time."""

    def execute(
        self, query: Any, params: Any = None, *, prepare: bool | None = True, binary: bool | None = None
    ) -> Any:
        return super().execute(query, params, prepare=prepare, binary=binary)


class DatabaseOperations(base.DatabaseOperations):  # type: ignore[misc, name-defined]
    def last_executed_query(self, cursor: Any, sql: str, params: Any) -> str | None:
        """The statement as run, for the debug log and the tests' query counts: a
        prepared one's with its parameters written in, as Django's client-side ones."""
        if isinstance(cursor, PreparedCursor):
            try:
                return str(self.compose_sql(sql, params))
            except psycopg.Error:
                return sql
        return super().last_executed_query(cursor, sql, params)  # type: ignore[no-any-return]


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
        with self._prepare_cursor(raw) as cursor:
            yield cursor
