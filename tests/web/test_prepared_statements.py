"""The busiest statements go straight to libpq on PostgreSQL (werewolf.database's
`run_prepared`): the same rows and answers as a cursor, Django's errors, nothing of it
inside a transaction (there the cursor runs it, and it rolls back with the rest), seen
whenever queries are logged, and prepared again on a new connection."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, connections, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from werewolf.games import talk
from werewolf.games.models import Post

from .play import started_game

pytestmark = pytest.mark.django_db(transaction=True)

INSERT = talk._insert_sql()


@pytest.fixture(autouse=True)
def postgresql_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("libpq's own call is PostgreSQL's; elsewhere links.run uses a cursor")


def row(game, seat: int | None, text: str) -> list[object]:
    phase = game.phases.order_by("-index").values_list("pk", flat=True).first()
    return [game.pk, "square", seat, "Alba" if seat is not None else "", text, "web", phase, timezone.now(), None]


def test_a_statement_run_straight_through_libpq_writes_and_reads_as_a_cursor(organiser, monkeypatch) -> None:
    game = started_game(organiser, "Direct")
    used = []
    monkeypatch.setattr(type(connections["default"]), "_run_with_cursor", lambda *args: used.append(args) or (0, None))
    assert connection.run_prepared(INSERT, row(game, 0, "By libpq")) == (1, None)
    assert connection.run_prepared(INSERT, row(game, None, "Again")) == (1, None)
    read = "SELECT %s::int + 1, %s::text IS NULL, %s::bool, %s::text"
    assert connection.run_prepared(read, [41, None, True, "é"]) == (1, (42, True, True, "é"))
    assert connection.run_prepared("SELECT 1 WHERE %s::int = 2", [1]) == (0, None)
    assert used == []  # none of it went through a cursor
    assert list(Post.objects.order_by("pk").values_list("text", "seat")) == [("By libpq", 0), ("Again", None)]


def test_an_error_is_djangos_and_the_connection_goes_on(organiser) -> None:
    game = started_game(organiser, "Errors")
    with pytest.raises(IntegrityError):
        connection.run_prepared(INSERT, row(game, -1, "A seat below zero"))  # CHECK (seat >= 0)
    assert connection.run_prepared(INSERT, row(game, 1, "After")) == (1, None)
    with pytest.raises(ValueError):
        connection.run_prepared("SELECT 1 WHERE 'a' LIKE 'a%'", [])
    assert list(Post.objects.values_list("text", flat=True)) == ["After"]


def test_inside_a_transaction_the_cursor_runs_it_and_it_rolls_back(organiser) -> None:
    game = started_game(organiser, "Atomic")

    class Undone(Exception):
        pass

    with pytest.raises(Undone), transaction.atomic():
        assert connection.run_prepared(INSERT, row(game, 2, "Rolled back")) == (1, None)
        assert Post.objects.filter(text="Rolled back").exists()
        raise Undone
    assert not Post.objects.exists()


def test_a_logged_statement_is_seen_and_a_new_connection_prepares_again(organiser, settings) -> None:
    game = started_game(organiser, "Seen")
    values = row(game, 3, "Seen")
    with CaptureQueriesContext(connection) as captured:
        assert connection.run_prepared(INSERT, values) == (1, None)
    assert len(captured.captured_queries) == 1 and "Seen" in captured.captured_queries[0]["sql"]
    assert connection.run_prepared(INSERT, row(game, 3, "Prepared")) == (1, None)
    connection.close()  # a reconnect: the new connection has prepared nothing yet
    assert connection.run_prepared(INSERT, row(game, 3, "Anew")) == (1, None)
    assert Post.objects.count() == 3


def test_with_prepared_statements_off_the_cursor_runs_it(organiser, monkeypatch) -> None:
    game = started_game(organiser, "Pooler")
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "prepare_threshold", None)  # WEREWOLF_DB_PREPARED=0
    used = []
    run = type(connections["default"])._run_with_cursor
    monkeypatch.setattr(type(connections["default"]), "_run_with_cursor", lambda *args: used.append(1) or run(*args))
    assert connection.run_prepared(INSERT, row(game, 4, "Unprepared")) == (1, None)
    assert used == [1] and Post.objects.get().text == "Unprepared"


def test_a_rollback_that_deallocates_every_statement_costs_a_prepare_not_an_error(organiser) -> None:
    """psycopg answers a rollback, once a cursor of its own has prepared anything on the
    connection, with DEALLOCATE ALL: the statements `run_prepared` prepared go too. The
    next run prepares its statement again rather than fail (a card or a post then
    answered 500 on a connection that had rolled back a transaction)."""
    game = started_game(organiser, "Deallocated")
    assert connection.run_prepared(INSERT, row(game, 5, "Prepared")) == (1, None)
    with connection.prepared_cursor() as cursor:  # psycopg prepares this one by its own name
        cursor.execute("SELECT %s::int", [1])
    with pytest.raises(RuntimeError), transaction.atomic():
        Post.objects.update(text="Undone")
        raise RuntimeError  # ROLLBACK: psycopg deallocates every prepared statement
    assert connection.run_prepared(INSERT, row(game, 5, "After the rollback")) == (1, None)
    assert connection.run_prepared("SELECT %s::int + 1", [1]) == (1, (2,))
    assert sorted(Post.objects.values_list("text", flat=True)) == ["After the rollback", "Prepared"]
