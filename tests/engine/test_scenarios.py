"""The rules of every ruleset, one scenario per rule sentence, from
fixtures/scenarios/<ruleset>/ (characters an organiser built come from
fixtures/characters/, named by `characters_from`).

Each scenario sets a table up (roles and alpha given, or dealt from the seed), then
plays phases: cards that must be refused when handed in, the cards that count, and the
events the resolution must produce, in order, with their audiences. `absent` lists the
events that must not appear: a kind, or a kind with data and an audience to match. A
scenario with `setup_error` checks that the table is refused, with that code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from werewolf import engine

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CATALOGUE = FIXTURES / "scenarios"
SCENARIOS = sorted(CATALOGUE.glob("*/*.json"))
CHARACTERS = FIXTURES / "characters"


@pytest.mark.parametrize("path", SCENARIOS, ids=[path.stem for path in SCENARIOS])
def test_rule(path: Path) -> None:
    scenario = json.loads(path.read_text())
    assert scenario["id"] == path.stem
    scenario["options"] = options_of(scenario)
    if "setup_error" in scenario:
        with pytest.raises(engine.SetupError) as refused:
            engine.setup(path.parent.name, scenario["options"], scenario["players"], scenario["seed"])
        assert refused.value.code == scenario["setup_error"]
        return
    state, events = engine.setup(
        path.parent.name, scenario["options"], scenario["players"], scenario["seed"], deal_of(scenario)
    )
    assert_contains(events, scenario.get("setup_expect", []), "setup")
    assert_absent(events, scenario.get("setup_absent", []), "setup")
    for number, phase in enumerate(scenario["phases"]):
        where = f"phase {number}"
        for key, value in phase.get("open", {}).items():
            assert getattr(state, key) == value, f"{where}: open {key}"
        spec = engine.phase(state)
        for seat, kind in phase.get("asks", {}).items():
            slot = spec.asks(int(seat))
            assert slot is not None and slot.kind == kind, f"{where}: seat {seat} asked {slot}"
        for refusal in phase.get("refuse", []):
            result = engine.validate(state, refusal["seat"], engine.Order.from_json(refusal["order"]))
            assert isinstance(result, engine.OrderError), f"{where}: {refusal} was accepted"
            assert result.code == refusal["error"], f"{where}: {refusal}"
            assert result.target == refusal.get("target"), f"{where}: {refusal}"
        orders = {int(seat): engine.Order.from_json(order) for seat, order in phase["orders"].items()}
        state, events = engine.resolve(state, orders)
        assert_contains(events, phase["expect"], where)
        assert_absent(events, phase.get("absent", []), where)
        if "alive" in phase:
            assert list(state.alive) == phase["alive"], where
    if "winner" in scenario:
        outcome = engine.outcome(state)
        assert (outcome.winner if outcome else None) == scenario["winner"]


def options_of(scenario: dict[str, Any]) -> dict[str, Any]:
    """The scenario's options, with the character definitions it names from
    fixtures/characters/ (`characters_from`) beside any it writes out."""
    options = dict(scenario["options"])
    named = [json.loads((CHARACTERS / f"{name}.json").read_text()) for name in scenario.get("characters_from", [])]
    if named:
        options["characters"] = [*options.get("characters", []), *named]
    return options


def deal_of(scenario: dict[str, Any]) -> dict[str, Any] | None:
    """The deal a scenario gives (`roles` and `alpha` in classic and Tabula; Lupusburg's
    whole `deal`: characters, chests, the Burgomaster, the goals), if any."""
    if "deal" in scenario:
        return dict(scenario["deal"])
    deal = {key: scenario[key] for key in ("roles", "alpha") if key in scenario}
    return deal or None


def assert_contains(events: list[engine.Event], expected: list[dict[str, Any]], where: str) -> None:
    """Each expected event appears, in this order, with at least the data given."""
    produced = [event.to_json() for event in events]
    position = 0
    for wanted in expected:
        while position < len(produced) and not matches(produced[position], wanted):
            position += 1
        assert position < len(produced), f"{where}: no {wanted} in order among {produced}"
        position += 1


def assert_absent(events: list[engine.Event], unwanted: list[str | dict[str, Any]], where: str) -> None:
    """No event matches any of `unwanted`: a bare kind, or a kind with data and audience."""
    produced = [event.to_json() for event in events]
    for pattern in unwanted:
        wanted = {"kind": pattern} if isinstance(pattern, str) else pattern
        found = [event for event in produced if matches(event, wanted)]
        assert not found, f"{where}: unexpected {found}"


def matches(event: dict[str, Any], wanted: dict[str, Any]) -> bool:
    if event["kind"] != wanted["kind"]:
        return False
    if "audience" in wanted and event["audience"] != wanted["audience"]:
        return False
    return all(event["data"].get(key, object()) == value for key, value in wanted.get("data", {}).items())


def test_every_scenario_is_numbered_once() -> None:
    numbers = [(path.parent.name, path.stem.removeprefix(f"{path.parent.name}-").split("-")[0]) for path in SCENARIOS]
    assert len(numbers) == len(set(numbers))
