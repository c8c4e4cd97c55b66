"""The newcomer's demo: one human seat, bots in the others, short phases."""

from __future__ import annotations

from datetime import timedelta
from random import Random

import pytest
from django.test import Client
from django.utils import timezone

from werewolf.games import services
from werewolf.games.models import Game, Order, Phase

from .play import card_form, open_phase

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_demo_game_plays_out_from_one_seat(organiser_client: Client) -> None:
    response = organiser_client.post("/games/demo/", {"name": "Newcomer"})
    assert response.status_code == 302 and response["Location"].startswith("/p/")
    seat_path = response["Location"]
    game = Game.objects.get(is_demo=True)
    human = game.players.get(is_bot=False)
    assert game.players.filter(is_bot=True).count() == 6
    first = game.current_phase()
    assert (first.deadline - first.opened_at) == timedelta(minutes=1)
    bots = set(game.players.filter(is_bot=True).values_list("seat", flat=True))
    assert set(Order.objects.filter(phase=first).values_list("seat", flat=True)) == bots
    player = Client()
    page = player.get(seat_path).content.decode()
    assert "Newcomer" in page and "Your role:" in page
    rng = Random(3)
    for _ in range(40):
        phase = open_phase(game)
        if phase is None:
            break
        form = card_form(game, human.seat, rng)
        if form is not None:
            player.post(seat_path, form)
        if Phase.objects.get(pk=phase.pk).status == Phase.Status.OPEN:
            Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))
            services.sweep_due_phases()
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert "The game is over" in player.get(seat_path).content.decode()
