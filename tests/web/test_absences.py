"""Absences (werewolf/games/absences.py): declared on a seat's page or by mail, seen by the
seat and the organisers only; under the `move` policy a deadline inside a living seat's
absence moves past it, up to the game's days per player, everyone told without a name;
under `nothing` (the default) nothing moves. Bad dates change nothing."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from unittest import mock
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from django.test import Client

from werewolf.games import absences, dates, links, services
from werewolf.games.models import Absence, AbsencePolicy, Event, Game, Phase

from .play import started_game, text_of

pytestmark = pytest.mark.django_db(transaction=True)

UTC = ZoneInfo("UTC")
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
DEADLINE = datetime(2026, 12, 3, 21, 0, tzinfo=UTC)


@pytest.fixture
def game(organiser) -> Game:
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        game = started_game(organiser, "Away")
    Phase.objects.filter(game=game, status=Phase.Status.OPEN).update(deadline=DEADLINE)
    return game


def moving(game: Game, days: int = 3) -> Game:
    Game.objects.filter(pk=game.pk).update(absence_policy=AbsencePolicy.MOVE, absence_days=days)
    return Game.objects.get(pk=game.pk)


def declare(game: Game, seat: int, start: date, end: date) -> Absence:
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        return absences.declare(game.players.get(seat=seat), dates.Span(start, end))


def deadline(game: Game) -> datetime:
    return Phase.objects.get(game=game, status=Phase.Status.OPEN).deadline


def test_by_default_an_absence_moves_nothing(game: Game) -> None:
    declare(game, 2, date(2026, 12, 2), date(2026, 12, 4))
    assert deadline(game) == DEADLINE
    assert not Event.objects.filter(game=game, kind="deadline_moved_away").exists()


def test_an_absence_moves_the_open_deadline_past_it_and_everyone_is_told_no_name(game: Game) -> None:
    game = moving(game)
    mail.outbox.clear()
    absence = declare(game, 2, date(2026, 12, 2), date(2026, 12, 4))
    assert deadline(game) == DEADLINE + timedelta(days=2)
    absence.refresh_from_db()
    assert absence.moved_days == 2
    (event,) = Event.objects.filter(game=game, kind="deadline_moved_away")
    assert event.audience == {"public": True} or event.engine_event.audience.public
    assert set(event.data) == {"deadline", "local", "zone"}  # no seat, no name
    assert len(mail.outbox) == game.players.count()
    name = game.players.get(seat=2).name
    for message in mail.outbox:
        assert "away" in message.body and name not in message.body.replace(f"Hello {name}", "")


def test_the_days_an_absence_moves_are_capped_per_player_and_game(game: Game) -> None:
    game = moving(game, days=1)
    declare(game, 2, date(2026, 12, 3), date(2026, 12, 6))
    assert deadline(game) == DEADLINE + timedelta(days=1)  # one day, then the cap
    declare(game, 2, date(2026, 12, 4), date(2026, 12, 4))
    assert deadline(game) == DEADLINE + timedelta(days=1)  # nothing left for that player


def test_a_dead_seats_absence_moves_nothing(game: Game) -> None:
    game = moving(game)
    state = game.engine_state
    dead = state.to_json()
    seat = 2
    dead["alive"][seat] = False
    Game.objects.filter(pk=game.pk).update(state=dead)
    declare(Game.objects.get(pk=game.pk), seat, date(2026, 12, 2), date(2026, 12, 4))
    assert deadline(game) == DEADLINE


def test_a_phase_that_opens_inside_an_absence_moves_and_says_so_with_the_news(game: Game) -> None:
    game = moving(game)
    declare(game, 4, date(2026, 12, 6), date(2026, 12, 6))  # after the open deadline: moves nothing now
    assert deadline(game) == DEADLINE
    closing = game.current_phase()
    mail.outbox.clear()
    with mock.patch("django.utils.timezone.now", return_value=datetime(2026, 12, 5, 12, 0, tzinfo=UTC)):
        services.resolve_now(Game.objects.get(pk=game.pk))
    following = Game.objects.get(pk=game.pk).current_phase()
    minutes = game.minutes_for(following.stage, following.kind)
    assert following.deadline == datetime(2026, 12, 5, 12, 0, tzinfo=UTC) + timedelta(minutes=minutes, days=1)
    assert Event.objects.filter(phase=closing, kind="deadline_moved_away").count() == 1
    news = [message for message in mail.outbox if "moved past their absence" in message.body]
    assert len(news) == game.players.count()  # told with the closing step's results


def test_a_withdrawn_absence_moves_nothing_more(game: Game) -> None:
    game = moving(game)
    absence = declare(game, 2, date(2026, 12, 10), date(2026, 12, 12))
    player = game.players.get(seat=2)
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        absences.withdraw(player, absence_id=absence.pk)
        assert absences.upcoming(player) == []
        with pytest.raises(services.ServiceError) as refused:
            absences.withdraw(player)
    assert refused.value.code == "no_absence"


def test_the_seat_page_declares_and_withdraws_and_shows_only_its_own(game: Game) -> None:
    game = moving(game)
    client = Client()
    mine, other = game.players.get(seat=1), game.players.get(seat=2)
    declare(game, 2, date(2026, 12, 20), date(2026, 12, 21))
    url = links.url_for(mine, absolute=False) + "away/"
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        response = client.post(url, {"action": "declare", "start": "2026-12-24", "end": "2026-12-27"})
        assert response.status_code == 302
        page = text_of(client.get(response["Location"]).content.decode())
    assert "Your absence is noted." in page
    assert "24 December" in page or "Dec. 24" in page or "December 24" in page
    assert other.name not in page
    absence = Absence.objects.get(player=mine)
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        response = client.post(url, {"action": "withdraw", "absence": str(absence.pk)})
    assert response.status_code == 302
    absence.refresh_from_db()
    assert absence.withdrawn_at is not None


def test_bad_dates_on_the_page_are_refused_and_change_nothing(game: Game) -> None:
    client = Client()
    url = links.url_for(game.players.get(seat=1), absolute=False) + "away/"
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        past = client.post(url, {"action": "declare", "start": "2026-11-20", "end": "2026-11-22"})
        backwards = client.post(url, {"action": "declare", "start": "2026-12-22", "end": "2026-12-20"})
        long = client.post(url, {"action": "declare", "start": "2026-12-02", "end": "2027-01-20"})
        junk = client.post(url, {"action": "declare", "start": "soon"})
    assert [response.status_code for response in (past, backwards, long, junk)] == [400] * 4
    assert "starts before today" in text_of(past.content.decode())
    assert "ends before it starts" in text_of(backwards.content.decode())
    assert "at most 31 days" in text_of(long.content.decode())
    assert not Absence.objects.exists()


def test_the_organiser_sees_every_absence_and_sets_the_policy(game: Game, organiser_client: Client) -> None:
    declare(game, 2, date(2026, 12, 20), date(2026, 12, 21))
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        dashboard = text_of(organiser_client.get(f"/games/{game.pk}/").content.decode())
        assert game.players.get(seat=2).name in dashboard.split("Calendar")[1]
        page = organiser_client.get(f"/games/{game.pk}/calendar/").content.decode()
    assert 'value="standby"' in page  # every policy is offered (tests/web/test_away_standby.py)
    response = organiser_client.post(
        f"/games/{game.pk}/calendar/",
        {
            "action": "calendar",
            "off_weekdays": ["5", "6"],
            "off_dates": "2026-12-25 26/12/2026",
            "absence_policy": "move",
            "absence_days": "2",
        },
    )
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.absence_policy == "move" and game.absence_days == 2
    left = text_of(organiser_client.get(f"/games/{game.pk}/calendar/").content.decode())
    assert f"{game.players.get(seat=0).name}: 2" in left
    assert game.days_off == {"weekdays": [5, 6], "dates": ["2026-12-25", "2026-12-26"]}
    refused = organiser_client.post(
        f"/games/{game.pk}/calendar/",
        {
            "action": "calendar",
            "off_weekdays": [str(day) for day in range(7)],
            "absence_policy": "standby",
            "absence_days": "2",
        },
    )
    assert refused.status_code == 400
    assert Game.objects.get(pk=game.pk).absence_policy == "move"


def test_the_seats_away_on_a_day_for_the_standby_policy(game: Game) -> None:
    declare(game, 2, date(2026, 12, 2), date(2026, 12, 4))
    withdrawn = declare(game, 5, date(2026, 12, 3), date(2026, 12, 3))
    Absence.objects.filter(pk=withdrawn.pk).update(withdrawn_at=NOW)
    assert absences.absent_seats(game, DEADLINE) == {2}
    assert absences.absent_seats(game, DEADLINE + timedelta(days=2)) == set()


def test_the_absences_page_speaks_the_games_language(organiser) -> None:
    from .play import NAMES

    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        italian = services.start_game(
            services.create_game(organiser, name="Villaggio", seats=seats, options={}, seed=5, language="it")
        )
        page = text_of(
            Client().get(links.url_for(italian.players.get(seat=0), absolute=False) + "away/").content.decode()
        )
    assert "Le tue assenze" in page and "Primo giorno di assenza" in page and "ASSENTE dal 24 dicembre" in page
    assert "Your absences" not in page and "AWAY" not in page


def test_a_new_person_in_the_seat_does_not_inherit_the_days_away_of_the_one_who_left(game: Game) -> None:
    """The organiser's substitution of someone else withdraws the absences the seat's
    person declared (they would move deadlines, or call a standby, for the newcomer); the
    same person at a fixed address keeps them."""
    later = declare(game, 2, date(2026, 12, 20), date(2026, 12, 22))
    player = game.players.get(seat=2)
    services.substitute_player(player, name=player.name, email="new-address@example.org")
    later.refresh_from_db()
    assert later.withdrawn_at is None
    services.substitute_player(player, name="Zelda", email="zelda@example.org", new_person=True)
    later.refresh_from_db()
    assert later.withdrawn_at is not None


def test_the_organisers_substitution_of_someone_else_withdraws_the_seats_absences(
    game: Game, organiser_client: Client
) -> None:
    kept = declare(game, 3, date(2026, 12, 20), date(2026, 12, 22))
    gone = declare(game, 2, date(2026, 12, 20), date(2026, 12, 22))
    same = game.players.get(seat=3)
    organiser_client.post(f"/games/{game.pk}/seats/3/substitute/", {"name": same.name, "email": "x@example.org"})
    organiser_client.post(f"/games/{game.pk}/seats/2/substitute/", {"name": "Zelda", "email": "z@example.org"})
    kept.refresh_from_db()
    gone.refresh_from_db()
    assert game.players.get(seat=2).name == "Zelda"
    assert kept.withdrawn_at is None and gone.withdrawn_at is not None
