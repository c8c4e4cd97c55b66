"""The third absence policy, "a standby plays the seat meanwhile" (`services.stand_in`):
one test per rule of werewolf/games/absences.py and the organiser's guide.

Absences here start today (so a phase that opens now has its deadline inside them) and
are made "over" by moving their end to yesterday, rather than by moving the clock."""

from __future__ import annotations

import re
from datetime import date, timedelta
from html import unescape
from unittest import mock

import pytest
from django.core import mail
from django.test import Client

from werewolf import addresses, engine
from werewolf.games import absences, attendance, dates, links, services, standbys
from werewolf.games.models import Absence, AbsencePolicy, Dispatch, Event, Game, Phase, Player, SeatLink, Standby

from .play import NAMES, open_phase, secrets_hidden_from, text_of

pytestmark = pytest.mark.django_db(transaction=True)

BOSS = "boss@example.org"


@pytest.fixture
def boss(organiser):
    addresses.confirm_for(organiser, BOSS)  # the operator's word: organiser mails reach it
    return organiser


def to(address: str) -> list:
    return [message for message in mail.outbox if any(address in recipient for recipient in message.to)]


def said_to(address: str) -> str:
    return "\n".join(message.message().as_string() for message in to(address))


def away_game(organiser, policy: str = AbsencePolicy.STANDBY, standbys_waiting: tuple[str, ...] = ("Zelda",)) -> Game:
    """A running classic game of seven, with the absence policy given and confirmed
    standbys waiting, in that order."""
    seats = [services.Seating(player, f"{player.lower()}@example.org") for player in NAMES[:7]]
    game = services.create_game(organiser, name="Away", seats=seats, options={"wolves": 2, "seers": 1}, seed=11)
    Game.objects.filter(pk=game.pk).update(absence_policy=policy)
    game = services.start_game(Game.objects.get(pk=game.pk))
    for name in standbys_waiting:
        Standby.objects.create(game=game, name=name, email=f"{name.lower()}@example.org", pending=False)
    return game


def name_at(game: Game, seat: int) -> str:
    return Game.objects.get(pk=game.pk).players.get(seat=seat).name


def today(game: Game) -> date:
    return absences.today(game)


def away(game: Game, seat: int, days: int = 2) -> Absence:
    """The seat's player declares an absence from today, for `days` days."""
    start = today(game)
    return absences.declare(game.players.get(seat=seat), dates.Span(start, start + timedelta(days=days - 1)))


def next_phase(game: Game) -> Phase:
    """The organiser resolves the open phase now: the next one opens."""
    assert services.resolve_now(Game.objects.get(pk=game.pk))
    phase = open_phase(game)
    assert phase is not None
    return phase


def over(absence: Absence) -> None:
    """The absence ended yesterday (a phase that opens now opens after its end)."""
    Absence.objects.filter(pk=absence.pk).update(
        start=absence.start - timedelta(days=5), end=today(absence.game) - timedelta(days=1)
    )


def test_a_seat_away_for_the_deadline_of_a_phase_that_opens_goes_to_the_next_standby(boss) -> None:
    game = away_game(boss, standbys_waiting=("Zelda", "Yorick"))
    seat = 3
    old = game.players.get(seat=seat)
    old_name, old_email = old.name, old.email
    old_link = SeatLink.objects.get(player=old, revoked_at=None)
    absence = away(game, seat)
    mail.outbox.clear()
    phase = next_phase(game)
    player = Player.objects.get(pk=old.pk)
    assert (player.name, player.email, player.seat) == ("Zelda", "zelda@example.org", seat)
    old_link.refresh_from_db()
    assert old_link.revoked_at is not None
    changed = Event.objects.get(game=game, kind="player_substituted")
    assert changed.phase_id == phase.pk and changed.audience == engine.Audience.public().to_json()
    assert changed.data == {"seat": seat, "old_name": old_name, "new_name": "Zelda"}
    welcome = said_to("zelda@example.org")
    assert "Your role:" in welcome and "/p/" in welcome
    absence.refresh_from_db()
    assert absence.standby.name == "Zelda" and absence.stood_in_at is not None and absence.handed_back_at is None
    assert (absence.away_name, absence.away_email) == (old_name, old_email)
    assert [standby.name for standby in attendance.standbys_waiting(game)] == ["Yorick"]


def test_the_hand_over_happens_once_whoever_runs_it_again(boss) -> None:
    game = away_game(boss, standbys_waiting=("Zelda", "Yorick"))
    away(game, 3)
    phase = next_phase(game)
    game = Game.objects.get(pk=game.pk)
    assert services.stand_in(game, game.engine_state, phase) is False
    assert Event.objects.filter(game=game, kind="player_substituted").count() == 1
    assert Standby.objects.get(name="Yorick").seated_at is None


def test_the_first_phase_that_opens_after_the_absence_gives_the_seat_back_by_a_new_link(boss) -> None:
    game = away_game(boss)
    seat = 3
    old = game.players.get(seat=seat)
    old_name, old_email = old.name, old.email
    absence = away(game, seat)
    next_phase(game)
    standby_link = SeatLink.objects.get(player=old, revoked_at=None)
    next_phase(game)  # still away: the standby plays on
    assert Player.objects.get(pk=old.pk).name == "Zelda"
    over(absence)
    mail.outbox.clear()
    phase = next_phase(game)
    player = Player.objects.get(pk=old.pk)
    assert (player.name, player.email, player.seat) == (old_name, old_email, seat)
    standby_link.refresh_from_db()
    assert standby_link.revoked_at is not None
    back = Event.objects.filter(game=game, kind="player_substituted").order_by("pk").last()
    assert back.phase_id == phase.pk and back.data == {"seat": seat, "old_name": "Zelda", "new_name": old_name}
    links_mailed = re.findall(r"http://testserver(/p/[a-z2-7]{32}/)", said_to(old_email))
    assert links_mailed and Client().get(links_mailed[0]).status_code == 200
    absence.refresh_from_db()
    assert absence.handed_back_at is not None
    game = Game.objects.get(pk=game.pk)
    assert services.stand_in(game, game.engine_state, phase) is False  # once


def test_the_standby_leaves_the_list_once_the_seat_is_back(boss) -> None:
    game = away_game(boss)
    absence = away(game, 3)
    next_phase(game)
    over(absence)
    next_phase(game)
    standby = Standby.objects.get(name="Zelda")
    assert standby.seated_at is not None and attendance.standbys_waiting(game) == []
    assert standbys.place_in_line(standby) == 0
    (thanks,) = [message for message in to(standby.email) if "back with its player" in message.subject]
    assert "Thank you for standing in." in thanks.body
    page = text_of(Client().get(standbys.page_url(standby).split("testserver", 1)[1]).content.decode())
    assert "The player is back and has the seat again" in page
    fourth = name_at(game, 4)
    away(game, 4)
    next_phase(game)  # another absence: nobody left to stand in
    assert name_at(game, 4) == fourth


def test_withdrawn_by_the_organiser_the_seat_goes_back_at_once(boss, organiser_client: Client) -> None:
    game = away_game(boss)
    third = name_at(game, 3)
    absence = away(game, 3)
    next_phase(game)
    page = text_of(organiser_client.get(f"/games/{game.pk}/calendar/").content.decode())
    assert f"{third}:" in page and "Zelda stands in meanwhile" in page
    response = organiser_client.post(f"/games/{game.pk}/calendar/", {"action": "withdraw", "absence": absence.pk})
    assert response.status_code == 302
    assert name_at(game, 3) == third
    absence.refresh_from_db()
    assert absence.withdrawn_at is not None and absence.handed_back_at is not None
    assert services.hand_back(absence) is False  # once
    assert Event.objects.filter(game=game, kind="player_substituted").count() == 2


def test_the_standby_neither_sees_nor_withdraws_the_absence_it_plays_for(boss) -> None:
    game = away_game(boss)
    absence = away(game, 3)
    next_phase(game)
    standby_seat = Game.objects.get(pk=game.pk).players.get(seat=3)
    assert absences.upcoming(standby_seat) == []
    with pytest.raises(services.ServiceError) as refused:
        absences.withdraw(standby_seat, absence_id=absence.pk)
    assert refused.value.code == "no_absence"
    page = text_of(Client().get(links.url_for(standby_seat, absolute=False) + "away/").content.decode())
    assert "You have not said you will be away." in page


def test_with_no_standby_waiting_the_seat_keeps_its_default_card_and_the_organiser_is_told_once(boss) -> None:
    game = away_game(boss, standbys_waiting=())
    third = name_at(game, 3)
    absence = away(game, 3, days=4)
    mail.outbox.clear()
    phase = next_phase(game)
    next_phase(game)
    assert name_at(game, 3) == third
    (note,) = [message for message in to(BOSS) if "No standby for an absent player" in message.subject]
    assert f"seat 4, {third}" in note.body and "default cards" in note.body
    absence.refresh_from_db()
    assert absence.unfilled_at is not None and absence.stood_in_at is None
    for secret in secrets_hidden_from(game, engine.PUBLIC):
        assert secret not in note.message().as_string()
    assert Dispatch.objects.get(key__startswith="away-unfilled:").phase_id == phase.pk  # the first phase inside


def test_a_standby_who_confirms_later_takes_the_seat_at_the_next_phase(boss) -> None:
    game = away_game(boss, standbys_waiting=())
    away(game, 3, days=4)
    next_phase(game)
    Standby.objects.create(game=game, name="Zelda", email="zelda@example.org", pending=False)
    next_phase(game)
    assert name_at(game, 3) == "Zelda"


def test_an_absence_declared_while_a_phase_is_open_leaves_that_phases_card_to_its_player(boss) -> None:
    game = away_game(boss)
    third = name_at(game, 3)
    away(game, 3)
    assert name_at(game, 3) == third
    assert not Event.objects.filter(game=game, kind="player_substituted").exists()


def test_a_dead_seats_absence_hands_nothing_over(boss) -> None:
    game = away_game(boss)
    dead = game.engine_state.to_json()
    dead["alive"][3] = False
    Game.objects.filter(pk=game.pk).update(state=dead)
    away(game, 3)
    phase = open_phase(game)
    game = Game.objects.get(pk=game.pk)
    third = name_at(game, 3)
    assert services.stand_in(game, game.engine_state, phase) is False
    assert name_at(game, 3) == third


@pytest.mark.parametrize("policy", [AbsencePolicy.NOTHING, AbsencePolicy.MOVE])
def test_the_other_policies_never_seat_a_standby(boss, policy: str) -> None:
    game = away_game(boss, policy=policy)
    third = name_at(game, 3)
    away(game, 3)
    next_phase(game)
    assert name_at(game, 3) == third
    assert attendance.standbys_waiting(game)[0].name == "Zelda"


def test_the_table_is_told_only_that_the_seat_changed_hands(boss) -> None:
    game = away_game(boss)
    away(game, 3)
    mail.outbox.clear()
    next_phase(game)
    kinds = set(Event.objects.filter(game=game).values_list("kind", flat=True))
    assert not {kind for kind in kinds if "away" in kind or "absen" in kind}
    for player in Game.objects.get(pk=game.pk).players.exclude(seat=3):
        assert "absen" not in said_to(player.email).lower()
    page = unescape(Client().get(f"/g/{game.public_key}/").content.decode())
    assert "absen" not in page.lower() and "Zelda" in page


def test_a_standby_learns_nothing_secret_until_seated(boss) -> None:
    game = away_game(boss)
    away(game, 3, days=4)
    standby = Standby.objects.get(name="Zelda")
    page = unescape(Client().get(standbys.page_url(standby).split("testserver", 1)[1]).content.decode())
    for secret in secrets_hidden_from(game, engine.PUBLIC):
        assert secret not in page
    assert "Your role" not in page and said_to(standby.email) == ""
    next_phase(game)
    assert "Your role:" in said_to(standby.email)


def test_the_organiser_is_offered_the_policy(boss, organiser_client: Client) -> None:
    game = away_game(boss, policy=AbsencePolicy.NOTHING)
    page = organiser_client.get(f"/games/{game.pk}/calendar/").content.decode()
    assert 'value="standby"' in page
    response = organiser_client.post(
        f"/games/{game.pk}/calendar/",
        {"action": "calendar", "absence_policy": "standby", "absence_days": "3", "off_dates": ""},
    )
    assert response.status_code == 302
    assert Game.objects.get(pk=game.pk).absence_policy == AbsencePolicy.STANDBY


def test_a_player_is_told_what_the_policy_does_before_leaving(boss) -> None:
    game = away_game(boss)
    page = text_of(Client().get(links.url_for(game.players.get(seat=3), absolute=False) + "away/").content.decode())
    assert "a standby plays your seat while you are away" in page
    assert "gives the seat back to you, with a new link by mail" in page


def test_a_seat_goes_back_even_if_the_policy_changed_meanwhile(boss) -> None:
    game = away_game(boss)
    third = name_at(game, 3)
    absence = away(game, 3)
    next_phase(game)
    Game.objects.filter(pk=game.pk).update(absence_policy=AbsencePolicy.NOTHING)
    over(absence)
    next_phase(game)
    assert name_at(game, 3) == third


def test_the_organiser_withdraws_only_this_games_absences(boss, organiser_client: Client) -> None:
    game = away_game(boss)
    other = away_game(boss, standbys_waiting=())
    absence = away(other, 3)
    refused = organiser_client.post(f"/games/{game.pk}/calendar/", {"action": "withdraw", "absence": absence.pk})
    assert refused.status_code == 400
    assert Absence.objects.get(pk=absence.pk).withdrawn_at is None


def test_while_a_standby_holds_the_seat_each_person_sees_and_keeps_only_their_own_absences(boss) -> None:
    game = away_game(boss, standbys_waiting=("Zelda", "Yorick"))
    third = name_at(game, 3)
    absence = away(game, 3)
    start = today(game) + timedelta(days=20)
    later = absences.declare(game.players.get(seat=3), dates.Span(start, start))  # the player's, for later
    next_phase(game)
    standby_seat = Game.objects.get(pk=game.pk).players.get(seat=3)
    assert absences.upcoming(standby_seat) == []
    own = absences.declare(standby_seat, dates.Span(start, start + timedelta(days=1)))  # the standby's
    assert absences.upcoming(standby_seat) == [own]
    next_phase(game)
    assert name_at(game, 3) == "Zelda"  # (a standby's own absence does not hand the seat on)
    over(absence)
    next_phase(game)
    player = Game.objects.get(pk=game.pk).players.get(seat=3)
    assert player.name == third
    assert absences.upcoming(player) == [later]  # the standby's left with them
    assert Absence.objects.get(pk=own.pk).withdrawn_at is not None


def test_a_crash_between_the_steps_of_a_hand_over_leaves_nothing_half_done(boss) -> None:
    game = away_game(boss)
    third = name_at(game, 3)
    absence = away(game, 3)
    real = services.substitute_player
    with mock.patch.object(services, "substitute_player", side_effect=RuntimeError("the worker died")):
        with pytest.raises(RuntimeError):
            services.resolve_now(Game.objects.get(pk=game.pk))
    absence.refresh_from_db()
    assert absence.stood_in_at is None and absence.standby is None and name_at(game, 3) == third
    assert Standby.objects.get(name="Zelda").seated_at is None
    assert services.substitute_player is real
    next_phase(game)  # the resolution again (the sweeper's): the hand-over, once
    assert name_at(game, 3) == "Zelda"
    assert Event.objects.filter(game=game, kind="player_substituted").count() == 1
