"""Pausing and resuming a game (werewolf/games/pauses.py): while paused nothing resolves
(the beat's sweep, a task scheduled for the old deadline, the organiser's resolve now),
no card is taken, nobody is reminded; resuming moves the deadline on by the pause, and
the step resolves once, at the moved deadline. Only those who run the game pause it."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from werewolf import engine
from werewolf.games import links, pauses, services
from werewolf.games.calendar import DaysOff
from werewolf.games.models import Event, Game, Phase

from .play import pack_of, seat_roles, started_game

pytestmark = pytest.mark.django_db(transaction=True)


def fresh(game: Game) -> Game:
    return Game.objects.get(pk=game.pk)


def kill_card(game: Game) -> tuple[int, engine.Order]:
    return pack_of(game)[0], engine.Order("kill", (seat_roles(game).index("seer"),))


def test_a_paused_phase_never_resolves_however_it_is_asked(organiser) -> None:
    game = started_game(organiser, "Paused")
    phase = game.current_phase()
    pauses.pause(game)
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    assert services.sweep_due_phases() == 0
    assert services.fan_out_due_phases() == 0
    assert services.resolve_if_due(phase.pk) is False  # the ETA task of the old deadline
    assert services.resolve_phase(phase.pk, Phase.Resolution.DEADLINE) is False
    with pytest.raises(services.ServiceError) as refused:
        services.resolve_now(fresh(game), phase.index)
    assert refused.value.code == "game_paused"
    assert Phase.objects.get(pk=phase.pk).status == Phase.Status.OPEN
    assert services.send_reminders(timezone.now() + timedelta(days=3)) == 0


def test_a_paused_game_takes_no_card_and_tells_why(organiser) -> None:
    game = started_game(organiser, "No cards")
    seat, card = kill_card(game)
    pauses.pause(game)
    with pytest.raises(services.ServiceError) as refused:
        services.submit_order(fresh(game), seat, card)
    assert refused.value.code == "game_paused"
    response = Client().get(links.url_for(game.players.get(seat=seat), absolute=False))
    assert "The game is paused" in response.content.decode()
    for page in (f"/g/{game.public_key}/", f"/g/{game.public_key}/projector/"):
        shown = Client().get(page).content.decode()
        assert "The game is paused" in shown and "data-countdown" not in shown


def test_resume_moves_the_deadline_on_by_the_pause_and_it_resolves_once_then(organiser) -> None:
    game = started_game(organiser, "Resumed")
    phase = game.current_phase()
    before = phase.deadline
    start = timezone.now()
    with mock.patch("django.utils.timezone.now", return_value=start):
        pauses.pause(game)
    with mock.patch("django.utils.timezone.now", return_value=start + timedelta(hours=5)):
        pauses.resume(fresh(game))
    phase.refresh_from_db()
    assert abs(phase.deadline - (before + timedelta(hours=5))) < timedelta(seconds=1)
    assert services.resolve_if_due(phase.pk) is False  # the old deadline's task: not due any more
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert services.sweep_due_phases() == 1
    assert services.sweep_due_phases() == 0
    assert services.resolve_phase(phase.pk, Phase.Resolution.DEADLINE) is False
    kinds = list(
        Event.objects.filter(game=game, kind__in=["game_paused", "game_resumed"]).values_list("kind", "audience")
    )
    assert [kind for kind, _ in kinds] == ["game_paused", "game_resumed"]
    assert all(audience == engine.Audience.public().to_json() for _, audience in kinds)
    resumed = Event.objects.get(game=game, kind="game_resumed")
    assert resumed.data["minutes"] == 300


def test_a_resolver_that_read_the_old_deadline_finds_nothing_to_claim(organiser) -> None:
    """A task that found the phase due just before a pause and a resume moved its deadline:
    its claim reads the deadline as it stands."""
    game = started_game(organiser, "Race")
    phase = game.current_phase()
    pauses.pause(game)
    pauses.resume(fresh(game))
    assert services.resolve_phase(phase.pk, Phase.Resolution.DEADLINE) is False
    assert Phase.objects.get(pk=phase.pk).status == Phase.Status.OPEN


def test_resume_lands_on_a_working_day(organiser) -> None:
    game = started_game(organiser, "Weekend")
    phase = game.current_phase()
    saturday = timezone.datetime(2026, 12, 5, 10, 0, tzinfo=timezone.get_fixed_timezone(0))
    Phase.objects.filter(pk=phase.pk).update(deadline=saturday)
    Game.objects.filter(pk=game.pk).update(days_off=DaysOff(frozenset({5, 6})).to_json())
    now = timezone.datetime(2026, 12, 5, 9, 0, tzinfo=timezone.get_fixed_timezone(0))
    with mock.patch("django.utils.timezone.now", return_value=now):
        pauses.pause(fresh(game))
        pauses.resume(fresh(game))
    phase.refresh_from_db()
    assert phase.deadline == timezone.datetime(2026, 12, 7, 10, 0, tzinfo=timezone.get_fixed_timezone(0))


def test_everyone_is_mailed_the_pause_and_the_new_deadline(organiser) -> None:
    game = started_game(organiser, "Told")
    players = game.players.count()
    mail.outbox.clear()
    pauses.pause(game)
    assert len(mail.outbox) == players
    assert all("paused" in message.subject for message in mail.outbox)
    with pytest.raises(services.ServiceError):
        pauses.pause(fresh(game))
    pauses.resume(fresh(game))
    assert len(mail.outbox) == 2 * players
    assert all("resumed" in message.body for message in mail.outbox[players:])
    with pytest.raises(services.ServiceError) as refused:
        pauses.resume(fresh(game))
    assert refused.value.code == "not_paused"


def test_only_who_runs_the_game_pauses_it(organiser, organiser_client, django_user_model) -> None:
    game = started_game(organiser, "Mine")
    url = f"/games/{game.pk}/calendar/"
    player = Client()
    seat_url = links.url_for(game.players.get(seat=0), absolute=False)
    assert player.post(url, {"action": "pause"}).status_code == 302  # to the log-in page
    assert player.post(seat_url + "away/", {"action": "pause"}).status_code in (200, 400)
    other = Client()
    other.force_login(django_user_model.objects.create_user("other", "other@example.org", "pw"))
    assert other.post(url, {"action": "pause"}).status_code == 404
    assert fresh(game).paused_at is None
    assert organiser_client.post(url, {"action": "pause"}).status_code == 302
    assert fresh(game).paused_at is not None
    assert "Resume the game" in organiser_client.get(f"/games/{game.pk}/").content.decode()
    assert organiser_client.post(url, {"action": "resume"}).status_code == 302
    assert fresh(game).paused_at is None


def test_extending_a_paused_deadline_is_refused(organiser) -> None:
    game = started_game(organiser, "Extend")
    pauses.pause(game)
    with pytest.raises(services.ServiceError) as refused:
        services.extend_deadline(fresh(game), 30)
    assert refused.value.code == "game_paused"


def test_an_extended_deadline_avoids_the_days_off(organiser) -> None:
    game = started_game(organiser, "Extend off")
    phase = game.current_phase()
    friday = timezone.datetime(2026, 12, 4, 23, 0, tzinfo=timezone.get_fixed_timezone(0))
    Phase.objects.filter(pk=phase.pk).update(deadline=friday)
    Game.objects.filter(pk=game.pk).update(days_off=DaysOff(frozenset({5, 6})).to_json())
    with mock.patch("django.utils.timezone.now", return_value=friday - timedelta(hours=5)):
        services.extend_deadline(fresh(game), 120)
    phase.refresh_from_db()
    assert phase.deadline == timezone.datetime(2026, 12, 7, 1, 0, tzinfo=timezone.get_fixed_timezone(0))


def test_a_phase_that_opens_avoids_the_days_off(organiser) -> None:
    game = started_game(organiser, "Open off")
    Game.objects.filter(pk=game.pk).update(days_off=DaysOff(frozenset(range(7)) - {2}).to_json())  # Wednesdays
    services.resolve_now(fresh(game))
    following = fresh(game).current_phase()
    assert following.deadline.astimezone(timezone.get_fixed_timezone(0)).weekday() == 2
