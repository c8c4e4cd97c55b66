"""What every seat's page shows alike is rendered once per game version, not once per
reader (issue 40): the phase's status with its deadline (`selectors.shared_version`)
and each group of the log that holds no event only some seats know
(`selectors.shared_log`). The page stays what it was: a new card, a moved deadline or
another minute left are on the next page asked, and a group with a seat's own secret
is that seat's alone."""

from __future__ import annotations

import re
from datetime import timedelta
from random import Random
from unittest import mock

import pytest
from django.test import Client
from django.utils import timezone, translation

from werewolf import engine
from werewolf.engine import rulesets
from werewolf.engine.simulate import bot_orders
from werewolf.games import links, selectors, services
from werewolf.games.models import Game, Phase, Player, Post
from werewolf.games.templatetags import werewolf as tags

from .play import pack_of, played_by_bots, started_game

pytestmark = pytest.mark.django_db


def pages(game: Game) -> dict[int, str]:
    return {player.seat: links.url_for(player, absolute=False) for player in game.players.order_by("seat")}


def rendered(response) -> set[str]:
    return {template.name for template in response.templates}


def test_the_phase_and_the_public_log_are_rendered_once_for_every_seat(organiser) -> None:
    game = started_game(organiser, "Shared")
    paths = pages(game)
    first = Client().get(paths[0])
    assert "includes/phase_status.html" in rendered(first)
    for seat in range(1, 7):
        response = Client().get(paths[seat])
        assert response.status_code == 200
        assert "includes/phase_status.html" not in rendered(response)
        assert response.content.decode().count('class="h6 mt-3"') == first.content.decode().count('class="h6 mt-3"')
    # Each seat was told its own role at the setup: a group with it is that seat's own.
    groups = selectors.log(game, 3, selectors.visible_events(game, 3))
    own = [group for group in groups if any(event.private for event in group.events)]
    assert own and all(group.shared.split("|")[2] == "3" for group in own)


def test_a_card_in_and_a_moved_deadline_are_on_the_next_page(organiser) -> None:
    game = started_game(organiser, "Counted")
    paths = pages(game)
    client = Client()
    assert "0 of 7 cards are in." in client.get(paths[1]).content.decode()
    state = game.engine_state
    seat = next(seat for seat in sorted(engine.phase(state).slots) if state.alive[seat])
    services.submit_orders(game, {seat: bot_orders(state, Random(1))[seat]})
    assert "1 of 7 cards are in." in client.get(paths[1]).content.decode()
    moved = timezone.now().replace(microsecond=0) + timedelta(days=3, hours=5)
    Phase.objects.filter(game=game, status=Phase.Status.OPEN).update(deadline=moved)
    assert moved.isoformat() in client.get(paths[2]).content.decode()


def test_the_time_left_is_the_moments_not_the_first_readers(organiser) -> None:
    game = started_game(organiser, "Clock")
    paths = pages(game)
    with mock.patch("django.template.defaultfilters.timeuntil", return_value="17 minutes"):
        assert "17 minutes" in Client().get(paths[0]).content.decode()
    with mock.patch("django.template.defaultfilters.timeuntil", return_value="16 minutes"):
        page = Client().get(paths[1]).content.decode()
    assert "16 minutes" in page and "17 minutes" not in page


def test_a_page_in_another_language_is_worded_in_it(organiser) -> None:
    game = started_game(organiser, "Lingua")
    paths = pages(game)
    assert "hours" in phase_of(Client().get(paths[0]).content.decode())
    Game.objects.filter(pk=game.pk).update(language="it")
    shown = phase_of(Client().get(paths[1]).content.decode())
    assert "\xa0ore" in shown and "hours" not in shown  # (the time left, in Django's own words)


def phase_of(page: str) -> str:
    return page.split('data-live="phase"', 1)[1].split('data-live="card"', 1)[0]


@pytest.mark.parametrize("ruleset", sorted(rulesets.RULESETS))
def test_a_public_event_reads_alike_for_every_seat_and_the_public(organiser, ruleset: str) -> None:
    """What lets a group of public events be rendered once for every reader but the
    moderator: their words do not depend on which seat reads them."""
    game = played_by_bots(organiser, ruleset)
    names = tuple(selectors.names(game))
    public = [event for event in game.events.order_by("pk").select_related("phase") if event.visible_to(engine.PUBLIC)]
    assert public
    for language in ("en", "it"):
        with translation.override(language):
            for event in public:
                said = tags._words(event, event.data, names, engine.PUBLIC, True, ruleset)
                for seat in range(len(names)):
                    assert tags._words(event, event.data, names, seat, True, ruleset) == said, (event.kind, seat)


def test_a_seats_form_starts_from_its_counted_card_once_it_changes(organiser) -> None:
    """An unbound card form is rendered once for every page that shows the same form
    (`NotecardForm.shared`): the card it starts from is part of that."""
    game = started_game(organiser, "Form")
    paths = pages(game)
    wolf = pack_of(game)[0]
    client = Client()
    assert '<option value="" selected>' in card_of(client.get(paths[wolf]).content.decode())
    card = bot_orders(game.engine_state, Random(2))[wolf]
    assert card.targets
    services.submit_orders(game, {wolf: card})
    shown = card_of(client.get(paths[wolf]).content.decode())
    assert f'<option value="{card.targets[0]}" selected>' in shown


def card_of(page: str) -> str:
    return page.split('data-live="card"', 1)[1].split('data-live="tally"', 1)[0]


def test_a_channels_posts_are_rendered_once_for_its_readers_and_follow_each_post(organiser) -> None:
    game = started_game(organiser, "Talkative")
    paths = pages(game)
    said = [Post.objects.create(game=game, channel="square", seat=0, author="Alba", text=f"Word {n}") for n in range(3)]
    villagers = [seat for seat in paths if seat not in pack_of(game)]  # (a wolf reads the den too)
    first = Client().get(paths[villagers[0]])
    assert "includes/talk_posts.html" in rendered(first) and "Word 2" in first.content.decode()
    second = Client().get(paths[villagers[1]])
    assert "includes/talk_posts.html" not in rendered(second) and "Word 2" in second.content.decode()
    Post.objects.create(game=game, channel="square", seat=1, author="Brio", text="Word 3")
    assert "Word 3" in Client().get(paths[villagers[2]]).content.decode()
    Post.objects.filter(pk=said[0].pk).update(hidden_at=timezone.now())
    assert "Word 0" not in Client().get(paths[villagers[3]]).content.decode()


def talk_of(page: str) -> str:
    return page.split('id="talk"', 1)[1].split("</section>", 1)[0]


def test_a_rooms_words_are_rendered_once_for_every_game_of_its_ruleset_and_language(organiser) -> None:
    """A room's name, help and form (`rooms.Room.words`) are kept per ruleset, language
    and how the viewer reads the room, not per game or seat: a seat of another game of
    the ruleset renders none of them, yet each form posts to its own seat's address with
    the page's token; the den's words are on a wolf's page only; a game in Italian reads
    its rooms in Italian."""
    first, second = started_game(organiser, "Rooms"), started_game(organiser, "Rooms too", seed=12)
    villager = next(seat for seat in pages(first) if seat not in pack_of(first))
    assert "rulesets/werewolf/includes/channel_name.html" in rendered(Client().get(pages(first)[villager]))
    Client().get(pages(first)[pack_of(first)[0]])
    paths = pages(second)
    for seat, path in paths.items():
        response = Client().get(path)
        shown = talk_of(response.content.decode())
        assert not {"rulesets/werewolf/includes/channel_name.html", "includes/channel_help.html"} & rendered(response)
        assert f'<form method="post" action="{path}talk/"><input type="hidden" name="csrfmiddlewaretoken"' in shown
        assert shown.count("<form ") == (2 if seat in pack_of(second) else 1)
        assert ("The pack's den" in shown) == (seat in pack_of(second)), seat
    Game.objects.filter(pk=second.pk).update(language="it")
    villager = next(seat for seat in paths if seat not in pack_of(second))
    shown = talk_of(Client().get(paths[villager]).content.decode())
    assert "La piazza" in shown and "Di' qualcosa" in shown and "The town square" not in shown


def test_a_seats_talk_mail_form_shows_its_own_pace_in_its_games_language(organiser) -> None:
    """The talk mail's form is kept per language and pace (seat.html), its address and
    token the page's: each seat's page selects the pace that seat chose."""
    game = started_game(organiser, "Paces")
    paths = pages(game)
    client = Client()
    for seat, pace in ((0, "hourly"), (1, "each"), (2, "hourly")):
        Player.objects.filter(game=game, seat=seat).update(talk_mail=pace)
        page = client.get(paths[seat]).content.decode()
        form = page.split('id="talk-pace"', 1)[1].split("</form>", 1)[0]
        assert f'<option value="{pace}" selected>' in form and form.count(" selected>") == 1, (seat, pace)
        assert f'<form method="post" action="{paths[seat]}talk/mail/" class="row g-2 align-items-end mb-3">' in page
    Game.objects.filter(pk=game.pk).update(language="it")
    assert '<option value="hourly" selected>al massimo ogni ora' in client.get(paths[2]).content.decode()


def circle_of(page: str) -> str:
    return page.split('data-live="circle"', 1)[1].split('data-live="log"', 1)[0]


def places_written(response) -> int:
    return sum(template.name == "includes/circle_place.html" for template in response.templates)


def test_a_seats_circle_is_rendered_once_and_again_when_a_seat_dies(organiser) -> None:
    """The places of a circle are rendered once for every page that shows them alike
    (`selectors.circle_shared`), each page writing its own seat's place: a second
    villager's page writes only its own; a seat's next page, and one after a card handed
    in (which asks every open page for itself again), none (`selectors.circle_seat`); a
    death renders them again, and shows it."""
    game = started_game(organiser, "Circle", seed=3)
    paths = pages(game)
    villager, other = [seat for seat in sorted(paths) if seat not in pack_of(game)][:2]
    client = Client()
    first = client.get(paths[villager])
    assert places_written(first) == len(paths) + 1  # (the kept places, then its own)
    assert places_written(client.get(paths[villager])) == 0  # (its whole circle kept)
    second = client.get(paths[other])
    assert places_written(second) == 1 and "(you)" in circle_of(second.content.decode())
    # Each says "you" at its own place only.
    for seat, response in ((villager, first), (other, second)):
        you = re.findall(
            r'<li class="[^"]*\byou\b[^"]*">\s*<small class="text-body-secondary">(\d+)\.',
            circle_of(response.content.decode()),
        )
        assert you == [str(seat + 1)]
    card = bot_orders(game.engine_state, Random(2))
    wolf = pack_of(game)[0]
    services.submit_orders(game, {wolf: card[wolf]})
    again = client.get(paths[villager])
    assert places_written(again) == 0 and "dead" not in circle_of(again.content.decode())
    services.submit_orders(
        Game.objects.get(pk=game.pk), bot_orders(Game.objects.get(pk=game.pk).engine_state, Random(2))
    )
    game = Game.objects.get(pk=game.pk)
    if game.current_phase() is not None and game.current_phase().index == 0:
        services.resolve_now(game)
    game = Game.objects.get(pk=game.pk)
    dead = [seat for seat in range(7) if not game.engine_state.alive[seat]]
    assert dead
    after = client.get(paths[villager])
    assert places_written(after) == len(paths) + 1 and "dead" in circle_of(after.content.decode())


def test_a_circles_kept_places_show_no_seat_its_neighbours_role(organiser) -> None:
    """A seat's own role is on its own page only: the pack's, each wolf's circle; a
    villager's, not on the next villager's page, which takes the places the first kept."""
    game = started_game(organiser, "Roles", seed=3)
    paths = pages(game)
    pack = pack_of(game)
    villagers = [seat for seat in sorted(paths) if seat not in pack]
    client = Client()
    for seat in [*villagers, *pack]:
        circle = circle_of(client.get(paths[seat]).content.decode())
        roles = circle.count("<br><small>")
        assert roles == (len(pack) if seat in pack else 1), (seat, circle)


CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')


@pytest.mark.parametrize("ruleset", sorted(rulesets.RULESETS))
def test_every_seats_page_is_the_page_it_would_be_alone(organiser, ruleset: str) -> None:
    """Whatever the pages of the other seats left rendered (the phase, the log's groups,
    the forms, the posts, the circles), each seat's page is, byte for byte, the page it
    would be rendered alone, step after step of a game of each ruleset: no seat is shown
    a part rendered from what only another seat may see."""
    from django.core.cache import caches

    rng = Random(ruleset)
    game = played_by_bots(organiser, ruleset, rounds=0)
    for _ in range(4):
        game = Game.objects.get(pk=game.pk)
        paths = pages(game)
        Post.objects.create(game=game, channel="square", seat=0, author="Alba", text=f"Step {game.pk} {rng.random()}")
        client = Client()
        alone = {}
        for seat in sorted(paths):
            caches["template_fragments"].clear()
            alone[seat] = CSRF.sub("", client.get(paths[seat]).content.decode())
        caches["template_fragments"].clear()
        # Each seat after the ones before it, then after the ones after it: the parts kept.
        for seat in [*sorted(paths), *sorted(paths, reverse=True)]:
            assert CSRF.sub("", client.get(paths[seat]).content.decode()) == alone[seat], (ruleset, seat)
        if not game.is_running:
            break
        services.submit_orders(game, bot_orders(game.engine_state, rng))
        game = Game.objects.get(pk=game.pk)
        if game.is_running:
            services.resolve_now(game)
