"""A page's outcome (how the game ended) comes from the events the page read for its
viewer, not from a query of its own (`selectors.outcome_event`): the outcome events are
public, so every viewer's events hold them, and the answer is the query's, for every
seat, the public and the moderator, at the end of whole games of every ruleset and of a
game the organiser ended."""

from __future__ import annotations

from random import Random

import pytest

from werewolf import engine
from werewolf.engine import rulesets
from werewolf.engine.simulate import bot_orders
from werewolf.games import selectors, services
from werewolf.games.models import Game

from .play import NAMES

pytestmark = pytest.mark.django_db


def assert_every_viewer_finds_the_outcome(game: Game) -> None:
    read = selectors.outcome_event(game)
    assert read is not None and read.kind in selectors.OUTCOME_KINDS
    viewers: list[engine.Viewer] = [*range(game.engine_state.seats), engine.PUBLIC, engine.MODERATOR]
    for viewer in viewers:
        seen = selectors.visible_events(game, viewer)
        assert selectors.outcome_event(game, seen) == read, (game.ruleset, viewer)


@pytest.mark.parametrize("ruleset", sorted(rulesets.RULESETS))
def test_every_viewer_finds_how_a_whole_game_ended_in_its_own_events(organiser, ruleset: str) -> None:
    rng = Random(ruleset)
    seats = [services.Seating(name) for name in NAMES[:8]]
    game = services.start_game(
        services.create_game(
            organiser, name=ruleset, seats=seats, options={}, ruleset=ruleset, seed=4, early_resolution=False
        )
    )
    for _ in range(60):
        game = Game.objects.get(pk=game.pk)
        if not game.is_running:
            break
        viewers_before = [selectors.outcome_event(game, selectors.visible_events(game, seat)) for seat in range(8)]
        assert viewers_before == [None] * 8  # no outcome while it runs
        services.submit_orders(game, bot_orders(game.engine_state, rng))
        game = Game.objects.get(pk=game.pk)
        if game.is_running:  # (a day's majority ends it as its last card goes in, and may end the game)
            services.resolve_now(game)
    game = Game.objects.get(pk=game.pk)
    assert not game.is_running, "the game came to an end"
    assert_every_viewer_finds_the_outcome(game)


def test_every_viewer_finds_a_game_the_organiser_ended(organiser) -> None:
    seats = [services.Seating(name) for name in NAMES[:7]]
    game = services.start_game(services.create_game(organiser, name="Ended", seats=seats, options={}, seed=2))
    services.end_game(game)
    assert_every_viewer_finds_the_outcome(Game.objects.get(pk=game.pk))
