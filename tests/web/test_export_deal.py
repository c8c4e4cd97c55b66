"""Every game exports its deal, so that the export replays through the engine to the
events recorded (in a game the organiser dealt, the seed alone would deal other cards)."""

from __future__ import annotations

from random import Random

import pytest
from django.test import Client

from werewolf.engine.replay import replay
from werewolf.engine.simulate import bot_orders
from werewolf.games import services
from werewolf.games.models import Game

from .play import create_game, seat_roles

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("alpha", ["Ezio", None])
def test_an_organiser_dealt_game_exports_its_deal_and_replays(organiser_client: Client, alpha: str | None) -> None:
    game = create_game(organiser_client, players=7, dealing="assign", cupid="on")
    Game.objects.filter(pk=game.pk).update(seed=9)
    by_name = {player.name: player.pk for player in game.players.all()}
    deal = {f"role_{pk}": "villager" for pk in by_name.values()}
    deal.update(
        {
            f"role_{by_name['Cato']}": "wolf",
            f"role_{by_name['Ezio']}": "wolf",
            f"role_{by_name['Alba']}": "seer",
            f"role_{by_name['Brio']}": "cupid",
        }
    )
    dashboard = f"/games/{game.pk}/"
    chosen = by_name[alpha] if alpha else ""
    assert organiser_client.post(dashboard, {"action": "assign", **deal, "alpha": chosen}).status_code == 302
    assert organiser_client.post(dashboard, {"action": "start"}).status_code == 302
    rng = Random(9)
    game.refresh_from_db()
    while game.status == Game.Status.RUNNING:
        phase = game.current_phase()
        services.submit_orders(game, bot_orders(game.engine_state, rng))
        phase.refresh_from_db()
        if phase.status == phase.Status.OPEN:
            services.resolve_now(game)
        game.refresh_from_db()

    export = organiser_client.get(f"/games/{game.pk}/export.json").json()
    seats = {player.name: player.seat for player in game.players.all()}
    roles = export["deal"]["roles"]
    assert [roles[seats[name]] for name in ("Alba", "Brio", "Cato", "Ezio")] == ["seer", "cupid", "wolf", "wolf"]
    if alpha:
        assert export["deal"]["alpha"] == seats[alpha]
    replayed = [(index, event.to_json()) for index, event in replay(export)]
    recorded = [(event.pop("phase"), event) for event in export["events"] if event.pop("by") == "engine"]
    assert replayed == recorded
    without_deal = {key: value for key, value in export.items() if key != "deal"}
    assert [event.to_json() for _, event in replay(without_deal)][:8] != [event for _, event in recorded[:8]]


def test_a_dealt_game_exports_its_deal_and_replays(organiser_client: Client) -> None:
    """A game dealt from the seed carries its deal too (engine.deal at the start)."""
    game = create_game(organiser_client, players=7)
    assert organiser_client.post(f"/games/{game.pk}/", {"action": "start"}).status_code == 302
    rng = Random(3)
    game.refresh_from_db()
    assert game.deal is not None and game.deal["roles"] == list(seat_roles(game))
    for _ in range(3):
        services.submit_orders(game, bot_orders(game.engine_state, rng))
        if game.current_phase() is not None and game.current_phase().status == "open":
            services.resolve_now(game)
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
    export = organiser_client.get(f"/games/{game.pk}/export.json").json()
    assert export["deal"] == game.deal
    assert all(phase["stage"] in ("night", "day") for phase in export["phases"])
    replayed = [(index, event.to_json()) for index, event in replay(export)]
    recorded = [(event.pop("phase"), event) for event in export["events"] if event.pop("by") == "engine"]
    assert replayed == recorded
