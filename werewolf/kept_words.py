"""Words kept once a process, and the one place that forgets them all.

A part whose words read nothing of a game (a role's name, a page's frame, the
missed-cards policy, a talk room's words) is rendered once a process and kept under what
it reads: the ruleset, the language, the values it is given. What it also reads, and no
key holds, is its template and the language's translations; those change only when a
developer edits them, and the dev server (`manage.py runserver`) then reads the template
or the catalogue again without restarting (Django's autoreloader resets its template
loaders and its translations). So every such part registers here (`register`, or, for
Django's `{% cache %}` tag, the `template_fragments` cache, which `forget` clears too),
and `forget` runs when the autoreloader reports a changed file that is not Python (a
template, a compiled catalogue; a Python file restarts the process): the next page
shows the edited words at once. A process under gunicorn or celery never forgets: its
files do not change under it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar


class _Clearable(Protocol):
    def cache_clear(self) -> None: ...


_Kept = TypeVar("_Kept", bound=_Clearable)

_FORGETS: list[Callable[[], None]] = []


def register(kept: _Kept) -> _Kept:
    """Register a `functools.lru_cache` (or `cache`) that keeps words rendered from
    templates, to be cleared by `forget`: put above the cache's own decorator."""
    _FORGETS.append(kept.cache_clear)
    return kept


def forget() -> None:
    """Drop every kept part: the registered caches, and the fragments Django's
    `{% cache %}` tag keeps (`CACHES["template_fragments"]`, this process's memory)."""
    from django.core.cache import caches

    for clear in _FORGETS:
        clear()
    caches["template_fragments"].clear()


def file_changed(sender: Any, file_path: Path, **kwargs: Any) -> None:
    """The receiver of `django.utils.autoreload.file_changed` (connected by the games
    app): a template or a catalogue changed under the dev server. Whether the server
    restarts stays Django's to say (None: this receiver asks for nothing)."""
    if file_path.suffix != ".py":
        forget()
