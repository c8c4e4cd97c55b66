"""The organiser's deal for Lupusburg, both editions: a table that dealt the printed cards
by hand says, before the start, what each player holds (the character under each house,
the house of the chest, the secret goal) and who is the first Burgomaster. The form is
built from the engine's deal shape, the engine's rules check the deal, and the game
starts with exactly that deal, each player's page showing their own hand."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from werewolf import engine
from werewolf.engine.rulesets.lupusburg.table import GOAL_KINDS
from werewolf.games.models import Event, Game

from ..engine.test_lupusburg_deal import _chest_over_thief, _chest_over_werewolf, _four_of_a_goal, _werewolf_with_thief
from .play import NAMES, create_game, seat_paths, text_of

pytestmark = pytest.mark.django_db

BAG, GOALS = "lupusburg", "lupusburg-goals"
EDITIONS = (BAG, GOALS)
W, TH, T, M, F = "werewolf", "thief", "townsfolk", "man", "woman"
HANDS = {
    # Alba, Brio, Cato, Dara, Ezio: Alba holds the Werewolf under her second house, Cato the
    # Thief under his first; each chest stands under a house holding neither.
    BAG: [
        {"characters": [T, W], "chest": 0},
        {"characters": [T, T], "chest": 1},
        {"characters": [TH, T], "chest": 1},
        {"characters": [T, T], "chest": 0},
        {"characters": [T, T], "chest": 1},
    ],
    GOALS: [
        {"characters": [M, W], "chest": 0, "goal": "two_living"},
        {"characters": [F, F], "chest": 1, "goal": "eliminated_men"},
        {"characters": [TH, M], "chest": 1, "goal": "two_eliminated"},
        {"characters": [M, F], "chest": 0, "goal": "two_eliminated"},
        {"characters": [F, M], "chest": 1, "goal": "one_each"},
    ],
}
GOAL_WORDS = {
    "two_living": "both your characters still in the game at the end (2 points)",
    "two_eliminated": "both your characters out of the game at the end (6 points)",
    "one_each": "exactly one of your characters out of the game at the end (3 points)",
    "eliminated_men": "2 points for each of your townsmen out of the game, 1 for each of your townswomen still in it",
}
CHARACTER_WORDS = {W: "Werewolf", TH: "Thief", T: "Townsfolk", M: "Townsman", F: "Townswoman"}


def hands_of(ruleset: str) -> list[dict[str, Any]]:
    return [{**hand, "characters": list(hand["characters"])} for hand in HANDS[ruleset]]


def draft(organiser_client: Client, ruleset: str) -> Game:
    """A game of five whose cards the organiser deals (the seats still drawn at random)."""
    return create_game(organiser_client, players=5, ruleset=ruleset, dealing="assign")


def posted(game: Game, hands: list[dict[str, Any]], burgomaster: str | None = "Dara") -> dict[str, Any]:
    """The dashboard's deal form filled in with `hands`, by the players' names in order."""
    by_name = {player.name: player.pk for player in game.players.all()}
    data: dict[str, Any] = {"action": "assign", "burgomaster": by_name[burgomaster] if burgomaster else ""}
    for name, hand in zip(NAMES, hands, strict=False):
        pk = by_name[name]
        data[f"characters_{pk}_1"], data[f"characters_{pk}_2"] = hand["characters"]
        data[f"chest_{pk}"] = hand["chest"]
        if "goal" in hand:
            data[f"goal_{pk}"] = hand["goal"]
    return data


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_the_deal_form_asks_what_the_engine_deals(organiser_client: Client, ruleset: str) -> None:
    game = draft(organiser_client, ruleset)
    response = organiser_client.get(f"/games/{game.pk}/")
    form = response.context["roles_form"]
    shape = engine.deal_shape(ruleset, game.options, 5)
    parts = {part.name: part for part in shape.parts}
    pk = game.players.first().pk
    for number in (1, 2):
        offered = [value for value, _label in form.fields[f"characters_{pk}_{number}"].choices]
        assert offered == ["", *parts["characters"].choices]
    assert [str(value) for value, _label in form.fields[f"chest_{pk}"].choices] == ["", "0", "1"]
    if ruleset == GOALS:
        assert [value for value, _label in form.fields[f"goal_{pk}"].choices] == ["", *GOAL_KINDS]
    else:
        assert f"goal_{pk}" not in form.fields
    assert form.fields["burgomaster"].required and "alpha" not in form.fields
    page = text_of(response.content.decode())
    deck = "Werewolf, Thief, Townsfolk ×8" if ruleset == BAG else "Werewolf, Thief, Townsman ×4, Townswoman ×4"
    assert f"The cards to deal: {deck}." in page
    assert "One card is left over" not in page
    for label in ("Character under house 1", "Character under house 2", "Chest under", "First Burgomaster"):
        assert label in page
    assert ("Secret goal" in page) == (ruleset == GOALS)
    assert "House 1" in page and "House 2" in page


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_the_game_starts_with_the_organisers_deal_and_each_seat_sees_its_own_hand(
    organiser_client: Client, ruleset: str, django_capture_on_commit_callbacks: Any
) -> None:
    game = draft(organiser_client, ruleset)
    hands = hands_of(ruleset)
    assert organiser_client.post(f"/games/{game.pk}/", posted(game, hands)).status_code == 302
    # Saved, and shown again as entered.
    form = organiser_client.get(f"/games/{game.pk}/").context["roles_form"]
    alba = game.players.get(name="Alba").pk
    assert form[f"characters_{alba}_2"].value() == W and str(form[f"chest_{alba}"].value()) == "0"
    assert form["burgomaster"].value() == game.players.get(name="Dara").pk
    with django_capture_on_commit_callbacks(execute=True):  # the welcome mails carry the links
        assert organiser_client.post(f"/games/{game.pk}/", {"action": "start"}).status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    state = game.engine_state
    rules = state.rules
    by_name = {player.name: player for player in game.players.all()}
    assert rules.first == rules.burgomaster == by_name["Dara"].seat
    for name, hand in zip(NAMES, hands, strict=False):
        seat = by_name[name].seat
        assert engine.roles_of(state, seat) == tuple(hand["characters"])
        assert rules.chests[seat] == 2 * seat + hand["chest"]
        if ruleset == GOALS:
            assert rules.goals[seat] == hand["goal"]
    assert game.deal == engine.deal(state)
    # Each seat's page shows its own hand, and no one else's.
    paths = seat_paths(game)
    for name, hand in zip(NAMES, hands, strict=False):
        seat = by_name[name].seat
        page = text_of(Client().get(paths[seat]).content.decode())
        one, two = (CHARACTER_WORDS[character] for character in hand["characters"])
        chest = f"{name} {hand['chest'] + 1}"
        own = f"Your characters: {one} under house {name} 1 and {two} under house {name} 2."
        assert own in page and f"Your chest is under house {chest}." in page
        for other in NAMES[:5]:
            if other != name:
                assert f"under house {other} 1 and" not in page
        if ruleset == GOALS:
            assert f"Your secret goal: {GOAL_WORDS[hand['goal']]}" in page
            assert page.count("Your secret goal:") == page.count(f"Your secret goal: {GOAL_WORDS[hand['goal']]}")


def _two_werewolves(hands: list[dict[str, Any]]) -> None:
    hands[1]["characters"] = [W, hands[1]["characters"][1]]


INVALID = [
    (BAG, _two_werewolves, "Deal exactly these characters: Werewolf, Thief, Townsfolk ×8."),
    (GOALS, _two_werewolves, "Deal exactly these characters: Werewolf, Thief, Townsman ×4, Townswoman ×4."),
    (BAG, _werewolf_with_thief, "Alba holds both the Werewolf and the Thief"),
    (GOALS, _werewolf_with_thief, "Alba holds both the Werewolf and the Thief"),
    (BAG, _chest_over_werewolf, "Alba's chest is under the Werewolf or the Thief"),
    (GOALS, _chest_over_thief, "Cato's chest is under the Werewolf or the Thief"),
    (
        GOALS,
        _four_of_a_goal,
        "The secret goal “both your characters out of the game at the end (6 points)” is dealt more often "
        "than the deck holds it (3 times).",
    ),
]


@pytest.mark.parametrize("ruleset,fault,message", INVALID)
def test_a_deal_the_rules_forbid_is_refused_on_the_form_and_nothing_starts(
    organiser_client: Client, ruleset: str, fault: Any, message: str
) -> None:
    game = draft(organiser_client, ruleset)
    hands = hands_of(ruleset)
    fault(hands)
    response = organiser_client.post(f"/games/{game.pk}/", posted(game, hands))
    assert response.status_code == 200
    assert message in text_of(response.content.decode())
    assert not any(game.players.values_list("assigned_hand", flat=True))
    assert not game.players.filter(assigned_mark=True).exists()
    refused = organiser_client.post(f"/games/{game.pk}/", {"action": "start"})
    assert refused.status_code == 400 and "give every player a role first" in refused.content.decode()
    game.refresh_from_db()
    assert game.status == Game.Status.DRAFT and game.state is None and game.deal is None
    assert not Event.objects.filter(game=game).exists()
    assert not game.players.exclude(seat=None).exists()


@pytest.mark.parametrize("ruleset", EDITIONS)
def test_a_deal_without_its_burgomaster_or_a_character_is_refused_field_by_field(
    organiser_client: Client, ruleset: str
) -> None:
    game = draft(organiser_client, ruleset)
    data = posted(game, hands_of(ruleset), burgomaster=None)
    data[f"characters_{game.players.get(name='Ezio').pk}_2"] = ""
    response = organiser_client.post(f"/games/{game.pk}/", data)
    assert response.status_code == 200
    form = response.context["roles_form"]
    assert set(form.errors) == {"burgomaster", f"characters_{game.players.get(name='Ezio').pk}_2"}
    assert not any(game.players.values_list("assigned_hand", flat=True))


def test_the_deal_form_speaks_italian(organiser_client: Client) -> None:
    game = draft(organiser_client, GOALS)
    page = text_of(organiser_client.get(f"/games/{game.pk}/", HTTP_ACCEPT_LANGUAGE="it").content.decode())
    for label in (
        "Personaggio sotto la casa 1",
        "Personaggio sotto la casa 2",
        "Forziere sotto",
        "Obiettivo segreto",
        "Primo Borgomastro",
        "Casa 1",
        "Casa 2",
        "Lupo Mannaro",
        "Ladro",
    ):
        assert label in page, label
    hands = hands_of(GOALS)
    _werewolf_with_thief(hands)
    refused = organiser_client.post(f"/games/{game.pk}/", posted(game, hands), HTTP_ACCEPT_LANGUAGE="it")
    assert "Alba ha sia il Lupo Mannaro sia il Ladro" in text_of(refused.content.decode())


def test_a_draft_that_changes_edition_keeps_a_deal_to_complete_and_drops_one_the_rules_forbid(
    organiser_client: Client,
) -> None:
    """Editing the draft keeps each player's hand: a bag-edition deal moved to the goals
    edition lacks only the goals, and is kept to be completed (the start waits for it); a
    goals-edition deal moved to the bag edition has townsmen the bag's deck does not hold,
    and is dealt again from nothing."""
    from werewolf.games import services

    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:5]]
    game = draft(organiser_client, BAG)
    assert organiser_client.post(f"/games/{game.pk}/", posted(game, hands_of(BAG))).status_code == 302
    game = services.update_draft(game, name="Goals", seats=seats, options={}, ruleset=GOALS, deal_roles=False)
    assert game.players.get(name="Alba").assigned_hand == {"characters": [T, W], "chest": 0}
    assert game.players.get(name="Dara").assigned_mark
    refused = organiser_client.post(f"/games/{game.pk}/", {"action": "start"})
    assert refused.status_code == 400 and game.players.exclude(seat=None).count() == 0
    assert organiser_client.post(f"/games/{game.pk}/", posted(game, hands_of(GOALS))).status_code == 302
    game = services.update_draft(game, name="Bag", seats=seats, options={}, ruleset=BAG, deal_roles=False)
    assert not any(game.players.values_list("assigned_hand", flat=True))
    assert not game.players.filter(assigned_mark=True).exists()
