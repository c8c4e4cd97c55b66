"""The circle on a seat's page shows the roles of the groups the seat was told it belongs
to, read from what each ruleset declares of its events (`engine.event_kinds`), never from a
list of event names: a ruleset of its own (Mafia's `mafia_met`) needs nothing shared."""

from __future__ import annotations

import pytest

from werewolf import engine
from werewolf.engine.rulesets import mafia
from werewolf.games import selectors, services

from .play import NAMES

pytestmark = pytest.mark.django_db


def test_a_mafioso_sees_the_mafia_and_the_town_sees_only_itself(organiser) -> None:
    seats = [services.Seating(name) for name in NAMES[:9]]
    game = services.create_game(
        organiser, name="Circle", seats=seats, options={"preset": "power"}, ruleset=mafia.ID, seed=3
    )
    game = services.start_game(game)
    roles = game.engine_state.rules.roles
    family = [seat for seat, role in enumerate(roles) if role in (mafia.GODFATHER, mafia.GOON)]
    cop = roles.index(mafia.COP)
    assert len(family) == 2 and mafia.GODFATHER in {roles[seat] for seat in family}

    def shown(viewer: engine.Viewer) -> dict[int, object]:
        seen = selectors.visible_events(game, viewer)
        return {row.seat: row.role for row in selectors.circle(game, viewer, seen) if row.role}

    for seat in family:
        assert shown(seat) == {other: roles[other] for other in family}
    assert shown(cop) == {cop: mafia.COP}
    assert shown(engine.PUBLIC) == {}
