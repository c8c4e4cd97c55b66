"""Talk on the web: the square, the den and the ghosts' corner, each read by its members
only (pages and version numbers alike), refusals that keep what was written, and the
organiser's moderator posts and hidden posts."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client

from werewolf import engine
from werewolf.games import links, selectors, services, talk
from werewolf.games.models import Game, Post

from .play import pack_of, seat_roles, started_game

pytestmark = pytest.mark.django_db(transaction=True)


def seat_url(game: Game, seat: int) -> str:
    return links.url_for(game.players.get(seat=seat), absolute=False)


def page(client: Client, url: str) -> str:
    return unescape(client.get(url).content.decode())


def say(client: Client, game: Game, seat: int, channel: str, text: str):
    return client.post(seat_url(game, seat) + "talk/", {"channel": channel, "text": text})


def test_the_square_is_read_by_every_seat_and_written_by_the_living(organiser) -> None:
    game = started_game(organiser, "Square")
    client = Client()
    response = say(client, game, 0, "square", "Good morning, village. https://example.org/plan")
    assert response.status_code == 302 and response["Location"] == seat_url(game, 0) + "#talk"
    for seat in range(7):
        text = page(client, seat_url(game, seat))
        assert "Good morning, village." in text
        assert '<a href="https://example.org/plan"' in text
    public = f"/g/{game.public_key}/"
    assert "Good morning, village." not in page(client, public)
    Game.objects.filter(pk=game.pk).update(public_square=True)
    assert "Good morning, village." in page(client, public)


def test_the_den_is_the_packs_alone_and_leaves_no_trace_elsewhere(organiser) -> None:
    game = started_game(organiser, "Den")
    client = Client()
    wolves = pack_of(game)
    others = [seat for seat in range(7) if seat not in wolves]
    before = {seat: selectors.version(game, seat) for seat in others}
    public_before = selectors.version(game, engine.PUBLIC)
    assert say(client, game, wolves[0], "den", "Tonight: the baker.").status_code == 302
    assert "Tonight: the baker." in page(client, seat_url(game, wolves[1]))
    for seat in others:
        text = page(client, seat_url(game, seat))
        assert "Tonight: the baker." not in text and "The pack's den" not in text
        assert selectors.version(game, seat) == before[seat]
    assert selectors.version(game, engine.PUBLIC) == public_before
    assert selectors.version(game, wolves[1]) != selectors.version(game, others[0])


def test_a_villager_writing_to_the_den_is_refused_without_learning_it_exists(organiser) -> None:
    game = started_game(organiser, "Nosy")
    villager = seat_roles(game).index("villager")
    response = say(Client(), game, villager, "den", "Let me in")
    text = unescape(response.content.decode())
    assert response.status_code == 400
    assert "There is no such place to talk for you in this game" in text
    assert "Let me in" in text  # kept for the writer, in the form to send again
    nowhere = unescape(say(Client(), game, villager, "nowhere", "Hello").content.decode())
    assert nowhere.count("There is no such place to talk for you") == 1
    assert not Post.objects.exists()


def test_the_dead_talk_only_among_themselves(organiser) -> None:
    game = started_game(organiser, "Ghosts")
    client = Client()
    services.submit_order(game, pack_of(game)[0], engine.Order("kill", (seat_roles(game).index("seer"),)))
    services.resolve_now(Game.objects.get(pk=game.pk))
    game.refresh_from_db()
    dead = next(seat for seat in range(7) if not game.engine_state.alive[seat])
    refused = say(client, game, dead, "square", "It was Brio!")
    assert refused.status_code == 400
    assert "The dead may not speak here" in unescape(refused.content.decode())
    assert say(client, game, dead, "ghosts", "Anyone else here?").status_code == 302
    for seat in range(7):
        shown = "Anyone else here?" in page(client, seat_url(game, seat))
        assert shown == (seat == dead)
    assert not Post.objects.filter(text__contains="Brio").exists()


def test_a_post_too_long_or_empty_is_refused_and_kept_for_the_writer(organiser) -> None:
    game = started_game(organiser, "Long")
    long = "word " * 500
    response = say(Client(), game, 1, "square", long)
    assert response.status_code == 400 and "too long to post" in unescape(response.content.decode())
    assert long.strip() in unescape(response.content.decode())
    assert say(Client(), game, 1, "square", " \u200b\x00 ").status_code == 400
    assert not Post.objects.exists()


def test_control_characters_never_reach_a_page(organiser) -> None:
    game = started_game(organiser, "Odd")
    say(Client(), game, 1, "square", "Hi\x00 there\x1b[31m <script>alert(1)</script>\r\nline two")
    post = Post.objects.get()
    assert post.text == "Hi there[31m <script>alert(1)</script>\nline two"
    text = Client().get(seat_url(game, 2)).content.decode()
    assert "<script>alert(1)</script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text


def test_the_organiser_posts_as_the_moderator_and_hides_a_post(organiser, organiser_client: Client) -> None:
    game = started_game(organiser, "Moderated")
    client = Client()
    say(client, game, 2, "square", "Something rude")
    post = Post.objects.get()
    dashboard = page(organiser_client, f"/games/{game.pk}/")
    assert "Something rude" in dashboard and "The pack's den" in dashboard
    response = organiser_client.post(f"/games/{game.pk}/talk/", {"action": "hide", "post": post.pk})
    assert response.status_code == 302
    assert "Something rude" not in page(client, seat_url(game, 3))
    assert "Something rude" in page(organiser_client, f"/games/{game.pk}/")  # kept, marked
    organiser_client.post(f"/games/{game.pk}/talk/", {"channel": "square", "text": "Be kind, please."})
    assert "The moderator" in page(client, seat_url(game, 3)) and "Be kind, please." in page(client, seat_url(game, 3))
    assert Client().post(f"/games/{game.pk}/talk/", {"channel": "square", "text": "x"}).status_code == 302
    assert Post.objects.count() == 2  # the anonymous post above went to the login page


def test_a_post_by_the_web_is_the_row_the_service_writes_and_only_by_a_live_link(organiser) -> None:
    """The web's post is written by a plain INSERT (talk.post_by_link): the same row, field by
    field, as talk.post's; a replaced or made-up link, or a missing CSRF token, posts nothing."""
    from datetime import timedelta

    game = started_game(organiser, "Rows")
    player = game.players.get(seat=3)
    url = seat_url(game, 3)
    assert say(Client(), game, 3, "square", "By the web").status_code == 302
    talk.post(game, 3, "square", "By the service", author=player)
    web, service = Post.objects.order_by("pk")
    same = [field.attname for field in Post._meta.concrete_fields if field.attname not in ("id", "text", "created_at")]
    assert {name: getattr(web, name) for name in same} == {name: getattr(service, name) for name in same}
    assert web.text == "By the web" and web.phase_id is not None
    assert timedelta(0) <= service.created_at - web.created_at < timedelta(minutes=1)
    forged = Client(enforce_csrf_checks=True).post(url + "talk/", {"channel": "square", "text": "No token"})
    assert forged.status_code == 403
    links.issue(player)  # a substitute's new link: the old one is replaced
    assert Client().post(url + "talk/", {"channel": "square", "text": "Old link"}).status_code == 410
    assert Client().post("/p/" + "a" * 32 + "/talk/", {"channel": "square", "text": "Made up"}).status_code == 404
    assert Post.objects.count() == 2


def test_a_links_next_post_is_one_statement_and_never_outlives_what_it_checked(organiser) -> None:
    """A link that posted lately posts again with one statement (talk.post_by_link), the
    same row; once its game has moved on (the seat died) or the link was replaced, the
    post reads afresh and is refused as the database says now."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    game = started_game(organiser, "Again")
    seer = seat_roles(game).index("seer")
    client = Client()
    mine = seat_url(game, seer) + "talk/"
    assert client.post(mine, {"channel": "square", "text": "First"}).status_code == 302
    with CaptureQueriesContext(connection) as captured:
        assert client.post(mine, {"channel": "square", "text": "Second"}).status_code == 302
    assert len(captured.captured_queries) == 1, [query["sql"] for query in captured.captured_queries]
    first, second = Post.objects.order_by("pk")
    same = [field.attname for field in Post._meta.concrete_fields if field.attname not in ("id", "text", "created_at")]
    assert {name: getattr(first, name) for name in same} == {name: getattr(second, name) for name in same}
    assert second.text == "Second"

    # The night resolves: the seer is killed. What the link's last read found is stale.
    services.submit_order(game, pack_of(game)[0], engine.Order("kill", (seer,)))
    services.resolve_now(Game.objects.get(pk=game.pk))
    refused = say(client, game, seer, "square", "It was Brio!")
    assert refused.status_code == 400 and "The dead may not speak here" in unescape(refused.content.decode())
    assert say(client, game, seer, "ghosts", "Hello?").status_code == 302

    # Replaced: the old link posts nothing, even right after a post of its own.
    talker = next(seat for seat in range(7) if seat != seer and Game.objects.get(pk=game.pk).engine_state.alive[seat])
    url = seat_url(game, talker)
    assert client.post(url + "talk/", {"channel": "square", "text": "Before"}).status_code == 302
    links.issue(game.players.get(seat=talker))
    assert client.post(url + "talk/", {"channel": "square", "text": "After"}).status_code == 410
    assert list(Post.objects.order_by("pk").values_list("text", flat=True)) == ["First", "Second", "Hello?", "Before"]


def test_talk_is_only_for_a_game_under_way(organiser) -> None:
    game = services.create_game(organiser, name="Draft", seats=[services.Seating(n) for n in "ABCDEFG"], options={})
    with pytest.raises(services.ServiceError) as refused:
        talk.post(game, 0, "square", "Too early")
    assert refused.value.code == "game_not_running"


def test_large_print_is_a_seats_own_choice_and_is_remembered(organiser) -> None:
    game = started_game(organiser, "Print")
    client = Client()
    url = seat_url(game, 1)
    assert 'class="large-print"' not in page(client, url)
    response = client.post(url + "display/", {"large_print": "on"})
    assert response.status_code == 302 and response["Location"] == url
    assert 'class="large-print"' in page(client, url)
    assert 'class="large-print"' in page(Client(), url)  # another device, the same seat
    assert 'class="large-print"' not in page(client, seat_url(game, 2))
    client.post(url + "display/", {})
    assert 'class="large-print"' not in page(client, url)
    assert client.post("/p/" + "a" * 32 + "/display/", {"large_print": "on"}).status_code == 404


def test_the_talk_is_mailed_at_each_players_pace_once_and_only_what_they_read(organiser) -> None:
    from datetime import timedelta

    from django.core import mail
    from django.utils import timezone

    game = started_game(organiser, "Digest")
    wolves = pack_of(game)
    villager = next(seat for seat in range(7) if seat not in wolves)
    client = Client()
    client.post(seat_url(game, villager) + "talk/mail/", {"pace": "each"})
    say(client, game, wolves[0], "square", "Morning, neighbours.")
    say(client, game, wolves[0], "den", "The baker tonight.")
    mail.outbox.clear()
    now = timezone.now()
    assert talk.send_digests(now) == 6  # everyone but the writer: the square
    by_address = {message.to[0]: message for message in mail.outbox}
    villager_mail = next(m for to, m in by_address.items() if game.players.get(seat=villager).email in to)
    other_wolf = next(m for to, m in by_address.items() if game.players.get(seat=wolves[1]).email in to)
    assert "Morning, neighbours." in villager_mail.body and "The baker tonight." not in villager_mail.body
    assert "The baker tonight." in other_wolf.body and "The pack's den" in other_wolf.body
    assert villager_mail.extra_headers["References"] == other_wolf.extra_headers["References"]
    assert talk.send_digests(now) == 0  # once

    say(client, game, wolves[1], "square", "Anyone seen the baker?")
    mail.outbox.clear()
    # The villager (each post) and the first writer (never mailed yet); the hourly ones wait.
    assert talk.send_digests(now + timedelta(minutes=5)) == 2
    assert talk.send_digests(now + timedelta(minutes=61)) == 4
    client.post(seat_url(game, villager) + "talk/mail/", {"pace": "never"})
    say(client, game, wolves[1], "square", "Hello?")
    assert talk.send_digests(now + timedelta(hours=3)) == 5
    assert client.post(seat_url(game, villager) + "talk/mail/", {"pace": "sometimes"}).status_code == 400


def test_a_busy_square_shows_the_latest_posts_and_the_earlier_ones_a_click_away(organiser) -> None:
    from werewolf.games.rooms import SHOWN

    game = started_game(organiser, "Busy square")
    Post.objects.bulk_create(
        Post(game=game, channel="square", seat=0, author="Alba", text=f"Post number {number:03}")
        for number in range(SHOWN + 10)
    )
    path = links.url_for(game.players.get(seat=1), absolute=False)
    client = Client()
    page = client.get(path).content.decode()
    shown = re.findall(r"Post number (\d+)", page)
    assert shown == [f"{number:03}" for number in range(10, SHOWN + 10)]
    earlier = re.search(r'href="\?before=(\d+)#talk">Earlier posts<', page)
    assert earlier is not None
    older = client.get(f"{path}?before={earlier.group(1)}").content.decode()
    assert re.findall(r"Post number (\d+)", older) == [f"{number:03}" for number in range(10)]
    assert "Back to the latest posts" in older and "Earlier posts" not in older
    public = Client().get(f"/g/{game.public_key}/?before=abc")  # odd input: the latest, as usual
    assert public.status_code == 200
