"""An open seat page's poll for news on PostgreSQL reads everything in one statement
(werewolf/games/polls.py): the version it answers is the usual way's
(`selectors.version`) for every seat at every step of whole games of every ruleset,
with cards in, talk in each channel and posts hidden; anything it does not answer (a
revoked link, a token that opens nothing) goes the usual way."""

from __future__ import annotations

from random import Random

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from werewolf import engine
from werewolf.engine import rulesets
from werewolf.engine import talk as channels
from werewolf.engine.simulate import bot_orders
from werewolf.games import links, polls, selectors, services, talk
from werewolf.games.models import Game, SeatLink

from .play import NAMES

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def postgresql_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the one-statement poll is PostgreSQL's; SQLite goes the usual way")


def tokens(game: Game) -> dict[int, str]:
    return {
        player.seat: str(links.url_for(player, absolute=False)).strip("/").split("/")[-1]
        for player in game.players.exclude(seat=None)
    }


def talk_a_little(game: Game, rng: Random) -> None:
    """A post in some channels each step, by a seat that may write there; now and then one hidden."""
    state = game.engine_state
    for channel in channels.channels(state):
        writers = sorted(channel.readers & channel.writers)
        if writers and rng.random() < 0.7:
            try:
                post = talk.post(game, rng.choice(writers), channel.name, f"Said in {channel.name}")
            except services.ServiceError:
                continue
            if rng.random() < 0.3:
                talk.hide(game, post.pk)


def assert_same_versions(game: Game, seats: dict[int, str], seen: set[str]) -> bool:
    """Each seat's poll, and the public page's with and without the square, answers its
    version; whether the open phase shows a public tally."""
    for seat, token in seats.items():
        version = polls.seat_version(token)
        assert version == selectors.version(Game.objects.get(pk=game.pk), seat), (game.ruleset, seat)
        seen.add(version)
    for square in (False, True):
        Game.objects.filter(pk=game.pk).update(public_square=square)
        version = polls.public_version(game.public_key)
        assert version == selectors.version(Game.objects.get(pk=game.pk), engine.PUBLIC), (game.ruleset, square)
        seen.add(version)
    game = Game.objects.get(pk=game.pk)
    return game.is_running and selectors.running_tally(game.current_phase()) is not None


@pytest.mark.parametrize("ruleset", sorted(rulesets.RULESETS))
def test_the_poll_answers_the_usual_ways_version_for_every_seat_at_every_step(organiser, ruleset: str) -> None:
    rng = Random(ruleset)
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:8]]
    game = services.start_game(
        services.create_game(
            organiser, name=ruleset, seats=seats, options={}, ruleset=ruleset, seed=5, early_resolution=False
        )
    )
    opened = tokens(game)
    versions: set[str] = set()
    tallied = False
    for _ in range(14):
        game = Game.objects.get(pk=game.pk)
        assert_same_versions(game, opened, versions)
        if not game.is_running:
            break
        talk_a_little(game, rng)
        assert_same_versions(game, opened, versions)
        orders = bot_orders(game.engine_state, rng)
        some = dict(list(orders.items())[: max(1, len(orders) - 2)])  # not every card: who is in shows
        services.submit_orders(game, some)
        tallied |= assert_same_versions(game, opened, versions)
        services.resolve_now(Game.objects.get(pk=game.pk))
    assert_same_versions(Game.objects.get(pk=game.pk), opened, versions)
    assert len(versions) > 3 * (len(opened) + 2)  # the pages had news, seat by seat, step by step
    assert tallied or ruleset.startswith("lupusburg"), "a day's public tally was compared"


def polled_once(client: Client, url: str) -> object:
    """The poll's answer at `url`, asked a second time (the statement prepared on the
    connection by the first), which must be one statement."""
    client.get(url)
    with CaptureQueriesContext(connection) as captured:
        answer = client.get(url)
    assert answer.status_code == 200
    assert len(captured.captured_queries) == 1, captured.captured_queries  # (logged: by a cursor then)
    return answer.json()


def test_a_poll_is_one_statement_and_what_it_does_not_answer_goes_the_usual_way(organiser) -> None:
    seats = [services.Seating(name) for name in NAMES[:7]]
    game = services.start_game(services.create_game(organiser, name="Poll", seats=seats, options={}, seed=3))
    seat_tokens = tokens(game)
    client = Client()
    url = f"/p/{seat_tokens[0]}/version.json"
    assert polled_once(client, url) == {"version": selectors.version(Game.objects.get(pk=game.pk), 0)}

    SeatLink.objects.filter(player__game=game, player__seat=0).update(revoked_at=game.created_at)
    assert polls.seat_version(seat_tokens[0]) is None
    assert client.get(url).status_code == 404
    assert polls.seat_version("not-a-token") is None
    assert polls.seat_version("a" * 32) is None
    assert client.get("/p/" + "a" * 32 + "/version.json").status_code == 404


def test_the_public_poll_is_one_statement_and_a_key_no_game_has_goes_the_usual_way(organiser) -> None:
    seats = [services.Seating(name) for name in NAMES[:7]]
    game = services.start_game(services.create_game(organiser, name="Public", seats=seats, options={}, seed=3))
    client = Client()
    url = f"/g/{game.public_key}/version.json"
    assert polled_once(client, url) == {"version": selectors.version(Game.objects.get(pk=game.pk), engine.PUBLIC)}

    assert polls.public_version("nobody-has-this-key") is None
    assert client.get("/g/nobody-has-this-key/version.json").status_code == 404
    assert client.get("/g/not%20a%20key/version.json").status_code == 404
