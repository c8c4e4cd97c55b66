"""What the pages say: after a card that ends a phase, how a day ended, names after a
substitution, who shares a secret, the SLEEP card, the finished table, languages, the
demo, and the quick start's own command line."""

from __future__ import annotations

import importlib.util
import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from werewolf import engine
from werewolf.games import links, selectors, services
from werewolf.games.models import Game, Phase

from .play import pack_of, seat_roles, text_of

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["Alba", "Brio", "Cato", "Dara", "Ezio", "Fenna", "Gusto"]


def paper_game(organiser, players: int = 7, seed: int = 11, emails: bool = False, **options) -> Game:
    """A running game whose players have no address (nobody is mailed), unless `emails`."""
    seats = [services.Seating(name, f"{name.lower()}@example.org" if emails else "") for name in NAMES[:players]]
    game = services.create_game(
        organiser, name="Words", seats=seats, options={"wolves": 2, "seers": 1, **options}, seed=seed
    )
    return services.start_game(game)


def path_of(game: Game, seat: int) -> str:
    return links.url_for(game.players.get(seat=seat), absolute=False)


def night_cards(game: Game, victim: int, leave_out: int | None = None) -> dict[int, engine.Order]:
    """The wolves kill `victim`, everyone else sleeps (the Seer too)."""
    game.refresh_from_db()
    spec = engine.phase(game.engine_state)
    return {
        seat: engine.Order("kill", (victim,)) if slot.kind == "kill" else engine.Order("sleep")
        for seat, slot in spec.slots.items()
        if seat != leave_out
    }


def scattered_votes(game: Game) -> dict[int, engine.Order]:
    """Every living player votes for the next living one: no majority."""
    game.refresh_from_db()
    living = game.engine_state.living()
    return {seat: engine.Order("vote", (living[(index + 1) % len(living)],)) for index, seat in enumerate(living)}


def villagers(game: Game) -> list[int]:
    return [seat for seat, role in enumerate(seat_roles(game)) if role == "villager"]


def seat_page(game: Game, seat: int, query: str = "") -> str:
    response = Client().get(path_of(game, seat) + query)
    assert response.status_code == 200
    return response.content.decode()


def event_items(html: str, kind: str) -> list[str]:
    """The events of a kind in the page's log ("What has happened")."""
    log = html[html.index("What has happened") :]
    return re.findall(rf'<li class="event event-{kind}">(.*?)</li>', log, re.S)


def seats_table(html: str) -> str:
    start = html.index("<table")
    return html[start : html.index("</table>", start)]


pytestmark = pytest.mark.django_db(transaction=True)


# 1. A card that ends the phase ---------------------------------------------------------


def test_the_last_card_in_says_the_night_is_over_and_what_is_asked_now(organiser) -> None:
    game = paper_game(organiser)
    last, victim = villagers(game)[:2]
    night = game.current_phase()
    services.submit_orders(game, night_cards(game, victim, leave_out=last))
    response = Client().post(path_of(game, last), {"phase": night.pk})
    assert response.status_code == 302
    assert response["Location"].endswith(f"?handed={night.index}")
    page = text_of(Client().get(response["Location"]).content.decode())
    assert "Your card was the last one in: Night 1 is over." in page
    assert "Now it is Day 1: the card it asks of you is below." in page
    assert "Your card is in" not in page


def test_a_vote_that_makes_a_majority_says_the_day_is_over(organiser) -> None:
    game = paper_game(organiser)
    voter, victim, target = villagers(game)[:3]
    services.submit_orders(game, night_cards(game, victim))
    game.refresh_from_db()
    day = game.current_phase()
    assert day.kind == "day"
    others = [seat for seat in game.engine_state.living() if seat not in (voter, target)][:3]
    services.submit_orders(game, {seat: engine.Order("vote", (target,)) for seat in others})
    response = Client().post(path_of(game, voter), {"phase": day.pk, "target": target})
    assert response["Location"].endswith(f"?handed={day.index}")
    page = text_of(Client().get(response["Location"]).content.decode())
    assert "Your vote made a majority: Day 1 is over." in page
    assert "Now it is Night 2" in page


def test_a_card_for_the_open_phase_still_says_it_is_in(organiser) -> None:
    game = paper_game(organiser)
    night = game.current_phase()
    response = Client().post(path_of(game, villagers(game)[0]), {"phase": night.pk})
    page = text_of(Client().get(response["Location"]).content.decode())
    assert "Your card is in. You can change it until the phase resolves." in page
    assert "is over" not in page


# 2. How a day without a majority ended ------------------------------------------------


def test_a_day_ended_by_every_vote_in_does_not_blame_the_deadline(organiser) -> None:
    game = paper_game(organiser, start="day")
    day = game.current_phase()
    services.submit_orders(game, scattered_votes(game))
    assert Phase.objects.get(pk=day.pk).resolution == Phase.Resolution.ALL_IN
    page = text_of(Client().get(f"/g/{game.public_key}/").content.decode())
    assert "Every vote was in, with no majority. Nobody is lynched." in page
    assert "by the deadline" not in page


def test_a_day_ended_by_its_deadline_or_the_organiser_says_so(organiser) -> None:
    game = paper_game(organiser, start="day")
    day = game.current_phase()
    services.submit_order(game, 0, engine.Order("vote", (1,)))
    Phase.objects.filter(pk=day.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert services.sweep_due_phases() == 1
    page = text_of(Client().get(f"/g/{game.public_key}/").content.decode())
    assert "No majority by the deadline. Nobody is lynched." in page

    other = paper_game(organiser, start="day", seed=12)
    services.submit_order(other, 0, engine.Order("vote", (1,)))
    services.resolve_now(other)
    page = text_of(Client().get(f"/g/{other.public_key}/").content.decode())
    assert "The organiser closed the vote with no majority. Nobody is lynched." in page
    assert "by the deadline" not in page


# 3. A substitution does not rewrite history -------------------------------------------


def test_a_substitution_keeps_the_old_name_on_what_came_before(organiser, organiser_client: Client) -> None:
    game = paper_game(organiser, start="day")
    names = selectors.names(game)
    seat = villagers(game)[0]
    living = game.engine_state.living()
    before, after = living[(living.index(seat) - 1) % len(living)], living[(living.index(seat) + 1) % len(living)]
    old = names[seat]
    services.submit_orders(game, scattered_votes(game))  # Day 1 ends, every vote in
    services.substitute_player(game.players.get(seat=seat), name="Zora", email="")
    services.submit_orders(game, night_cards(game, seat))  # Night 1: the pack kills the newcomer
    for page in (
        text_of(Client().get(f"/g/{game.public_key}/").content.decode()),
        text_of(organiser_client.get(f"/games/{game.pk}/").content.decode()),
        text_of(seat_page(game, after)),
    ):
        assert f"{names[before]} → {old}" in page and f"{old} → {names[after]}" in page
        assert f"{names[before]} → Zora" not in page and f"Zora → {names[after]}" not in page
        assert f"Zora takes over seat {seat + 1} from {old}" in page
        assert "Dawn: Zora was found dead" in page


def test_the_log_costs_no_query_per_event(organiser, organiser_client: Client) -> None:
    game = paper_game(organiser, start="day")
    services.substitute_player(game.players.get(seat=villagers(game)[0]), name="Zora", email="")
    services.submit_orders(game, scattered_votes(game))  # Day 1

    def queries() -> list[int]:
        counts = []
        for path, client in (
            (f"/g/{game.public_key}/", Client()),
            (f"/games/{game.pk}/", organiser_client),
            (path_of(game, pack_of(game)[0]), Client()),
        ):
            with CaptureQueriesContext(connection) as captured:
                assert client.get(path).status_code == 200
            counts.append(len(captured))
        return counts

    at_night_1, events = queries(), game.events.count()
    services.submit_orders(game, night_cards(game, villagers(game)[1]))  # Night 1
    services.submit_orders(game, scattered_votes(game))  # Day 2
    assert game.events.count() >= events + 3
    assert queries() == at_night_1


# 4. Who shares a secret ----------------------------------------------------------------


def test_the_packs_events_say_the_pack_sees_them(organiser) -> None:
    game = paper_game(organiser)
    wolf = pack_of(game)[0]
    page = seat_page(game, wolf)
    [formed] = event_items(page, "pack_formed")
    assert "the pack only" in formed and "only you" not in formed
    [dealt] = event_items(page, "role_dealt")
    assert "only you" in dealt
    secrets = page[: page.index("What has happened")]
    assert "What the village does not know" in secrets and "What only you know" not in secrets
    [formed] = re.findall(r'<li class="event event-pack_formed">(.*?)</li>', secrets, re.S)
    assert "the pack only" in formed


def test_a_lone_wolf_is_told_only_it_knows(organiser) -> None:
    game = paper_game(organiser, wolves=1)
    [formed] = event_items(seat_page(game, pack_of(game)[0]), "pack_formed")
    assert "only you" in formed and "pack only" not in formed


def test_the_lovers_are_told_they_share_it(organiser) -> None:
    game = paper_game(organiser, cupid=True)
    cupid = seat_roles(game).index("cupid")
    first, second = [seat for seat in villagers(game) if seat != cupid][:2]
    cards = night_cards(game, [seat for seat in villagers(game) if seat not in (first, second)][0])
    cards[cupid] = engine.Order("pair", (first, second))
    services.submit_orders(game, cards)
    [love] = event_items(seat_page(game, first), "fell_in_love")
    assert "the two of you only" in love and "only you" not in love
    [paired] = event_items(seat_page(game, cupid), "lovers_paired")
    assert "only you" in paired


# 5. The SLEEP card ---------------------------------------------------------------------


def test_a_sleeping_seat_says_its_card_is_sleep(organiser, organiser_client: Client) -> None:
    game = paper_game(organiser)
    villager = villagers(game)[0]
    page = text_of(organiser_client.get(f"/games/{game.pk}/seats/{villager}/card/").content.decode())
    assert "This player has nothing to do tonight: their card is SLEEP." in page
    assert "You have nothing to do tonight: your card is SLEEP." in text_of(seat_page(game, villager))


# 6 and 7. The organiser's seats table ----------------------------------------------------


def test_the_finished_games_table_shows_every_role(organiser, organiser_client: Client) -> None:
    game = paper_game(organiser)
    table = text_of(seats_table(organiser_client.get(f"/games/{game.pk}/").content.decode()))
    assert "Role" not in table and "Werewolf" not in table
    services.end_game(game)
    table = text_of(seats_table(organiser_client.get(f"/games/{game.pk}/").content.decode()))
    assert "Role" in table
    names = selectors.names(game)
    for seat, role in enumerate(seat_roles(game)):
        label = {"wolf": "Werewolf", "seer": "Seer", "villager": "Villager"}[role]
        assert re.search(rf"{names[seat]}.*?{label}", table), (names[seat], label)


def test_the_seats_table_fits_a_phone(organiser, organiser_client: Client) -> None:
    game = paper_game(organiser)
    html = organiser_client.get(f"/games/{game.pk}/").content.decode()
    assert re.search(r'<div class="table-responsive[^"]*"[^>]*>\s*<table class="[^"]*seats', html)
    head = re.search(r"<thead>(.*?)</thead>", seats_table(html), re.S).group(1)
    assert "Actions" in head
    assert "text-nowrap" in seats_table(html)


def test_the_seats_table_says_each_seats_state_under_a_neutral_heading(organiser, organiser_client: Client) -> None:
    """The column is "Status" ("Stato"), its cells "alive" or "dead" ("vivo", "morto"):
    a column headed "Alive" ("Vivo") whose cells said "dead" ("morto") read oddly."""
    game = paper_game(organiser)
    victim = next(seat for seat in range(len(NAMES)) if seat not in pack_of(game))
    services.submit_orders(game, {wolf: engine.Order("kill", (victim,)) for wolf in pack_of(game)})
    services.resolve_now(game)
    game.refresh_from_db()
    assert not game.engine_state.alive[victim]
    for language, heading, alive, dead, gone in (
        ("en", "Status", "alive", "dead", ("Alive", "yes")),
        ("it", "Stato", "vivo", "morto", ("Vivo", "sì")),
    ):
        Game.objects.filter(pk=game.pk).update(language=language)
        html = organiser_client.get(f"/games/{game.pk}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
        table = seats_table(html)
        head = text_of(re.search(r"<thead>(.*?)</thead>", table, re.S).group(1)).split()
        assert heading in head and not set(gone) & set(head), head
        cells = re.findall(rf'<td data-label="{heading}">(.*?)</td>', table, re.S)
        assert sorted(text_of(cell) for cell in cells) == sorted([alive] * (len(NAMES) - 1) + [dead]), cells
        assert not any(word in text_of(cell).split() for cell in cells for word in gone)


# 8. Languages ------------------------------------------------------------------------------


def test_only_languages_with_a_catalogue_are_offered(organiser) -> None:
    """English and Italian, each with its catalogue. A game's pages are in the game's
    language whatever the browser prefers, and offer no switch of language; the site's
    own pages follow the browser, and offer one."""
    assert [code for code, _ in settings.LANGUAGES] == ["en", "it"]
    assert (ROOT / "werewolf" / "locale" / "it" / "LC_MESSAGES" / "django.po").exists()
    game = paper_game(organiser)
    for path in (f"/g/{game.public_key}/", path_of(game, 0)):
        html = Client(HTTP_ACCEPT_LANGUAGE="it").get(path).content.decode()
        assert '<html lang="en">' in html
        assert "Italiano" not in html and "/i18n/" not in html
    home = Client(HTTP_ACCEPT_LANGUAGE="it").get("/").content.decode()
    assert '<html lang="it">' in home and "/i18n/setlang/" in home and "Italiano" in home


# 9. The demo, the address line, the banner ------------------------------------------------


def test_the_demo_player_is_never_called_you(organiser_client: Client) -> None:
    response = organiser_client.post("/games/demo/", {"name": "You"})
    assert response.status_code == 302
    player = Game.objects.get(is_demo=True).players.get(is_bot=False)
    assert player.name.casefold() not in ("you", "me", "i")
    fixture = json.loads((ROOT / "fixtures" / "demo.json").read_text())
    assert player.name == fixture["your_name"]
    assert player.name not in fixture["bots"]
    organiser_client.post("/games/demo/", {"name": "Newcomer"})
    assert Game.objects.filter(is_demo=True, players__name="Newcomer").exists()


def test_the_demo_keeps_the_pace_the_home_page_promises(organiser_client: Client) -> None:
    fixture = json.loads((ROOT / "fixtures" / "demo.json").read_text())
    home = text_of(organiser_client.get("/").content.decode())
    minutes = {1: "a minute", 2: "two"}
    assert f"Nights last {minutes[fixture['night_minutes']]} and days {minutes[fixture['day_minutes']]}" in home
    response = organiser_client.post("/games/demo/", {"name": "Newcomer"})
    game = Game.objects.get(is_demo=True)
    human = game.players.get(is_bot=False)
    night = game.current_phase()
    assert not game.early_resolution
    assert (night.deadline - night.opened_at) == timedelta(minutes=fixture["night_minutes"])
    Client().post(response["Location"], {"phase": night.pk})  # the last card in
    assert game.current_phase() == night, "the night ends at its deadline, not with the last card"
    assert "Your card is in." in text_of(seat_page(game, human.seat, f"?handed={night.index}"))


def test_the_email_warning_shows_only_to_a_seat_with_an_address(organiser) -> None:
    warning = "Don't forward the email"
    assert warning not in text_of(seat_page(paper_game(organiser), 0))
    assert warning in text_of(seat_page(paper_game(organiser, emails=True, seed=12), 0))


def test_the_game_over_banner_is_green_only_for_the_winners(organiser) -> None:
    game = paper_game(organiser, players=5, wolves=1, start="day")
    wolf = pack_of(game)[0]
    voters = [seat for seat in game.engine_state.living() if seat != wolf][:3]
    services.submit_orders(game, {seat: engine.Order("vote", (wolf,)) for seat in voters})
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    banner = re.compile(r'<div class="alert (alert-\w+)"[^>]*>(.*?)</div>', re.S)

    def outcome(html: str) -> tuple[str, str]:
        return next((kind, text_of(text)) for kind, text in banner.findall(html) if "The game is over" in text)

    kind, text = outcome(seat_page(game, voters[0]))
    assert kind == "alert-success" and "You win." in text
    kind, text = outcome(seat_page(game, wolf))
    assert kind == "alert-dark" and "You lose." in text
    kind, text = outcome(Client().get(f"/g/{game.public_key}/").content.decode())
    assert kind == "alert-info" and "You win" not in text and "You lose" not in text


# 10. The quick start's command line ------------------------------------------------------


@pytest.fixture
def dev(monkeypatch):
    spec = importlib.util.spec_from_file_location("dev_script", ROOT / "dev.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def refuse(**kwargs) -> None:
        raise AssertionError("installed something")

    monkeypatch.setattr(module, "install", refuse)
    monkeypatch.setattr(module, "run", lambda *args: pytest.fail("ran the server"))
    return module


@pytest.mark.django_db(transaction=False)
@pytest.mark.parametrize("argv", [["run", "--help"], ["run", "-h"], ["--help"], ["-h"], ["help"]])
def test_dev_help_prints_usage_and_installs_nothing(dev, argv, capsys) -> None:
    assert dev.main(argv) == 0
    assert "python3 dev.py run [HOST:PORT]" in capsys.readouterr().out


@pytest.mark.django_db(transaction=False)
@pytest.mark.parametrize("address", ["--help-me", "nonsense", "127.0.0.1:99999", "127.0.0.1:", ":8000", "a:b:c"])
def test_dev_run_refuses_a_bad_address_before_installing(dev, address, capsys) -> None:
    assert dev.main(["run", address]) == 2
    error = capsys.readouterr().err
    assert address in error and "HOST:PORT" in error


@pytest.mark.django_db(transaction=False)
def test_dev_run_takes_good_addresses(dev) -> None:
    for address in ("127.0.0.1:8000", "0.0.0.0:8080", "localhost:9000", "[::1]:8000"):
        assert dev.parse_address(address) == address
