"""Mafia (issue 41) played as its players and organiser see it: whole games by web with
cards also handed in by reply (each preset, with a day start in English and a night start
in Italian; the mini normal day start, the form's default, and the power night start under
the secrecy sweep of tests/web/test_game_flow.py after every phase), a card by mail and the
organiser's paper cards, in English and in Italian; and every page, mail and printed
document of a Mafia game reads in Mafia's words, never in the werewolf games' (no
werewolf, village, pack, wolves or lynching anywhere: Mafia has no lineage,
`Capabilities.lineage == ()`)."""

from __future__ import annotations

import io
import re
from random import Random

import pytest
from django.conf import settings
from django.core import mail
from django.test import Client
from django.utils import translation
from pypdf import PdfReader

from werewolf import engine
from werewolf.games import selectors, services
from werewolf.games.models import Game, InboundMessage

from .play import card_form, mail_card, mails_for, seat_paths, seat_roles, text_of
from .test_game_flow import play_whole_game

pytestmark = pytest.mark.django_db(transaction=True)

WEREWOLF_WORDS = {
    "en": re.compile(r"\b(?:were-?wol(?:f|ves)\w*|villag(?:e|er|ers)|pack|wol(?:f|ves)|lynch\w*|alpha)\b", re.I),
    "it": re.compile(r"\b(?:lup[oi]\w*|mannar\w*|villagg\w*|paesan\w*|branco|linci\w*|alfa)\b", re.I),
}
"""The werewolf games' words, in each language: the site's own name ("Werewolf") is taken
out before they are looked for."""

MAFIA = {"ruleset": "mafia", "language": "en", "name": "Sunset Boulevard Mafia"}


ADDRESS = re.compile(r"[\w.+-]+@[\w.-]+")
"""A mail address: the site's domain in a header names the server, not the game."""


def without_site_name(text: str, language: str) -> str:
    """`text` without mail addresses and the site's name ("Werewolf", in Italian "Lupi Mannari")."""
    with translation.override(language):
        site = translation.pgettext("the name of the game and of this site", "Werewolf")
    return ADDRESS.sub("", text).replace(settings.SITE_NAME, "").replace(site, "")


def werewolf_words(text: str, language: str) -> list[str]:
    """The werewolf games' words in `text`, in either language: an organiser's page is in
    the site's language, a player's in the game's."""
    text = without_site_name(without_site_name(text, language), "en")
    return [word for pattern in WEREWOLF_WORDS.values() for word in pattern.findall(text)]


def pdf_text(pdf: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)


def assert_reads_as_mafia(game: Game, organiser: Client) -> None:
    """Every seat's page and mails, the public page, the projector, the replay once the
    game is over, the organiser's page and paper cards, and the printed documents."""
    game.refresh_from_db()
    language = game.language
    anonymous = Client()
    read: dict[str, str] = {}
    for seat, path in seat_paths(game).items():
        read[f"seat {seat}"] = text_of(anonymous.get(path).content.decode())
        read[f"mails of seat {seat}"] = mails_for(game.players.get(seat=seat))
    read["public page"] = text_of(anonymous.get(f"/g/{game.public_key}/").content.decode())
    read["projector"] = text_of(anonymous.get(f"/g/{game.public_key}/projector/").content.decode())
    read["organiser's page"] = text_of(organiser.get(f"/games/{game.pk}/").content.decode())
    if game.is_running:
        read["paper cards"] = text_of(organiser.get(f"/games/{game.pk}/cards/").content.decode())
    documents = ["role-cards", "notecards", "script"]  # what the organiser prints for the table
    if game.status in (Game.Status.FINISHED, Game.Status.ENDED):
        read["replay"] = text_of(anonymous.get(f"/g/{game.public_key}/replay/").content.decode())
        documents = ["role-cards", "script", "record"]
    for document in documents:
        response = organiser.get(f"/games/{game.pk}/print/{document}.pdf")
        if response.status_code == 302 and response["Location"].startswith("/print/"):
            response = organiser.get(response["Location"] + "document.pdf")  # a long game's, by a worker
        assert response.get("Content-Type") == "application/pdf", document
        read[f"{document}.pdf"] = pdf_text(response.content)
    for where, text in read.items():
        found = werewolf_words(text, language)
        assert not found, f"{where} speaks of {found}"


def new_game(client: Client, players: int, **options: str) -> Game:
    from .play import create_game

    game = create_game(client, players=players, **{**MAFIA, **options})
    Game.objects.filter(pk=game.pk).update(seed=players)
    assert client.post(f"/games/{game.pk}/", {"action": "start"}).status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING and game.ruleset == "mafia"
    return game


PRESETS = {"vanilla": 7, "mini_cop": 7, "mini_doctor": 7, "normal": 9, "power": 11}


@pytest.mark.parametrize("start", ["day", "night"])
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_whole_mafia_game_by_web_and_reply_keeps_every_secret_and_reads_as_mafia(
    organiser_client: Client, preset: str, start: str
) -> None:
    language = "it" if start == "night" else "en"
    players = PRESETS[preset]
    # the sweep after every phase: the form's default, and the preset dealing the most roles
    swept = (preset, start) in (("normal", "day"), ("power", "night"))
    game = play_whole_game(
        organiser_client,
        players + len(preset),
        players=players,
        check=swept,
        sample=4 if players > 8 else 0,
        **{**MAFIA, "language": language, "mafia_preset": preset, "mafia_start": start},
    )
    assert game.status == Game.Status.FINISHED
    assert game.options["preset"] == preset and game.options["start"] == start
    first = game.phases.order_by("index").first()
    assert first is not None and first.kind == start
    dealt = set(seat_roles(game))
    assert dealt >= {"townsperson"} and dealt & {"goon", "godfather"}
    if preset == "power":
        assert {"godfather", "cop", "doctor", "vigilante", "roleblocker"} <= dealt
    if preset == "normal":
        assert {"cop", "doctor"} <= dealt and "godfather" not in dealt
    kinds = set(game.events.values_list("kind", flat=True))
    assert "mafia_met" in kinds and "pack_formed" not in kinds and "lynched" not in kinds
    outcome = engine.outcome(game.engine_state)
    public = text_of(Client().get(f"/g/{game.public_key}/").content.decode())
    with translation.override(language):
        won = translation.gettext(
            "The game is over: the town wins, every mafioso has been eliminated."
            if outcome.winner == "town"
            else "The game is over: the Mafia win, they are as many as everyone else."
        )
    assert won in public
    assert_reads_as_mafia(game, organiser_client)


def test_a_new_mafia_game_posts_vote_counts_by_default(organiser_client: Client) -> None:
    assert engine.capabilities("mafia").vote_counts == 24 and engine.capabilities("mafia").lineage == ()
    game = new_game(organiser_client, 7, mafia_start="day")
    assert game.vote_count_hours == 24


@pytest.mark.parametrize("language", ["en", "it"])
def test_a_mafia_card_by_reply_names_the_carrier_in_the_games_language(organiser_client: Client, language: str) -> None:
    game = new_game(organiser_client, 11, mafia_preset="power", mafia_start="night", language=language)
    roles = seat_roles(game)
    names = selectors.names(game)
    mafia = [seat for seat, role in enumerate(roles) if role in ("goon", "godfather")]
    town = [seat for seat, role in enumerate(roles) if role == "townsperson"]
    rng = Random(language)
    form = card_form(game, mafia[0], rng)
    assert form is not None
    form.update({"target": town[0], "by": mafia[-1]})
    kept = mail_card(game, mafia[0], form, rng)
    assert kept.status == InboundMessage.Status.APPLIED, (kept.code, kept.card)
    sent = engine.Order.from_json(game.current_phase().orders.filter(seat=mafia[0]).latest("pk").payload)
    assert sent.kind == "kill" and sent.targets == (town[0],) and sent.field("by") == (mafia[-1],)
    reply = mail.outbox[-1]
    with translation.override(language):
        text = reply.body
    assert names[town[0]] in text and names[mafia[-1]] in text
    assert not werewolf_words(text, language)


@pytest.mark.parametrize("language", ["en", "it"])
def test_the_organiser_enters_a_mafia_night_and_day_on_paper(
    organiser_client: Client, organiser, language: str
) -> None:
    game = new_game(organiser_client, 11, mafia_preset="power", mafia_start="night", language=language)
    roles = seat_roles(game)
    names = selectors.names(game)
    seat = {role: roles.index(role) for role in ("godfather", "goon", "cop", "doctor", "vigilante", "roleblocker")}
    town = [index for index, role in enumerate(roles) if role == "townsperson"]
    words = {
        "en": {"KILL": "KILL", "BY": "BY", "INQUIRE": "INQUIRE", "PROTECT": "PROTECT", "BLOCK": "BLOCK"},
        "it": {"KILL": "UCCIDI", "BY": "PER MANO DI", "INQUIRE": "INDAGA", "PROTECT": "PROTEGGI", "BLOCK": "BLOCCA"},
    }[language]
    cards = {
        seat["goon"]: f"{words['KILL']} {names[town[0]]} {words['BY']} {names[seat['godfather']]}",
        seat["cop"]: f"{words['INQUIRE']} {names[seat['godfather']]}",
        seat["doctor"]: f"{words['PROTECT']} {names[town[1]]}",
        seat["roleblocker"]: f"{words['BLOCK']} {names[town[2]]}",
    }
    page = organiser_client.get(f"/games/{game.pk}/cards/").content.decode()
    assert not werewolf_words(text_of(page), language)
    response = organiser_client.post(
        f"/games/{game.pk}/cards/",
        {"phase": game.current_phase().pk, **{f"seat_{index}": card for index, card in cards.items()}},
    )
    assert response.status_code == 302, text_of(response.content.decode())[:2000]
    services.resolve_now(Game.objects.get(pk=game.pk))
    game.refresh_from_db()
    killed = game.events.get(kind="killed")
    assert killed.data["seat"] == town[0]
    checked = game.events.get(kind="cop_checked")
    assert checked.data == {"seat": seat["cop"], "target": seat["godfather"], "mafia": False}
    chose = game.events.get(kind="mafia_chose")
    assert chose.data["by"] == seat["godfather"]
    assert_reads_as_mafia(game, organiser_client)
    # A carrier who is not of the Mafia is refused in the family's words (the card is read
    # in the game's language).
    services.resolve_now(Game.objects.get(pk=game.pk))  # the day passes
    game.refresh_from_db()
    refused = organiser_client.post(
        f"/games/{game.pk}/cards/",
        {
            "phase": game.current_phase().pk,
            f"seat_{seat['goon']}": f"{words['KILL']} {names[town[1]]} {words['BY']} {names[town[2]]}",
        },
    )
    assert refused.status_code == 400
    with translation.override("en"):  # the organiser's page is in the site's language
        expected = translation.gettext(
            "%(target)s is not one of the living Mafia: after BY, name the mafioso who carries the kill out"
            " (or leave it out)."
        ) % {"target": names[town[2]]}
    assert expected in text_of(refused.content.decode())
