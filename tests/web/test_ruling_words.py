"""Rulings (issue 32): every ruling kind of every ruleset has a scenario in
fixtures/scenarios/ that checks its data (tests/engine/test_scenarios.py) and, here, its
words in English and Italian (an expected event's `words`), as the moderator reads them;
whole bot games rule with no other kind, and only for the moderator."""

from __future__ import annotations

import html
import json
from pathlib import Path
from random import Random
from types import SimpleNamespace
from typing import Any

import pytest
from django.utils import translation

from tests.engine.test_scenarios import SCENARIOS, deal_of, matches, options_of
from werewolf import engine
from werewolf.engine import rulings
from werewolf.engine.simulate import bot_orders
from werewolf.games.templatetags import werewolf as tags

from .play import NAMES

HOUSES = {"ruling_bag_draw", "ruling_chest_found", "ruling_bet_paid", "ruling_tie_broken", "ruling_drawn"}
SHARED = {"ruling_pack_choice", "ruling_protected", "ruling_immune", "ruling_frail", "ruling_power_spent"}
RULINGS = {
    "classic": {
        "ruling_pack_choice",
        "ruling_protected",
        "ruling_power_spent",
        "ruling_tie_broken",
        "ruling_kill_void",
        "ruling_swap_choice",
        "ruling_test_again",
    },
    "tabula": SHARED | {"ruling_owl", "ruling_tie_broken", "ruling_inquiry_choice"},
    "lunapiena": SHARED | {"ruling_owl", "ruling_tie_broken"},
    "lupusburg": {"ruling_bag_draw", "ruling_chest_found", "ruling_bet_paid", "ruling_tie_broken", "ruling_drawn"},
    "lupusburg-goals": {
        "ruling_bag_draw",
        "ruling_chest_found",
        "ruling_bet_paid",
        "ruling_tie_broken",
        "ruling_drawn",
    },
}
"""The ruling kinds each ruleset records."""


def _scenario(path: Path) -> dict[str, Any]:
    scenario: dict[str, Any] = json.loads(path.read_text())
    scenario["options"] = options_of(scenario)
    return scenario


WORDED = [path for path in SCENARIOS if '"words"' in path.read_text()]


def _worded(path: Path) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each expected event with words and the event the engine produced for it."""
    scenario = _scenario(path)
    ruleset = path.parent.name
    state, _ = engine.setup(ruleset, scenario["options"], scenario["players"], scenario["seed"], deal_of(scenario))
    found = []
    for phase in scenario["phases"]:
        orders = {int(seat): engine.Order.from_json(order) for seat, order in phase["orders"].items()}
        state, events = engine.resolve(state, orders)
        produced = [event.to_json() for event in events]
        position = 0
        for wanted in phase["expect"]:
            while not matches(produced[position], wanted):
                position += 1
            if "words" in wanted:
                found.append((wanted, produced[position]))
            position += 1
    return found


@pytest.mark.parametrize("path", WORDED, ids=[path.stem for path in WORDED])
def test_a_ruling_reads_to_the_moderator_as_its_scenario_says(path: Path) -> None:
    ruleset = path.parent.name
    names = NAMES[: _scenario(path)["players"]]
    for wanted, event in _worded(path):
        assert rulings.is_ruling(event["kind"]) and event["audience"] == "moderator", event
        seen = SimpleNamespace(kind=event["kind"], data=event["data"], phase=None)
        for language, words in wanted["words"].items():
            with translation.override(language):
                for autoescape in (True, False):
                    text = str(tags.render_event(seen, names, engine.MODERATOR, autoescape=autoescape, ruleset=ruleset))
                    assert (html.unescape(text) if autoescape else text) == words, (path.stem, language)


def test_every_ruling_kind_of_every_ruleset_has_a_worded_scenario() -> None:
    worded: dict[str, set[str]] = {}
    for path in WORDED:
        for wanted, _ in _worded(path):
            worded.setdefault(path.parent.name, set()).add(wanted["kind"])
    assert set(RULINGS) == set(engine.rulesets.RULESETS)
    for ruleset, kinds in RULINGS.items():
        assert kinds == worded.get(ruleset, set()), ruleset


@pytest.mark.parametrize("ruleset", sorted(RULINGS))
def test_bot_games_rule_for_the_moderator_alone_with_the_kinds_declared(ruleset: str) -> None:
    rules = engine.rulesets.get(ruleset)
    players = min(rules.max_players, 24)
    seen: set[str] = set()
    for seed in range(12):
        rng = Random(seed)
        state, _ = engine.setup(ruleset, {}, players if seed % 2 else rules.min_players + 3, seed)
        while not state.over:
            state, events = engine.resolve(state, bot_orders(state, rng))
            for event in events:
                if rulings.is_ruling(event.kind):
                    assert event.audience == engine.Audience.moderator(), event
                    seen.add(event.kind)
    assert seen <= RULINGS[ruleset]
    assert seen, ruleset
