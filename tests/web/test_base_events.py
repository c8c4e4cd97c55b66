"""The events the shared engine writes for any ruleset that uses it (the simple rulesets'
base, the pack's choice, the ability blocks, the rulings) have neutral words in the shared
tree: a ruleset of another world reads them right before it words anything of its own
(Mafia words them all its own way now), and the werewolf games keep theirs
(rulesets/werewolf/, through `own`)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from django.utils import translation

from werewolf import engine
from werewolf.engine.rulesets import mafia
from werewolf.games.templatetags.werewolf import render_event

from .test_shared_words import FAMILY_WORDS

NAMES = ["Ada", "Bruno", "Carla", "Dino", "Elsa"]

BASE_EVENTS: list[tuple[str, dict[str, Any], engine.Viewer, str]] = [
    ("shot", {"seat": 2, "role": mafia.GOON}, engine.PUBLIC, "Dawn: Carla was found shot dead."),
    ("vigilante_fired", {"target": 2, "hit": True}, 1, "Your shot hit Carla. Your shot is spent."),
    ("vigilante_fired", {"target": 2, "hit": True}, engine.MODERATOR, "A one-shot power shot Carla."),
    ("ruling_kill_void", {"seat": 3, "rule": "died_first"}, engine.MODERATOR, "Dino, the night's victim, died first"),
    (
        "ruling_pack_choice",
        {"lists": [[0, [3]], [4, [1]]], "victim": 3, "how": "rank", "decided_by": 0},
        engine.MODERATOR,
        "the card of Ada, the highest-ranked living player who handed one in, decides: Dino",
    ),
    ("ruling_protected", {"seat": 3, "by": 1, "rule": "doctor"}, engine.MODERATOR, "Bruno protected them"),
    ("roleblocked", {"seat": 1}, 1, "Your night card was blocked"),
    (
        "ruling_roleblocked",
        {"seat": 1, "by": [4], "card": "inquire"},
        engine.MODERATOR,
        "Elsa blocked Bruno: their card (INQUIRE) does nothing tonight.",
    ),
]


@pytest.mark.parametrize(("kind", "data", "viewer", "expected"), BASE_EVENTS, ids=[row[0] for row in BASE_EVENTS])
def test_a_base_event_reads_in_neutral_words(
    kind: str, data: dict[str, Any], viewer: engine.Viewer, expected: str
) -> None:
    event = SimpleNamespace(kind=kind, data=data, phase=None)
    text = render_event(event, NAMES, viewer, autoescape=False, ruleset=None)  # the shared tree's words
    assert expected in text
    assert not {word for word in FAMILY_WORDS if word in text.lower()}, text
    with translation.override("it"):
        italian = render_event(event, NAMES, viewer, autoescape=False, ruleset=None)
    assert italian and expected not in italian


def test_the_werewolf_games_keep_their_own_words() -> None:
    event = SimpleNamespace(kind="shot", data={"seat": 2, "role": None}, phase=None)
    assert "by the Vigilante" in render_event(event, NAMES, engine.PUBLIC, autoescape=False, ruleset="classic")
