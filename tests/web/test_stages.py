"""The organiser's tools act on one stage: extending the accusation leaves the ballot its
own length, and "Resolve now" closes only the stage that is open."""

from __future__ import annotations

from datetime import timedelta

from django.test import Client

from werewolf import engine
from werewolf.games import services
from werewolf.games.models import Game, Phase

from .play import create_game

TABULA = {"ruleset": "tabula", "tabula_specials_default": "on", "tabula_first_night": "quiet"}


def test_extend_and_resolve_act_on_the_open_stage_only(organiser_client: Client) -> None:
    game = create_game(organiser_client, players=8, **TABULA)
    dashboard = f"/games/{game.pk}/"
    assert organiser_client.post(dashboard, {"action": "start"}).status_code == 302
    game.refresh_from_db()
    assert game.current_phase().stage == "night"
    assert organiser_client.post(dashboard, {"action": "resolve"}).status_code == 302

    accusation = game.current_phase()
    assert accusation.stage == "accusation"
    length = accusation.deadline - accusation.opened_at
    assert organiser_client.post(dashboard, {"action": "extend", "minutes": 30}).status_code == 302
    accusation.refresh_from_db()
    assert accusation.deadline - accusation.opened_at == length + timedelta(minutes=30)
    for voter in (0, 1, 2):
        services.submit_order(game, voter, engine.Order("vote", (5,)))
    services.submit_order(game, 3, engine.Order("vote", (6,)))
    assert organiser_client.post(dashboard, {"action": "resolve"}).status_code == 302
    accusation.refresh_from_db()
    assert accusation.status == Phase.Status.RESOLVED and accusation.resolution == Phase.Resolution.MODERATOR

    ballot = game.current_phase()
    assert ballot.stage == "ballot" and ballot.number == accusation.number
    assert ballot.deadline - ballot.opened_at == timedelta(minutes=game.stage_minutes["ballot"])
    assert organiser_client.post(dashboard, {"action": "extend", "minutes": 15}).status_code == 302
    ballot.refresh_from_db()
    assert ballot.deadline - ballot.opened_at == timedelta(minutes=game.stage_minutes["ballot"] + 15)
    accusation.refresh_from_db()
    assert accusation.deadline - accusation.opened_at == length + timedelta(minutes=30)  # untouched
    assert organiser_client.post(dashboard, {"action": "resolve"}).status_code == 302
    ballot.refresh_from_db()
    assert ballot.status == Phase.Status.RESOLVED
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED or game.current_phase().stage == "night"
    assert game.events.filter(kind="ballot_revealed", phase=ballot).count() == 1
