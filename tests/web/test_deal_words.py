"""The organiser's own deal names a seat besides the hands (`DealShape.mark`: the alpha of
a simple ruleset's killers, Lupusburg's first Burgomaster) in the words of the game's
family (games/deal_mark.html through `own`): the werewolf games' "Alpha wolf", Lupusburg's
Burgomaster, and neutral words for a game of another world (Mafia)."""

from __future__ import annotations

from html import unescape

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.utils import translation

from werewolf.engine.rulesets import mafia
from werewolf.games import services
from werewolf.games.forms import AssignRolesForm

from .play import NAMES

pytestmark = pytest.mark.django_db


def draft(organiser, ruleset: str, players: int = 7, **options):
    seats = [services.Seating(name) for name in NAMES[:players]]
    return services.create_game(
        organiser, name="Dealt", seats=seats, options=options, ruleset=ruleset, deal_roles=False, seed=1
    )


def mark_words(game) -> tuple[str, str]:
    form = AssignRolesForm(game=game)
    field = form.fields[form.shape.mark]
    return str(field.label), str(list(field.choices)[0][1])


def test_a_werewolf_game_names_its_alpha_wolf(organiser) -> None:
    assert mark_words(draft(organiser, "classic")) == ("Alpha wolf", "Drawn at random among the werewolves")
    with translation.override("it"):
        label, unnamed = mark_words(draft(organiser, "classic"))
    assert label != "Alpha wolf" and unnamed != "Drawn at random among the werewolves"


def test_lupusburg_names_its_first_burgomaster(organiser) -> None:
    assert mark_words(draft(organiser, "lupusburg", players=5)) == ("First Burgomaster", "—")


def test_mafia_names_the_first_in_its_rank_in_its_own_words(organiser, organiser_client: Client) -> None:
    game = draft(organiser, mafia.ID)
    label, unnamed = mark_words(game)
    assert (label, unnamed) == ("First in the Mafia's rank", "Drawn at random among the Mafia")
    page = unescape(organiser_client.get(f"/games/{game.pk}/").content.decode())
    assert "First in the Mafia's rank" in page
    assert "wol" not in page.lower().replace("werewolf", "")


def test_the_shared_words_for_the_mark_are_neutral() -> None:
    """What a game of another world reads before its family words its mark."""
    words = [render_to_string("games/deal_mark.html", {"word": word}).strip() for word in ("label", "unnamed")]
    assert words == ["First in rank of the side that kills at night", "Drawn at random among them"]
