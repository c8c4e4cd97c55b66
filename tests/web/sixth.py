"""Mafia, registered for a web test while it runs (issue 41: its own commit registers it
and words its events): the shared pieces' tests play it through the web, the mail and
paper before it is. Its own events, which only its templates word, read as their kind
here, from stand-ins behind the project's templates (its own, once written, come first)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from werewolf.engine import grammar, registry
from werewolf.engine.rulesets import mafia

EVENTS = {
    **mafia.ROLE_TELLING,
    **dict.fromkeys(
        (
            "dawn_no_death",
            "day_ended",
            "game_over",
            "game_set_up",
            "mafia_chose",
            "roleblocked",
            "ruling_kill_blocked",
            "ruling_kill_void",
            "ruling_pack_choice",
            "ruling_power_spent",
            "ruling_protected",
            "ruling_roleblocked",
            "ruling_tie_broken",
        ),
        (),
    ),
}
"""Mafia's `events` declaration, as its commit must make it (`Ruleset.events`): every kind
it writes, with the fields naming seats whose role the audience learns (its ROLE_TELLING)."""

OWN_EVENTS = (
    "mafia_met",
    "mafia_chose",
    "cop_checked",
    "eliminated",
    "ruling_kill_blocked",
)
"""The kinds of event Mafia writes that no shared template words."""


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setitem(registry.RULESETS, mafia.ID, mafia.RULESET)
    if not hasattr(mafia.Mafia, "events"):
        monkeypatch.setattr(mafia.Mafia, "events", EVENTS, raising=False)
    folder = tmp_path / "templates" / "rulesets" / mafia.ID / "events"
    folder.mkdir(parents=True)
    for kind in OWN_EVENTS:
        (folder / f"{kind}.html").write_text(kind)
    engines = [{**engine, "DIRS": [*engine["DIRS"], tmp_path / "templates"]} for engine in settings.TEMPLATES]
    from django.test import override_settings

    with override_settings(TEMPLATES=engines):
        yield
    grammar.grammar.cache_clear()
