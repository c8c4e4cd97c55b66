"""Each read of `werewolf.games.rows`, in SQL written once, gives what the ORM query it
replaces gives: the same rows in the same order, the same values (JSON decoded, times
converted), each with its game attached, on SQLite and on PostgreSQL."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection, connections
from django.db.models import Count, Q
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from werewolf.games import attendance, links, reading, rows, services
from werewolf.games.models import Dispatch, Event, Game, Phase, Post, SeatHolding, SeatLink, SeatPolicy

from .play import played_by_bots

pytestmark = pytest.mark.django_db


def values(instances: list[Any]) -> list[dict[str, Any]]:
    """Every column of each instance, as the model reads it."""
    return [{field.attname: getattr(row, field.attname) for field in row._meta.concrete_fields} for row in instances]


@pytest.fixture
def game(organiser: Any) -> Game:
    """A game some phases in (phases, events and cards of several kinds), with talk in
    three channels, some of it hidden."""
    game = played_by_bots(organiser, "classic", rounds=5)
    phases = list(game.phases.order_by("index"))
    for number in range(30):
        Post.objects.create(
            game=game,
            channel=("square", "den", "ghosts")[number % 3],
            seat=number % 8,
            author=f"Author {number}",
            text=f"Post {number}",
            phase=phases[number % len(phases)],
            hidden_at=timezone.now() if number % 7 == 0 else None,
        )
    return game


def test_phases_seats_and_events_read_as_the_orm_reads_them(game: Game) -> None:
    pairs = [
        (rows.phases(game), list(game.phases.order_by("index"))),
        (rows.seated(game), list(game.players.exclude(seat=None).order_by("seat"))),
        (rows.events(game), list(game.events.order_by("pk"))),
    ]
    for read, orm in pairs:
        assert read and values(read) == values(orm)
        assert all(row.game is game for row in read)  # attached: no query for it
    events = rows.events(game)
    assert any(event.data for event in events) and all(isinstance(event.data, dict) for event in events)  # decoded


def test_a_statement_read_as_raw_reads_it(game: Game) -> None:
    """`reading.read` gives what `raw()` gives: every field converted (JSON, times,
    booleans), a column no field holds as an attribute, a field the statement leaves out
    deferred, the instance from the database; what it works out of a statement's columns
    is kept by the connection that read it (a thread's own)."""
    table = Game._meta.db_table
    whole = f"SELECT {table}.*, 7 AS extra FROM {table} WHERE id = %s"
    some = f"SELECT id, name, state FROM {table} WHERE id = %s"
    for _ in range(2):  # worked out, then kept
        for sql in (whole, some):
            (read,) = reading.read(Game, sql, [game.pk])
            (raw,) = Game.objects.raw(sql, [game.pk])
            assert read.get_deferred_fields() == raw.get_deferred_fields()
            kept = [
                field.attname for field in Game._meta.concrete_fields if field.attname not in read.get_deferred_fields()
            ]
            assert {name: getattr(read, name) for name in kept} == {name: getattr(raw, name) for name in kept}
            assert read.state == game.state and isinstance(read.state, dict)
            assert (read._state.adding, read._state.db) == (raw._state.adding, raw._state.db) == (False, "default")
    (read,) = reading.read(Game, whole, [game.pk])
    assert read.extra == 7 and read.created_at == game.created_at and read.created_at.tzinfo is not None
    kept = connections["default"].__dict__[reading._READINGS]
    assert (Game, ("id", "name", "state")) in kept
    assert any(model is Game and columns[-1] == "extra" for model, columns in kept)
    assert reading.read(Game, whole, [0]) == []


def test_a_phase_s_cards_read_as_the_orm_reads_them(game: Game) -> None:
    phases = list(game.phases.order_by("index"))
    assert any(phase.orders.exists() for phase in phases)
    for phase in phases:
        assert rows.cards(phase) == list(phase.orders.order_by("pk").values_list("seat", "payload", "act"))


@pytest.mark.parametrize("channels", [["square"], ["den", "square"], ["ghosts", "den", "square"], None])
@pytest.mark.parametrize("hidden", [False, True])
@pytest.mark.parametrize("before", [None, 0, 15])
@pytest.mark.parametrize("limit", [1, 4, 40])
def test_the_newest_posts_read_as_the_orm_reads_them(
    game: Game, channels: list[str] | None, hidden: bool, before: int | None, limit: int
) -> None:
    posts = game.posts.all() if hidden else game.posts.filter(hidden_at=None)
    if channels is not None:
        posts = posts.filter(channel__in=channels)
    pks = list(game.posts.order_by("pk").values_list("pk", flat=True))
    before_pk = pks[before] if before is not None else None
    if before_pk is not None:
        posts = posts.filter(pk__lt=before_pk)
    orm = list(reversed(posts.order_by("-pk")[:limit]))
    read = rows.newest_posts(game, channels, hidden, before_pk, limit)
    assert values(read) == values(orm)
    assert all(post.game is game for post in read)


def test_no_channel_reads_nothing_without_a_query(game: Game) -> None:
    with CaptureQueriesContext(connection) as captured:
        assert rows.newest_posts(game, [], False, None, 40) == []
        assert rows.post_counts(game, []) == []
    assert not captured.captured_queries


@pytest.mark.parametrize("channels", [["square"], ["den", "square"], ["ghosts", "den", "square", "lovers"]])
def test_the_talk_s_counts_read_as_the_orm_counts_them(game: Game, channels: list[str]) -> None:
    orm = (
        game.posts.filter(channel__in=channels)
        .values("channel")
        .annotate(total=Count("pk"), hidden=Count("pk", filter=Q(hidden_at__isnull=False)))
        .order_by("channel")
    )
    counts = rows.post_counts(game, channels)
    assert counts == [(row["channel"], row["total"], row["hidden"]) for row in orm]
    assert any(hidden for _, _, hidden in counts)


def test_a_link_s_player_game_and_policy_read_as_the_orm_reads_them(game: Game) -> None:
    """`links.player_for`: the player a link opens and its game, every column as the ORM's
    joined read gives it, and the game's missed-cards policy, with a row and without,
    known without another query; a revoked link refused, an unknown one too."""
    player = game.players.exclude(seat=None).order_by("seat").first()
    assert player is not None
    link = links.issue(player)
    token = links.token_for(link.nonce)
    for policy in (None, SeatPolicy(game=game, prod_after=4, act_after=0, at_limit="standby", standby_limit=2)):
        if policy is not None:
            policy.save()
        orm = SeatLink.objects.select_related("player__game__seat_policy").get(token_hash=links.digest(token))
        with CaptureQueriesContext(connection) as captured:
            read = links.player_for(token)
            shown = attendance.policy_of(read.game)
        assert len(captured.captured_queries) == 2
        assert values([read]) == values([orm.player]) and values([read.game]) == values([orm.player.game])
        assert shown == attendance.policy_of(orm.player.game)
        assert shown == (attendance.DEFAULT if policy is None else attendance.Policy(4, 0, "standby", 2))
    links.issue(player)  # a new link revokes the one read above
    with pytest.raises(links.LinkError, match="revoked"):
        links.player_for(token)
    with pytest.raises(links.LinkError, match="unknown"):
        links.player_for("a" * links.TOKEN_LENGTH)


def test_rows_inserted_as_bulk_create_inserts_them(game: Game) -> None:
    """`rows.insert`: the same rows `bulk_create` writes (JSON, times, defaults, an
    `auto_now_add` stamp, a key's id, None), their ids given back when asked, the
    instances then saved ones, in one statement however many rows."""
    phase = game.phases.order_by("index").first()
    player = game.players.exclude(seat=None).order_by("seat").first()
    assert phase is not None and player is not None
    now = timezone.now()

    def made(tag: str) -> tuple[list[Event], list[Dispatch]]:
        events = [
            Event(game=game, phase=phase if n % 2 else None, kind=f"{tag}{n}", data={"a": [n, "é'\\"]}, audience=["x"])
            for n in range(5)
        ]
        mails = [
            Dispatch(
                player=player if n % 2 else None,
                key=f"{tag}:{n}",
                kind=Dispatch.Kind.PHASE,
                phase=phase,
                message_id=f"<{tag}{n}@x>",
                recipient="A <a@x.test>",
                subject="Sé",
                body_html="<p>'\\\"</p>" * n,
                headers={"Reply-To": "r@x.test"} if n else {},
                next_attempt_at=now,
                claimed_at=now if n % 2 else None,
                status=Dispatch.Status.CLAIMED if n % 2 else Dispatch.Status.PENDING,
            )
            for n in range(12)
        ]
        return events, mails

    orm_events, orm_mails = made("orm")
    Event.objects.bulk_create(orm_events)
    Dispatch.objects.bulk_create(orm_mails)
    events, mails = made("raw")
    with CaptureQueriesContext(connection) as captured:
        rows.insert(events)
        rows.insert(mails, returning=True)
    assert len(captured.captured_queries) == 2
    assert all(mail.pk is not None and not mail._state.adding for mail in mails)

    def stored(model: Any, tag: str) -> list[dict[str, Any]]:
        found = values(list(model.objects.filter(**{"kind__startswith" if model is Event else "key__startswith": tag})))
        for row in found:
            row.pop("id")
            row.pop("created_at")
            for name in ("kind", "key", "message_id"):
                if name in row:
                    row[name] = row[name].replace(tag, "")
        return found

    assert stored(Event, "orm") == stored(Event, "raw")
    assert stored(Dispatch, "orm") == stored(Dispatch, "raw")
    read = {mail.pk: mail for mail in Dispatch.objects.filter(key__startswith="raw")}
    assert [read[mail.pk].key for mail in mails] == [mail.key for mail in mails]  # each its own id
    assert all(read[mail.pk].created_at == mail.created_at for mail in mails)  # stamped as saved
    assert rows.insert([]) is None


def test_a_phase_s_events_holdings_and_links_read_as_the_orm_reads_them(game: Game) -> None:
    """What a resolution's mails read: the phase's events (game and phase attached), the
    seats' holders (a hand-over among them) and the links in
    force (a revoked one left out)."""
    seated = list(game.players.exclude(seat=None).order_by("seat"))
    services.substitute_player(seated[1], name="Someone Else", email="else@example.test")
    links.issue(seated[2])  # (the link before it revoked)
    for phase in game.phases.order_by("index"):
        read = rows.phase_events(phase)
        assert values(read) == values(list(phase.events.order_by("pk")))
        assert all(event.game is phase.game and event.phase is phase for event in read)
    assert any(rows.phase_events(phase) for phase in game.phases.all())
    orm = SeatHolding.objects.filter(game=game).order_by("seat", "since", "pk")
    holdings = rows.holdings(game)
    assert holdings == list(orm.values_list("seat", "name", "email", "reason", "since", "phase__index", "player_id"))
    assert any(name == "Someone Else" for _, name, *_ in holdings)
    in_force = SeatLink.objects.filter(player__in=seated, revoked_at__isnull=True).order_by("pk")
    assert values(links._in_force(seated)) == values(list(in_force))
    assert SeatLink.objects.filter(player__in=seated, revoked_at__isnull=False).exists()
    assert links._in_force([]) == []


def test_a_resolution_s_phase_and_players_read_as_the_orm_reads_them(game: Game) -> None:
    """What a deadline's task reads first: its phase if open and due (not before its
    deadline, not once resolved), and the game's players in the model's order."""
    assert values(rows.players_of(game)) == values(list(game.players.all()))
    assert all(player.game is game for player in rows.players_of(game))
    last = game.phases.order_by("index").last()
    assert last is not None
    Phase.objects.filter(pk=last.pk).update(status=Phase.Status.OPEN)  # (one open, whether or not the game is over)
    for phase in game.phases.order_by("index"):
        for moment in (phase.deadline - timedelta(seconds=1), phase.deadline, phase.deadline + timedelta(days=1)):
            orm = Phase.objects.filter(pk=phase.pk, status=Phase.Status.OPEN, deadline__lte=moment).first()
            read = rows.due_phase(phase.pk, moment)
            assert (read is None) == (orm is None)
            if orm is not None and read is not None:
                assert values([read]) == values([orm])
    assert any(rows.due_phase(phase.pk, phase.deadline) for phase in game.phases.all())
