"""Absences by mail (werewolf/mail/inbound.py, werewolf/games/absences.py): a reply that
opens with AWAY (ASSENTE in Italian) declares one, NOT AWAY (NON ASSENTE) withdraws;
either is answered to the seat alone; bad dates get an answer that says what to write,
nothing changed; and every one of those mails is kept, as every inbound mail is."""

from __future__ import annotations

from datetime import date, datetime
from unittest import mock
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from django.core.exceptions import ValidationError

from werewolf.games import services
from werewolf.games.models import Absence, AbsencePolicy, Event, Game, InboundMessage, Phase
from werewolf.games.validators import clean_player_name
from werewolf.mail import inbound

from ..web.play import NAMES, seat_roles, started_game
from .test_inbound import letter

pytestmark = pytest.mark.django_db(transaction=True)

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=ZoneInfo("UTC"))


def at_now():
    return mock.patch("django.utils.timezone.now", return_value=NOW)


@pytest.fixture
def game(organiser) -> Game:
    with at_now():
        return started_game(organiser, "By mail")


def italian_game(organiser) -> Game:
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    with at_now():
        game = services.create_game(
            organiser, name="Villaggio", seats=seats, options={}, seed=5, language="it", timezone_name="Europe/Rome"
        )
        return services.start_game(game)


def answer_to(game: Game, seat: int) -> str:
    player = game.players.get(seat=seat)
    return [message for message in mail.outbox if player.email in message.to[0]][-1].body


def test_an_absence_by_mail_is_noted_and_answered(game: Game) -> None:
    with at_now():
        kept = inbound.receive(letter(game, 2, "AWAY 24 December to 27 December\n\nThanks!"))
    assert kept.status == InboundMessage.Status.COMMAND and kept.code == "away_declared"
    (absence,) = Absence.objects.all()
    assert (absence.start, absence.end, absence.source) == (date(2026, 12, 24), date(2026, 12, 27), "mail")
    assert absence.player.seat == 2
    body = answer_to(game, 2)
    assert "Your absence is noted" in body and "absence moves no deadline" in body


def test_an_absence_by_mail_in_italian(organiser) -> None:
    game = italian_game(organiser)
    with at_now():
        kept = inbound.receive(letter(game, 3, "ASSENTE dal 24 dicembre al 27 dicembre"))
        assert kept.code == "away_declared"
        assert "La tua assenza è annotata" in answer_to(game, 3)
        kept = inbound.receive(letter(game, 3, "NON ASSENTE"))
    assert kept.code == "away_withdrawn"
    assert Absence.objects.get().withdrawn_at is not None
    assert "ritirate" in answer_to(game, 3)


@pytest.mark.parametrize(
    "line,code,said",
    [
        ("AWAY soon", "away_unreadable", "The dates could not be read."),
        ("AWAY 1 November 2026", "away_past", "starts before today"),
        ("AWAY 27/12/2026 - 24/12/2026", "away_order", "ends before it starts"),
        ("AWAY 1 December to 31 January", "away_too_long", "at most 31 days"),
        ("NOT AWAY", "no_absence", "nothing was withdrawn"),
    ],
)
def test_bad_dates_by_mail_say_what_to_write_and_change_nothing(game: Game, line: str, code: str, said: str) -> None:
    def state() -> tuple[int, int, list[datetime]]:
        return Absence.objects.count(), Event.objects.count(), list(Phase.objects.values_list("deadline", flat=True))

    before = state()
    with at_now():
        kept = inbound.receive(letter(game, 4, line))
    assert kept.status == InboundMessage.Status.REFUSED and kept.code == code
    assert InboundMessage.objects.filter(pk=kept.pk).exists() and bytes(kept.raw)  # kept, as every inbound mail
    assert before == (
        Absence.objects.count(),
        Event.objects.count(),
        list(Phase.objects.values_list("deadline", flat=True)),
    )
    body = answer_to(game, 4)
    assert said in body and "AWAY 24 December to 27 December" in body


def test_an_absence_by_mail_moves_the_deadline_under_the_move_policy(game: Game) -> None:
    Game.objects.filter(pk=game.pk).update(absence_policy=AbsencePolicy.MOVE)
    phase = game.current_phase()
    day = phase.deadline.astimezone(ZoneInfo("UTC")).date()
    raw = letter(game, 1, f"AWAY {day.day}/{day.month}")
    mail.outbox.clear()
    with at_now():
        kept = inbound.receive(raw)
    assert kept.code == "away_declared"
    phase.refresh_from_db()
    assert phase.deadline.date() > day
    moved = [message for message in mail.outbox if "moved past their absence" in message.body]
    assert len(moved) == game.players.count()
    (event,) = Event.objects.filter(kind="deadline_moved_away")
    assert set(event.data) == {"deadline", "local", "zone"}  # whose absence it was is nowhere


def test_a_name_that_reads_as_an_absence_is_refused() -> None:
    for name in ("Away", "Assente", "Not away"):
        with pytest.raises(ValidationError):
            clean_player_name(name)


def test_help_by_mail_says_how_to_declare_an_absence(game: Game) -> None:
    with at_now():
        kept = inbound.receive(letter(game, 2, "HELP"))
    assert kept.code == "help" and "AWAY 24 December to 27 December" in answer_to(game, 2)


def sleeper(game: Game) -> int:
    """A seat the first night asks for SLEEP (a villager's)."""
    return seat_roles(game).index("villager")


def test_a_card_and_an_absence_in_one_mail_both_count_each_confirmed(game: Game) -> None:
    seat = sleeper(game)
    with at_now():
        kept = inbound.receive(letter(game, seat, "SLEEP\nAWAY 24 December\n\nThanks!"))
    assert kept.status == InboundMessage.Status.APPLIED and kept.card == "SLEEP" and kept.away == "away_declared"
    (absence,) = Absence.objects.all()
    assert (absence.start, absence.end, absence.player.seat) == (date(2026, 12, 24), date(2026, 12, 24), seat)
    body = answer_to(game, seat)
    assert "your card is in: SLEEP" in body and "Your absence is noted:" in body and "24 Dec 2026" in body


def test_a_greeting_above_an_away_line_is_fine(game: Game) -> None:
    with at_now():
        kept = inbound.receive(letter(game, 2, "Hi, I will be away today.\n\nAWAY 24 December\n\nCheers,\nme"))
    assert kept.status == InboundMessage.Status.COMMAND and kept.code == "away_declared"
    assert Absence.objects.get().start == date(2026, 12, 24)
    body = answer_to(game, 2)
    assert "Your absence is noted:" in body and "notecard word" not in body


def test_an_away_line_that_cannot_be_read_is_said_so_wherever_it_stands(game: Game) -> None:
    with at_now():
        alone = inbound.receive(letter(game, 2, "Hello!\n\nAWAY next week, probably\n"))
    assert (alone.status, alone.code) == (InboundMessage.Status.REFUSED, "away_unreadable")
    body = answer_to(game, 2)
    assert "Your absence was not recorded, and nothing in the game was changed." in body
    assert "The dates could not be read." in body and "notecard word" not in body
    seat = sleeper(game)
    with at_now():
        both = inbound.receive(letter(game, seat, "SLEEP\nAWAY someday"))
    assert both.status == InboundMessage.Status.APPLIED and both.away == "away_unreadable"
    body = answer_to(game, seat)
    assert "your card is in: SLEEP" in body and "Your absence was not recorded." in body
    assert not Absence.objects.exists()


def test_an_away_line_in_the_quoted_mail_is_not_read(game: Game) -> None:
    seat = sleeper(game)
    quoted = "SLEEP\n\nOn Monday 30 November 2026, moderator <m@example.org> wrote:\n> AWAY 24 December\n"
    with at_now():
        kept = inbound.receive(letter(game, seat, quoted))
    assert kept.status == InboundMessage.Status.APPLIED and kept.away == ""
    assert not Absence.objects.exists()
