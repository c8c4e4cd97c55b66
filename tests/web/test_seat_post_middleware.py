"""A post in the talk that a seat's own page sends is taken before the rest of the
middleware (werewolf/games/middleware.py), and only then: a post the browser says came
from the site's own page, to a seat's talk, at a host the site serves, that goes in. It
answers as the whole way does, with the same headers; anything else goes the whole way,
which refuses what it refuses. A card is not taken there: it goes the whole way, where
the view offers it to `cards.hand_in` once."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext

from werewolf.games import cards
from werewolf.games.models import Game, Order, Post

from .play import pack_of, seat_roles
from .test_card_by_link import kill_form, night_without_early_resolution

pytestmark = pytest.mark.django_db(transaction=True)

SAME_ORIGIN = {"Sec-Fetch-Site": "same-origin"}

ANSWER_HEADERS = (
    "Location",
    "X-Frame-Options",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "Cross-Origin-Opener-Policy",
)
"""What a browser reads of a card's answer: where to go next, and the site's protections."""


@pytest.fixture
def asked(monkeypatch) -> list[object]:
    """What each call of `cards.hand_in` answered, in order."""
    answers: list[object] = []
    hand_in = cards.hand_in
    monkeypatch.setattr(cards, "hand_in", lambda *args: answers.append(hand_in(*args)) or answers[-1])
    return answers


@pytest.fixture
def postgresql() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("cards.hand_in takes cards on PostgreSQL only; elsewhere a card goes the whole way")


def a_night(organiser, name: str) -> tuple[Game, int, str, dict[str, str]]:
    game = night_without_early_resolution(organiser, name)
    wolf, victim = pack_of(game)[0], seat_roles(game).index("seer")
    url, data = kill_form(game, wolf, victim)
    return game, wolf, url, data


def went_the_whole_way(response) -> bool:
    """Whether the request reached the URL resolver (the middleware's own answer never does)."""
    return response.wsgi_request.resolver_match is not None


def test_a_same_origin_card_goes_the_whole_way_and_is_answered_as_without_the_header(
    organiser, postgresql, asked
) -> None:
    game, wolf, url, data = a_night(organiser, "Early")
    with CaptureQueriesContext(connection) as captured:
        same_origin = Client().post(url, data, headers=SAME_ORIGIN)
    assert same_origin.status_code == 302, same_origin.content.decode()[:2000]
    assert went_the_whole_way(same_origin)
    assert len(captured.captured_queries) == 2, [query["sql"] for query in captured.captured_queries]
    assert len(asked) == 1 and asked[0] is not None
    whole = Client().post(url, data)  # no Sec-Fetch-Site: the CSRF check reads the token
    assert whole.status_code == 302 and went_the_whole_way(whole)
    assert {name: same_origin.get(name) for name in ANSWER_HEADERS} == {
        name: whole.get(name) for name in ANSWER_HEADERS
    }
    assert same_origin["Location"] == f"{url}?handed=0"
    assert Order.objects.filter(phase=game.current_phase(), seat=wolf).count() == 2


def test_a_refused_card_is_the_views_to_answer_and_hand_in_is_asked_once(organiser, asked) -> None:
    game, wolf, url, data = a_night(organiser, "Refused")
    data = {**data, next(name for name in data if name.startswith("target")): "99"}  # no such seat
    response = Client().post(url, data, headers=SAME_ORIGIN)
    assert response.status_code == 400
    assert went_the_whole_way(response)
    assert asked == [None]  # the view's, once
    assert not Order.objects.filter(phase=game.current_phase()).exists()


@pytest.mark.parametrize("site", ["cross-site", "same-site", "none", None])
def test_a_card_the_browser_does_not_say_is_from_the_sites_own_page_goes_the_whole_way(organiser, asked, site) -> None:
    game, wolf, url, data = a_night(organiser, f"Forged {site}")
    forged = {key: value for key, value in data.items() if key != "csrfmiddlewaretoken"}
    headers = {} if site is None else {"Sec-Fetch-Site": site}
    response = Client(enforce_csrf_checks=True).post(url, forged, headers=headers)
    assert response.status_code == 403  # no token: the CSRF check refuses it
    assert went_the_whole_way(response)  # to the CSRF check, which comes after the resolver
    assert asked == []
    assert not Order.objects.filter(phase=game.current_phase()).exists()


def test_a_host_the_site_does_not_serve_is_refused(organiser, asked) -> None:
    game, wolf, url, data = a_night(organiser, "Host")
    response = Client().post(url, data, headers={**SAME_ORIGIN, "Host": "werewolf.example.invalid"})
    assert response.status_code == 400
    assert asked == []
    assert not Order.objects.filter(phase=game.current_phase()).exists()


@override_settings(SECURE_SSL_REDIRECT=True)
def test_plain_http_where_https_is_required_is_sent_to_https_first(organiser, asked) -> None:
    game, wolf, url, data = a_night(organiser, "Plain")
    response = Client().post(url, data, headers=SAME_ORIGIN)
    assert response.status_code == 301
    assert response["Location"].startswith("https://")
    assert asked == []
    assert not Order.objects.filter(phase=game.current_phase()).exists()


def test_under_a_script_prefix_the_card_is_taken_and_the_answer_keeps_the_prefix(organiser, postgresql) -> None:
    game, wolf, url, data = a_night(organiser, "Prefix")
    response = Client(SCRIPT_NAME="/werewolf").post(url, data, headers=SAME_ORIGIN)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert response["Location"] == f"/werewolf{url}?handed=0"
    assert Order.objects.filter(phase=game.current_phase(), seat=wolf).exists()


@pytest.mark.parametrize("tail", ["talk/", "version.json", "display/"])
def test_a_post_to_a_seats_other_pages_is_not_taken_for_a_card(organiser, asked, tail) -> None:
    game, wolf, url, data = a_night(organiser, f"Other {tail}")
    response = Client().post(url + tail, data, headers=SAME_ORIGIN)
    assert went_the_whole_way(response)
    assert asked == []
    assert not Order.objects.filter(phase=game.current_phase()).exists()


def test_a_same_origin_post_in_the_talk_is_taken_before_the_rest_and_answered_as_the_whole_way_does(organiser) -> None:
    game, wolf, url, data = a_night(organiser, "Talk")
    fast = Client().post(url + "talk/", {"channel": "square", "text": "Good evening"}, headers=SAME_ORIGIN)
    assert fast.status_code == 302, fast.content.decode()[:2000]
    assert not went_the_whole_way(fast)
    whole = Client().post(url + "talk/", {"channel": "square", "text": "Good evening again"})
    assert whole.status_code == 302 and went_the_whole_way(whole)
    assert {name: fast.get(name) for name in ANSWER_HEADERS} == {name: whole.get(name) for name in ANSWER_HEADERS}
    assert fast["Location"] == url + "#talk"
    assert list(Post.objects.filter(game=game, seat=wolf).order_by("pk").values_list("text", flat=True)) == [
        "Good evening",
        "Good evening again",
    ]


@pytest.mark.parametrize("post", [{"channel": "square", "text": "   "}, {"channel": "nowhere", "text": "Hello"}])
def test_a_refused_post_goes_the_whole_way_which_says_why_and_keeps_the_text(organiser, post) -> None:
    game, wolf, url, data = a_night(organiser, f"Refused {post['channel']}")
    response = Client().post(url + "talk/", post, headers=SAME_ORIGIN)
    assert response.status_code == 400
    assert went_the_whole_way(response)
    assert not Post.objects.filter(game=game).exists()


def test_a_post_in_the_talk_from_another_site_goes_the_whole_way_and_is_refused(organiser) -> None:
    game, wolf, url, data = a_night(organiser, "Forged talk")
    response = Client(enforce_csrf_checks=True).post(
        url + "talk/", {"channel": "square", "text": "Forged"}, headers={"Sec-Fetch-Site": "cross-site"}
    )
    assert response.status_code == 403
    assert not Post.objects.filter(game=game).exists()
