"""Every way a card comes in takes it by the same rules (werewolf/games/acceptance.py): the
seat page's form through `services.submit_order`, the seat link's shortcut on PostgreSQL
(`cards.hand_in`, which the seat page offers a card first, its INSERT's `WHERE` built
from the rules), and a mailed reply (werewolf/mail/inbound.py). For every refusal, the same card is handed
in by each: none writes anything, the page says the service's reason, and the shortcut's
INSERT itself, run with what the link's last read found before the game changed, writes
nothing either; and a card that goes in is the same row by every way."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from werewolf import engine
from werewolf.games import acceptance, cards, links, services
from werewolf.games.models import Game, InboundMessage, Order, Phase
from werewolf.mail import inbound

from ..mail.test_inbound import letter
from .play import pack_of, seat_roles, snapshot
from .test_card_by_link import kill_form, night_without_early_resolution

pytestmark = pytest.mark.django_db(transaction=True)

SAME_ORIGIN = {"Sec-Fetch-Site": "same-origin"}


@dataclass(frozen=True)
class Change:
    """What happens to the game after the seat's card went in, and how each way then
    refuses the same card again: `code` the service's (and the page's) reason, None
    where the refusal is the way's own (a link replaced: who hands the card in);
    `status` the page's answer; `mail` the mailed reply's status and code."""

    happen: Callable[[Game, int], object]
    code: str | None
    mail: tuple[str, str]
    status: int = 400


def _phase_resolved_alone(game: Game, seat: int) -> object:
    """The phase's row alone closes, the game's state as it was: what the SQL of the
    `phase_closed` rule looks at, by itself."""
    return Phase.objects.filter(game=game, status=Phase.Status.OPEN).update(status=Phase.Status.RESOLVED)


def _deadline_passed(game: Game, seat: int) -> object:
    deadline = timezone.now() - timedelta(seconds=1)
    return Phase.objects.filter(game=game, status=Phase.Status.OPEN).update(deadline=deadline)


Refused = InboundMessage.Status.REFUSED

CHANGES = {
    # Each of `acceptance.RULES` broken by itself, nothing else changed ...
    "game_not_running": Change(
        lambda game, seat: Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED),
        "game_not_running",
        (Refused, "game_over"),  # the mail says it its own way: no phase is open to it
    ),
    "phase_closed": Change(_phase_resolved_alone, "phase_closed", (Refused, "game_over")),
    "deadline_passed": Change(_deadline_passed, "deadline_passed", (Refused, "deadline_passed")),
    "game_paused": Change(
        lambda game, seat: Game.objects.filter(pk=game.pk).update(paused_at=timezone.now()),
        "game_paused",
        (Refused, "game_paused"),
    ),
    # ... and as they come to be broken in a game.
    "the organiser ends the game": Change(
        lambda game, seat: services.end_game(Game.objects.get(pk=game.pk)), "game_not_running", (Refused, "game_over")
    ),
    "the phase resolves": Change(
        lambda game, seat: services.resolve_now(Game.objects.get(pk=game.pk)), "phase_closed", (Refused, "phase_closed")
    ),
    # Who hands the card in: each way's own question (a link, a mail's signed reference).
    "the seat's link is replaced": Change(
        lambda game, seat: links.issue(game.players.get(seat=seat)),
        None,
        (Refused, "revoked_reference"),  # kept with its seat, and answered
        status=410,
    ),
}


def test_every_rule_is_broken_by_itself_here() -> None:
    """A rule added to `acceptance.RULES` needs its case above."""
    assert {rule.code for rule in acceptance.RULES} <= set(CHANGES)
    assert all(CHANGES[rule.code].code == rule.code for rule in acceptance.RULES)


def token_of(url: str) -> str:
    return next(part for part in url.split("/") if links.looks_like_token(part))


def said(response) -> str | None:
    """The reason the seat page gave for refusing the card."""
    error = response.context.get("error") if response.context else None
    return error.code if error is not None else None


def by_the_form(url: str, data: dict[str, str], monkeypatch) -> object:
    """The seat page's form the whole way, the shortcut left out."""
    with monkeypatch.context() as patched:
        patched.setattr(cards, "hand_in", lambda *args: None)
        return Client().post(url, data)


@pytest.mark.parametrize("name", list(CHANGES))
def test_a_card_refused_is_refused_alike_by_every_way(organiser, monkeypatch, name: str) -> None:
    change = CHANGES[name]
    game = night_without_early_resolution(organiser, name[:40])
    night = game.current_phase()
    wolf, victim = pack_of(game)[0], seat_roles(game).index("seer")
    url, data = kill_form(game, wolf, victim)
    token = token_of(url)
    mailed = letter(game, wolf, f"KILL {game.players.get(seat=victim).name}")
    order = engine.Order("kill", (victim,))
    # The card goes in, by the shortcut where there is one: the link's read is remembered.
    if connection.vendor == "postgresql":
        assert cards.hand_in(token, data) is not None
    else:
        services.submit_order(game, wolf, order, phase_id=night.pk)
    known = cards._RECENT.get(links.digest(token))
    change.happen(game, wolf)
    game = Game.objects.get(pk=game.pk)
    before = snapshot(game)

    if known is not None:
        # The shortcut's INSERT, with what the link's last read found (every rule held
        # then, in Python): the statement itself refuses the card.
        with CaptureQueriesContext(connection) as captured:
            assert cards._write(links.digest(token), known, data, timezone.now()) is None
        assert [query["sql"].split()[0] for query in captured.captured_queries] == ["INSERT"]
        assert snapshot(game) == before
        # The shortcut as a request comes: it takes nothing, and leaves the card to the page.
        assert cards.hand_in(token, data) is None
        assert snapshot(game) == before

    if change.code is not None:
        with pytest.raises(services.ServiceError) as refused:
            services.submit_order(game, wolf, order, phase_id=night.pk)
        assert refused.value.code == change.code
        assert snapshot(game) == before

    shortcut = Client().post(url, data, headers=SAME_ORIGIN)
    form = by_the_form(url, data, monkeypatch)
    for response in (shortcut, form):
        assert response.status_code == change.status, response.content.decode()[:2000]
        assert said(response) == change.code
    assert snapshot(game) == before

    kept = inbound.receive(mailed)
    assert (kept.status, kept.code) == change.mail
    assert snapshot(game) == before


def wrong_cards(organiser) -> Iterator[tuple[Game, int, engine.Order, engine.Slot]]:
    """Cards the game as it stands refuses by the engine's rule: a wolf naming a fellow
    wolf at night; by day, the night's victim (asked nothing) voting, with a living
    seat's form. Each with its game, seat and the slot its form is built from, in turn."""
    game = night_without_early_resolution(organiser, "Wrong")
    wolf, other = pack_of(game)[:2]
    night = engine.phase(game.engine_state)
    yield game, wolf, engine.Order("kill", (other,)), night.asks(wolf)
    victim = seat_roles(game).index("seer")
    for seat in pack_of(game):
        services.submit_order(game, seat, engine.Order("kill", (victim,)), phase_id=game.current_phase().pk)
    services.resolve_now(Game.objects.get(pk=game.pk))
    game = Game.objects.get(pk=game.pk)
    day = engine.phase(game.engine_state)
    assert day.asks(victim) is None and not game.engine_state.alive[victim]
    yield game, victim, engine.Order("vote", (wolf,)), day.asks(wolf)


def test_a_wrong_card_is_refused_alike_by_every_way(organiser, monkeypatch) -> None:
    from werewolf.games.forms import NotecardForm

    tried = 0
    for game, seat, order, slot in wrong_cards(organiser):
        tried += 1
        phase = game.current_phase()
        url = links.url_for(game.players.get(seat=seat), absolute=False)
        data = {k: str(v) for k, v in NotecardForm.initial_for(phase.pk, order, slot).items()}
        before = snapshot(game)
        refusal = acceptance.checked(game.engine_state, seat, order)
        assert isinstance(refusal, engine.OrderError)
        with pytest.raises(services.ServiceError) as refused:
            services.submit_order(game, seat, order, phase_id=phase.pk)
        assert refused.value.code == refusal.code
        with CaptureQueriesContext(connection) as captured:
            assert cards.hand_in(token_of(url), data) is None
        assert not [query for query in captured.captured_queries if "INSERT" in query["sql"]]
        shortcut = Client().post(url, data, headers=SAME_ORIGIN)
        form = by_the_form(url, data, monkeypatch)
        for response in (shortcut, form):
            assert response.status_code == 400, response.content.decode()[:2000]
            # (a seat asked nothing has no form: the page says why, as the service does)
            assert said(response) == refusal.code
        assert snapshot(game) == before
    assert tried == 2


def test_a_card_taken_is_the_same_row_by_every_way(organiser, monkeypatch) -> None:
    game = night_without_early_resolution(organiser, "Taken")
    night = game.current_phase()
    wolf, victim = pack_of(game)[0], seat_roles(game).index("seer")
    url, data = kill_form(game, wolf, victim)
    order = engine.Order("kill", (victim,))
    taken = [
        lambda: Client().post(url, data, headers=SAME_ORIGIN).status_code == 302,
        lambda: by_the_form(url, data, monkeypatch).status_code == 302,
        lambda: services.submit_order(game, wolf, order, phase_id=night.pk) is not None,
        lambda: inbound.receive(letter(game, wolf, f"KILL {game.players.get(seat=victim).name}")).status == "applied",
    ]
    for hand_in in taken:
        assert hand_in()
    rows = list(Order.objects.filter(phase=night).order_by("pk"))
    assert len(rows) == len(taken)
    same = [f.attname for f in Order._meta.concrete_fields if f.attname not in ("id", "submitted_at", "source")]
    written = [{name: getattr(row, name) for name in same} for row in rows]
    assert written == [written[0]] * len(rows)
    assert [row.source for row in rows] == [Order.Source.WEB] * 3 + [Order.Source.MAIL]
    assert night.current_orders()[wolf] == order
