"""What every mail of a phase says alike is written once for all of them
(outbound._said_alike): each seat's mail is exactly what it would be written alone."""

from __future__ import annotations

import re
from random import Random

import pytest

from werewolf.engine.simulate import bot_orders
from werewolf.games import links, services
from werewolf.mail import outbound

from ..web.play import NAMES

pytestmark = pytest.mark.django_db

STAMP = re.compile(r"DTSTAMP:\d{8}T\d{6}Z")


def steady(mail: dict) -> dict:
    """A rendered mail without the moment its calendar event was written."""
    return {**mail, "attachments": [{**a, "content": STAMP.sub("", a["content"])} for a in mail.get("attachments", [])]}


@pytest.mark.parametrize("language", ["en", "it"])
def test_each_seat_s_mail_is_what_it_would_be_alone(organiser, language: str) -> None:
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:9]]
    game = services.create_game(organiser, name="Alike", seats=seats, options={"wolves": 2, "seers": 1})
    game.language = language
    game.save(update_fields=["language"])
    game = services.start_game(game)
    phase = game.current_phase()
    services.submit_orders(game, bot_orders(game.engine_state, Random(1)))  # the pack kills
    services.resolve_now(game)
    game.refresh_from_db()
    players = list(game.players.all())
    links.prime(players)
    events = list(phase.events.order_by("pk"))
    together = outbound.Shared(game.engine_state, game.current_phase(), [p.name for p in players])
    batch = [steady(outbound._render_phase(player, phase, events, together)) for player in players]
    assert {key for key, _ in together.words} == {"subject", "deadline_summary"}
    alone = [steady(outbound._render_phase(player, phase, events)) for player in players]
    assert batch == alone
    # ... and the seats asked for a card and those not asked are both there.
    assert len({mail["attachments"][0]["content"].split("SUMMARY:")[1].split("\r\n")[0] for mail in batch}) == 2
