"""Every page of the site, walked from the URL table: each answer carries the
Content-Security-Policy (no inline script, style or handler may run) and is never kept by a
browser or a proxy; and no page the app renders writes script, a handler or a style into
itself, which the policy would block."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from werewolf.games import links, services
from werewolf.games.models import Game
from werewolf.printing import jobs

from .play import NAMES, started_game

pytestmark = pytest.mark.django_db

INLINE = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>|\son[a-z]+\s*=|\sstyle\s*=", re.IGNORECASE)
"""What the policy blocks in a page: script written into it, handlers, style attributes."""


def _routes(resolver: URLResolver, prefix: str = "") -> list[tuple[str, str]]:
    found = []
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            if not route.startswith(("admin/", "mail/provider/", "i18n/")):
                found += _routes(entry, route)
        elif isinstance(entry, URLPattern):
            found.append((entry.name or "", route))
    return found


@pytest.fixture
def site(organiser: Any) -> dict[str, str]:
    """A value for every parameter of every route: one running game, its seat link, its
    public key, a draft's join link and sign-up, and a print job."""
    game = started_game(organiser, "Headers")
    seats = [services.Seating(name) for name in NAMES[:6]]
    draft = services.create_game(organiser, name="Draft", seats=seats, options={"wolves": 2, "seers": 1})
    draft = services.open_signup(draft)
    signup = services.sign_up(draft.signup_key, "Newcomer", "new@example.org")
    job = jobs.game_job(game, paper="a4", backs=False)
    return {
        "pk": str(game.pk),
        "seat": "0",
        "token": links.url_for(game.players.get(seat=0), absolute=False).strip("/").split("/")[-1],
        "key:public": game.public_key,
        "key:join": draft.signup_key,
        "key:print": job.key,
        "token:join": links.signup_url(signup).strip("/").split("/")[-1],
    }


def _path(name: str, route: str, values: dict[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        parameter = match.group(1)
        if parameter == "key":
            return values["key:join" if name == "join" else "key:print" if "print" in name else "key:public"]
        if parameter == "token" and name == "join_confirm":
            return values["token:join"]
        if parameter in ("uidb36", "key") and name.startswith("account_"):
            return "1" if parameter == "uidb36" else "no-such-key"  # django-allauth's links
        if name == "invitation":
            return "no-such-invitation"
        return values[parameter]

    # django-allauth's routes are regular expressions: (?P<key>...) and the anchors.
    route = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"<\1>", route).replace("^", "").replace("$", "")
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", value, route)


def _checked(response: Any, path: str) -> list[str]:
    wrong = []
    policy = response.get("Content-Security-Policy", "")
    if "script-src 'self'" not in policy or "unsafe-inline" in policy or "default-src 'self'" not in policy:
        wrong.append(f"{path}: policy {policy!r}")
    if "no-store" not in response.get("Cache-Control", ""):
        wrong.append(f"{path}: Cache-Control {response.get('Cache-Control')!r}")
    if response.get("Content-Type", "").startswith("text/html"):
        found = INLINE.search(response.content.decode())
        if found:
            wrong.append(f"{path}: inline {found.group(0)!r}")
    return wrong


def test_every_page_carries_the_policy_and_is_never_kept(organiser: Any, site: dict[str, str]) -> None:
    routes = _routes(get_resolver())
    assert len(routes) > 30
    organiser_client, anonymous = Client(), Client()
    organiser_client.force_login(organiser)
    wrong = []
    for name, route in routes:
        path = _path(name, route, site)
        for client in (anonymous, organiser_client):
            wrong += _checked(client.get(path), path)
        wrong += _checked(anonymous.post(path, {}), f"POST {path}")
    for path in ("/admin/", "/admin/login/", "/no/such/page/", "/accounts/login/"):
        wrong += _checked(organiser_client.get(path), path)
        wrong += _checked(anonymous.get(path), path)
    assert not wrong, "\n".join(wrong)


def test_a_static_file_keeps_its_own_caching(client: Client) -> None:
    response = client.get("/static/werewolf/app.js")
    assert response.status_code == 200
    assert "no-store" not in response.get("Cache-Control", "")


def test_a_seat_page_after_a_card_is_not_kept(organiser: Any) -> None:
    game = started_game(organiser, "Cards")
    path = links.url_for(game.players.get(seat=0), absolute=False)
    phase = game.current_phase()
    assert phase is not None
    for sec_fetch in ("same-origin", ""):  # the fast path (PostgreSQL) and the whole way
        response = Client(headers={"Sec-Fetch-Site": sec_fetch} if sec_fetch else {}).post(path, {"phase": phase.pk})
        assert "no-store" in response["Cache-Control"] and "script-src 'self'" in response["Content-Security-Policy"]
    assert Game.objects.get(pk=game.pk).status == Game.Status.RUNNING
