"""A card handed in by a seat's link on PostgreSQL costs two statements, and the link's
next one statement (werewolf/games/cards.py): the row and the answer are those of the
usual way, a card that ends the phase still ends it, and a card whose phase moved on
between the read and the write, or since the link's last card, is never written, but
refused as the usual way refuses it."""

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
    assert phase.current_orders()[wolf] == engine.Order("kill", (victim,))


def statements(run) -> tuple[object, list[str]]:
    with CaptureQueriesContext(connection) as captured:
        answer = run()
    return answer, [query["sql"] for query in captured.captured_queries]


def test_a_links_next_card_is_one_statement_and_the_same_row(organiser) -> None:
    game = night_without_early_resolution(organiser, "Again")
    wolf, victim = pack_of(game)[0], seat_roles(game).index("seer")
    url, data = kill_form(game, wolf, victim)
    client = Client()
    assert client.post(url, data).status_code == 302
    other = next(seat for seat in range(7) if seat not in pack_of(game) and seat != victim)
    _, again = kill_form(game, wolf, other)
    response, sent = statements(lambda: client.post(url, again))
    assert response.status_code == 302 and response["Location"] == f"{url}?handed=0"
    assert len(sent) == 1 and "INSERT" in sent[0], sent
    first, second = Order.objects.filter(seat=wolf).order_by("pk")
    same = [field.attname for field in Order._meta.concrete_fields if field.attname not in ("id", "submitted_at")]
    assert {name: getattr(first, name) for name in same if name != "payload"} == {
        name: getattr(second, name) for name in same if name != "payload"
    }
    assert game.current_phase().current_orders()[wolf] == engine.Order("kill", (other,))
    # Another client, the same link: the same one statement (the link's read is the process's).
    response, sent = statements(lambda: Client().post(url, data))
    assert response.status_code == 302 and len(sent) == 1
    assert game.current_phase().current_orders()[wolf] == engine.Order("kill", (victim,))


def test_a_links_next_card_after_the_phase_moved_on_is_refused_or_taken_as_the_database_says(organiser) -> None:
    game = night_without_early_resolution(organiser, "Moved")
    wolf, victim = pack_of(game)[0], seat_roles(game).index("seer")
    url, night_card = kill_form(game, wolf, victim)
    client = Client()
    assert client.post(url, night_card).status_code == 302
    services.resolve_now(Game.objects.get(pk=game.pk))  # the night ends: the day opens
    game = Game.objects.get(pk=game.pk)
    day = game.current_phase()
    refused, sent = statements(lambda: client.post(url, night_card))  # the night's form, again
    assert refused.status_code == 400
    assert not Order.objects.filter(phase=day).exists()
    # Its write found the game changed and wrote nothing; the link was read afresh (the
    # day), the card checked against that and refused; the usual way said why.
    assert [query.lstrip().split()[0] for query in sent[:2]] == ["INSERT", "SELECT"], sent
    # The day's card goes in: the link's read is now the day's, one statement.
    if wolf in engine.phase(game.engine_state).slots:
        slot = engine.phase(game.engine_state).asks(wolf)
        target = next(choice for choice in slot.choices if choice != wolf)
        data = {k: str(v) for k, v in NotecardForm.initial_for(day.pk, engine.Order("vote", (target,)), slot).items()}
        response, sent = statements(lambda: client.post(url, data))
        assert response.status_code == 302, response.content.decode()[:2000]
        # (and, the day's vote being decisive, the phase's cards read for what ends it)
        assert sent[0].lstrip().startswith("INSERT") and "RETURNING" in sent[0], sent
        assert len(sent) == 1 or (len(sent) == 2 and sent[1].lstrip().startswith("SELECT")), sent
        assert day.current_orders()[wolf] == engine.Order("vote", (target,))


def test_a_links_next_card_that_ends_the_phase_ends_it_as_the_game_is_set_now(organiser) -> None:
    """The link's read remembered early resolution off; the organiser turned it on since,
    and every other card is in: the link's next card, one statement, ends the night."""
    game = night_without_early_resolution(organiser, "Ends")
    night = game.current_phase()
    state = game.engine_state
    wolf, victim = pack_of(game)[0], seat_roles(game).index("seer")
    url, data = kill_form(game, wolf, victim)
    client = Client()
    assert client.post(url, data).status_code == 302
    for seat in sorted(engine.phase(state).slots):
        if seat != wolf:
            slot = engine.phase(state).asks(seat)
            card = engine.Order("kill", (victim,)) if seat in pack_of(game) else engine.Order(slot.kind)
            if slot.card.fields and seat not in pack_of(game):
                card = engine.Order(engine.SLEEP.kind) if slot.card.blank else card
            services.submit_order(game, seat, card, phase_id=night.pk)
    night.refresh_from_db()
    assert night.status == Phase.Status.OPEN
    Game.objects.filter(pk=game.pk).update(early_resolution=True)
    response, sent = statements(lambda: client.post(url, data))
    assert response.status_code == 302 and "RETURNING" in sent[0], sent
    night.refresh_from_db()
    assert night.status == Phase.Status.RESOLVED and night.resolution == Phase.Resolution.ALL_IN


def test_a_replaced_links_next_card_is_never_written(organiser) -> None:
    game = night_without_early_resolution(organiser, "Replaced")
    wolf, victim = pack_of(game)[0], seat_roles(game).index("seer")
    url, data = kill_form(game, wolf, victim)
    client = Client()
    assert client.post(url, data).status_code == 302
    links.issue(game.players.get(seat=wolf))  # a substitute's new link: the old one is replaced
    assert client.post(url, data).status_code == 410
    assert Order.objects.filter(seat=wolf).count() == 1


def test_a_links_next_card_after_the_deadline_is_refused(organiser) -> None:
    from datetime import timedelta

    from django.utils import timezone

    game = night_without_early_resolution(organiser, "Late")
    wolf, victim = pack_of(game)[0], seat_roles(game).index("seer")
    url, data = kill_form(game, wolf, victim)
    client = Client()
    assert client.post(url, data).status_code == 302
    Phase.objects.filter(pk=game.current_phase().pk).update(deadline=timezone.now() - timedelta(seconds=1))
    response = client.post(url, data)
    assert response.status_code == 400
    assert Order.objects.filter(seat=wolf).count() == 1


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
    cards = Phase.cards

    def reading(phase):  # what the resolution reads of the night, under its lock (once)
        if phase.pk == night.pk:  # (the pages refusing late cards read the day that follows)
            seen.append(set(phase.orders.filter(act=None).values_list("pk", flat=True)))
        return cards(phase)

    monkeypatch.setattr(Phase, "cards", reading)
    answers: list[int] = []
    start = threading.Barrier(len(forms) + 1)
    first_in, resolved = threading.Event(), threading.Event()

    def hand_in_again_and_again(url: str, data: dict[str, str]) -> None:
        """Until a few cards after the resolution (and not for ever)."""
        client = Client()
        try:
            start.wait()
            after = 0
            for _ in range(2_000):
                late = resolved.is_set()
                answers.append(client.post(url, data).status_code)
                if answers[-1] == 302:
                    first_in.set()
                after += late
                if after == 3:
                    break
        finally:
            connections.close_all()

    def resolve() -> None:
        try:
            start.wait()
            # Once a card is in (a slow machine takes a while to open the threads'
            # connections), while the others keep coming.
            first_in.wait(timeout=30)
            time.sleep(0.02)
            services.resolve_now(Game.objects.get(pk=game.pk))
        finally:
            resolved.set()
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
