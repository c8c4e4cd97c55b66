"""Cross-site posts are refused (werewolf/csrf.py): a post that the browser says came from
one of this site's own pages goes in without the form's token; any other post needs the
token and a matching Origin, as Django's middleware asks, and is refused with nothing
written when it lacks them."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

from werewolf.games import links
from werewolf.games.models import Game, Order, Post

from .play import started_game

pytestmark = pytest.mark.django_db(transaction=True)

SITE = "http://testserver"


def night(organiser) -> Game:
    game = started_game(organiser, "Forgery")
    Game.objects.filter(pk=game.pk).update(early_resolution=False)
    return Game.objects.get(pk=game.pk)


def seat_url(game: Game, seat: int) -> str:
    return links.url_for(game.players.get(seat=seat), absolute=False)


def pass_card(game: Game, seat: int) -> dict[str, str]:
    """A card that asks for nothing: every seat's night card may be handed in empty."""
    return {"phase": str(game.current_phase().pk)}


def browser(**headers: str) -> Client:
    """A client that checks CSRF as a browser's request is checked, and sends `headers`."""
    return Client(enforce_csrf_checks=True, headers=headers)


def test_the_project_installs_its_own_csrf_middleware_in_place_of_djangos() -> None:
    assert "werewolf.csrf.CsrfViewMiddleware" in settings.MIDDLEWARE
    assert "django.middleware.csrf.CsrfViewMiddleware" not in settings.MIDDLEWARE


def test_a_same_origin_post_goes_in_without_a_token_or_a_cookie(organiser) -> None:
    """A player whose browser keeps no cookies still hands in a card and talks."""
    game = night(organiser)
    url = seat_url(game, 3)
    client = browser(sec_fetch_site="same-origin", origin=SITE)
    response = client.post(url, pass_card(game, 3))
    assert response.status_code == 302, response.content.decode()[:500]
    assert Order.objects.filter(phase__game=game, seat=3).count() == 1
    assert client.post(url + "talk/", {"channel": "square", "text": "No cookies here"}).status_code == 302
    assert Post.objects.filter(game=game, text="No cookies here").count() == 1


@pytest.mark.parametrize("site", ["cross-site", "same-site", "none", "", "SAME-ORIGIN", "same-origin, cross-site"])
def test_any_other_post_without_a_token_is_refused_and_writes_nothing(organiser, site: str) -> None:
    game = night(organiser)
    url = seat_url(game, 3)
    headers = {"origin": "https://evil.example"} if site == "cross-site" else {}
    client = browser(sec_fetch_site=site, **headers) if site else browser()
    assert client.post(url, pass_card(game, 3)).status_code == 403
    assert client.post(url + "talk/", {"channel": "square", "text": "Forged"}).status_code == 403
    assert not Order.objects.filter(phase__game=game).exists() and not Post.objects.filter(game=game).exists()


def test_a_cross_site_post_with_a_stolen_token_is_still_refused_for_its_origin(organiser) -> None:
    """The header only ever lets a post skip the token: a cross-site post goes Django's
    whole way, where its Origin refuses it even with a cookie and token that match."""
    game = night(organiser)
    url = seat_url(game, 3)
    client = browser(sec_fetch_site="cross-site", origin="https://evil.example")
    client.get(url)
    token = client.cookies[settings.CSRF_COOKIE_NAME].value
    response = client.post(url, {**pass_card(game, 3), "csrfmiddlewaretoken": token})
    assert response.status_code == 403
    assert not Order.objects.filter(phase__game=game).exists()


def test_a_browser_without_the_header_posts_with_its_token_as_before(organiser) -> None:
    game = night(organiser)
    url = seat_url(game, 3)
    client = browser()
    client.get(url)
    token = client.cookies[settings.CSRF_COOKIE_NAME].value
    assert client.post(url, {**pass_card(game, 3), "csrfmiddlewaretoken": token}).status_code == 302
    assert Order.objects.filter(phase__game=game, seat=3).count() == 1


def test_the_organisers_forms_take_a_same_origin_post_too(organiser) -> None:
    client = browser(sec_fetch_site="same-origin", origin=SITE)
    response = client.post("/accounts/login/", {"username": "organiser", "password": "correct horse battery"})
    assert response.status_code == 302
    assert browser(sec_fetch_site="cross-site").post("/accounts/login/", {"username": "organiser"}).status_code == 403


def test_the_deploy_check_asks_for_a_csrf_middleware_of_djangos_kind(settings) -> None:
    """Django's own check (security.W003, silenced) looks for its class by name; this one
    takes a subclass, and still warns when there is none."""
    from werewolf.csrf import check_csrf_middleware

    assert check_csrf_middleware(None) == []
    settings.MIDDLEWARE = ["django.middleware.csrf.CsrfViewMiddleware"]
    assert check_csrf_middleware(None) == []
    settings.MIDDLEWARE = [path for path in settings.MIDDLEWARE if "csrf" not in path]
    assert [warning.id for warning in check_csrf_middleware(None)] == ["werewolf.W003"]
