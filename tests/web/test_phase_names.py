"""A phase's name, written once per language and phase shape (the `phase_name` tag),
reads exactly as its template says, escaped for HTML only where the page is HTML."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.template import Context, Template
from django.template.loader import get_template
from django.utils import translation

STAGES = ["", "accusation", "ballot", "placement", "goals", "privilege", "show", "sweeper", "sweep", "bets", "wolves"]


def shapes():
    for kind in ("night", "day", "over", "setup"):
        for stage in STAGES:
            for step in (1, 2):
                yield SimpleNamespace(kind=kind, number=3, stage=stage, step=step)


@pytest.mark.parametrize("language", ["en", "it"])
def test_the_tag_says_what_the_template_says(language) -> None:
    tag = Template("{% load werewolf %}{% phase_name phase %}")
    with translation.override(language):
        for phase in shapes():
            expected = get_template("includes/phase_name.html").render({"phase": phase}).strip()
            assert tag.render(Context({"phase": phase})) == expected
            # ... and again from the cache, the same.
            assert tag.render(Context({"phase": phase})) == expected


def test_plain_text_is_not_escaped_and_html_is() -> None:
    tag = Template("{% load werewolf %}{% phase_name phase %}")
    phase = SimpleNamespace(kind="day", number=2, stage="privilege", step=1)
    with translation.override("en"):
        html = tag.render(Context({"phase": phase}))
        text = tag.render(Context({"phase": phase}, autoescape=False))
    assert "'" in text and "&#x27;" not in text
    assert html == text.replace("'", "&#x27;") or html == text


def test_no_phase_is_the_setup() -> None:
    tag = Template("{% load werewolf %}{% phase_name phase %}")
    with translation.override("en"):
        assert tag.render(Context({"phase": None})) == "Setup"


def test_a_mails_lines_in_html_escape_everything_and_link_the_seat() -> None:
    from werewolf.games.templatetags.werewolf import with_link

    url = "https://werewolf.example/s/abc?x=1&y=2"
    html = with_link(f"Ann <b> & Bo's card:\nhand it in: {url}\nend", url)
    assert "<b>" not in html and "&lt;b&gt; &amp; Bo&#x27;s" in html
    assert '<a href="https://werewolf.example/s/abc?x=1&amp;y=2">https://werewolf.example/s/abc?x=1&amp;y=2</a>' in html
    assert with_link("plain <text>", url, autoescape=False) == "plain <text>"


def test_an_event_worded_once_for_a_mails_text_and_html_reads_as_worded_twice() -> None:
    from werewolf import engine

    event = engine.Event("killed", {"seat": 1, "role": "villager"}, engine.Audience.public())
    names = ["Ann", "Bo <O'Hara> & co"]
    text = Template("{% load werewolf %}{% autoescape off %}{% event_text event %}{% endautoescape %}")
    html = Template("{% load werewolf %}{% event_text event %}")
    with translation.override("en"):
        for template in (text, html):
            alone = template.render(Context({"event": event, "names": names, "viewer": 0}))
            memo: dict = {}
            worded = template.render(Context({"event": event, "names": names, "viewer": 0, "event_words": memo}))
            assert memo and "Bo" in alone
            assert worded.replace("&#x27;", "'") == alone.replace("&#x27;", "'")
    assert "<O'Hara>" in text.render(Context({"event": event, "names": names, "viewer": 0, "event_words": {}}))
