"""Replaying an export: the setup (with the organiser's deal when there was one), then
each phase's counted cards, gives the recorded events."""

from __future__ import annotations

from random import Random
from typing import Any

from werewolf import engine
from werewolf.engine.replay import replay
from werewolf.engine.simulate import bot_orders

ROLES = ["villager", "seer", "wolf", "villager", "villager", "wolf", "cupid", "villager", "villager"]


def exported_bot_game(
    seed: int, roles: list[str] | None, alpha: int | None, record_deal: bool = True, **options: Any
) -> dict[str, Any]:
    """A whole bot game written as the organiser's export would write it."""
    raw = {"seers": 1, **options}
    deal = None if roles is None else {"roles": roles, "alpha": alpha}
    state, events = engine.setup("classic", raw, len(ROLES), seed, deal)
    dealt = engine.deal(state)
    recorded: list[dict[str, Any]] = [{"phase": None, **event.to_json()} for event in events]
    phases = []
    rng = Random(seed)
    while not state.over:
        orders = bot_orders(state, rng)
        phases.append({"index": state.index, "orders": {str(seat): order.to_json() for seat, order in orders.items()}})
        index = state.index
        state, events = engine.resolve(state, orders)
        recorded += [{"phase": index, **event.to_json()} for event in events]
    export: dict[str, Any] = {
        "ruleset": "classic",
        "options": engine.options("classic", raw, len(ROLES)),
        "seed": seed,
        "players": [{"seat": seat, "name": f"P{seat}"} for seat in range(len(ROLES))],
        "phases": phases,
        "events": recorded,
    }
    if roles is not None or record_deal:
        export["deal"] = dealt
    return export


def replayed(export: dict[str, Any]) -> list[tuple[int | None, dict[str, Any]]]:
    return [(index, event.to_json()) for index, event in replay(export)]


def recorded(export: dict[str, Any]) -> list[tuple[int | None, dict[str, Any]]]:
    return [(event["phase"], {k: v for k, v in event.items() if k != "phase"}) for event in export["events"]]


def test_a_dealt_game_replays_from_its_deal() -> None:
    export = exported_bot_game(21, None, None, cupid=True, dark_city=True)
    assert replayed(export) == recorded(export)


def test_an_older_export_without_a_deal_replays_from_its_seed() -> None:
    export = exported_bot_game(21, None, None, record_deal=False, cupid=True)
    assert "deal" not in export
    assert replayed(export) == recorded(export)


def test_an_organiser_dealt_game_replays_from_its_deal() -> None:
    export = exported_bot_game(21, ROLES, 5, cupid=True, thing=True)
    assert replayed(export) == recorded(export)
    # The deal is what makes it replay: the seed alone deals other cards.
    without = {key: value for key, value in export.items() if key != "deal"}
    assert replayed(without)[: len(ROLES) + 2] != recorded(export)[: len(ROLES) + 2]


def test_an_organiser_deal_with_a_drawn_alpha_replays() -> None:
    export = exported_bot_game(5, ROLES, None, cupid=True, dark_city=True)
    assert replayed(export) == recorded(export)
