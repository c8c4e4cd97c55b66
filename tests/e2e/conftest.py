"""The browser the browser tests drive: Debian's chromium, headless, through Playwright."""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import require

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


@pytest.fixture
def browser(monkeypatch):
    # Playwright's sync API runs an event loop in this thread; the ORM refuses to run
    # next to one unless told it is fine (the test makes no concurrent ORM calls).
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    require("chromium", shutil.which("chromium") is not None, "install Debian's chromium (apt-get install chromium)")
    from playwright.sync_api import Error, sync_playwright

    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(
                executable_path=shutil.which("chromium") or "/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS
            )
        except Error as failure:
            require("chromium", False, f"Playwright could not launch it: {failure}")
        try:
            yield browser
        finally:
            browser.close()
