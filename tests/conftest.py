"""Shared fixtures. Integration tests call `require` for each outside service: missing
ones skip the test on a developer's machine and fail it under CI (CI=true)."""

from __future__ import annotations

import os
import zlib

import pytest


def require(service: str, available: bool, how: str) -> None:
    if available:
        return
    message = f"{service} is not available: {how}"
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """CI runs the suite twice, on SQLite and on PostgreSQL (.ci/run). The whole-game
    secrecy sweeps take most of a pass, and what they check (what each seat's pages and
    mails show) does not depend on the database: in CI each of their parameter sets runs
    in one pass (`one_pass`), so that both passes together run every one, each once.
    Anywhere else, all of them run."""
    if not os.environ.get("CI"):
        return
    here = "postgresql" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "sqlite"
    for item in items:
        marker = item.get_closest_marker("one_pass")
        there = marker.args[0] if marker is not None else _unbound_pass(item)
        if there is not None and there != here:
            item.add_marker(pytest.mark.skip(reason=f"run in CI's {there} pass"))


UNBOUND = ("tests/engine/", "tests/test_style.py", "tests/test_imports.py", "tests/test_translations.py")
"""Tests that read no database, cache, broker or service: the engine's (pure Python, held
so by `test_purity`) and the source's own checks (style, types, imports, catalogues).
They say the same in both of CI's passes, so each runs in one, by a digest of its id
(about half in each pass, the same half every run)."""


def _unbound_pass(item: pytest.Item) -> str | None:
    """The one CI pass an `UNBOUND` test runs in, or None: any test that asks for the
    database (pytest-django's marker or fixtures) runs in both."""
    path = item.nodeid.split("::", 1)[0]
    if not path.startswith(UNBOUND):
        return None
    if item.get_closest_marker("django_db") is not None:
        return None
    if set(getattr(item, "fixturenames", ())) & {"db", "transactional_db", "django_db_setup", "client", "live_server"}:
        return None
    return ("sqlite", "postgresql")[zlib.crc32(item.nodeid.encode()) % 2]


def in_pass(database: str, *values: object) -> object:
    """A parameter set of a sweep that CI runs in `database`'s pass only."""
    assert database in ("sqlite", "postgresql")
    return pytest.param(*values, marks=pytest.mark.one_pass(database))


@pytest.fixture
def organiser(django_user_model):
    return django_user_model.objects.create_user("organiser", password="correct horse battery")


@pytest.fixture
def organiser_client(client, organiser):
    client.force_login(organiser)
    return client


@pytest.fixture(autouse=True)
def _site_language_after_each_test():
    """A page in a game's language activates it for the rest of its thread (as a request
    on a worker thread is then done); a test after it must start from the site's own."""
    yield
    from django.utils import translation

    translation.deactivate()


@pytest.fixture(autouse=True)
def _limits_from_zero():
    """Every test starts with every limit unspent (the limits count in the shared cache,
    which outlives a test: files under the run's var directory, or Redis)."""
    from django.core.cache import cache, caches

    cache.clear()
    caches["template_fragments"].clear()  # keyed by ids, which a test database hands out again
    yield
