"""The calendar's arithmetic (werewolf/games/calendar.py) and the absence lines players
write (werewolf/games/dates.py), tested as pure functions: one test per rule."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from werewolf.games import calendar, dates
from werewolf.games.calendar import Away, DaysOff

ROME = ZoneInfo("Europe/Rome")
WEEKEND = DaysOff(frozenset({5, 6}))


def rome(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=ROME)


def test_a_deadline_on_a_working_day_stays() -> None:
    friday = rome(2026, 12, 4, 18, 30)
    assert calendar.working(friday, ROME, WEEKEND) == friday
    assert calendar.place(friday, ROME, WEEKEND).deadline == friday


def test_a_deadline_on_a_weekend_moves_to_monday_at_the_same_hour() -> None:
    saturday = rome(2026, 12, 5, 18, 30)
    assert calendar.working(saturday, ROME, WEEKEND) == rome(2026, 12, 7, 18, 30)


def test_holidays_and_weekends_combine() -> None:
    off = DaysOff(frozenset({5, 6}), frozenset({date(2026, 12, 25), date(2026, 12, 28)}))
    christmas = rome(2026, 12, 25, 9, 0)  # a Friday; then the weekend, then the 28th
    assert calendar.working(christmas, ROME, off) == rome(2026, 12, 29, 9, 0)


def test_the_hour_is_the_games_wall_clock_across_a_change_of_summer_time() -> None:
    saturday = rome(2026, 10, 24, 20, 0)  # summer time; Monday the 26th is winter time
    moved = calendar.working(saturday.astimezone(UTC), ROME, WEEKEND)
    assert moved.astimezone(ROME).replace(tzinfo=None) == datetime(2026, 10, 26, 20, 0)
    assert moved - saturday == timedelta(hours=49)  # two days and the hour given back


def test_a_calendar_without_any_working_day_is_ignored_rather_than_looping() -> None:
    every = DaysOff(frozenset(range(7)))
    deadline = rome(2026, 12, 5, 18, 0)
    assert calendar.working(deadline, ROME, every) == deadline


def test_an_absence_moves_the_deadline_to_the_day_after_it_and_charges_the_days() -> None:
    deadline = rome(2026, 12, 24, 21, 0)
    away = Away(seat=3, start=date(2026, 12, 23), end=date(2026, 12, 26), key=7)
    placed = calendar.place(deadline, ROME, DaysOff(), [away], {3: 5})
    assert placed.deadline == rome(2026, 12, 27, 21, 0)
    assert placed.charged == {7: 3} and placed.by_absence


def test_an_absence_moves_a_deadline_only_as_far_as_the_players_days_left() -> None:
    deadline = rome(2026, 12, 24, 21, 0)
    away = Away(seat=3, start=date(2026, 12, 24), end=date(2026, 12, 30), key=7)
    placed = calendar.place(deadline, ROME, DaysOff(), [away], {3: 2})
    assert placed.deadline == rome(2026, 12, 26, 21, 0) and placed.charged == {7: 2}
    spent = calendar.place(deadline, ROME, DaysOff(), [away], {3: 0})
    assert spent.deadline == deadline and not spent.by_absence


def test_an_absence_that_does_not_cover_the_deadline_moves_nothing() -> None:
    deadline = rome(2026, 12, 22, 21, 0)
    away = Away(seat=3, start=date(2026, 12, 23), end=date(2026, 12, 26), key=7)
    assert calendar.place(deadline, ROME, DaysOff(), [away], {3: 3}) == calendar.Placed(deadline, {})


def test_a_deadline_moved_past_an_absence_avoids_the_days_off_again() -> None:
    deadline = rome(2026, 12, 3, 12, 0)  # a Thursday; the absence ends on Friday
    away = Away(seat=0, start=date(2026, 12, 3), end=date(2026, 12, 4), key=1)
    placed = calendar.place(deadline, ROME, WEEKEND, [away], {0: 3})
    assert placed.deadline == rome(2026, 12, 7, 12, 0) and placed.charged == {1: 2}  # the weekend is free


def test_two_players_absences_one_after_the_other_both_move_it() -> None:
    deadline = rome(2026, 12, 10, 12, 0)
    first = Away(seat=0, start=date(2026, 12, 9), end=date(2026, 12, 10), key=1)
    second = Away(seat=1, start=date(2026, 12, 11), end=date(2026, 12, 11), key=2)
    placed = calendar.place(deadline, ROME, DaysOff(), [second, first], {0: 3, 1: 3})
    assert placed.deadline == rome(2026, 12, 12, 12, 0) and placed.charged == {1: 1, 2: 1}


def test_a_pause_moves_the_deadline_on_by_its_length() -> None:
    deadline = rome(2026, 12, 3, 12, 0)
    paused = rome(2026, 12, 2, 9, 0)
    assert calendar.resumed(deadline, paused, paused + timedelta(hours=50)) == deadline + timedelta(hours=50)


def test_days_off_read_back_what_they_write() -> None:
    off = DaysOff(frozenset({6}), frozenset({date(2026, 12, 25)}))
    assert DaysOff.from_json(off.to_json()) == off
    assert DaysOff.from_json({"weekdays": [9, "x", 1], "dates": ["nope", "2026-01-06"]}) == DaysOff(
        frozenset({1}), frozenset({date(2026, 1, 6)})
    )


TODAY = date(2026, 11, 27)
DEC_24_27 = dates.Span(date(2026, 12, 24), date(2026, 12, 27))


@pytest.mark.parametrize(
    "text",
    [
        "AWAY 24 December to 27 December",
        "away 24 december - 27 december",
        "AWAY: 24/12 - 27/12",
        "AWAY 24.12.2026 to 27.12.2026",
        "AWAY from 24 to 27 December",
        "AWAY December 24 - December 27",
        "AWAY Thursday 24 December until Sunday 27 December",
        "ASSENTE dal 24 dicembre al 27 dicembre",
        "assente dal 24 al 27 dicembre",
        "ASSENTE 24/12 - 27/12",
        "ASSENTE dal 24 dic fino al 27 dic",
        "ASSENTE 2026-12-24 al 2026-12-27",
    ],
)
def test_an_absence_is_read_in_either_language(text: str) -> None:
    assert dates.read(text, TODAY) == dates.Request(dates.AWAY, DEC_24_27)


def test_a_single_day_and_the_year_it_falls_in() -> None:
    assert dates.read("AWAY 24 December", TODAY).span == dates.Span(date(2026, 12, 24), date(2026, 12, 24))
    assert dates.read("ASSENTE il 3 gennaio", TODAY).span == dates.Span(date(2027, 1, 3), date(2027, 1, 3))
    across = dates.read("AWAY 30 December to 2 January", TODAY).span
    assert across == dates.Span(date(2026, 12, 30), date(2027, 1, 2))


def test_withdrawing_reads_with_or_without_dates() -> None:
    assert dates.read("NOT AWAY", TODAY) == dates.Request(dates.NOT_AWAY, None)
    assert dates.read("NON ASSENTE 24 dicembre", TODAY).span == dates.Span(date(2026, 12, 24), date(2026, 12, 24))


@pytest.mark.parametrize(
    "text,code",
    [
        ("AWAY next week", "away_unreadable"),
        ("AWAY 31/02", "away_unreadable"),
        ("AWAY", "away_unreadable"),
        ("AWAY 24 Decembrr", "away_unreadable"),
        ("AWAY 1 January 2026", "away_past"),
        ("AWAY 27/12/2026 - 24/12/2026", "away_order"),
        ("AWAY 1 December to 15 January", "away_too_long"),
        ("AWAY 1/1/2029", "away_too_far"),
        ("VOTE Ada", "away_unreadable"),
    ],
)
def test_bad_dates_are_refused_with_a_code(text: str, code: str) -> None:
    with pytest.raises(dates.DateError) as refused:
        dates.read(text, TODAY)
    assert refused.value.code == code
