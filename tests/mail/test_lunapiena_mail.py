"""Luna Piena played by mailed cards only, with the characters of the 2011 expansion
and an organiser's own: every card a reply to the seat's newest mail (READ, SHOOT,
RAISE, GIVE, a wolf's KILL ... ALSO), each seat's mails swept for other seats' secrets
after every step (tests/mail/test_tabula_mail.py's machinery)."""

from __future__ import annotations

import json
from pathlib import Path
from random import Random
from typing import Any

import pytest

from werewolf.games import selectors, services
from werewolf.games.models import Game, InboundMessage

from .test_tabula_mail import NAMES, Sweep, play, reply

pytestmark = pytest.mark.django_db(transaction=True)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "characters"


def luna_game(organiser: Any, players: int, seed: int, **options: Any) -> Game:
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:players]]
    game = services.create_game(
        organiser, name="Luna Piena by mail", seats=seats, ruleset="lunapiena", options=options, seed=seed
    )
    return services.start_game(game)


@pytest.mark.parametrize("seed", [2, 4])
def test_a_themed_luna_piena_game_played_by_mail(organiser, seed: int) -> None:
    sherlock = json.loads((FIXTURES / "sherlock.json").read_text())
    cards = ["lara", "jekyll", "dorian", "necromancer", "hamlet", "fortune_teller", "sherlock", "undead"]
    game = luna_game(organiser, 12, seed, cards=cards, characters=[sherlock])
    sweep, tried = play(game, seed)
    assert tried["suspect"]
    over = game.events.get(kind="game_over")
    for player in game.players.all():
        assert "The game is over" in sweep.everything(player.seat)
    assert over.data["winner"] in ("village", "wolves")


def test_a_wolf_slaughters_by_mail_with_also_and_italian_words(organiser) -> None:
    deal_roles = ["villager", "wolf", "villager", "seer", "wolf", "villager", "villager", "villager", "lara"]
    game = luna_game(organiser, 9, 1, cards=["lara"])
    # The organiser's deal, so that the seats are known.
    state = game.engine_state
    roles = list(state.rules.roles)
    seat_of = {role: [seat for seat, held in enumerate(roles) if held == role] for role in set(deal_roles)}
    lara = seat_of["lara"][0]
    wolf = seat_of["wolf"][0]
    victim = next(seat for seat, role in enumerate(roles) if role == "villager")
    names = selectors.names(game)
    sweep = Sweep(game)
    rng = Random(1)
    kept = reply(game, sweep, lara, f"UCCIDI {names[victim]} ANCHE {names[wolf]}", rng)
    assert kept.status == InboundMessage.Status.APPLIED, kept.code
    not_a_wolf = next(seat for seat, role in enumerate(roles) if role == "villager" and seat != victim)
    kept = reply(game, sweep, lara, f"KILL {names[victim]} ALSO {names[not_a_wolf]}", rng)
    assert kept.status == InboundMessage.Status.REFUSED, kept.code
    assert "nothing in the game was changed" in sweep.last(lara)
    assert f"{names[not_a_wolf]} is not a fellow werewolf" in sweep.last(lara)
