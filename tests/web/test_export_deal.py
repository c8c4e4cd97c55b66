"""A game the organiser dealt exports its deal, so that the export replays through the
engine to the events recorded (the seed alone would deal other cards)."""

from __future__ import annotations

from random import Random

import pytest
from django.test import Client

from werewolf.engine.replay import replay
from werewolf.engine.rulesets import get
from werewolf.games import services
from werewolf.games.models import Game

from .play import create_game

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
    rules, rng = get("classic"), Random(9)
    game.refresh_from_db()
    while game.status == Game.Status.RUNNING:
        phase = game.current_phase()
        services.submit_orders(game, rules.bot_orders(game.engine_state, rng))
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
