"""The busiest statements are prepared once per connection on PostgreSQL (werewolf.database's
`prepared_cursor` and `run_prepared`, by psycopg's own `prepare=True`): the rows and
answers of any cursor, Django's errors, inside a transaction rolled back with the rest,
seen whenever queries are logged, prepared again on a new connection and after a
rollback, and not prepared at all with prepared statements off."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
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
        pytest.skip("prepared statements are PostgreSQL's (werewolf.database); elsewhere links.run uses a cursor")


def row(game, seat: int | None, text: str) -> list[object]:
    phase = game.phases.order_by("-index").values_list("pk", flat=True).first()
    return [game.pk, "square", seat, "Alba" if seat is not None else "", text, "web", phase, timezone.now(), None]


def prepared_here() -> set[str]:
    """The statements this connection has prepared, as the server lists them."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return {row[0] for row in cursor.fetchall()}


def test_a_statement_is_prepared_once_and_writes_and_reads_as_any_cursor(organiser) -> None:
    game = started_game(organiser, "Direct")
    assert connection.run_prepared(INSERT, row(game, 0, "Prepared")) == (1, None)
    assert connection.run_prepared(INSERT, row(game, None, "Again")) == (1, None)
    read = "SELECT %s::int + 1, %s::text IS NULL, %s::bool, %s::text"
    assert connection.run_prepared(read, [41, None, True, "é"]) == (1, (42, True, True, "é"))
    assert connection.run_prepared("SELECT 1 WHERE %s::int = 2", [1]) == (0, None)
    assert list(Post.objects.order_by("pk").values_list("text", "seat")) == [("Prepared", 0), ("Again", None)]
    prepared = prepared_here()
    # The post's INSERT once, however often run (the game's start prepares its own rows'
    # inserts too: rows.insert).
    assert len([statement for statement in prepared if statement.startswith('INSERT INTO "games_post"')]) == 1, prepared


def test_an_error_is_djangos_and_the_connection_goes_on(organiser) -> None:
    game = started_game(organiser, "Errors")
    with pytest.raises(IntegrityError):
        connection.run_prepared(INSERT, row(game, -1, "A seat below zero"))  # CHECK (seat >= 0)
    assert connection.run_prepared(INSERT, row(game, 1, "After")) == (1, None)
    assert list(Post.objects.values_list("text", flat=True)) == ["After"]


def test_inside_a_transaction_it_rolls_back_with_the_rest(organiser) -> None:
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


def test_with_prepared_statements_off_nothing_is_prepared(organiser, monkeypatch) -> None:
    game = started_game(organiser, "Pooler")
    connection.close()
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "prepare_threshold", None)  # WEREWOLF_DB_PREPARED=0
    assert connection.run_prepared(INSERT, row(game, 4, "Unprepared")) == (1, None)
    assert Post.objects.get().text == "Unprepared"
    assert prepared_here() == set()
    connection.close()  # (the next test's connection prepares again)


def test_a_rollback_costs_a_prepare_not_an_error(organiser) -> None:
    """psycopg answers a rollback, once it has prepared anything on the connection, with
    DEALLOCATE ALL, and knows it: the next run prepares its statement again rather than
    fail (a card or a post answered 500 on a connection that had rolled back a
    transaction, when statements were prepared outside psycopg's knowledge)."""
    game = started_game(organiser, "Deallocated")
    assert connection.run_prepared(INSERT, row(game, 5, "Prepared")) == (1, None)
    with pytest.raises(RuntimeError), transaction.atomic():
        Post.objects.update(text="Undone")
        raise RuntimeError  # ROLLBACK: psycopg deallocates every prepared statement
    assert connection.run_prepared(INSERT, row(game, 5, "After the rollback")) == (1, None)
    assert connection.run_prepared("SELECT %s::int + 1", [1]) == (1, (2,))
    assert sorted(Post.objects.values_list("text", flat=True)) == ["After the rollback", "Prepared"]
