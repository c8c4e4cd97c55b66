"""Whole games played through the web by an organiser and players, deadlines driven by
the real services code, with the secrecy sweep after every phase: every page and every
mail of every seat is checked for what its audience rules exclude, and for the names of
roles its game does not hold (another ruleset's: issue 30)."""

from __future__ import annotations

from datetime import timedelta
from random import Random

import pytest
from django.core import mail
from django.db import connection
from django.test import Client
from django.utils import timezone, translation
from django.utils.translation import gettext

from tests.conftest import in_pass
from werewolf import engine
from werewolf.games import services
from werewolf.games.models import Game, Order, Phase

from .play import (
    card_form,
    counterfactual_page,
    create_game,
    foreign_roles,
    mail_card,
    mails_for,
    mails_to_no_seat,
    open_phase,
    seat_paths,
    seat_roles,
    secrets_hidden_from,
    text_of,
)

pytestmark = pytest.mark.django_db(transaction=True)


def sweep(
    game: Game,
    paths: dict[int, str],
    client: Client,
    sample: Random | None = None,
    size: int = 0,
    organiser: Client | None = None,
) -> None:
    """Render every seat's page and mails, the mails of those who hold no seat (a person
    replaced or away, a standby, the organiser), and the public page: no foreign secret.
    The non-interference check (the page unchanged were every secret different) rewrites
    the game's rows per seat: given a `sample` source, a large table's game runs it for
    `size` seats drawn from it, different ones after each phase."""
    game.refresh_from_db()
    seats = sorted(paths)
    foreign = foreign_roles(game)
    imagined = set(seats)
    if sample is not None and size < len(seats):
        imagined = set(sample.sample(seats, size))
    for seat in seats:
        path = paths[seat]
        response = client.get(path)
        assert response.status_code == 200
        html = response.content.decode()
        player = game.players.get(seat=seat)
        mails = mails_for(player)
        assert "<!--" not in html
        text = text_of(html)
        away = client.get(path + "away/")  # the seat's absences (issue 31)
        assert away.status_code == 200
        away_html = away.content.decode()
        away_text = text_of(away_html)
        for words in (text, mails, away_text):
            assert not foreign.search(words), f"seat {seat} reads of {foreign.search(words)}, not of this game"
        for secret in secrets_hidden_from(game, seat):
            assert secret not in html, f"seat {seat} page shows {secret!r}"
            assert secret not in text, f"seat {seat} page shows {secret!r}"
            assert secret not in mails, f"seat {seat} mail shows {secret!r}"
            assert secret not in away_html and secret not in away_text, f"seat {seat} absences show {secret!r}"
        if seat in imagined:
            actual, counterfactual = counterfactual_page(client, game, seat, path)
            assert actual == counterfactual, f"seat {seat}'s page depends on what it may not know"
            actual, counterfactual = counterfactual_page(client, game, seat, path + "away/")
            assert actual == counterfactual, f"seat {seat}'s absences page depends on what it may not know"
    public = client.get(f"/g/{game.public_key}/").content.decode()
    projector = client.get(f"/g/{game.public_key}/projector/").content.decode()
    public_text, projector_text = text_of(public), text_of(projector)
    for words in (public_text, projector_text):
        assert not foreign.search(words), f"the public pages speak of {foreign.search(words)}, not of this game"
    public_secrets = secrets_hidden_from(game, engine.PUBLIC)
    for secret in public_secrets:
        assert secret not in public and secret not in public_text, f"public page shows {secret!r}"
        assert secret not in projector and secret not in projector_text, f"the projector shows {secret!r}"
    actual, imagined = counterfactual_page(client, game, engine.PUBLIC, f"/g/{game.public_key}/")
    assert actual == imagined, "the public page depends on secrets"
    # The mails of those who hold no seat: the person replaced, the player away while a
    # standby plays their seat, a standby waiting, the organiser.
    for whole in mails_to_no_seat():
        for secret in public_secrets:
            assert secret not in whole, f"a mail to someone without a seat tells {secret!r}"
    sweep_replay(game, client, organiser)


def sweep_replay(game: Game, client: Client, organiser: Client | None) -> None:
    """The replay shows every card and every role: before the end, its players and the
    public (`client`: anonymous, as a seat's link is) get the page of a game that does not
    exist, for the page and its PDF, and no record; its organiser gets the page (the PDF
    waits for the end). Once the game is over, anyone gets the page, speaking of this
    game's roles only (tests/web/test_replay.py prints its PDF)."""
    replay = client.get(f"/g/{game.public_key}/replay/")
    record = client.get(f"/games/{game.pk}/print/record.pdf")
    assert record.get("Content-Type") != "application/pdf" and record.status_code == 302, "the record is not theirs"
    if game.status in (Game.Status.FINISHED, Game.Status.ENDED):
        assert replay.status_code == 200
        found = foreign_roles(game).search(text_of(replay.content.decode()))
        assert not found, f"the replay speaks of {found}, not of this game"
        return
    nowhere = client.get("/g/no-such-game/replay/")
    assert replay.status_code == nowhere.status_code == 404, "the replay opens before the end"
    assert text_of(replay.content.decode()) == text_of(nowhere.content.decode()), "the refusal tells of the game"
    on_paper = client.get(f"/g/{game.public_key}/replay.pdf")
    assert on_paper.status_code == 404, "the replay is printed before the end"
    assert text_of(on_paper.content.decode()) == text_of(client.get("/g/no-such-game/replay.pdf").content.decode())
    if organiser is not None:
        assert organiser.get(f"/g/{game.public_key}/replay/").status_code == 200, "the organiser's replay"
        for path in (f"/games/{game.pk}/print/record.pdf", f"/g/{game.public_key}/replay.pdf"):
            assert organiser.get(path).get("Content-Type") != "application/pdf", "a record before the end"


def play_whole_game(
    organiser_client: Client, seed: int, players: int = 7, check: bool = True, sample: int = 0, **options: str
) -> Game:
    game = create_game(organiser_client, players=players, **options)
    # The form draws a fresh seed; fix it so that each test plays the same game every run.
    Game.objects.filter(pk=game.pk).update(seed=seed)
    response = organiser_client.post(f"/games/{game.pk}/", {"action": "start"})
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    assert len(mail.outbox) == players
    paths = seat_paths(game)
    assert len(paths) == players
    with translation.override(game.language):  # what the game's players read
        card_in = gettext("Your card is in. You can change it until the phase resolves.")
        at_once = gettext("Your card is in, and it counted at once: it cannot be changed.")  # a bet
    rng = Random(seed)
    anonymous = Client()
    sampling = Random(f"{seed}/sweep") if sample else None
    # What a seat may see is decided by the selectors and templates, whatever the database:
    # the SQLite pass sweeps after every phase; the PostgreSQL pass plays the same games
    # through its own database and sweeps after the first phase and at the end.
    every_phase = connection.vendor != "postgresql"
    if check:
        sweep(game, paths, anonymous, sampling, sample, organiser_client)
    rounds = 0
    while open_phase(game) is not None:
        rounds += 1
        assert rounds < 100, "the game does not end"
        phase = open_phase(game)
        seats = sorted(engine.phase(game.engine_state).slots)
        # Sometimes a card is missing: the deadline then resolves the phase.
        late = rng.choice(seats) if rng.random() < 0.3 else None
        for handed, seat in enumerate(seats):
            if seat == late:
                continue
            current = open_phase(game)
            if current is None or current.pk != phase.pk:
                break  # a majority ended the day early
            form = card_form(game, seat, rng)
            if rng.random() < 0.25:  # by reply to the newest mail
                kept = mail_card(game, seat, form, rng)
                assert kept.status == "applied", (kept.code, kept.card)
            else:
                response = anonymous.post(paths[seat], form)
                assert response.status_code == 302, response.content.decode()[:2000]
                page = anonymous.get(response["Location"]).content.decode()
                if open_phase(game) is not None and open_phase(game).pk == phase.pk:
                    acted = Order.objects.filter(phase=phase, seat=seat).latest("pk").act is not None
                    assert (at_once if acted else card_in) in text_of(page)
            if check and handed == 1 and not sample and every_phase:
                sweep(game, paths, anonymous, sampling, sample, organiser_client)  # cards in hand must stay secret too
        if Phase.objects.get(pk=phase.pk).status == Phase.Status.OPEN:
            Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))
            assert services.sweep_due_phases() == 1
        assert Phase.objects.get(pk=phase.pk).status == Phase.Status.RESOLVED
        if check and (every_phase or rounds == 1 or open_phase(game) is None):
            sweep(game, paths, anonymous, sampling, sample, organiser_client)
    game.refresh_from_db()
    if check:  # the organiser's dashboard, which shows every secret, speaks of this game's roles only
        dashboard = text_of(organiser_client.get(f"/games/{game.pk}/").content.decode())
        found = foreign_roles(game).search(dashboard)
        assert not found, f"the dashboard speaks of {found}, not of this game"
    return game


@pytest.mark.parametrize("seed", [in_pass("sqlite", 1), in_pass("postgresql", 2), in_pass("postgresql", 3)])
def test_whole_game_on_the_web_keeps_every_secret(organiser_client: Client, seed: int) -> None:
    game = play_whole_game(organiser_client, seed)
    assert game.status == Game.Status.FINISHED
    outcome = engine.outcome(game.engine_state)
    public = text_of(Client().get(f"/g/{game.public_key}/").content.decode())
    assert ("the village wins" in public) == (outcome.winner == "village")
    for player in game.players.all():
        assert f"{player.name}:" in public  # every role revealed at the end
        assert "is over" in mails_for(player)


def test_plurality_game_with_a_day_start_and_quiet_night(organiser_client: Client) -> None:
    game = play_whole_game(
        organiser_client,
        5,
        players=9,
        day_deadline="plurality",
        tie="random",
        start="day",
        first_night="quiet",
        public_seer="on",
    )
    assert game.status == Game.Status.FINISHED


@pytest.mark.parametrize(
    "wolfsbane,seed,dark_city", [in_pass("sqlite", "doorstep", 6, ""), in_pass("postgresql", "herb", 7, "on")]
)
def test_variant_game_with_every_special_villager_keeps_every_secret(
    organiser_client: Client, wolfsbane: str, seed: int, dark_city: str
) -> None:
    game = play_whole_game(
        organiser_client, seed, players=9, wolfsbane=wolfsbane, vigilante="on", cupid="on", dark_city=dark_city
    )
    assert game.status == Game.Status.FINISHED
    roles = seat_roles(game)
    assert [roles.count(role) for role in ("herbalist", "vigilante", "cupid")] == [1, 1, 1]
    kinds = set(game.events.values_list("kind", flat=True))
    assert {"vigilante_fired", "lovers_paired", "fell_in_love"} <= kinds  # the bots act on the first night
    assert ("cards_swapped" in kinds) == bool(dark_city)


EVERY_VARIANT = {"wolfsbane": "doorstep", "vigilante": "on", "cupid": "on", "dark_city": "on"}


@pytest.mark.parametrize("seed,others", [in_pass("sqlite", 8, {}), in_pass("postgresql", 13, EVERY_VARIANT)])
def test_a_thing_game_keeps_every_secret(organiser_client: Client, seed: int, others: dict[str, str]) -> None:
    """Days test and nights convert: the convert must learn its card at once but the
    pack only at nightfall, and nobody else may learn either; with every other variant too."""
    game = play_whole_game(organiser_client, seed, players=9, thing="on", day_deadline="plurality", **others)
    assert game.status == Game.Status.FINISHED
    kinds = set(game.events.values_list("kind", flat=True))
    assert {"converted", "infected", "tested"} <= kinds
    assert "killed" not in kinds and "lynched" not in kinds
    dealt = {event.data["role"] for event in game.events.filter(kind="role_dealt")}
    assert dealt >= {"herbalist", "vigilante", "cupid"} or not others


def test_export_replays_to_the_same_events(organiser_client: Client) -> None:
    from werewolf.engine.replay import replay

    game = play_whole_game(organiser_client, 4, check=False)
    export = organiser_client.get(f"/games/{game.pk}/export.json").json()
    replayed = [(index, event.to_json()) for index, event in replay(export)]
    recorded = [(event.pop("phase"), event) for event in export["events"] if event.pop("by") == "engine"]
    assert replayed == recorded


TABULA = {"ruleset": "tabula", "tabula_specials_default": "on", "tabula_first_night": "quiet"}


@pytest.mark.parametrize(
    "players,seed",
    [in_pass("sqlite", 8, 21), in_pass("sqlite", 13, 22), in_pass("sqlite", 16, 23), in_pass("postgresql", 24, 24)],
)
def test_whole_tabula_game_on_the_web_keeps_every_secret(organiser_client: Client, players: int, seed: int) -> None:
    """Lupus in Tabula with the default specials: nights, then days of two stages
    (the accusation, in which the ghosts vote too, and the secret ballot), each its
    own phase with its own deadline, the sweep after every one."""
    from werewolf.engine.rulesets import tabula

    # Every seat swept after every phase and amid it at eight; above, four seats drawn
    # afresh after each phase (the whole sweep at 24 players takes minutes).
    game = play_whole_game(organiser_client, seed, players=players, sample=0 if players <= 8 else 4, **TABULA)
    assert game.status == Game.Status.FINISHED
    assert game.ruleset == "tabula" and game.options["specials"] == list(tabula.reachable(players))
    phases = list(game.phases.order_by("index"))
    assert {"night", "accusation", "ballot"} <= {phase.stage for phase in phases}
    minutes = {"night": 60, "accusation": 120, "ballot": 40}  # the ballot: a third of the day
    for phase in phases:
        if phase.resolution != Phase.Resolution.DEADLINE:  # the test forced the others
            assert phase.deadline - phase.opened_at == timedelta(minutes=minutes[phase.stage])
    assert game.stage_minutes == {"accusation": 120, "ballot": 40}
    dealt = {event.data["role"] for event in game.events.filter(kind="role_dealt")}
    assert {"wolf", "seer"} <= dealt
    public = text_of(Client().get(f"/g/{game.public_key}/").content.decode())
    for player in game.players.all():
        assert f"{player.name}:" in public  # every role revealed at the end
