"""Shared fixtures. Integration tests call `require` for each outside service: missing
ones skip the test on a developer's machine and fail it under CI (CI=true)."""

from __future__ import annotations

import os

import pytest


def require(service: str, available: bool, how: str) -> None:
    if available:
        return
    message = f"{service} is not available: {how}"
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


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
