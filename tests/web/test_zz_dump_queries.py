import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from werewolf import engine
from werewolf.games import links
from .play import started_game
from .test_query_counts import play_phases

pytestmark = pytest.mark.django_db(transaction=True)

def test_dump(organiser):
    game = started_game(organiser, "Long", players=12)
    play_phases(game, 1)
    game.refresh_from_db()
    state = game.engine_state
    seats = [s for s in sorted(engine.phase(state).slots) if state.alive[s]]
    urls = [links.url_for(game.players.get(seat=s), absolute=False) for s in seats]
    client = Client()
    client.get(urls[0])
    for label, url in (("first", urls[1]), ("again", urls[1])):
        with CaptureQueriesContext(connection) as c:
            client.get(url)
        print(f"\n== {label}: {len(c.captured_queries)}")
        for q in c.captured_queries:
            print("  ", q["sql"][:400])
