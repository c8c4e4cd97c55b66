"""The balance lab on the web (werewolf/games/lab.py): the New game form's setup, its
figures and chart for organisers only, kept in the cache, limited, beside the finished
games of the same setup."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from werewolf import engine
from werewolf.engine import lab as engine_lab
from werewolf.games import lab
from werewolf.games.models import Game

from .play import started_game
from .test_join import text

pytestmark = pytest.mark.django_db

URL = reverse("games:lab")
CLASSIC = "ruleset=classic&count=9&wolves=2&reveal_dead=on&day_deadline=plurality&tie=random"


@pytest.fixture(autouse=True)
def _quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fewest games the lab plays: these tests are about the pages, not the figures."""
    monkeypatch.setattr(lab, "SECONDS", 0.01)
    monkeypatch.setattr(lab, "SUGGEST_SECONDS", 0.01)
    monkeypatch.setattr(engine_lab, "FEWEST", 30)


def test_only_a_logged_in_organiser_may_ask(client: Client) -> None:
    response = client.get(f"{URL}?{CLASSIC}")
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert client.post(URL, {"ruleset": "classic"}).status_code == 302


def test_the_fragment_shows_both_strategies_the_counts_around_and_a_text_equivalent(organiser_client: Client) -> None:
    response = organiser_client.get(f"{URL}?{CLASSIC}")
    page = text(response)
    assert response.status_code == 200
    assert "<svg" in page and 'role="img"' in page and "<title" in page and "<table" in page
    for count in (8, 9, 10):
        assert f'<th scope="row">{count}</th>' in page
    assert "bots that never talk" in page and "bots that talk as players do" in page
    assert "the village" in page and "the werewolves" in page
    assert "No finished game of this very setup" in page
    assert "<html" not in page


def test_a_repeat_comes_from_the_cache(organiser_client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    first = text(organiser_client.get(f"{URL}?{CLASSIC}"))

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("simulated again")

    monkeypatch.setattr(engine_lab, "study", refuse)
    assert text(organiser_client.get(f"{URL}?{CLASSIC}")) == first


def test_the_cache_key_holds_the_engine_and_the_setup() -> None:
    from werewolf.games.forms import GameForm

    form = GameForm()
    one = lab.Setup("classic", 9, {"wolves": 2}, form)
    assert one.key("study") == lab.Setup("classic", 9, {"wolves": 2}, form).key("study")
    assert one.key("study") != lab.Setup("classic", 10, {"wolves": 2}, form).key("study")
    assert one.key("study") != lab.Setup("classic", 9, {"wolves": 3}, form).key("study")
    assert lab.fingerprint() in repr(lab.fingerprint()) and len(lab.fingerprint()) == 16


def test_a_setup_the_game_refuses_is_answered_as_such(organiser_client: Client) -> None:
    for query in ("ruleset=classic&count=99", "ruleset=nonesuch&count=9", "ruleset=classic&count=7&wolves=9"):
        response = organiser_client.get(f"{URL}?{query}")
        assert response.status_code == 400
        assert "The lab studies a setup the game accepts" in text(response)


def test_the_forms_own_fields_reach_the_engine(organiser: Any) -> None:
    from django.http import QueryDict

    setup = lab.setup_from(QueryDict("ruleset=tabula&count=12&tabula_first_night=normal"), organiser)
    assert setup is not None and setup.players == 12 and setup.options["first_night"] == "normal"
    listed = lab.setup_from(
        QueryDict("ruleset=classic&players=Ada%0ABruno%0A%0AChiara%0ADario%0AEmma%0AFabio%0AGina"), organiser
    )
    assert listed is not None and listed.players == 7


def test_the_limit_counts_what_is_simulated_not_what_is_kept(
    organiser_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(settings.WEREWOLF_RATES, "lab", "1/600")
    assert organiser_client.get(f"{URL}?{CLASSIC}").status_code == 200
    refused = organiser_client.get(f"{URL}?ruleset=classic&count=8")
    assert refused.status_code == 429
    assert "The lab has simulated many setups for you" in text(refused)
    assert organiser_client.get(f"{URL}?{CLASSIC}").status_code == 200


def test_a_lopsided_setup_is_flagged_and_its_suggestion_follows(organiser_client: Client) -> None:
    query = "ruleset=classic&count=10&wolves=4&reveal_dead=on&day_deadline=plurality&tie=random"
    page = text(organiser_client.get(f"{URL}?{query}"))
    assert 'id="lab-flag"' in page and "Lopsided" in page
    assert f'data-url="{URL}?{query}&part=suggest&side=wolves"' in page
    suggestion = organiser_client.get(f"{URL}?{query}&part=suggest&side=wolves")
    assert suggestion.status_code == 200
    words = text(suggestion)
    assert "data-lab-change" in words
    assert "The single option change that evens it most:" in words and "Werewolves" in words


def test_finished_games_of_the_setup_show_as_counts_only(organiser: Any, organiser_client: Client) -> None:
    game = started_game(organiser, "Finished", players=7)
    state = dict(game.state)
    state["winner"] = "village"
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, state=state)
    other = started_game(organiser, "Still running", players=7)
    assert other.status != Game.Status.FINISHED
    checked = engine.options("classic", {"wolves": 2, "seers": 1}, 7)
    query = "&".join(
        f"{name}={'on' if value is True else value}" for name, value in checked.items() if value is not False
    )
    page = text(organiser_client.get(f"{URL}?ruleset=classic&count=7&{query}"))
    assert "1 finished game of this very setup" in page
    assert "Finished" not in page and "Ada" not in page


def test_without_scripts_the_button_posts_the_form_to_the_labs_page(organiser_client: Client) -> None:
    form = text(organiser_client.get(reverse("games:create")))
    assert 'id="game-form"' in form
    assert 'form="game-form"' in form and 'formaction="/games/lab/"' in form and "See how this setup plays" in form
    data = {
        "name": "Friday",
        "ruleset": "classic",
        "players": "\n".join(["Ada", "Bruno", "Chiara", "Dario", "Emma", "Fabio", "Gina", "Hugo", "Ines", "Luca"]),
        "wolves": "4",
        "seers": "1",
        "night_minutes": "60",
        "day_minutes": "60",
        "timezone": "UTC",
        "language": "en",
        "seating": "listed",
        "dealing": "deal",
        "day_deadline": "plurality",
    }
    response = organiser_client.post(URL, data)
    page = text(response)
    assert response.status_code == 200 and "<html" in page and "How this setup plays with 10 players" in page
    assert "data-lab-change" in page
    assert "Ada" not in page


def test_another_organisers_finished_games_count_only_among_enough_of_them(
    organiser: Any, organiser_client: Client, django_user_model: Any
) -> None:
    """One other organiser's game of the same setup would tell how it ended: other
    organisers' games count once at least `OTHERS_FEWEST` are finished; one's own always."""
    stranger = django_user_model.objects.create_user("stranger", password="another horse battery")

    def finish(owner: Any, winner: str) -> None:
        game = started_game(owner, "Elsewhere", players=7)
        state = dict(game.state)
        state["winner"] = winner
        Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, state=state)

    checked = engine.options("classic", {"wolves": 2, "seers": 1}, 7)
    query = "&".join(
        f"{name}={'on' if value is True else value}" for name, value in checked.items() if value is not False
    )

    def page() -> str:
        return text(organiser_client.get(f"{URL}?ruleset=classic&count=7&{query}"))

    finish(stranger, "wolves")
    assert "No finished game of this very setup" in page()
    assert "counted once at least 5 of them are finished" in page()
    finish(organiser, "village")
    assert "1 finished game of this very setup" in page()  # one's own, not the stranger's
    for _ in range(lab.OTHERS_FEWEST - 1):
        finish(stranger, "wolves")
    shown = page()
    assert f"{lab.OTHERS_FEWEST + 1} finished games of this very setup" in shown
    assert "counted once at least" not in shown
