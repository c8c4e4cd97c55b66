"""An event's words are worded once per process for the same event, names, viewer and
language (`templatetags.werewolf.render_event`): the event templates read nothing of the
event but its data and, for a few kinds, its phase's resolution, and the words kept are
those a fresh rendering gives, for every event of whole games of every ruleset, for
every seat, the public and the moderator, in both languages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.utils import translation

from werewolf import engine
from werewolf.engine import rulesets
from werewolf.games import selectors
from werewolf.games.templatetags import werewolf as tags

from .play import played_by_bots

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
EVENTS = [TEMPLATES / "events", *sorted((TEMPLATES / "rulesets").glob("*/events"))]
"""The event templates: the shared ones and each family's own."""


def test_event_templates_read_nothing_of_the_event_but_the_phases_resolution_where_said() -> None:
    readers = set()
    for path in sorted(path for folder in EVENTS for path in folder.rglob("*.html")):
        text = path.read_text()
        uses = re.findall(r"\bevent\b[\w.]*", text)
        assert set(uses) <= {"event.phase.resolution"}, (path, uses)
        if uses:
            readers.add(path.stem)
    assert readers == tags.PHASE_READERS


@pytest.mark.parametrize("ruleset", sorted(rulesets.RULESETS))
def test_the_words_kept_are_a_fresh_renderings_for_every_event_viewer_and_language(organiser, ruleset: str) -> None:
    game = played_by_bots(organiser, ruleset)
    names = tuple(selectors.names(game))
    viewers: list[engine.Viewer] = [*range(len(names)), engine.PUBLIC, engine.MODERATOR]
    kinds = set()
    for language in ("en", "it"):
        with translation.override(language):
            for event in game.events.order_by("pk").select_related("phase"):
                kinds.add(event.kind)
                for viewer in viewers:
                    if not event.visible_to(viewer):
                        continue
                    for autoescape in (True, False):
                        fresh = tags._words(event, event.data, names, viewer, autoescape, ruleset)
                        for _ in range(2):  # worded, then kept
                            kept = tags.render_event(event, list(names), viewer, autoescape=autoescape, ruleset=ruleset)
                            assert str(kept) == fresh, (ruleset, event.kind, viewer, language)
    assert len(kinds) > 4, kinds


def test_a_phase_resolved_otherwise_is_worded_otherwise() -> None:
    """Two day_ended events alike but for their phase's resolution are two sets of words."""
    from types import SimpleNamespace

    data = {"lynched": None, "tied": [], "ballots": []}
    said = {
        resolution: tags.render_event(
            SimpleNamespace(kind="day_ended", data=data, phase=SimpleNamespace(resolution=resolution)),
            ["Ada", "Bruno"],
            engine.PUBLIC,
            autoescape=False,
            ruleset="classic",
        )
        for resolution in ("deadline", "moderator", "majority")
    }
    for resolution, words in said.items():
        fresh = tags._words(
            SimpleNamespace(kind="day_ended", phase=SimpleNamespace(resolution=resolution)),
            data,
            ("Ada", "Bruno"),
            engine.PUBLIC,
            False,
            "classic",
        )
        assert words == fresh
    assert said["moderator"] != said["deadline"]


def test_a_list_of_coins_reads_as_a_list_in_a_plain_text_mail_too() -> None:
    """Django's `join` gives up on numbers where autoescaping is off: a plain-text mail
    said "You drew the coins [8, 3, 2]"."""
    from django.template import Context
    from django.template.loader import get_template

    for autoescape in (True, False):
        template = get_template("events/coin_kept.html").template
        text = template.render(Context({"data": {"coin": 8, "drawn": [8, 3, 2]}}, autoescape=autoescape))
        assert "8, 3, 2" in text and "[" not in text, text


def test_the_writers_of_the_cards_an_event_tells_are_part_of_its_words() -> None:
    """A day's votes name each voter as the writer of the card (`writers`), whoever holds
    the seat now (`names`): the words kept for one set of writers are never another's."""
    from types import SimpleNamespace

    event = SimpleNamespace(kind="day_ended", data={"lynched": None, "tied": [], "ballots": [[0, 1]]}, phase=None)
    names = ["Ivan", "Bruno"]
    said = [
        tags.render_event(event, names, engine.PUBLIC, autoescape=False, ruleset="classic", writers=writers)
        for writers in (None, names, ["Hugo", "Bruno"])
    ]
    assert "Ivan → Bruno" in said[0] and said[0] == said[1]
    assert "Hugo → Bruno" in said[2]
    fresh = tags._words(event, event.data, tuple(names), engine.PUBLIC, False, "classic", ("Hugo", "Bruno"))
    assert said[2] == fresh
