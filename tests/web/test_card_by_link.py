"""A card handed in by a seat's link on PostgreSQL costs two statements
(werewolf/games/cards.py): the row and the answer are those of the usual way, a card that
ends the phase still ends it, and a card whose phase moved on between the read and the
write is never written, but refused as the usual way refuses it."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from werewolf import engine
from werewolf.games import cards, links, services
from werewolf.games.forms import NotecardForm
from werewolf.games.models import Game, Order, Phase

from .play import pack_of, seat_roles, started_game

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def postgresql_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the two-statement way is PostgreSQL's; SQLite goes the usual way")


@pytest.fixture
def taken(monkeypatch) -> list[object]:
    """What each card POST's two-statement way answered (None: it left the card to the
    usual way)."""
    answers: list[object] = []
    hand_in = cards.hand_in
    monkeypatch.setattr(cards, "hand_in", lambda *args: answers.append(hand_in(*args)) or answers[-1])
    return answers


def night_without_early_resolution(organiser, name: str) -> Game:
    game = started_game(organiser, name)
    Game.objects.filter(pk=game.pk).update(early_resolution=False)
    return Game.objects.get(pk=game.pk)


def kill_form(game: Game, wolf: int, victim: int) -> tuple[str, dict[str, str]]:
    phase = game.current_phase()
    slot = engine.phase(game.engine_state).asks(wolf)
    data = NotecardForm.initial_for(phase.pk, engine.Order("kill", (victim,)), slot)
    return links.url_for(game.players.get(seat=wolf), absolute=False), {k: str(v) for k, v in data.items()}


def test_a_card_by_link_is_two_statements_and_the_row_the_service_writes(organiser) -> None:
    game = night_without_early_resolution(organiser, "Two")
    wolf, victim = pack_of(game)[0], seat_roles(game).index("seer")
    url, data = kill_form(game, wolf, victim)
    with CaptureQueriesContext(connection) as captured:
        response = Client().post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert response["Location"] == f"{url}?handed=0"
    assert len(captured.captured_queries) == 2, [query["sql"] for query in captured.captured_queries]
    phase = game.current_phase()
    services.submit_order(game, wolf, engine.Order("kill", (victim,)), phase_id=phase.pk)
    web, service = Order.objects.filter(phase=phase).order_by("pk")
    same = [field.attname for field in Order._meta.concrete_fields if field.attname not in ("id", "submitted_at")]
    assert {name: getattr(web, name) for name in same} == {name: getattr(service, name) for name in same}
    assert services.current_orders(phase)[wolf] == engine.Order("kill", (victim,))


def test_the_card_that_ends_the_phase_ends_it(organiser, taken) -> None:
    game = started_game(organiser, "Last")  # early resolution on: every card in ends the night
    night = game.current_phase()
    state = game.engine_state
    asked = sorted(engine.phase(state).slots)
    victim = seat_roles(game).index("seer")
    client = Client()
    for seat in asked:
        slot = engine.phase(state).asks(seat)
        card = engine.Order("kill", (victim,)) if seat in pack_of(game) else engine.Order(slot.kind)
        if slot.card.fields and seat not in pack_of(game):
            card = engine.Order(engine.SLEEP.kind) if slot.card.blank else card
        data = {k: str(v) for k, v in NotecardForm.initial_for(night.pk, card, slot).items()}
        response = client.post(links.url_for(game.players.get(seat=seat), absolute=False), data)
        assert response.status_code == 302, response.content.decode()[:2000]
    assert len(taken) == len(asked) and None not in taken  # every card the two-statement way
    night.refresh_from_db()
    assert night.status == Phase.Status.RESOLVED and night.resolution == Phase.Resolution.ALL_IN
    assert Game.objects.get(pk=game.pk).current_phase().index == 1


def test_a_card_whose_phase_moved_on_meanwhile_is_never_written(organiser, monkeypatch, taken) -> None:
    """The phase resolves between the card's read and its write: the write finds the
    game's state changed and takes nothing; the usual way then refuses the card."""
    game = night_without_early_resolution(organiser, "Race")
    wolf, victim = pack_of(game)[0], seat_roles(game).index("seer")
    url, data = kill_form(game, wolf, victim)
    night = game.current_phase()
    validate = engine.validate
    resolved = []

    def resolving_meanwhile(state, seat, order):
        if not resolved:
            resolved.append(services.resolve_now(Game.objects.get(pk=game.pk)))
        return validate(state, seat, order)

    monkeypatch.setattr(engine, "validate", resolving_meanwhile)
    response = Client().post(url, data)
    assert resolved == [True] and taken == [None]
    assert response.status_code == 400
    assert not Order.objects.filter(seat=wolf).exists()
    night.refresh_from_db()
    assert night.status == Phase.Status.RESOLVED


def test_cards_racing_the_resolution_are_each_taken_once_and_counted_or_refused(organiser, monkeypatch) -> None:
    """Wolves hand their card in again and again from several threads while the phase
    resolves: every card answered as taken is one row, and the resolution read every
    row the night has (none went in after it read the cards); the rest were refused."""
    import threading
    import time

    from django.db import connections

    game = night_without_early_resolution(organiser, "Rush")
    night = game.current_phase()
    wolves = pack_of(game)
    victims = [seat for seat in range(7) if seat not in wolves]
    forms = [kill_form(game, wolf, victim) for wolf in wolves for victim in victims[:2]]
    seen: list[set[int]] = []
    current_orders = services.current_orders

    def reading(phase):  # what the resolution reads, under its lock
        seen.append(set(phase.orders.filter(act=None).values_list("pk", flat=True)))
        return current_orders(phase)

    monkeypatch.setattr(services, "current_orders", reading)
    answers: list[int] = []
    start = threading.Barrier(len(forms) + 1)

    def hand_in_again_and_again(url: str, data: dict[str, str]) -> None:
        client = Client()
        try:
            start.wait()
            for _ in range(15):
                answers.append(client.post(url, data).status_code)
        finally:
            connections.close_all()

    def resolve() -> None:
        try:
            start.wait()
            time.sleep(0.05)
            services.resolve_now(Game.objects.get(pk=game.pk))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=hand_in_again_and_again, args=form) for form in forms]
    threads.append(threading.Thread(target=resolve))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    rows = set(Order.objects.filter(phase=night).values_list("pk", flat=True))
    assert len(seen) == 1 and rows == seen[0], (len(rows), seen)
    assert answers.count(302) == len(rows) and set(answers) <= {302, 400}
    assert 0 < len(rows) < len(answers)  # some went in before, some were refused after
