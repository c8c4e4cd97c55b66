"""The organiser's pages: names that fit a notecard, the time zones, paper cards in one
pass, the deal, confirmations and messages, and changing or deleting a game not started."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django import forms
from django.core import mail
from django.core.exceptions import ValidationError
from django.test import Client

from werewolf.games import services, validators
from werewolf.games.forms import COMMON_ZONES, AssignRolesForm, GameForm
from werewolf.games.models import Game, Player

from .play import GAME_FORM, NAMES, pack_of, seat_roles, snapshot, started_game

pytestmark = pytest.mark.django_db(transaction=True)


def players_text(names: list[str]) -> str:
    return "\n".join(f"{name} <p{number}@example.org>" for number, name in enumerate(names))


def page_of(response) -> str:
    return unescape(response.content.decode())


def seat_names(game: Game) -> list[str]:
    return [player.name for player in game.players.order_by("seat")]


# Names and addresses -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("Ann\nLee", "control"),
        ("Ann\rLee", "control"),
        ("Ann\tLee", "control"),
        ("Ann\x00", "control"),
        ("Ann\u2028Lee", "control"),
        ("Ann\u202eeeL", "control"),
        ("<b>Ann</b>", "markup"),
        ("Ann > Lee", "markup"),
        ("Ann, Lee", "separator"),
        ("Ann; Lee", "separator"),
        ("Ann and Lee", "separator"),
        ("Then", "separator"),
        ("Swap", "separator"),
        ("Sleep", "keyword"),
        ("VOTE", "keyword"),
        ("no vote", "keyword"),
        ("Abstain", "keyword"),
        ("Kill Bill", "keyword"),
        (":Ann", "unwritable"),
        ("\u0301", "unwritable"),
        ("   ", "empty"),
        ("A" * 61, "too_long"),
    ],
)
def test_a_name_a_card_or_a_mail_header_cannot_carry_is_refused(name: str, code: str) -> None:
    with pytest.raises(ValidationError) as refused:
        validators.clean_player_name(name)
    assert refused.value.code == code
    assert refused.value.messages[0]


@pytest.mark.parametrize(
    ("name", "kept"),
    [
        ("Anna [3B]", "Anna [3B]"),
        ("Team: Red", "Team: Red"),
        ("Ann\\", "Ann\\"),
        ("Zoë", "Zoë"),
        ("Brandon", "Brandon"),
        ("Sleepy Joe", "Sleepy Joe"),
        ("O'Brien", "O'Brien"),
        ("  Ann   Lee ", "Ann Lee"),
        ("Ann\u00a0Lee", "Ann Lee"),
        ("A" * 60, "A" * 60),
    ],
)
def test_names_that_fit_a_card_are_kept(name: str, kept: str) -> None:
    assert validators.clean_player_name(name) == kept


def test_addresses_are_checked_and_limited() -> None:
    assert validators.clean_email(" ada@example.org ") == "ada@example.org"
    for bad in ("not an address", "x" * 250 + "@example.org", '"\x01"@example.org', "ada@"):
        with pytest.raises(ValidationError):
            validators.clean_email(bad)


def test_strict_numbers() -> None:
    assert validators.ascii_number("42") == 42
    for odd in ("", "²", "٣", "-1", "1.0", " 1", "1e3", "9" * 10, None):
        assert validators.ascii_number(odd) is None


def test_the_game_form_names_every_faulty_line_at_once(organiser_client: Client) -> None:
    names = ["Alba", "Sleep", "Ann and Lee", "Brio\tBrown", "Cato", "Dara", "Ezio"]
    response = organiser_client.post("/games/new/", {**GAME_FORM, "players": players_text(names)})
    page = page_of(response)
    assert response.status_code == 200
    assert "Line 2: “Sleep” would be read as the notecard word SLEEP" in page
    assert "Line 3: “Ann and Lee” cannot be written on a notecard" in page
    assert "Line 4: “Brio\N{REPLACEMENT CHARACTER}Brown” holds a line break, a tab" in page
    response = organiser_client.post("/games/new/", {**GAME_FORM, "players": "Alba\rBrio\nCato\x0bDara"})
    assert "holds a line break" in page_of(response)
    assert Game.objects.count() == 0


def test_names_like_these_make_a_game(organiser_client: Client) -> None:
    names = ["Anna [3B]", "Team: Red", "Ann\\", "O'Brien", "Zoë", "Brandon", "Sleepy Joe"]
    response = organiser_client.post("/games/new/", {**GAME_FORM, "players": players_text(names)})
    assert response.status_code == 302, page_of(response)[:3000]
    game = Game.objects.get()
    assert sorted(game.players.values_list("name", flat=True)) == sorted(names)


def test_names_differing_only_by_accents_or_case_are_refused(organiser, organiser_client: Client) -> None:
    names = ["Zoe", "Alba", "Brio", "Zoë", "Cato", "Dara", "Ezio"]
    response = organiser_client.post("/games/new/", {**GAME_FORM, "players": players_text(names)})
    assert "Zoe and Zoë look the same on a notecard: make them differ in more than accents." in page_of(response)
    names[3] = "ZOE"
    response = organiser_client.post("/games/new/", {**GAME_FORM, "players": players_text(names)})
    assert "Two players are called “ZOE”: names must differ." in page_of(response)
    assert Game.objects.count() == 0

    game = started_game(organiser, "Look-alikes")
    seat = next(seat for seat, name in enumerate(seat_names(game)) if name != "Alba")
    before, names_before = snapshot(game), seat_names(game)
    url = f"/games/{game.pk}/seats/{seat}/substitute/"
    page = page_of(organiser_client.post(url, {"name": "Álba", "email": "alba2@example.org"}))
    assert "Alba and Álba look the same on a notecard: make them differ in more than accents." in page
    page = page_of(organiser_client.post(url, {"name": "ALBA", "email": ""}))
    assert "Another seat already has the name “Alba”." in page
    page = page_of(organiser_client.post(url, {"name": "Vote", "email": ""}))
    assert "would be read as the notecard word VOTE" in page
    page = page_of(organiser_client.post(url, {"name": "Zora", "email": "not an address"}))
    assert "“not an address” is not an email address." in page
    assert snapshot(game) == before and seat_names(game) == names_before
    own = names_before[seat]
    response = organiser_client.post(url, {"name": own.upper(), "email": ""})  # the same person, renamed
    assert response.status_code == 302


# The game form -------------------------------------------------------------------------


def test_time_zones_come_by_region_the_common_ones_first(organiser_client: Client) -> None:
    page = organiser_client.get("/games/new/").content.decode()
    select = page[page.index('name="timezone"') : page.index("</select>", page.index('name="timezone"'))]
    groups = re.findall(r'<optgroup label="([^"]+)">', select)
    assert groups[0] == "Common" and "Europe" in groups and "America" in groups
    assert groups[1:] == sorted(groups[1:])
    values = re.findall(r'<option value="([^"]*)"', select)
    assert values[: len(COMMON_ZONES)] == list(COMMON_ZONES)
    for legacy in ("Factory", "localtime", "posixrules", "GMT", "Japan", "EST5EDT"):
        assert legacy not in values
    assert re.search(r'<option value="UTC" selected>', select)
    assert '<option value="America/New_York">New York</option>' in select
    form = GameForm({**GAME_FORM, "players": players_text(NAMES[:7]), "timezone": "Factory"})
    assert not form.is_valid() and "timezone" in form.errors


def test_the_deal_offers_only_the_roles_the_game_has(organiser) -> None:
    seats = [services.Seating(name) for name in NAMES[:8]]
    plain = services.create_game(organiser, name="Plain", seats=seats, options={"seers": 0}, deal_roles=False)
    offered = [
        value for value, _label in AssignRolesForm(game=plain).fields[f"role_{plain.players.first().pk}"].choices
    ]
    assert offered == ["", "wolf", "villager"]
    rich = services.create_game(
        organiser,
        name="Rich",
        seats=seats,
        options={"wolfsbane": "herb", "vigilante": True, "cupid": True},
        deal_roles=False,
    )
    offered = [value for value, _label in AssignRolesForm(game=rich).fields[f"role_{rich.players.first().pk}"].choices]
    assert offered == ["", "wolf", "seer", "herbalist", "vigilante", "cupid", "villager"]


def test_the_organiser_deals_a_tabula_table_of_seven_and_one_card_is_set_aside(
    organiser, organiser_client: Client
) -> None:
    """Tabula's deck at seven holds eight cards: the organiser gives seven of them, the
    eighth is set aside (recorded in the deal, told to nobody), and the game keeps the
    organiser's deal, alpha included."""
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    game = services.create_game(
        organiser, name="Hand dealt", seats=seats, ruleset="tabula", options={}, deal_roles=False, draw_seats=False
    )
    page = page_of(organiser_client.get(f"/games/{game.pk}/"))
    assert "The cards to deal: Werewolf ×2, Seer, Villager ×5." in page
    assert "One card is left over: it is set aside" in page
    form = organiser_client.get(f"/games/{game.pk}/").context["roles_form"]
    assert [value for value, _label in form.fields[f"role_{game.players.first().pk}"].choices] == [
        "",
        "wolf",
        "seer",
        "villager",
    ]
    by_name = {player.name: player.pk for player in game.players.all()}
    deal = {f"role_{pk}": "villager" for pk in by_name.values()}
    deal.update({f"role_{by_name['Alba']}": "wolf", f"role_{by_name['Dara']}": "wolf"})
    deal[f"role_{by_name['Cato']}"] = "seer"
    wrong = organiser_client.post(f"/games/{game.pk}/", {"action": "assign", **deal, f"role_{by_name['Brio']}": "wolf"})
    assert wrong.status_code == 200
    assert "Deal these cards, one to every player: Werewolf ×2, Seer, Villager ×5." in page_of(wrong)
    assert not any(game.players.values_list("assigned_hand", flat=True))
    response = organiser_client.post(f"/games/{game.pk}/", {"action": "assign", **deal, "alpha": by_name["Dara"]})
    assert response.status_code == 302
    game = services.start_game(Game.objects.get(pk=game.pk))
    assert seat_roles(game) == ["wolf", "villager", "seer", "wolf", "villager", "villager", "villager"]
    assert game.deal["set_aside"] == "villager" and game.deal["alpha"] == 3
    assert list(pack_of(game)) == [3, 0]


def test_a_tabula_deal_offers_the_chosen_specials_only(organiser) -> None:
    seats = [services.Seating(name) for name in NAMES[:12]]
    game = services.create_game(
        organiser, name="Specials", seats=seats, ruleset="tabula", options={"specials": ["owlman"]}, deal_roles=False
    )
    form = AssignRolesForm(game=game)
    offered = [value for value, _label in form.fields[f"role_{game.players.first().pk}"].choices]
    assert offered == ["", "wolf", "seer", "owlman", "villager"]
    assert form.deck_words() == "Werewolf ×2, Seer, Owl-man, Villager ×8"


# Paper cards ---------------------------------------------------------------------------


def test_paper_cards_show_every_faulty_line_at_once_to_the_organiser(organiser, organiser_client: Client) -> None:
    game = started_game(organiser, "Paper")
    names = seat_names(game)
    wolves = list(pack_of(game))
    seer = seat_roles(game).index("seer")
    villagers = [seat for seat, role in enumerate(seat_roles(game)) if role == "villager"]
    url = f"/games/{game.pk}/cards/"
    before = snapshot(game)
    response = organiser_client.post(
        url,
        {
            "phase": game.current_phase().pk,
            f"seat_{wolves[0]}": f"KILL {names[wolves[1]]}",  # a rule broken
            f"seat_{wolves[1]}": f"KILL {names[villagers[0]]}, {names[villagers[0]]}",  # a rule broken
            f"seat_{seer}": "INQUIRE Nobody",  # cannot be read
            f"seat_{villagers[0]}": "STAB Alba",  # not a notecard word
            f"seat_{villagers[1]}": "SHOOT Alba",  # not this player's card
            f"seat_{villagers[2]}": "SLEEP",  # fine
        },
    )
    page = page_of(response)
    assert response.status_code == 400
    assert f"{names[wolves[0]]}'s card: {names[wolves[1]]} is a werewolf: the pack cannot kill its own." in page
    assert f"{names[wolves[1]]}'s card: {names[villagers[0]]} appears twice on the list" in page
    assert f"{names[seer]}'s card: Nobody in this game is called “Nobody”." in page
    assert f"{names[villagers[0]]}'s card: “STAB” is not a notecard word: write KILL, INQUIRE, SLEEP," in page
    assert f"{names[villagers[1]]}'s card: That kind of card does not fit this player's role in this phase." in page
    assert "your list" not in page and "yourself" not in page
    assert snapshot(game) == before


def test_the_paper_card_help_lists_only_this_games_words(organiser, organiser_client: Client) -> None:
    game = started_game(organiser, "Plain paper")
    page = page_of(organiser_client.get(f"/games/{game.pk}/cards/"))
    assert "KILL" in page and "INQUIRE" in page and "SLEEP" in page
    for word in ("SHOOT", "PROTECT", "PAIR", "SWAP", "VOTE"):
        assert word not in page, word
    assert "<title>Paper cards: Plain paper – Werewolf</title>" in page
    services.resolve_now(game)
    page = page_of(organiser_client.get(f"/games/{game.pk}/cards/"))
    assert "VOTE" in page and "NO VOTE" in page and "KILL" not in page and "SLEEP" not in page
    variants = started_game(organiser, "Variants", players=8, seed=4, wolfsbane="doorstep", vigilante=True)
    page = page_of(organiser_client.get(f"/games/{variants.pk}/cards/"))
    assert "PROTECT" in page and "SHOOT" in page and "PAIR" not in page


# Confirmations and messages -------------------------------------------------------------


def test_resolving_asks_first_and_every_action_says_it_went_through(organiser, organiser_client: Client) -> None:
    players = "\n".join(f"{name} <{name.lower()}@example.org>" for name in NAMES[:7])
    response = organiser_client.post("/games/new/", {**GAME_FORM, "players": players}, follow=True)
    assert "The game is set up. Nobody has been mailed yet" in page_of(response)
    game = Game.objects.get()
    dashboard = f"/games/{game.pk}/"
    page = page_of(organiser_client.post(dashboard, {"action": "start"}, follow=True))
    assert 'role="status">The game has started' in page
    game.refresh_from_db()
    assert re.search(r'<form[^>]*data-confirm="Resolve', page)  # app.js asks before the form goes
    page = page_of(organiser_client.post(dashboard, {"action": "extend", "minutes": 30}, follow=True))
    assert "The deadline is 30 minutes later." in page
    page = page_of(organiser_client.post(dashboard, {"action": "mail_link", "seat": 2}, follow=True))
    assert f"The link is on its way to {game.players.get(seat=2).name} again." in page
    seer = seat_roles(game).index("seer")
    response = organiser_client.post(
        f"/games/{game.pk}/seats/{seer}/card/",
        {"phase": game.current_phase().pk, "target": (seer + 1) % 7},
        follow=True,
    )
    assert f"{game.players.get(seat=seer).name}'s card is in." in page_of(response)
    mail.outbox.clear()
    response = organiser_client.post(
        f"/games/{game.pk}/seats/3/substitute/", {"name": "Zora", "email": "zora@example.org"}, follow=True
    )
    assert "Zora now plays seat 4 and is mailed a new link; the old link no longer opens it." in page_of(response)
    phase = game.current_phase().index
    page = page_of(organiser_client.post(dashboard, {"action": "resolve", "phase": phase}, follow=True))
    assert "The phase is resolved." in page
    assert "The phase is resolved." not in page_of(organiser_client.get(dashboard))  # said once


def test_the_seat_card_speaks_to_the_organiser(organiser, organiser_client: Client) -> None:
    game = started_game(organiser, "On behalf", cupid=True, seed=4)
    cupid = seat_roles(game).index("cupid")
    other = (cupid + 1) % 7
    page = page_of(
        organiser_client.post(
            f"/games/{game.pk}/seats/{cupid}/card/",
            {"phase": game.current_phase().pk, "target_1": other, "target_2": other},
        )
    )
    assert "appears twice on the list" in page and "your list" not in page
    assert f"<title>Error: Card of {game.players.get(seat=cupid).name}: On behalf – Werewolf</title>" in page


# Changing or deleting a game not started ------------------------------------------------


def draft(organiser_client: Client, **fields) -> Game:
    players = "\n".join(f"{name} <{name.lower()}@example.org>" for name in NAMES[:7])
    response = organiser_client.post("/games/new/", {**GAME_FORM, "players": players, **fields})
    assert response.status_code == 302
    return Game.objects.get(pk=int(response["Location"].strip("/").split("/")[-1]))


def edit_form(organiser_client: Client, game: Game) -> dict[str, str]:
    """The edit page's form as the browser would post it back, unchanged."""
    form = organiser_client.get(f"/games/{game.pk}/edit/").context["form"]
    data = {}
    for name, field in form.fields.items():
        value = form[name].value()
        if isinstance(field, forms.BooleanField):
            if value:
                data[name] = "on"
        elif value is not None:
            data[name] = value
    return data


def test_a_draft_can_be_changed(organiser_client: Client) -> None:
    game = draft(organiser_client, dealing="assign", cupid="on", night_minutes=90)
    page = page_of(organiser_client.get(f"/games/{game.pk}/"))
    assert f'href="/games/{game.pk}/edit/"' in page and f'href="/games/{game.pk}/delete/"' in page
    page = page_of(organiser_client.get("/"))
    assert f'href="/games/{game.pk}/edit/"' in page and f'href="/games/{game.pk}/delete/"' in page
    response = organiser_client.get(f"/games/{game.pk}/edit/")
    page = page_of(response)
    assert "<title>Change Village of tests – Werewolf</title>" in page
    data = edit_form(organiser_client, game)
    assert data["players"].splitlines()[0] == "Alba <alba@example.org>"
    assert data["night_minutes"] == 90 and data["dealing"] == "assign" and data.get("cupid") == "on"
    assert data["timezone"] == "Europe/Rome"
    by_name = {player.name: player.pk for player in game.players.all()}
    deal = {f"role_{pk}": "villager" for pk in by_name.values()}
    deal.update({f"role_{by_name['Alba']}": "wolf", f"role_{by_name['Brio']}": "wolf"})
    deal.update({f"role_{by_name['Cato']}": "seer", f"role_{by_name['Dara']}": "cupid"})
    assert organiser_client.post(f"/games/{game.pk}/", {"action": "assign", **deal}).status_code == 302

    data.update({"name": "Renamed", "players": "\n".join(reversed(data["players"].splitlines())), "day_minutes": 45})
    response = organiser_client.post(f"/games/{game.pk}/edit/", data, follow=True)
    assert "The game is saved." in page_of(response)
    game.refresh_from_db()
    assert (game.name, game.day_minutes, game.options["cupid"]) == ("Renamed", 45, True)
    assert list(game.players.order_by("pk").values_list("name", flat=True)) == list(reversed(NAMES[:7]))
    assert game.players.get(name="Dara").assigned_hand == {"role": "cupid"}  # the deal still fits: kept

    data.pop("cupid")  # no more Cupid: the deal no longer fits
    organiser_client.post(f"/games/{game.pk}/edit/", data)
    game.refresh_from_db()
    assert not game.options["cupid"]
    assert not any(game.players.values_list("assigned_hand", flat=True))

    bad = organiser_client.post(f"/games/{game.pk}/edit/", {**data, "players": "Alba\nVote"})
    assert bad.status_code == 200 and "would be read as the notecard word VOTE" in page_of(bad)
    game.refresh_from_db()
    assert game.players.count() == 7


def test_a_draft_can_be_deleted_after_a_question(organiser_client: Client) -> None:
    game = draft(organiser_client)
    response = organiser_client.get(f"/games/{game.pk}/delete/")
    page = page_of(response)
    assert response.status_code == 200 and Game.objects.filter(pk=game.pk).exists()
    assert "<title>Delete Village of tests? – Werewolf</title>" in page and "7 players" in page
    response = organiser_client.post(f"/games/{game.pk}/delete/", follow=True)
    assert "The game “Village of tests” was deleted." in page_of(response)
    assert not Game.objects.filter(pk=game.pk).exists() and not Player.objects.exists()


def test_a_co_organisers_list_offers_delete_only_for_the_drafts_it_may_delete(
    organiser, organiser_client: Client, django_user_model
) -> None:
    """A co-organiser may change a draft but not delete it: its list of games offered
    Delete all the same, and the button answered "Not found"."""
    theirs = draft(organiser_client)
    co = django_user_model.objects.create_user("co", password="another long password")
    theirs.co_organisers.add(co)
    colleague = Client()
    colleague.force_login(co)
    own = draft(colleague)
    page = page_of(colleague.get("/"))
    assert f'href="/games/{theirs.pk}/edit/"' in page and f'href="/games/{theirs.pk}/delete/"' not in page
    assert f'href="/games/{own.pk}/edit/"' in page and f'href="/games/{own.pk}/delete/"' in page
    assert colleague.get(f"/games/{theirs.pk}/delete/").status_code == 404
    page = page_of(organiser_client.get("/"))
    assert f'href="/games/{theirs.pk}/delete/"' in page


def test_a_started_game_can_be_neither_changed_nor_deleted(
    organiser, organiser_client: Client, django_user_model
) -> None:
    game = started_game(organiser, "Running")
    before = snapshot(game)
    refusals = {
        f"/games/{game.pk}/edit/": "This game has started: it can no longer be changed or deleted.",
        f"/games/{game.pk}/delete/": "This game is running: it can be deleted once it is over.",
    }
    for url, refusal in refusals.items():
        response = organiser_client.post(url, {**GAME_FORM, "players": players_text(NAMES[:7])}, follow=True)
        assert refusal in page_of(response)
        assert f'href="{url}"' not in page_of(organiser_client.get(f"/games/{game.pk}/"))
    assert snapshot(game) == before
    with pytest.raises(services.ServiceError):
        services.delete_draft(game)
    with pytest.raises(services.ServiceError):
        services.update_draft(game, name="x", seats=[services.Seating(n) for n in NAMES[:7]], options={})
    stranger = Client()
    stranger.force_login(django_user_model.objects.create_user("stranger", password="another long password"))
    other = draft(organiser_client)
    assert stranger.get(f"/games/{other.pk}/edit/").status_code == 404
    assert stranger.post(f"/games/{other.pk}/delete/").status_code == 404
    assert Game.objects.filter(pk=other.pk).exists()


# Titles --------------------------------------------------------------------------------


def test_every_organiser_page_has_its_own_title(organiser, organiser_client: Client) -> None:
    game = started_game(organiser, "Titled")
    pages = {
        "/": "Your games",
        "/games/new/": "New game",
        f"/games/{game.pk}/": "Dashboard: Titled",
        f"/g/{game.public_key}/": "Public view: Titled",
        "/accounts/login/": "Organiser log in",
        f"/games/{game.pk}/seats/0/substitute/": f"Substitute {game.players.get(seat=0).name}: Titled",
        "/games/999999/": "Not found",
    }
    for url, title in pages.items():
        assert f"<title>{title} – Werewolf</title>" in page_of(organiser_client.get(url)), url
    assert "<title>Werewolf, by written notecard – Werewolf</title>" in page_of(Client().get("/"))
    refused = page_of(organiser_client.post(f"/games/{game.pk}/", {"action": "extend", "minutes": "0"}))
    assert "<title>Error: Dashboard: Titled – Werewolf</title>" in refused


def test_a_games_language_is_what_its_players_read(organiser_client: Client) -> None:
    """The language chosen on the form is the game's: its players' pages and mails are
    rendered in it (only English has a catalogue yet), whatever the viewer's browser says."""
    from werewolf.games.models import Game

    from .play import GAME_FORM, NAMES

    players = "\n".join(f"{name} <{name.lower()}@example.org>" for name in NAMES[:7])
    response = organiser_client.post("/games/new/", {**GAME_FORM, "players": players, "language": "en"})
    assert response.status_code == 302
    game = Game.objects.get()
    assert game.language == "en"
    page = Client().get(f"/g/{game.public_key}/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert '<html lang="en"' in page
