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

RULINGS = {
    ruleset: {kind for kind in engine.event_kinds(ruleset) if rulings.is_ruling(kind)}
    for ruleset in engine.rulesets.RULESETS
}
"""The ruling kinds each ruleset records, as it declares them (`Ruleset.events`)."""


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
    for ruleset, kinds in RULINGS.items():
        assert kinds == worded.get(ruleset, set()), ruleset


@pytest.mark.parametrize("ruleset", sorted(RULINGS))
def test_bot_games_rule_for_the_moderator_alone_with_the_kinds_declared(ruleset: str) -> None:
    rules = engine.rulesets.get(ruleset)
    declared = engine.event_kinds(ruleset)
    players = min(rules.max_players, 24)
    seen: set[str] = set()
    for seed in range(12):
        rng = Random(seed)
        state, _ = engine.setup(ruleset, {}, players if seed % 2 else rules.min_players + 3, seed)
        while not state.over:
            state, events = engine.resolve(state, bot_orders(state, rng))
            for event in events:
                assert event.kind not in RETIRED, event
                assert event.kind in declared, f"{ruleset} writes {event.kind}, which it does not declare"
                if rulings.is_ruling(event.kind):
                    assert event.audience == engine.Audience.moderator(), event
                    seen.add(event.kind)
    assert seen <= RULINGS[ruleset]
    assert seen, ruleset


RETIRED = {
    "wolfsbane_saved": ("classic", {"seat": 2, "how": "herb"}, "ruling_protected"),
    "protected": ("tabula", {"seat": 2, "bodyguard": 5}, "ruling_protected"),
    "hamster_spared": ("lunapiena", {"seat": 2}, "ruling_immune"),
    "hamster_seen": ("tabula", {"seat": 2}, "ruling_frail"),
    "owl_struck": ("tabula", {"seat": 2}, "ruling_owl"),
    "portrait_took": ("lunapiena", {"seat": 2, "holder": 5}, "ruling_protected"),
    "claw_drawn": ("lupusburg", {"house": 3}, "ruling_drawn"),
}
"""The moderator-only events a ruling replaced (it says all they said): the engine no
longer writes them, but games stored before still hold them, so their templates stay
and still read, for the moderator, in both languages."""


@pytest.mark.parametrize("kind", sorted(RETIRED))
def test_an_event_a_ruling_replaced_still_reads_in_games_stored_before(kind: str) -> None:
    ruleset, data, ruling_kind = RETIRED[kind]
    assert ruling_kind in RULINGS[ruleset]
    seen = SimpleNamespace(kind=kind, data=data, phase=None)
    names = NAMES[:8]
    for language in ("en", "it"):
        with translation.override(language):
            text = str(tags.render_event(seen, names, engine.MODERATOR, autoescape=False, ruleset=ruleset))
            assert text.strip() and "{" not in text and "?" not in text, (kind, language, text)
            assert "seat" not in data or names[2] in text, (kind, language, text)


@pytest.mark.parametrize("path", SCENARIOS, ids=[f"{path.parent.name}-{path.stem}" for path in SCENARIOS])
def test_every_event_of_a_scenario_is_one_its_ruleset_declares(path: Path) -> None:
    """A ruleset declares every kind of event it writes (`Ruleset.events`): the secrecy
    sweep and these tests read the declaration, never a list of their own."""
    scenario = _scenario(path)
    ruleset = path.parent.name
    declared = engine.event_kinds(ruleset)
    try:
        state, events = engine.setup(
            ruleset, scenario["options"], scenario["players"], scenario["seed"], deal_of(scenario)
        )
    except engine.SetupError:
        return  # (a scenario of a refused setup)
    for phase in scenario["phases"]:
        if state.over:
            break
        orders = {int(seat): engine.Order.from_json(order) for seat, order in phase["orders"].items()}
        try:
            state, more = engine.resolve(state, orders)
        except (engine.SetupError, ValueError):
            break
        events = [*events, *more]
    undeclared = {event.kind for event in events} - set(declared)
    assert not undeclared, f"{ruleset} writes {undeclared}, which it does not declare"


@pytest.mark.parametrize("ruleset", sorted(RULINGS))
def test_every_declared_event_has_words_and_tells_roles_by_fields_it_has(ruleset: str) -> None:
    from django.template.loader import select_template

    for kind, fields in engine.event_kinds(ruleset).items():
        select_template(tags.own(ruleset, f"events/{kind}.html"))
        assert all(isinstance(field, str) and field for field in fields), (ruleset, kind)
