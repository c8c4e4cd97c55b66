"""The game form refuses a table decided before any vote, and carries the "Thing" free
test reading to the game's options."""

from __future__ import annotations

import pytest
from crispy_forms.utils import render_crispy_form
from django.test import Client

from werewolf.engine import rulesets
from werewolf.games.forms import COMMON_FIELDS, RULESET_FIELDS, GameForm, families, members
from werewolf.games.models import Game

from .play import GAME_FORM, NAMES, create_game

pytestmark = pytest.mark.django_db


def test_a_table_won_at_the_first_dawn_is_refused_with_the_remedies(organiser_client: Client) -> None:
    players = "\n".join(f"{name} <{name.lower()}@example.org>" for name in NAMES[:5])
    response = organiser_client.post("/games/new/", {**GAME_FORM, "players": players})
    assert response.status_code == 200
    assert "before anyone could vote" in response.content.decode()
    assert Game.objects.count() == 0
    quiet = organiser_client.post("/games/new/", {**GAME_FORM, "players": players, "first_night": "quiet"})
    assert quiet.status_code == 302


def test_the_thing_free_test_reading_is_an_option(organiser_client: Client) -> None:
    assert create_game(organiser_client, thing="on").options["thing_free"] == "first_test"
    game = create_game(organiser_client, thing="on", thing_free="first_innocent")
    assert game.options["thing_free"] == "first_innocent"


def _tabula(players: int, **fields: object) -> dict[str, object]:
    text = "\n".join(f"{name} <{name.lower()}@example.org>" for name in NAMES[:players])
    return {**GAME_FORM, "players": text, "ruleset": "tabula", **fields}


def test_a_tabula_game_takes_its_own_options_and_stage_lengths(organiser_client: Client) -> None:
    response = organiser_client.post("/games/new/", _tabula(10, tabula_specials_default="on"))
    assert response.status_code == 302
    game = Game.objects.get()
    assert game.ruleset == "tabula"
    assert game.options == {
        "specials": ["medium", "possessed"],
        "first_night": "quiet",
        "missing_wolves": "nobody",
        "reveal_dead": False,
    }
    assert game.stage_minutes == {"accusation": 120, "ballot": 40}
    chosen = _tabula(10, tabula_specials=["medium"], tabula_accusation_minutes=90, tabula_ballot_minutes=15)
    organiser_client.post("/games/new/", chosen)
    game = Game.objects.order_by("-pk").first()
    assert (game.options["specials"], game.stage_minutes) == (["medium"], {"accusation": 90, "ballot": 15})
    edit = organiser_client.get(f"/games/{game.pk}/edit/").content.decode()
    assert 'value="90"' in edit and 'value="15"' in edit


def test_a_tabula_form_refuses_next_to_the_right_field(organiser_client: Client) -> None:
    page = organiser_client.post("/games/new/", _tabula(6, tabula_specials_default="on")).content.decode()
    assert "Lupus in Tabula needs between 7 and 24 players" in page
    assert Game.objects.count() == 0


def test_a_draft_turned_into_tabula_drops_the_classic_deal(organiser) -> None:
    """Roles the organiser dealt for classic that do not fit Tabula's deck (nine
    players bring the Medium): changing the draft's ruleset deals them again from
    nothing, with no error."""
    from werewolf.games import services

    seats = [services.Seating(name, "") for name in NAMES[:9]]
    game = services.create_game(organiser, name="Switch", seats=seats, options={"seers": 1}, deal_roles=False)
    players = list(game.players.order_by("pk"))
    roles = ["wolf", "wolf", "seer"] + ["villager"] * 6
    services.assign_deal(game, {player.pk: {"role": role} for player, role in zip(players, roles, strict=True)}, None)
    game = services.update_draft(game, name="Switch", seats=seats, options={}, ruleset="tabula", deal_roles=True)
    assert game.ruleset == "tabula"
    assert not any(game.players.values_list("assigned_hand", flat=True))


def test_every_field_of_the_form_is_shown_under_its_ruleset_or_for_every_game() -> None:
    placed = list(COMMON_FIELDS) + [name for names in RULESET_FIELDS.values() for name in names]
    assert sorted(placed) == sorted(GameForm.base_fields)
    assert tuple(RULESET_FIELDS) == families()
    assert sorted(ruleset for group in families() for ruleset in members(group)) == sorted(rulesets.RULESETS)
    page = render_crispy_form(GameForm())
    for group in RULESET_FIELDS:
        # Lupusburg's two editions share one group.
        assert f'data-ruleset="{" ".join(members(group))}"' in page


def test_a_hidden_rulesets_options_stop_nobody(organiser_client: Client) -> None:
    """The classic fields, hidden while Tabula is chosen, may hold anything: the form is
    taken on Tabula's options alone."""
    response = organiser_client.post("/games/new/", _tabula(9, tabula_specials_default="on", seers="", wolves="0"))
    assert response.status_code == 302
    assert Game.objects.get().ruleset == "tabula"
    response = organiser_client.post("/games/new/", {**GAME_FORM, "players": _tabula(7)["players"], "seers": ""})
    assert response.status_code == 200 and "This field is required" in response.content.decode()


def test_the_new_game_form_renders_without_logging_an_error(organiser_client: Client, caplog) -> None:
    """Before any character is built, the form has no characters to tick: its layout
    must not name those fields (crispy-forms logged a traceback for each, every time)."""
    import logging

    with caplog.at_level(logging.DEBUG):
        response = organiser_client.get("/games/new/")
    assert response.status_code == 200
    assert 'name="tabula_characters"' not in response.content.decode()
    problems = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert not problems, [record.getMessage() for record in problems]


def test_the_time_zones_offered_are_canonical_and_a_saved_alias_is_kept(organiser, organiser_client) -> None:
    from werewolf.games import services
    from werewolf.games.forms import timezone_choices

    offered = {zone for _label, zones in timezone_choices() for zone, _place in zones}
    assert {"Africa/Asmara", "Asia/Kolkata", "Europe/Rome", "America/Argentina/Buenos_Aires", "UTC"} <= offered
    assert not offered & {"Africa/Asmera", "Asia/Calcutta", "US/Eastern", "Etc/GMT+3", "Japan"}
    assert len(offered) < 450
    # A draft that has an old alias keeps it, offered and accepted, when it is edited.
    game = services.create_game(
        organiser,
        name="Old zone",
        seats=[services.Seating(n, "") for n in NAMES[:7]],
        options={"seers": 1},
        timezone_name="Asia/Calcutta",
    )
    page = organiser_client.get(f"/games/{game.pk}/edit/").content.decode()
    assert '<option value="Asia/Calcutta" selected>' in page
    form = {**GAME_FORM, "players": "\n".join(NAMES[:7]), "timezone": "Asia/Calcutta"}
    assert organiser_client.post(f"/games/{game.pk}/edit/", form).status_code == 302
    game.refresh_from_db()
    assert game.timezone == "Asia/Calcutta"
    assert organiser_client.post("/games/new/", {**form, "name": "New"}).status_code == 200  # not for a new game


def test_a_special_below_its_suggested_number_is_taken_with_a_warning(organiser_client: Client) -> None:
    """The rulebook's numbers are suggestions: the Possessed at nine players is taken,
    and the dashboard warns of the suggestion."""
    response = organiser_client.post("/games/new/", _tabula(9, tabula_specials=["medium", "possessed"]), follow=True)
    page = response.content.decode()
    assert Game.objects.get().options["specials"] == ["medium", "possessed"]
    assert "The rulebook suggests the Possessed from 10 players; your table has 9." in page
    assert "alert-warning" in page


def test_each_rulesets_options_are_offered_from_what_it_says_of_them() -> None:
    """The New game form's option fields are built from each ruleset's description of its
    options (`engine.option_specs`): one field an option (a box first where the ruleset
    fills it in for the table), named under its family, with its choices and labels."""
    from werewolf import engine
    from werewolf.games.forms import prefix

    form = GameForm()
    for group in families():
        for spec in engine.option_specs(members(group)[0]):
            name = prefix(group) + spec.name
            if spec.kind == "characters":
                assert name not in form.fields  # nothing to tick before a character is built
                continue
            assert str(form.fields[name].label) == spec.label
            if spec.table_label:
                assert form.fields[f"{name}_default"].initial is True
            if spec.kind == "choice":
                assert [value for value, _label in form.fields[name].choices] == list(spec.choices)
                assert form.fields[name].initial == spec.default


def test_the_options_are_named_in_the_readers_language() -> None:
    from django.utils import translation

    with translation.override("it"):
        page = render_crispy_form(GameForm())
    assert "Rivela il ruolo di un giocatore morto" in page
    assert "Reveal a dead player's role" not in page


@pytest.mark.parametrize(
    "fields",
    [
        {"ruleset": "classic", "wolves": "3", "cupid": "on", "tie": "random"},
        {"ruleset": "tabula", "tabula_specials": ["medium", "owlman"], "tabula_first_night": "normal"},
        {"ruleset": "lunapiena", "lunapiena_cards": "medium, bodyguard", "lunapiena_lapide": "random"},
        {"ruleset": "lupusburg-goals", "lupusburg_placement": "card", "lupusburg_step_minutes": "25"},
    ],
)
def test_a_saved_game_fills_the_form_again_with_what_it_holds(organiser_client: Client, fields: dict) -> None:
    """A draft's edit page offers the options it was made with: sent back unchanged, the
    form makes the same game (options and step lengths)."""
    text = "\n".join(f"{name} <{name.lower()}@example.org>" for name in NAMES[:8])
    response = organiser_client.post("/games/new/", {**GAME_FORM, "players": text, **fields})
    assert response.status_code == 302, response.content.decode()[:3000]
    game = Game.objects.get()
    form = GameForm(initial=GameForm.initial_for(game))
    again = {name: form[name].value() for name in form.fields if form[name].value() not in (None, False, "", [])}
    edited = GameForm(again)
    assert edited.is_valid(), edited.errors
    assert edited.cleaned_data["options"] == game.options
    assert edited.cleaned_data["stage_minutes"] == game.stage_minutes
