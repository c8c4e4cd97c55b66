"""Lupusburg through the web and by mailed cards, both editions, at the smallest and the
largest table, with the secrecy sweep after every step: nobody learns a dead character,
a chest, a coin or a goal that is not theirs. Bets are instant acts: each is applied when
handed in, in the order the game's lock lets them in, and once."""

from __future__ import annotations

import re
import threading
from random import Random

import pytest
from django.db import connection
from django.test import Client

from tests.conftest import in_pass
from werewolf import engine
from werewolf.engine.replay import replay
from werewolf.games import selectors, services
from werewolf.games.models import Event, Game, Order, Phase

from .play import create_game, seat_paths, text_of
from .test_game_flow import play_whole_game

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    "ruleset,players,seed,placement",
    [
        in_pass("postgresql", "lupusburg", 4, 31, "random"),
        in_pass("sqlite", "lupusburg", 8, 32, "card"),
        in_pass("sqlite", "lupusburg-goals", 4, 33, "card"),
        in_pass("postgresql", "lupusburg-goals", 8, 34, "random"),
    ],
)
def test_whole_lupusburg_game_on_the_web_keeps_every_secret(
    organiser_client: Client, ruleset: str, players: int, seed: int, placement: str
) -> None:
    game = play_whole_game(
        organiser_client,
        seed,
        players=players,
        ruleset=ruleset,
        lupusburg_placement=placement,
        sample=0 if players <= 4 else 3,
    )
    assert game.options["placement"] == placement
    assert ("placement" in set(game.phases.values_list("stage", flat=True))) == (placement == "card")
    assert game.status == Game.Status.FINISHED
    state = game.engine_state
    outcome = engine.outcome(state)
    assert outcome is not None
    stages = set(game.phases.values_list("stage", flat=True))
    assert {"night", "accusation", "ballot"} <= stages
    # The score table is on the public page at the end, with every player.
    public = text_of(Client().get(f"/g/{game.public_key}/").content.decode())
    assert "The score" in public
    for player in game.players.all():
        assert player.name in public
    # The export replays through the engine to the same events, acts included.
    exported = selectors.export(game)
    engine_events = [
        (item["phase"], item["kind"], item["data"]) for item in exported["events"] if item["by"] == "engine"
    ]
    replayed = [(index, event.kind, dict(event.data)) for index, event in replay(exported)]
    assert replayed == engine_events


def _lupusburg_game(organiser_client: Client, players: int = 5, seed: int = 40) -> Game:
    game = create_game(organiser_client, players=players, ruleset="lupusburg")
    Game.objects.filter(pk=game.pk).update(seed=seed)
    organiser_client.post(f"/games/{game.pk}/", {"action": "start"})
    game.refresh_from_db()
    return game


def _to_bets(game: Game) -> Phase:
    """Hand in SLEEP or the asked card (first choice) until the bets step opens."""
    for _ in range(40):
        game.refresh_from_db()
        phase = game.current_phase()
        assert phase is not None
        if phase.stage == "bets":
            return phase
        spec = engine.phase(game.engine_state)
        cards = {}
        for seat, slot in spec.slots.items():
            values = tuple(
                (field.name, choices[:1]) for field, choices in slot.pairs() if choices and not field.optional
            )
            main = next((v for name, v in values if name == engine.TARGETS), ())
            more = tuple((name, v) for name, v in values if name != engine.TARGETS)
            cards[seat] = engine.Order(slot.kind, main, more) if values else engine.Order("sleep")
        services.submit_orders(game, cards, phase_id=phase.pk)
        game.refresh_from_db()
        if game.current_phase() and game.current_phase().pk == phase.pk:
            services.resolve_now(game)
    raise AssertionError("no bets step")


def test_a_bet_is_applied_at_once_and_seen_by_everyone(organiser_client: Client) -> None:
    game = _lupusburg_game(organiser_client)
    phase = _to_bets(game)
    paths = seat_paths(game)
    bettor, target = sorted(engine.phase(game.engine_state).slots)[:2]
    anonymous = Client()
    response = anonymous.post(paths[bettor], {"phase": phase.pk, "target": target})
    assert response.status_code == 302
    game.refresh_from_db()
    names = selectors.names(game)
    assert game.engine_state.rules.has_bet(bettor)
    assert Order.objects.get(phase=phase, seat=bettor).act == 0
    assert phase.current_orders() == {}  # done: never counted again at the deadline
    for seat, path in paths.items():
        page = text_of(anonymous.get(path).content.decode())
        assert f"{names[bettor]} bets a coin, face down, on {names[target]}" in page
        coin = game.engine_state.rules.bets[0][2]
        assert (f"(coin {coin})" in page) == (seat == bettor)
    # A second bet from the same seat is refused, and changes nothing.
    before = (game.state, Event.objects.filter(game=game).count())
    again = anonymous.post(paths[bettor], {"phase": phase.pk, "target": target})
    assert again.status_code == 400
    assert "You have already bet" in text_of(again.content.decode())
    game.refresh_from_db()
    assert (game.state, Event.objects.filter(game=game).count()) == before


def test_an_empty_bet_keeps_the_seal_and_is_kept_as_a_card(organiser_client: Client) -> None:
    """The bet form left empty hands in SLEEP: the seat keeps its seal. It is no act (nothing
    is drawn, nobody is told), the step stays open for the others, and the seat may still bet
    until it closes."""
    game = _lupusburg_game(organiser_client)
    phase = _to_bets(game)
    paths = seat_paths(game)
    seat, target = sorted(engine.phase(game.engine_state).slots)[:2]
    before = (game.state, Event.objects.filter(game=game).count())
    anonymous = Client()
    response = anonymous.post(paths[seat], {"phase": phase.pk, "target": ""})
    assert response.status_code == 302
    game.refresh_from_db()
    assert (game.state, Event.objects.filter(game=game).count()) == before
    row = Order.objects.get(phase=phase, seat=seat)
    assert row.act is None and row.payload["kind"] == "sleep"
    assert phase.current_orders() == {seat: engine.Order("sleep")}
    page = anonymous.get(paths[seat])
    assert page.status_code == 200
    # A bet afterwards still counts at once.
    assert anonymous.post(paths[seat], {"phase": phase.pk, "target": target}).status_code == 302
    game.refresh_from_db()
    assert game.engine_state.rules.has_bet(seat)


def test_the_last_seal_kept_closes_the_step_when_every_card_is_in(organiser_client: Client) -> None:
    """With early resolution, the bets step closes once every seat still asked has either bet
    or kept its seal."""
    game = _lupusburg_game(organiser_client, players=4, seed=41)
    Game.objects.filter(pk=game.pk).update(early_resolution=True)
    phase = _to_bets(game)
    seats = sorted(engine.phase(game.engine_state).slots)
    for seat in seats[:-1]:
        game.refresh_from_db()
        services.submit_order(game, seat, engine.Order("bet", ((seat + 1) % 4,)), phase_id=phase.pk)
    game.refresh_from_db()
    services.submit_order(game, seats[-1], engine.Order("sleep"), phase_id=phase.pk)
    phase.refresh_from_db()
    game.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED
    assert game.current_phase().stage == "accusation"
    assert not game.engine_state.rules.has_bet(seats[-1])


def test_the_last_bet_closes_the_step_and_opens_the_accusation(organiser_client: Client) -> None:
    game = _lupusburg_game(organiser_client, players=4, seed=41)
    phase = _to_bets(game)
    for seat in sorted(engine.phase(game.engine_state).slots):
        game.refresh_from_db()
        target = (seat + 1) % 4
        services.submit_order(game, seat, engine.Order("bet", (target,)), phase_id=phase.pk)
    phase.refresh_from_db()
    game.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED and phase.resolution == Phase.Resolution.ALL_IN
    assert game.current_phase().stage == "accusation"
    assert [number for number in phase.orders.order_by("act").values_list("act", flat=True)] == [0, 1, 2, 3]


@pytest.mark.skipif(connection.vendor == "sqlite", reason="SQLite serialises writers: no two at once to race")
def test_two_bets_in_the_same_moment_are_both_taken_once_in_a_defined_order(organiser_client: Client) -> None:
    game = _lupusburg_game(organiser_client, players=6, seed=42)
    phase = _to_bets(game)
    first, second = sorted(engine.phase(game.engine_state).slots)[:2]
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def bet(seat: int) -> None:
        try:
            barrier.wait()
            services.submit_order(Game.objects.get(pk=game.pk), seat, engine.Order("bet", ((seat + 3) % 6,)))
        except BaseException as problem:  # noqa: BLE001 - reported below
            errors.append(problem)
        finally:
            connection.close()

    threads = [threading.Thread(target=bet, args=(seat,)) for seat in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    game.refresh_from_db()
    bets = game.engine_state.rules.bets
    assert sorted(bettor for bettor, _, _ in bets) == [first, second]
    acts = list(phase.orders.order_by("act").values_list("seat", "act"))
    assert [act for _, act in acts] == [0, 1]
    assert [seat for seat, _ in acts] == [bettor for bettor, _, _ in bets]  # the engine's order is the lock's
    assert Event.objects.filter(game=game, kind="bet_placed").count() == 2


def test_mailed_cards_name_houses(organiser_client: Client) -> None:
    """A house is written as its player's name and 1 or 2; a name alone, where a house is
    asked, is refused as ambiguous with both houses named."""
    from werewolf.engine import grammar

    names = ["Alba", "Brio", "Cato", "Dara"]
    slot = engine.Slot(engine.Card("claw", "CLAW", (engine.Field(refers="house"),)), ((0, 1, 2, 3, 4, 5, 6, 7),))
    assert grammar.read_card("CLAW Cato 2", names, slot, "lupusburg").targets == (5,)
    assert grammar.read_card("claw dara 1", names, slot, "lupusburg").targets == (6,)
    with pytest.raises(grammar.CardError) as refused:
        grammar.read_card("CLAW Cato", names, slot, "lupusburg")
    assert refused.value.code == "ambiguous_name" and refused.value.candidates == ("Cato 1", "Cato 2")
    rng = Random(1)
    assert rng  # the whole games above hand a quarter of their cards in by mail


def _play_out(game: Game, seed: int) -> None:
    """Bots' cards for every seat asked, step after step, until the game ends."""
    from werewolf.engine.bots import bot_card

    rng = Random(seed)
    for _ in range(400):
        game.refresh_from_db()
        phase = game.current_phase()
        if phase is None:
            return
        for seat, slot in sorted(engine.phase(game.engine_state).slots.items()):
            game.refresh_from_db()
            if game.current_phase() is None or game.current_phase().pk != phase.pk:
                break
            services.submit_order(game, seat, bot_card(slot, seat, rng), phase_id=phase.pk)
        if Game.objects.get(pk=game.pk).current_phase() == phase:
            services.resolve_now(Game.objects.get(pk=game.pk))
    raise AssertionError("the game does not end")


def test_a_series_of_games_adds_up_the_points(organiser_client: Client) -> None:
    first = _lupusburg_game(organiser_client, players=5, seed=50)
    response = organiser_client.post(f"/games/{first.pk}/", {"action": "next_in_series"})
    assert response.status_code == 400  # not over yet: refused, nothing set up
    assert Game.objects.count() == 1
    _play_out(first, 50)
    response = organiser_client.post(f"/games/{first.pk}/", {"action": "next_in_series"})
    assert response.status_code == 302
    second = Game.objects.exclude(pk=first.pk).get()
    assert response["Location"].rstrip("/").endswith(str(second.pk))
    assert second.status == Game.Status.DRAFT and second.series == first and second.series_number == 2
    assert second.ruleset == first.ruleset and second.options == first.options
    emails = sorted(first.players.values_list("email", flat=True))
    assert sorted(second.players.values_list("email", flat=True)) == emails
    organiser_client.post(f"/games/{second.pk}/", {"action": "start"})
    second.refresh_from_db()
    _play_out(second, 51)
    totals: dict[str, int] = {}
    for game in (first, second):
        game.refresh_from_db()
        scores = game.events.get(kind="game_over").data["scores"]
        for player in game.players.all():
            totals[player.email] = totals.get(player.email, 0) + scores[player.seat]
    page = text_of(organiser_client.get(f"/games/{second.pk}/").content.decode())
    assert "Series, after game 2" in page
    for row in lupusburg_rows(second):
        assert row["series"] == totals[second.players.get(seat=row["seat"]).email]


def lupusburg_rows(game: Game) -> list[dict]:
    from werewolf.games import scores

    return scores.score_rows(selectors.outcome_event(game), selectors.names(game), game)


def test_the_werewolfs_empty_claw_is_refused_on_his_page(organiser_client: Client) -> None:
    """The Werewolf kills every night: his card left empty is refused with the reason,
    and nothing is taken."""
    game = _lupusburg_game(organiser_client)
    phase = game.current_phase()
    assert phase is not None and phase.stage == "night"
    wolf = next(seat for seat, slot in engine.phase(game.engine_state).slots.items() if slot.kind == "claw")
    response = Client().post(seat_paths(game)[wolf], {"phase": phase.pk, "target": ""})
    assert response.status_code == 400
    assert "The Werewolf kills every night: name a house to claw" in text_of(response.content.decode())
    assert not Order.objects.filter(phase=phase, seat=wolf).exists()


def test_the_werewolfs_claw_offers_no_empty_choice(organiser_client: Client) -> None:
    """The claw's select offered an empty choice the server then refused: it is required
    and opens on a disabled "Choose a house…", and every house it offers is one to name."""
    game = _lupusburg_game(organiser_client)
    wolf = next(seat for seat, slot in engine.phase(game.engine_state).slots.items() if slot.kind == "claw")
    page = Client().get(seat_paths(game)[wolf]).content.decode()
    select = re.search(r'<select name="target"([^>]*)>(.*?)</select>', page, re.S)
    assert select is not None and " required" in select[1]
    options = re.findall(r'<option value="([^"]*)"([^>]*)>([^<]*)</option>', select[2])
    assert options[0] == ("", " selected disabled", "Choose a house…")
    assert len(options) > 1 and all(value and "disabled" not in attrs for value, attrs, _ in options[1:])


def test_after_a_bet_the_page_says_it_counted_at_once_and_the_coins_carry_no_numbers(
    organiser_client: Client,
) -> None:
    """A bet acts when it goes in: the page says so, and never that it may be changed.
    The coin to keep is named in words only (a number there read like a coin's value)."""
    game = _lupusburg_game(organiser_client)
    phase = _to_bets(game)
    paths = seat_paths(game)
    bettor, target = sorted(engine.phase(game.engine_state).slots)[:2]
    client = Client()
    form = text_of(client.get(paths[bettor]).content.decode())
    assert "the highest of the coins drawn" in form
    assert "(1)" not in form and "(2)" not in form and "(3)" not in form
    response = client.post(paths[bettor], {"phase": phase.pk, "target": target}, follow=True)
    page = text_of(response.content.decode())
    assert "Your card is in, and it counted at once: it cannot be changed." in page
    assert "You can change it" not in page
    assert "You have placed your bet" in page


def test_the_second_vote_is_offered_only_to_a_seat_with_two(organiser_client: Client) -> None:
    """Everyone has two votes in the accusation; in the ballot, a seat has one vote per
    living character not suspected: the second select only where the slot gives one."""
    from werewolf.games.forms import NotecardForm

    def form_for(slot: engine.Slot) -> NotecardForm:
        return NotecardForm(slot=slot, names=[f"P{n}" for n in range(5)], seat=0, submit="hand_in", ruleset="lupusburg")

    one = engine.Slot(engine.rulesets.get("lupusburg").cards[-1], ((2, 3), ()))
    two = engine.Slot(one.card, ((2, 3), (2, 3)))
    assert one.card.kind == "ballot"
    assert "also" not in form_for(one).fields and "also" in form_for(two).fields
    assert form_for(two).fields["also"].label == "Second vote"


def test_the_dashboard_folds_every_secret_away_by_default(organiser_client: Client) -> None:
    """An organiser may project the dashboard: what it shows unfolded names no character,
    chest or coin; those are in <details> (closed), the board and the log alike."""
    import re

    from werewolf.games.forms import role_name

    game = _lupusburg_game(organiser_client)
    _to_bets(game)
    html = organiser_client.get(f"/games/{game.pk}/").content.decode()
    assert "<details open" not in html
    main = html[html.index("<main") : html.index("</main>")]  # (the site's name is "Werewolf")
    shown = text_of(re.sub(r"<details.*?</details>", "", main, flags=re.S))
    for character in set(game.deal["characters"]):
        assert role_name(character, game.ruleset) not in shown, character
    assert "chest" not in shown.lower() and "coin" not in shown.lower()
    assert all(role_name(character, game.ruleset) in text_of(html) for character in set(game.deal["characters"]))


def test_a_paper_card_names_a_house_by_the_beginning_of_a_name_and_its_number(
    organiser, organiser_client: Client
) -> None:
    """The paper-card page says the beginning of a name will do: for a house too, with its
    number (`PEEK Esm 1`); a beginning that two players share is refused, naming both."""
    seats = [
        services.Seating(name, f"{name.lower()}@example.org")
        for name in ("Esmeralda", "Benedikt", "Bernadette", "Cato", "Dara")
    ]
    game = services.start_game(
        services.create_game(organiser, name="Burg", seats=seats, options={}, ruleset="lupusburg", seed=3)
    )
    phase = game.current_phase()
    names = selectors.names(game)
    thief, slot = next(
        (seat, slot) for seat, slot in engine.phase(game.engine_state).slots.items() if slot.kind == "peek"
    )
    house = slot.options[0][-1]
    owner, number = divmod(house, 2)
    url = f"/games/{game.pk}/cards/"
    refused = organiser_client.post(url, {"phase": phase.pk, f"seat_{thief}": "PEEK Be 1"})
    assert refused.status_code == 400
    assert "“Be 1” could be Benedikt 1, Bernadette 1: write more of the name." in text_of(refused.content.decode())
    written = f"PEEK {names[owner][:3].lower()} {number + 1}"
    response = organiser_client.post(url, {"phase": phase.pk, f"seat_{thief}": written})
    assert response.status_code == 302, text_of(response.content.decode())[:2000]
    assert selectors.card_of(phase, thief) == engine.Order("peek", (house,))
