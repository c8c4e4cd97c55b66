"""The replay: a game walked through step by step. Its organisers open it at any time;
its players and the public only once it is over, unless the organiser keeps it private;
anyone else gets the answer of a page that does not exist. Each step shows every card as
written, every event (the moderator's too), the circle or the ring as the step left it,
and a day's votes, at a cost that does not grow with the game."""

from __future__ import annotations

import re
from random import Random
from typing import Any

import pytest
from django.test import Client

from werewolf import engine
from werewolf.engine.bots import bot_card
from werewolf.games import links, replay, services
from werewolf.games.models import Game, PrintJob

from .play import started_game, text_of

pytestmark = pytest.mark.django_db


def play(game: Game, phases: int = 1000, seed: int = 9) -> Game:
    """Bots' cards for every seat asked, phase after phase (`phases` of them at most),
    each phase resolved by the organiser."""
    rng = Random(seed)
    for _ in range(phases):
        game.refresh_from_db()
        phase = game.current_phase()
        if phase is None:
            break
        for seat, slot in sorted(engine.phase(game.engine_state).slots.items()):
            game.refresh_from_db()
            if game.current_phase() != phase:
                break
            services.submit_order(game, seat, bot_card(slot, seat, rng), phase_id=phase.pk)
        game.refresh_from_db()
        if game.current_phase() == phase:
            services.resolve_now(game)
    game.refresh_from_db()
    return game


def as_nowhere(response: Any, path: str) -> str:
    """A refusal's page as it would be for any path: the site's language form returns to
    the page's own path, and its token is masked afresh each time."""
    page = response.content.decode().replace(path, "/nowhere/")
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", page)


def url(game: Game, **query: Any) -> str:
    extra = "&".join(f"{name}={value}" for name, value in query.items())
    return f"/g/{game.public_key}/replay/" + (f"?{extra}" if extra else "")


@pytest.fixture
def clients(organiser: Any, django_user_model: Any) -> dict[str, Client]:
    made = {name: Client() for name in ("anonymous", "other organiser", "co-organiser", "organiser", "staff")}
    made["organiser"].force_login(organiser)
    other = django_user_model.objects.create_user("other", password="long enough pw")
    made["other organiser"].force_login(other)
    made["co-organiser"].force_login(django_user_model.objects.create_user("co", password="long enough pw"))
    made["staff"].force_login(django_user_model.objects.create_user("staff", password="x" * 12, is_staff=True))
    return made


def test_before_the_end_only_the_organisers_open_it_and_others_get_not_found(
    organiser: Any, clients: dict[str, Client], django_user_model: Any
) -> None:
    game = started_game(organiser, "Secret until the end")
    game.co_organisers.add(django_user_model.objects.get(username="co"))
    play(game, phases=2)
    player = Client()
    assert player.get(links.url_for(game.players.get(seat=0), absolute=False)).status_code == 200
    for who, client in {**clients, "player": player}.items():
        response = client.get(url(game))
        if who in ("organiser", "co-organiser", "staff"):
            assert response.status_code == 200, who
        else:
            assert response.status_code == 404, who
            nowhere = client.get("/g/no-such-game/replay/")
            assert nowhere.status_code == 404
            assert as_nowhere(response, url(game)) == as_nowhere(nowhere, "/g/no-such-game/replay/"), who
    services.keep_replay_private(game, True)
    services.end_game(Game.objects.get(pk=game.pk))
    assert clients["anonymous"].get(url(game)).status_code == 404
    assert clients["organiser"].get(url(game)).status_code == 200
    assert clients["anonymous"].get(f"/g/{game.public_key}/replay.pdf").status_code == 404
    services.keep_replay_private(game, False)
    for who, client in {**clients, "player": player}.items():
        assert client.get(url(game)).status_code == 200, who
    # On paper too, in the game's language, for the public as for its organiser.
    printed = clients["anonymous"].get(f"/g/{game.public_key}/replay.pdf")
    assert printed.status_code == 200 and printed["Content-Type"] == "application/pdf"
    assert printed.content.startswith(b"%PDF")


def test_the_organiser_keeps_it_private_from_the_dashboard(organiser: Any, clients: dict[str, Client]) -> None:
    game = started_game(organiser, "Private")
    dashboard = clients["organiser"].get(f"/games/{game.pk}/").content.decode()
    assert url(game) in dashboard and 'name="private"' in dashboard
    assert clients["other organiser"].post(f"/games/{game.pk}/replay/private/", {"private": "on"}).status_code == 404
    response = clients["organiser"].post(f"/games/{game.pk}/replay/private/", {"private": "on"})
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/#replay"
    game.refresh_from_db()
    assert game.replay_private
    clients["organiser"].post(f"/games/{game.pk}/replay/private/", {})
    game.refresh_from_db()
    assert not game.replay_private


def test_each_step_shows_the_cards_the_events_the_circle_and_the_votes(organiser: Any) -> None:
    game = started_game(organiser, "Told", seed=5)
    services.resolve_now(game)  # nobody's card: each missing one is the moderator's to know
    game = play(game)
    assert game.status == Game.Status.FINISHED
    chapters = replay.story(game)
    client = Client()
    seen_votes = seen_moderator = False
    for number, chapter in enumerate(chapters):
        response = client.get(url(game, step=number))
        assert response.status_code == 200
        html = response.content.decode()
        text = text_of(html)
        for card in chapter.written:
            assert game.players.get(seat=card.seat).name in text
        if any(event.audience == "moderator" for event in chapter.events):
            seen_moderator = True
            assert "the moderator only" in text
        if chapter.phase is not None and chapter.phase.kind == "day" and chapter.counted:
            seen_votes = True
            assert "The votes" in text
        assert (number > 0) == ('rel="prev"' in html)
        assert (number < len(chapters) - 1) == ('rel="next"' in html)
    assert seen_votes and seen_moderator
    # The last step, by default: the circle as the game ended, every role shown.
    last = text_of(client.get(url(game)).content.decode())
    state = game.engine_state
    assert "dead" in last
    for seat in range(state.seats):
        assert game.players.get(seat=seat).name in last
    projector = client.get(url(game, step=1, projector=1)).content.decode()
    assert 'class="replay-projector"' in projector and "projector=1" in projector


def test_the_states_rebuilt_step_by_step_end_where_the_game_ended(organiser: Any) -> None:
    """The circle after each step is the engine's state rebuilt from the setup and the
    cards: after the last step, it is the game's own."""
    for ruleset, players, seed in (("classic", 7, 5), ("tabula", 8, 3), ("lupusburg-goals", 5, 4)):
        from werewolf.games.services import Seating
        from werewolf.games.services import create_game as create

        seats = [Seating(f"P{seat}", f"p{seat}@example.org") for seat in range(players)]
        game = services.start_game(create(organiser, name=ruleset, seats=seats, options={}, ruleset=ruleset, seed=seed))
        game = play(game, seed=seed)
        assert game.status == Game.Status.FINISHED, ruleset
        chapters = replay.story(game)
        states = replay._states(game, chapters)
        assert states[-1][1].to_json() == game.state, ruleset
        page = Client().get(url(game)).content.decode()
        if game.capabilities.houses:
            assert "ring-title" in page
        if game.capabilities.scores:
            assert "score-caption" in page  # the score, at the last step only
            assert "score-caption" not in Client().get(url(game, step=1)).content.decode()
        assert Client().get(url(game, step=len(chapters) // 2)).status_code == 200


def test_a_long_games_replay_on_paper_waits_for_its_worker(organiser: Any, settings: Any, monkeypatch: Any) -> None:
    """A record long enough for a worker: the organiser follows its job, anyone else is
    told to come back, and then gets the PDF the worker printed."""
    from werewolf.printing import jobs

    game = started_game(organiser, "Long enough")
    services.end_game(game)
    monkeypatch.setattr(jobs, "LARGE_RECORD", 0)
    settings.WEREWOLF_INLINE_TASKS = False
    path = f"/g/{game.public_key}/replay.pdf"
    waiting = Client().get(path)
    assert waiting.status_code == 200 and "Open this link again in a minute" in text_of(waiting.content.decode())
    mine = Client()
    mine.force_login(organiser)
    assert mine.get(path)["Location"].startswith("/print/")
    job = PrintJob.objects.get(kind="record")
    assert jobs.run_job(job.pk)
    printed = Client().get(path)
    assert printed["Content-Type"] == "application/pdf" and printed.content.startswith(b"%PDF")


def test_every_event_is_worded_as_the_moderators_log_words_it_in_the_rulesets_own_words(organiser: Any) -> None:
    """Each step tells its events through the event templates, the ruleset's own first
    (Tabula's night deaths): a new kind of event, a
    ruling among them, shows with its template and nothing else."""
    from werewolf.games.services import Seating
    from werewolf.games.services import create_game as create
    from werewolf.games.templatetags.werewolf import render_event

    seats = [Seating(f"P{seat}", f"p{seat}@example.org") for seat in range(9)]
    game = play(services.start_game(create(organiser, name="T", seats=seats, options={}, ruleset="tabula", seed=3)))
    client = Client()
    kinds = set()
    for number, chapter in enumerate(replay.story(game)):
        text = text_of(client.get(url(game, step=number)).content.decode())
        for event in chapter.events:
            kinds.add(event.kind)
            words = text_of(render_event(event, event.names_then, engine.MODERATOR, ruleset=game.ruleset))
            assert words in text, (number, event.kind)
    assert {"killed", "lynched", "card_discarded"} & kinds


def test_the_seat_and_public_pages_offer_the_replay_once_the_game_is_over(organiser: Any) -> None:
    game = started_game(organiser, "Offered")
    seat = links.url_for(game.players.get(seat=0), absolute=False)
    public = f"/g/{game.public_key}/"
    assert url(game) not in Client().get(seat).content.decode()
    assert url(game) not in Client().get(public).content.decode()
    services.end_game(game)
    assert url(game) in Client().get(seat).content.decode()
    assert url(game) in Client().get(public).content.decode()
    services.keep_replay_private(game, True)
    assert url(game) not in Client().get(seat).content.decode()
    assert url(game) not in Client().get(public).content.decode()


def test_a_vote_cut_short_by_the_organiser_shows_its_cards_and_no_votes(organiser: Any) -> None:
    game = play(started_game(organiser, "Cut short", seed=5), phases=1)
    phase = game.current_phase()
    assert phase is not None and phase.kind == "day"
    voter = next(seat for seat in sorted(engine.phase(game.engine_state).slots))
    target = next(seat for seat in engine.phase(game.engine_state).slots[voter].choices if seat != voter)
    services.submit_order(game, voter, engine.Order("vote", (target,)), phase_id=phase.pk)
    services.end_game(Game.objects.get(pk=game.pk))
    text = text_of(Client().get(url(game)).content.decode())
    assert "no: the organiser ended the game first" in text and "The votes" not in text


def test_a_game_that_no_longer_replays_is_told_without_a_table(organiser: Any, caplog: Any) -> None:
    """A game played by rules since changed (here: its seed changed under it) does not
    replay to the state it holds: its steps are told, its cards listed, no table drawn."""
    game = play(started_game(organiser, "Changed", seed=5), phases=2)
    Game.objects.filter(pk=game.pk).update(seed=game.seed + 1, deal=None)
    game.refresh_from_db()
    assert replay._states(game, replay.story(game)) == []
    mine = Client()
    mine.force_login(organiser)
    text = text_of(mine.get(url(game, step=1)).content.decode())
    assert "The table cannot be drawn for this game" in text and "What happened" in text
    assert "does not replay" in caplog.text


ITEM = re.compile(r'<li class="event event-([\w-]+)">(.*?)</li>', re.S)


def log_items(html: str) -> list[tuple[str, str]]:
    """Each event of a page's log (or a replay step's): its kind and its words."""
    return [(kind, text_of(words)) for kind, words in ITEM.findall(html)]


def test_the_replay_tells_every_event_the_public_log_tells(organiser: Any) -> None:
    """A whole game with an absence that moves a deadline, a pause and a resume, and a
    substitution: every event of the public log is told by some step of the replay (the
    deadline the absence moved among them, or Night 3's deadline jumps a day unexplained)."""
    from datetime import timedelta

    from werewolf.games import absences, calendar, dates, deadlines, pauses
    from werewolf.games.models import AbsencePolicy

    game = started_game(organiser, "Everything told")
    Game.objects.filter(pk=game.pk).update(absence_policy=AbsencePolicy.MOVE)
    game = play(Game.objects.get(pk=game.pk), phases=2)
    phase = game.current_phase()
    assert phase is not None
    state = game.engine_state
    seat = next(seat for seat in range(state.seats) if state.alive[seat])
    day = calendar.local(phase.deadline, deadlines.zone_of(game)).date()
    absences.declare(game.players.get(seat=seat), dates.Span(day, day + timedelta(days=1)))
    pauses.pause(Game.objects.get(pk=game.pk))
    pauses.resume(Game.objects.get(pk=game.pk))
    other = next(other for other in range(state.seats) if other != seat)
    services.substitute_player(game.players.get(seat=other), name="Zora", email="zora@example.org", new_person=True)
    game = play(Game.objects.get(pk=game.pk))
    assert game.status == Game.Status.FINISHED
    public = log_items(Client().get(f"/g/{game.public_key}/").content.decode())
    kinds = {kind for kind, _ in public}
    assert {"deadline_moved_away", "game_paused", "game_resumed", "player_substituted"} <= kinds, kinds
    steps = len(replay.story(game))
    told = [
        item for number in range(steps) for item in log_items(Client().get(url(game, step=number)).content.decode())
    ]
    missing = [(kind, words) for kind, words in public if not any(kind == k and words in w for k, w in told)]
    assert not missing, f"the replay leaves out {missing}"
