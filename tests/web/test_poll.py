"""The poll that tells a page to update: its version is a function of what the viewer
may see only. Nothing hidden (a night card changed, an event for other eyes) moves it."""

from __future__ import annotations

import pytest
from django.test import Client

from werewolf import engine
from werewolf.games import links, services
from werewolf.games.models import Event, Game, Phase

from .play import pack_of, seat_roles, started_game

pytestmark = pytest.mark.django_db(transaction=True)


def poll(path: str) -> str:
    return Client().get(path).json()["version"]


def public_poll(game: Game) -> str:
    return poll(f"/g/{game.public_key}/version.json")


def seat_poll(game: Game, seat: int) -> str:
    return poll(links.url_for(game.players.get(seat=seat), absolute=False) + "version.json")


def test_a_wolf_changing_its_list_moves_no_one_elses_version(organiser) -> None:
    game = started_game(organiser, "Poll")
    state = game.engine_state
    wolf = pack_of(game)[0]
    villagers = [seat for seat, role in enumerate(seat_roles(game)) if role != "wolf"]
    services.submit_order(game, wolf, engine.Order("kill", (villagers[0],)))
    others = {seat: seat_poll(game, seat) for seat in range(state.seats) if seat != wolf}
    public, own = public_poll(game), seat_poll(game, wolf)
    services.submit_order(game, wolf, engine.Order("kill", (villagers[1],)))
    assert public_poll(game) == public
    assert {seat: seat_poll(game, seat) for seat in others} == others
    assert seat_poll(game, wolf) != own  # the wolf's own page shows its new card


def test_hidden_events_do_not_show_in_the_next_visible_version(organiser) -> None:
    """Two games in the same state, one with extra events nobody but the moderator may
    see: every public and seat version is the same in both."""
    quiet = started_game(organiser, "Quiet", seed=4)
    busy = started_game(organiser, "Busy", seed=4)
    for _ in range(5):
        Event.objects.create(
            game=busy, phase=busy.current_phase(), kind="card_missing", data={"seat": 0}, audience="moderator"
        )
    for game in (quiet, busy):
        services.resolve_now(game)
    deadline = quiet.current_phase().deadline
    Phase.objects.filter(game__in=[quiet, busy], status=Phase.Status.OPEN).update(deadline=deadline)
    assert public_poll(quiet) == public_poll(busy)
    for seat in range(quiet.engine_state.seats):
        assert seat_poll(quiet, seat) == seat_poll(busy, seat)
