"""A page speaks of the roles its game holds (issue 30): a Lupus in Tabula game without the
Werehamster or the Owl-man never mentions them in the Seer's help or the accusation's; the
New game form introduces every ruleset from its own template; Lupusburg's log names the
Burgomaster's house where a tie starts."""

from __future__ import annotations

from typing import Any

import pytest
from django.template.loader import get_template
from django.test import Client

from werewolf import engine
from werewolf.engine.rulesets import tabula
from werewolf.games import services
from werewolf.games.templatetags.werewolf import render_event

from .play import NAMES

pytestmark = pytest.mark.django_db


def words(template: str, **context: Any) -> str:
    return " ".join(get_template(template).render(context).split())


def _tabula(organiser: Any, players: int, specials: list[str]) -> Any:
    seats = [services.Seating(name) for name in NAMES[:players]]
    game = services.create_game(organiser, name="Table", seats=seats, ruleset="tabula", options={"specials": specials})
    return services.start_game(game)


@pytest.mark.parametrize(
    ("players", "specials", "hamster", "owl"),
    [(10, ["medium", "possessed"], False, False), (14, ["werehamster", "owlman"], True, True)],
)
def test_tabula_help_names_only_the_specials_dealt(
    organiser: Any, players: int, specials: list[str], hamster: bool, owl: bool
) -> None:
    game = _tabula(organiser, players, specials)
    assert ("werehamster" in game.dealt_roles) is hamster and ("owlman" in game.dealt_roles) is owl
    seer = words("includes/role_help.html", role="seer", game=game)
    assert ("Werehamster" in seer) is hamster
    accusation = words("includes/slot_help.html", slot=engine.Slot(tabula.ACCUSE, ((1, 2),)), game=game)
    assert ("Owl-man" in accusation) is owl and "the dead too" in accusation
    if owl:
        owlman = words("includes/role_help.html", role="owlman", game=game)
        assert ("Werehamster" in owlman) is hamster


def test_the_new_game_form_introduces_every_ruleset(organiser_client: Client) -> None:
    page = " ".join(organiser_client.get("/games/new/").content.decode().split())
    for words_of_each in (
        "Classic:",
        "Lupus in Tabula (7 to 24 players)",
        "Luna Piena (7 to 24 players)",
        "Lupusburg (4 to 8 players)",
    ):
        assert words_of_each in page, words_of_each


def test_lupusburg_ties_start_at_the_burgomasters_house() -> None:
    event = engine.Event(
        "suspects_named",
        {"votes": [[0, 2]], "suspects": [2, 5], "tally": [[2, 2], [5, 1]], "from": 4},
        engine.Audience.public(),
    )
    text = str(render_event(event, NAMES[:4], engine.PUBLIC, ruleset="lupusburg"))
    assert f"clockwise from house {NAMES[2]} 1, the Burgomaster's" in text and "?" not in text


GAMES = {
    "classic": (8, {"wolfsbane": "herb", "cupid": True}),
    "tabula": (10, {"specials": ["medium", "possessed"]}),
    "lunapiena": (12, {}),
    "lupusburg": (6, {}),
    "lupusburg-goals": (6, {}),
}
"""A game of every ruleset, each dealing some of its own roles and not others."""


@pytest.mark.parametrize("ruleset", sorted(GAMES))
def test_the_printed_documents_name_only_the_games_roles(organiser: Any, ruleset: str) -> None:
    """Role cards, notecards, the moderator's script, the record and (where scored) the
    score sheet of a game name no role of another ruleset the game does not hold."""
    from werewolf.printing import documents

    from .play import foreign_roles
    from .test_printing import text_of

    players, options = GAMES[ruleset]
    seats = [services.Seating(name) for name in NAMES[:players]]
    game = services.start_game(
        services.create_game(organiser, name="Table", seats=seats, ruleset=ruleset, options=options)
    )
    printed = {
        "role cards": documents.role_cards_pdf(
            documents.game_cards(game), ruleset=game.ruleset, options=dict(game.options), backs=True
        ),
        "notecards": documents.notecards_pdf(game),
        "script": documents.script_pdf(game),
    }
    if game.capabilities.scores:
        printed["score sheet"] = documents.score_sheet_pdf(game)
    foreign = foreign_roles(game)
    for name, pdf in printed.items():
        text = " ".join(" ".join(text_of(pdf)).split())
        assert text, name
        assert not foreign.search(text), f"the {name} of a {ruleset} game name {foreign.search(text)}"
