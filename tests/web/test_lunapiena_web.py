"""Luna Piena through the web: whole games with the secrecy sweep, the New game form's
options, and the characters an organiser builds from ability blocks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.test import Client

from tests.conftest import in_pass
from werewolf.engine.rulesets import get
from werewolf.engine.rulesets.lunapiena import cast as deck_table
from werewolf.games.models import Character, Game

from .play import create_game, seat_paths, text_of
from .test_game_flow import play_whole_game

pytestmark = pytest.mark.django_db(transaction=True)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "characters"
LUNAPIENA = {
    "ruleset": "lunapiena",
    "lunapiena_cards_default": "on",
    "lunapiena_lapide": "pack_victim",
    "language": "it",  # its players read Italian
}


@pytest.mark.parametrize(
    "players,seed,sample",
    [in_pass("sqlite", 7, 31, 0), in_pass("sqlite", 12, 32, 3), in_pass("postgresql", 23, 33, 2)],
)
def test_whole_luna_piena_game_on_the_web_keeps_every_secret(
    organiser_client: Client, players: int, seed: int, sample: int
) -> None:
    """A game in Italian with the rulebook's deck for the table, nights with a kill from
    the first, days of an accusation and a ballot: every seat's page and mail swept after
    every phase (a few seats drawn afresh each phase for the non-interference check above
    seven)."""
    game = play_whole_game(organiser_client, seed, players=players, sample=sample, **LUNAPIENA)
    assert game.status == Game.Status.FINISHED
    assert game.options["cards"] == list(deck_table.additions(players))
    assert {"night", "accusation", "ballot"} <= set(game.phases.values_list("stage", flat=True))
    public = text_of(Client().get(f"/g/{game.public_key}/").content.decode())
    for player in game.players.all():
        assert f"{player.name}:" in public  # every card revealed at the end
    assert "La partita è finita" in public and "Lupo Mannaro" in public  # in Italian


def test_a_themed_game_with_the_organisers_characters(organiser_client: Client, organiser, monkeypatch) -> None:
    """Characters saved on the Characters page, ticked on the form and listed among the
    cards: dealt, explained from their blocks, and kept in the game's options."""
    for path in sorted(FIXTURES.glob("*.json")):
        raw = json.loads(path.read_text())
        Character.objects.create(organiser=organiser, name=raw["name"], definition=raw)
    ticked = [str(pk) for pk in Character.objects.filter(organiser=organiser).values_list("pk", flat=True)]
    cards = "vigilante, sherlock, doctor, lone_wolf, dorian"
    game = create_game(
        organiser_client,
        players=9,
        ruleset="lunapiena",
        lunapiena_cards=cards,
        lunapiena_characters=ticked,
        lunapiena_lapide="pack_victim",
    )
    assert game.options["cards"] == [name.strip() for name in cards.split(",")]
    assert {raw["name"] for raw in game.options["characters"]} == {"doctor", "lone_wolf", "sherlock", "vigilante"}
    response = organiser_client.post(f"/games/{game.pk}/", {"action": "start"})
    assert response.status_code == 302
    game.refresh_from_db()
    paths = seat_paths(game)
    roles = [event.data["role"] for event in game.events.filter(kind="role_dealt").order_by("data__seat")]
    for seat, role in enumerate(roles):
        page = text_of(Client().get(paths[seat]).content.decode())
        if role == "doctor":
            assert "Each night, name a player, yourself allowed (PROTECT)" in page
        if role == "lone_wolf":
            assert "You know who the werewolves are; they do not know you." in page
            assert "If you are alive when a side wins, you alone win instead." in page
    # The game's paper: every card named for its player, the organiser's characters
    # explained from their blocks; the moderator's script calls the night's steps.
    import io

    from pypdf import PdfReader

    def pdf_text(path: str) -> str:
        response = organiser_client.get(path)
        assert response.status_code == 200, path
        return " ".join(page.extract_text() for page in PdfReader(io.BytesIO(response.content)).pages)

    from werewolf.games.models import PrintJob
    from werewolf.printing import layout

    for way in ("boxes", "pages"):  # both ways a document's faces are read (layout.FACES)
        monkeypatch.setattr(layout, "FACES", way)
        PrintJob.objects.all().delete()  # printed again, not served from the job
        cards_text = " ".join(pdf_text(f"/games/{game.pk}/print/role-cards.pdf").split())
        assert "lone_wolf" in cards_text and "Sherlock" in cards_text  # an unwritten character keeps its card name
        assert "Once a game, on a night of your choice, name another player (READ)" in cards_text
        assert "Dorian Gray" in cards_text and "Portrait" in cards_text
    script = " ".join(pdf_text(f"/games/{game.pk}/print/script.pdf").split())
    assert "Dorian Gray" in script


def test_an_unknown_or_unwritten_character_is_refused_on_the_form(organiser_client: Client) -> None:
    from .play import GAME_FORM, NAMES

    players = "\n".join(f"{name} <{name.lower()}@example.org>" for name in NAMES[:9])
    for cards, words in (("sherlock", "Nobody has published the rules"), ("medium, medium", "named twice")):
        response = organiser_client.post(
            "/games/new/", {**GAME_FORM, "players": players, "ruleset": "lunapiena", "lunapiena_cards": cards}
        )
        assert response.status_code == 200
        assert words in text_of(response.content.decode())


def test_the_character_builder_saves_a_character_and_refuses_one_it_cannot_play(organiser_client: Client) -> None:
    def post(name: str, side: str, **blocks: str) -> str:
        data = {"name": name, "side": side, "blocks-TOTAL_FORMS": "3", "blocks-INITIAL_FORMS": "0"}
        data.update({f"blocks-{key}": value for key, value in blocks.items()})
        response = organiser_client.post("/characters/new/", data)
        return response["Location"] if response.status_code == 302 else text_of(response.content.decode())

    refused = post("Busy", "village", **{"0-kind": "inspect", "1-kind": "protect"})
    assert "A character writes one card a night" in refused
    assert not Character.objects.exists()
    assert post("Hunter of Ghosts", "village", **{"0-kind": "kill", "0-from_night": "2"}) == "/characters/"
    saved = Character.objects.get()
    assert saved.definition == {
        "name": "Hunter of Ghosts",
        "side": "village",
        "blocks": [{"kind": "kill", "from_night": 2}],
    }
    listing = text_of(organiser_client.get("/characters/").content.decode())
    assert "Hunter of Ghosts" in listing
    assert "Each night, you may name a player (SHOOT): that player dies at dawn. (From night 2.)" in listing
    assert "You already have a character of that name" in post("Hunter of Ghosts", "village")
    # Another organiser sees none of it, and cannot open it.
    from django.contrib.auth import get_user_model

    other = get_user_model().objects.create_user("other", password="pw-other-1234")
    client = Client()
    client.force_login(other)
    assert "Hunter of Ghosts" not in client.get("/characters/").content.decode()
    assert client.get(f"/characters/{saved.pk}/").status_code == 404
    assert client.post(f"/characters/{saved.pk}/delete/").status_code == 404


def test_simulate_reports_wins_by_side_as_json() -> None:
    from io import StringIO

    from django.core.management import call_command

    for players in (7, 23):
        out = StringIO()
        call_command(
            "simulate", "--ruleset", "lunapiena", "--players", str(players), "--games", "30", "--json", stdout=out
        )
        report = json.loads(out.getvalue())
        assert report["ruleset"] == "lunapiena" and report["games"] == 30
        assert sum(report["wins"].values()) == 30
        assert set(report["win_rates"]) <= {"village", "wolves", "werehamster"}


def test_a_tabula_game_with_the_organisers_characters_keeps_every_secret(organiser_client: Client, organiser) -> None:
    """Lupus in Tabula takes the organiser's characters too: ticked on its form, dealt
    as specials, explained from their blocks, played to the end with the sweep."""
    for name in ("doctor", "sherlock", "vigilante"):
        raw = json.loads((FIXTURES / f"{name}.json").read_text())
        Character.objects.create(organiser=organiser, name=raw["name"], definition=raw)
    ticked = [str(pk) for pk in Character.objects.filter(organiser=organiser).values_list("pk", flat=True)]
    options = {"ruleset": "tabula", "tabula_specials_default": "on", "tabula_characters": ticked}
    game = play_whole_game(organiser_client, 41, players=9, sample=0, **options)
    assert game.status == Game.Status.FINISHED
    assert game.options["specials"] == ["medium", "doctor", "sherlock", "vigilante"]
    dealt = {event.data["role"] for event in game.events.filter(kind="role_dealt")}
    assert {"doctor", "sherlock", "vigilante"} <= dealt


@pytest.mark.parametrize("card", get("lunapiena").cards, ids=lambda card: f"{card.kind}-{len(card.fields)}")
def test_every_luna_piena_card_has_words_help_and_an_example(card) -> None:
    """Each card a Luna Piena seat may be asked for is written out on its page and mail,
    explained, and shown with an example (a card written as nothing was a bug)."""
    from werewolf import engine

    from .test_tabula_words import NAMES, words

    slot = engine.Slot(card, tuple((1, 2) for _ in card.fields))
    game = {"ruleset": "lunapiena", "options": {}}
    assert words("includes/slot_help.html", slot=slot, game=game)
    assert words("emails/card_example.txt", slot=slot, game=game).startswith(card.word)
    more = tuple((field.name, (2,)) for field in card.fields[1:])
    written = words("includes/card.html", order=engine.Order(card.kind, (1,), more), names=NAMES)
    assert written.startswith(f"{card.word} Player01")
    if more:
        assert written == f"{card.word} Player01 ALSO Player02"


def test_a_table_of_twenty_four_is_taken_as_the_box_says(organiser_client: Client) -> None:
    """The box says 8 to 24 players, the moderator counted; here the server moderates,
    so 24 sit at the table: the whole second order and one more Villager."""
    from werewolf import engine
    from werewolf.games import services

    from .play import GAME_FORM, NAMES

    game = services.start_game(create_game(organiser_client, players=24, **LUNAPIENA))
    roles = [engine.roles_of(game.engine_state, seat)[0] for seat in range(24)]
    assert game.status == Game.Status.RUNNING and roles.count("wolf") == 3
    players = "\n".join([*NAMES, "Yara"])
    response = organiser_client.post("/games/new/", {**GAME_FORM, **LUNAPIENA, "language": "en", "players": players})
    assert "Luna Piena needs between 7 and 24 players" in response.content.decode()
