"""Issue 31 done when: one whole game by mail shows a declared absence moving a deadline,
a silent seat prodded and then taken over by a standby, and a pause and a resume, under
the secrecy sweep after every phase (every seat's page, its absences page and its mails,
the public page, the standby's page and mails, the organiser's mails). A second, shorter
game by mail plays the "a standby plays the seat meanwhile" policy: the seat handed over
when a phase opens inside the absence, and handed back after it.

Every card is a reply to the seat's newest mail (`play.mail_card`), as in
test_calendar_game.py and test_standbys.py, whose games stay as they are."""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import timedelta
from random import Random
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from werewolf import addresses, engine
from werewolf.games import absences, services, standbys
from werewolf.games.models import Absence, Event, Game, InboundMessage, Order, Phase, SeatLink, SeatPolicy, Standby
from werewolf.mail import inbound

from ..mail.test_inbound import letter
from .play import (
    NAMES,
    card_form,
    mail_card,
    mails_for,
    open_phase,
    seat_paths,
    seat_roles,
    secrets_hidden_from,
    text_of,
)
from .test_game_flow import sweep
from .test_standbys import BOSS, mails_for_address, standby_by_link, text, to

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def boss(organiser):
    addresses.confirm_for(organiser, BOSS)  # the operator's word: organiser mails reach it
    return organiser


def slow_game(organiser, organiser_client: Client, name: str, policy: str, **seat_policy: object) -> Game:
    """A running classic game of seven that waits for its deadlines (no early resolution),
    its calendar set by the organiser's page, its standby list open."""
    seats = [services.Seating(player, f"{player.lower()}@example.org") for player in NAMES[:7]]
    game = services.create_game(
        organiser, name=name, seats=seats, options={"wolves": 2, "seers": 1}, seed=11, early_resolution=False
    )
    if seat_policy:
        SeatPolicy.objects.update_or_create(game=game, defaults=seat_policy)
    done = organiser_client.post(
        f"/games/{game.pk}/calendar/",
        {"action": "calendar", "absence_policy": policy, "absence_days": "3", "off_dates": ""},
    )
    assert done.status_code == 302
    game = services.start_game(Game.objects.get(pk=game.pk))
    assert organiser_client.post(f"/games/{game.pk}/standbys/", {"action": "open_standbys"}).status_code == 302
    return game


def play_phase_by_mail(game: Game, rng: Random, silent: Collection[int] = ()) -> Phase:
    """Every seat the open phase asks, but `silent`, replies with its card; the phase then
    resolves at its deadline if no majority ended it. The phase played."""
    phase = open_phase(game)
    assert phase is not None
    for seat in sorted(engine.phase(game.engine_state).slots):
        current = open_phase(game)
        if current is None or current.pk != phase.pk:
            break
        if seat in silent:
            continue
        game = Game.objects.get(pk=game.pk)  # (the names change when a seat changes hands)
        kept = mail_card(game, seat, card_form(game, seat, rng), rng)
        assert kept.status == "applied", (kept.code, kept.card)
    if Phase.objects.get(pk=phase.pk).status == Phase.Status.OPEN:
        Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        assert services.sweep_due_phases() == 1
    return phase


def organisers_mails_keep_the_secrets(game: Game) -> None:
    hidden = secrets_hidden_from(game, engine.PUBLIC)
    for message in to(BOSS):
        whole = message.message().as_string()
        for secret in hidden:
            assert secret not in whole, f"the organiser's {message.subject!r} tells {secret!r}"


def standby_learns_nothing(game: Game, standby_client: Client, standby: Standby) -> None:
    page = standbys.page_url(standby).split("testserver", 1)[1]
    said = text_of(text(standby_client.get(page))) + mails_for_address(standby.email)
    for secret in secrets_hidden_from(game, engine.PUBLIC):
        assert secret not in said
    assert "Your role" not in said


def test_one_slow_game_by_mail_moves_a_deadline_prods_and_replaces_a_silent_seat_and_pauses(
    boss, organiser_client: Client, settings
) -> None:
    settings.WEREWOLF_MAIL_ORDERS = True
    game = slow_game(boss, organiser_client, "Slow", "move", prod_after=1, act_after=2, at_limit="standby")
    calendar_url = f"/games/{game.pk}/calendar/"
    standby_client = Client()
    standby = standby_by_link(game, "Odile", standby_client)
    silent = seat_roles(game).index("wolf")  # a wolf: the other wolf keeps the nights going
    silent_email = game.players.get(seat=silent).email
    client = Client()
    rng = Random(31)
    sweep(game, seat_paths(game), client)
    standby_learns_nothing(game, standby_client, standby)

    # A living seat mails that it is away on the day of the open deadline: it moves past it,
    # and every other seat is told so without a name.
    phase = open_phase(game)
    zone = ZoneInfo(game.timezone)
    day = phase.deadline.astimezone(zone).date()
    absent = max(set(engine.phase(game.engine_state).slots) - {silent})
    absent_player = game.players.get(seat=absent)
    kept = inbound.receive(letter(game, absent, f"AWAY {day.day}/{day.month}"))
    assert kept.code == "away_declared", kept.code
    phase.refresh_from_db()
    assert phase.deadline.astimezone(zone).date() == day + timedelta(days=1)
    assert Event.objects.filter(game=game, kind="deadline_moved_away").count() == 1
    for player in game.players.exclude(pk=absent_player.pk):
        assert "moved past their absence" in mails_for(player)
        assert absent_player.name not in text_of(client.get(seat_paths(game)[player.seat] + "away/").content.decode())
    sweep(game, seat_paths(game), client)
    kept = inbound.receive(letter(game, absent, "NOT AWAY"))  # (later phases keep whole-day countdowns off)
    assert kept.code == "away_withdrawn", kept.code

    # The organiser pauses: no card is taken, nothing resolves; then resumes.
    assert organiser_client.post(calendar_url, {"action": "pause"}).status_code == 302
    sweep(game, seat_paths(game), client)
    seat = min(set(engine.phase(game.engine_state).slots) - {silent})
    refused = mail_card(game, seat, card_form(game, seat, rng), rng)
    assert refused.status == InboundMessage.Status.REFUSED and refused.code == "game_paused"
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    assert services.sweep_due_phases() == 0
    assert Phase.objects.get(pk=phase.pk).status == Phase.Status.OPEN
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() + timedelta(minutes=90, seconds=30))
    assert organiser_client.post(calendar_url, {"action": "resume"}).status_code == 302
    sweep(game, seat_paths(game), client)
    public = text_of(Client().get(f"/g/{game.public_key}/").content.decode())
    assert "paused the game" in public and "resumed the game" in public

    # The game by mail to its end; the silent seat is prodded, then a standby takes it and
    # plays it by mail. The sweep after every phase.
    prodded = taken_over = False
    rounds = 0
    while open_phase(game) is not None:
        rounds += 1
        assert rounds < 60, "the game does not end"
        play_phase_by_mail(game, rng, set() if taken_over else {silent})
        prodded = prodded or any("missed its cards" in message.subject for message in to(silent_email))
        game = Game.objects.get(pk=game.pk)
        taken_over = game.players.get(seat=silent).name == "Odile"
        if not taken_over:
            standby_learns_nothing(game, standby_client, standby)
        organisers_mails_keep_the_secrets(game)
        sweep(game, seat_paths(game), client)
    assert prodded and taken_over
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert Event.objects.filter(game=game, kind="game_paused").count() == 1
    assert Event.objects.filter(game=game, kind="player_substituted").count() == 1
    assert "you have taken over a seat" in text(
        standby_client.get(standbys.page_url(standby).split("testserver", 1)[1])
    )
    assert not any(  # the silent player's old link opens nothing now
        Client().get(path).status_code == 200
        for path in re.findall(r"http://testserver(/p/[a-z2-7]{32}/)", mails_for_address(silent_email))
    )
    assert len({message.extra_headers.get("Message-ID") for message in mail.outbox}) == len(mail.outbox)


def test_a_slow_game_by_mail_hands_an_absent_seat_to_a_standby_and_back(
    boss, organiser_client: Client, settings
) -> None:
    settings.WEREWOLF_MAIL_ORDERS = True
    game = slow_game(boss, organiser_client, "Stand-in", "standby", prod_after=0, act_after=0)
    standby_client = Client()
    standby = standby_by_link(game, "Odile", standby_client)
    client = Client()
    rng = Random(7)
    sweep(game, seat_paths(game), client)

    # A living seat mails that it is away from today for three days: the open phase stays
    # its own; the next phase, whose deadline falls inside the absence, opens with the
    # standby in the seat.
    absent = seat_roles(game).index("wolf")  # (alive when the next phase opens: no wolf dies at night)
    player = game.players.get(seat=absent)
    name, email = player.name, player.email
    old_link = SeatLink.objects.get(player=player, revoked_at=None)
    today = absences.today(game)
    end = today + timedelta(days=2)
    kept = inbound.receive(letter(game, absent, f"AWAY {today.day}/{today.month} to {end.day}/{end.month}"))
    assert kept.code == "away_declared", kept.code
    assert "a standby plays your seat while you are away" in mails_for(player)
    standby_learns_nothing(game, standby_client, standby)
    play_phase_by_mail(game, rng)
    organisers_mails_keep_the_secrets(game)
    game = Game.objects.get(pk=game.pk)
    seat = game.players.get(seat=absent)
    assert (seat.name, seat.email) == ("Odile", standby.email)
    old_link.refresh_from_db()
    assert old_link.revoked_at is not None
    assert "Your role:" in mails_for_address(standby.email)
    changed = Event.objects.get(game=game, kind="player_substituted")
    assert changed.data == {"seat": absent, "old_name": name, "new_name": "Odile"}
    for other in game.players.exclude(seat=absent):
        assert "absen" not in mails_for(other).lower()
    sweep(game, seat_paths(game), client)

    # The standby plays the seat by mail while the player is away.
    phase = play_phase_by_mail(game, rng)
    assert Order.objects.get(phase=phase, seat=absent).source == Order.Source.MAIL
    assert InboundMessage.objects.filter(phase=phase, player__seat=absent, status="applied").exists()
    game = Game.objects.get(pk=game.pk)
    organisers_mails_keep_the_secrets(game)
    sweep(game, seat_paths(game), client)

    # The days pass (the absence is over): the first phase that opens after it gives the
    # seat back, by a new link mailed to its player; the standby has left the list.
    yesterday = absences.today(game) - timedelta(days=1)
    Absence.objects.filter(game=game).update(start=yesterday - timedelta(days=2), end=yesterday)
    standby_link = SeatLink.objects.get(player__game=game, player__seat=absent, revoked_at=None)
    before = len(mail.outbox)
    play_phase_by_mail(game, rng)
    game = Game.objects.get(pk=game.pk)
    assert game.status == Game.Status.RUNNING
    seat = game.players.get(seat=absent)
    assert (seat.name, seat.email) == (name, email)
    standby_link.refresh_from_db()
    assert standby_link.revoked_at is not None
    welcome = "\n".join(m.body for m in mail.outbox[before:] if any(email in address for address in m.to))
    back = re.findall(r"http://testserver(/p/[a-z2-7]{32}/)", welcome)
    assert back and all(client.get(path).status_code == 200 for path in back)
    assert Standby.objects.get(pk=standby.pk).seated_at is not None  # off the list
    assert "Thank you for standing in." in mails_for_address(standby.email)
    standby_page = standbys.page_url(standby).split("testserver", 1)[1]
    assert "The player is back and has the seat again" in text(standby_client.get(standby_page))
    told_standby = len(to(standby.email))
    assert Absence.objects.get(game=game).handed_back_at is not None
    sweep(game, seat_paths(game), client)

    # The player plays on by mail to the end.
    rounds = 0
    while open_phase(game) is not None:
        rounds += 1
        assert rounds < 60, "the game does not end"
        play_phase_by_mail(game, rng)
        game = Game.objects.get(pk=game.pk)
        organisers_mails_keep_the_secrets(game)
        sweep(game, seat_paths(game), client)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert Event.objects.filter(game=game, kind="player_substituted").count() == 2
    assert len(to(standby.email)) == told_standby  # nothing more of the game once the seat went back
    assert len({message.extra_headers.get("Message-ID") for message in mail.outbox}) == len(mail.outbox)
