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
        blocked: list[str] = []
        _watch_for_blocked(browser, blocked)
        try:
            yield browser
        finally:
            browser.close()
        # The pages' policy (Content-Security-Policy) blocks inline script and style: a
        # page that tried to run any would work in the tests' eyes only partly.
        assert not blocked, "\n".join(blocked)


def _watch_for_blocked(browser, blocked: list[str]) -> None:
    """Collect what the Content-Security-Policy blocked on every page any context opens."""

    def watch(page) -> None:
        page.on(
            "console",
            lambda message: (
                blocked.append(f"{page.url}: {message.text}") if "Content Security Policy" in message.text else None
            ),
        )

    for name in ("new_page", "new_context"):
        made = getattr(browser, name)

        def wrapped(*args, made=made, name=name, **kwargs):
            result = made(*args, **kwargs)
            if name == "new_page":
                watch(result)
            else:
                result.on("page", watch)
            return result

        setattr(browser, name, wrapped)
