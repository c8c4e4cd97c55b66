"""Query counts that must not grow with the game or the table (issue 11): a seat's page
and a card handed in cost the same after one phase as after twelve, and a phase's mails
cost the same for seven players as for twelve."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from werewolf import engine
from werewolf.games import links, services
from werewolf.games.forms import NotecardForm
from werewolf.games.models import Dispatch, Phase
from werewolf.mail import outbound

from .play import pack_of, seat_roles, started_game

pytestmark = pytest.mark.django_db(transaction=True)

PAGE_QUERIES = 8
"""A seat's page by day: its link with its player, its game with the game's missed-cards
policy (`links.player_for`), the phases (the open one among them, the log's groups), the
seats, the open phase's cards (whose is in, the seat's own, the public tally: one read),
the events (the outcome among them), and the talk (its counts and its posts). It was ten
before issue 40 read the phases and the cards once each, then seven; the link's read
became two statements written once instead of one the ORM wrote afresh (about a tenth of
a page's work, docs/performance.md)."""

POST_QUERIES_SQLITE = 11
"""A card handed in by the form where `cards.hand_in` does not take it in one statement
(SQLite): the link's two reads (`links.player_for`), the service's reads and writes; it
redirects, never building the page."""


def queries(run) -> int:
    with CaptureQueriesContext(connection) as captured:
        run()
    return len(captured.captured_queries)


def play_phases(game, count: int) -> None:
    """Let `count` phases pass with nobody's card (the deadline resolves each)."""
    for _ in range(count):
        phase = game.current_phase()
        if phase is None:
            return
        Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        services.sweep_due_phases()


def costs(game) -> tuple[int, int]:
    """A living seat's page, and its card handed in by the form."""
    game.refresh_from_db()
    state = game.engine_state
    seat = next(seat for seat in sorted(engine.phase(state).slots) if state.alive[seat])
    url = links.url_for(game.players.get(seat=seat), absolute=False)
    client = Client()
    client.get(url)  # warm: sessions, templates
    page = queries(lambda: client.get(url))
    slot = engine.phase(state).slots[seat]
    data = {"phase": game.current_phase().pk}
    if slot.card.fields and slot.choices:
        data["target"] = next(choice for choice in slot.choices if choice != seat)
    posted = 0

    def post() -> None:
        response = client.post(url, data)
        assert response.status_code == 302, response.content.decode()[:2000]  # taken: it only redirects

    posted = queries(post)
    return page, posted


def test_a_seat_page_and_a_card_cost_the_same_after_one_phase_and_after_twelve(organiser) -> None:
    game = started_game(organiser, "Long", players=24, wolves=2, seers=0)
    play_phases(game, 1)
    early = costs(game)
    play_phases(game, 12)  # the same kind of phase (a day), twelve phases later
    assert game.current_phase() is not None and game.current_phase().index == 13
    late = costs(game)
    assert early == late, (early, late)
    page, posted = early
    if connection.vendor == "postgresql":
        # cards.hand_in: the link's read, the card's write, and by day the votes (whether they decide it)
        assert posted == 3, posted
    else:
        assert posted <= POST_QUERIES_SQLITE, posted  # the service's way: it redirects, never building the page
    # Each thing the page shows is read once, however often the page asks for it (what
    # it shows, and again for its version), and no read joins the game's row to sort.
    assert page <= PAGE_QUERIES, page


def test_a_phases_mails_cost_the_same_for_seven_players_and_for_twelve(organiser) -> None:
    counts = []
    for players in (7, 12):
        game = started_game(organiser, f"Mail {players}", players=players)
        phase = game.current_phase()
        services.resolve_now(game)
        Dispatch.objects.filter(phase=phase).delete()
        counts.append(queries(lambda phase=phase: outbound.queue_phase_mails(phase)))
    assert counts[0] == counts[1], counts


def test_a_post_and_a_card_neither_read_nor_write_the_session(organiser) -> None:
    """A seat's link is all a post or a card needs: even with a session (the organiser
    trying a seat in the same browser), neither reads it, saves it nor sets a cookie,
    and each costs its own statements only (a post one, a card one or two on PostgreSQL)."""
    from werewolf.games.models import Game, Order, Post

    game = started_game(organiser, "Session")
    Game.objects.filter(pk=game.pk).update(early_resolution=False)
    game.refresh_from_db()
    client = Client()
    client.force_login(organiser)
    session = client.cookies["sessionid"].value
    state = game.engine_state
    seat, victim = pack_of(game)[0], seat_roles(game).index("seer")
    url = links.url_for(game.players.get(seat=seat), absolute=False)
    slot = engine.phase(state).asks(seat)
    card = NotecardForm.initial_for(game.current_phase().pk, engine.Order("kill", (victim,)), slot)
    data = {name: str(value) for name, value in card.items()}
    talk_url = next(links.url_for(player, absolute=False) for player in game.players.all() if state.alive[player.seat])
    client.post(talk_url + "talk/", {"channel": "square", "text": "First"})  # the link's read, remembered
    client.post(url, data)

    def sent(run) -> list[str]:
        with CaptureQueriesContext(connection) as captured:
            response = run()
        assert response.status_code == 302, response.content.decode()[:2000]
        assert "sessionid" not in response.cookies and "csrftoken" not in response.cookies
        return [query["sql"] for query in captured.captured_queries]

    posted = sent(lambda: client.post(talk_url + "talk/", {"channel": "square", "text": "Again"}))
    assert len(posted) == 1 and "django_session" not in posted[0], posted
    carded = sent(lambda: client.post(url, data))
    assert not any("django_session" in sql for sql in carded), carded
    if connection.vendor == "postgresql":
        assert len(carded) == 1, carded
    assert client.cookies["sessionid"].value == session
    assert Post.objects.filter(game=game).count() == 2 and Order.objects.filter(seat=seat).count() == 2


def test_the_replay_costs_the_same_after_two_phases_and_after_twelve(organiser) -> None:
    """The replay reads the game's events, phases and cards once each, whatever its length:
    no query per event, card or phase (the states between the steps are the engine's)."""
    from .test_replay import play

    game = started_game(organiser, "Long replay", players=24, wolves=2, seers=0)
    client = Client()
    client.force_login(organiser)
    url = f"/g/{game.public_key}/replay/?step=1"

    def cost() -> int:
        client.get(url)  # warm: sessions, templates
        return queries(lambda: client.get(url))

    play(game, phases=2)
    early = cost()
    play(game, phases=10)
    assert game.current_phase() is not None and game.current_phase().index == 12
    assert cost() == early, early
    assert early <= REPLAY_QUERIES, early


REPLAY_QUERIES = 8
"""The replay, for its organiser: the session and the account, the game by its key, the
seats' holders, the events, the phases (twice: the log's and the story's), and every card."""
