"""The words kept once a process (werewolf/kept_words.py) are forgotten when the dev server's
autoreloader reports an edited template: the next page shows the edit, not the words
kept from before it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.template import Context, Engine
from django.test import override_settings
from django.utils import translation
from django.utils.autoreload import file_changed

from werewolf import kept_words
from werewolf.games.attendance import Policy


@pytest.fixture
def edited(tmp_path: Path) -> Any:
    """A template folder in front of the project's, which a test edits."""
    templates = [{**settings.TEMPLATES[0], "DIRS": [tmp_path, *settings.TEMPLATES[0]["DIRS"]]}]
    (tmp_path / "includes" / "frame").mkdir(parents=True)
    kept_words.forget()
    with override_settings(TEMPLATES=templates), translation.override("en"):
        yield tmp_path
    kept_words.forget()


def _page(text: str, **context: Any) -> str:
    return Engine.get_default().from_string("{% load cache werewolf %}" + text).render(Context(context))


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_an_edited_template_shows_at_once_under_the_dev_server(edited: Path) -> None:
    policy = Policy()
    parts = {
        "{% missed_policy policy %}": _write(edited / "includes" / "missed_policy.html", "before"),
        "{% frame 'probe' %}": _write(edited / "includes" / "frame" / "probe.html", "before"),
        "{% cache 60 probe %}{% include 'includes/probe.html' %}{% endcache %}": _write(
            edited / "includes" / "probe.html", "before"
        ),
    }
    for text in parts:
        assert _page(text, policy=policy).strip() == "before"
    for path in parts.values():
        _write(path, "after")
    for text in parts:  # kept: a process under gunicorn never reads them again
        assert _page(text, policy=policy).strip() == "before"

    file_changed.send(sender=None, file_path=edited / "includes" / "README.py")
    assert _page("{% missed_policy policy %}", policy=policy).strip() == "before"  # Python: a restart's

    file_changed.send(sender=None, file_path=parts["{% frame 'probe' %}"])
    for text in parts:
        assert _page(text, policy=policy).strip() == "after", text


def test_every_kept_words_cache_is_registered() -> None:
    """The caches of words rendered from templates named here are forgotten with the
    rest: a new one goes through `kept_words.register` too."""
    from werewolf.games import forms
    from werewolf.games.templatetags import werewolf as tags
    from werewolf.mail import outbound
    from werewolf.printing import layout

    registered = {clear.__self__ for clear in kept_words._FORGETS}  # type: ignore[attr-defined]
    for cache in (
        tags._role_words,
        tags._ballot_card_words,
        tags._phase_name,
        tags._missed_policy,
        tags._frame,
        tags._event_words,
        forms._card_word,
        layout.emblem_url,
        outbound._sender,
    ):
        assert cache in registered, cache
