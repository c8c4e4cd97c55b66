"""The forms of a game's calendar: the organiser's settings (days off, what an absence
does) and a player's absence. Their words are in the templates and the catalogue."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from django import forms
from django.utils.dates import WEEKDAYS
from django.utils.translation import gettext_lazy as _

from . import calendar, dates
from .models import AbsencePolicy, Game, VoteCounts

OFFERED_POLICIES = [
    (AbsencePolicy.NOTHING.value, AbsencePolicy.NOTHING.label),
    (AbsencePolicy.MOVE.value, AbsencePolicy.MOVE.label),
    (AbsencePolicy.STANDBY.value, AbsencePolicy.STANDBY.label),
]
"""The policies the form offers (every one: `AbsencePolicy`)."""
MOST_DAYS = 30
"""The most days a game may let absences move deadlines, per player."""
MOST_DATES = 100
_DATE_SEPARATORS = re.compile(r"[\s,;]+")


class CalendarForm(forms.Form):
    """What the game's calendar does: weekdays and dates without deadlines, what an
    absence does, how many days absences may move deadlines per player, and how often
    the square is told the vote count."""

    off_weekdays = forms.TypedMultipleChoiceField(
        label=_("Weekdays without deadlines"),
        choices=[(number, WEEKDAYS[number]) for number in range(7)],
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("A deadline that would fall on one moves to the next other day, at the same hour."),
    )
    off_dates = forms.CharField(
        label=_("Dates without deadlines"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Holidays, as 2026-12-25 or 25/12/2026, separated by spaces or commas."),
    )
    absence_policy = forms.ChoiceField(label=_("What a player's absence does"), choices=OFFERED_POLICIES)
    absence_days = forms.IntegerField(
        label=_("Days absences may move deadlines, per player and game"),
        min_value=0,
        max_value=MOST_DAYS,
        help_text=_("So that nobody holds the game up for long. Used only when absences move deadlines."),
    )
    vote_count_hours = forms.TypedChoiceField(
        label=_("Vote counts in the square"),
        choices=VoteCounts.choices,
        coerce=int,
        required=False,
        empty_value=None,  # (left out: as it was)
        help_text=_(
            "During an open day vote, the square is told who votes for whom, who has not voted and how many votes"
            " make a majority: at this interval from the day's opening, and once more as the vote closes."
        ),
    )

    @classmethod
    def for_game(cls, game: Game, data: Any = None) -> CalendarForm:
        off = calendar.DaysOff.from_json(game.days_off)
        policy = game.absence_policy if game.absence_policy in dict(OFFERED_POLICIES) else AbsencePolicy.NOTHING
        initial = {
            "off_weekdays": sorted(off.weekdays),
            "off_dates": " ".join(day.isoformat() for day in sorted(off.dates)),
            "absence_policy": policy,
            "absence_days": game.absence_days,
            "vote_count_hours": game.vote_count_hours,
        }
        return cls(data, initial=initial)

    def clean_off_weekdays(self) -> list[int]:
        days = sorted(set(self.cleaned_data.get("off_weekdays") or []))
        if len(days) == 7:
            raise forms.ValidationError(_("Leave at least one weekday for deadlines."), code="every_day_off")
        return days

    def clean_off_dates(self) -> list[date]:
        found = []
        for text in _DATE_SEPARATORS.split(self.cleaned_data.get("off_dates", "").strip()):
            if not text:
                continue
            day = _day(text)
            if day is None:
                raise forms.ValidationError(
                    _("“%(text)s” is not a date: write it as 2026-12-25 or 25/12/2026."),
                    code="bad_date",
                    params={"text": text[:20]},
                )
            found.append(day)
        if len(found) > MOST_DATES:
            raise forms.ValidationError(_("That is too many dates."), code="too_many_dates")
        return sorted(set(found))

    def days_off(self) -> calendar.DaysOff:
        return calendar.DaysOff(frozenset(self.cleaned_data["off_weekdays"]), frozenset(self.cleaned_data["off_dates"]))


def _day(text: str) -> date | None:
    """A date written 2026-12-25 or 25/12/2026 (or 25.12.2026)."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        pass
    parts = re.fullmatch(r"(\d{1,2})[/.](\d{1,2})[/.](\d{4})", text)
    if parts is None:
        return None
    try:
        return date(int(parts[3]), int(parts[2]), int(parts[1]))
    except ValueError:
        return None


class AwayForm(forms.Form):
    """A player's absence: its first and last day (the last left out: one day)."""

    start = forms.DateField(label=_("First day away"), widget=forms.DateInput(attrs={"type": "date"}))
    end = forms.DateField(
        label=_("Last day away"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=_("Leave it empty for one day."),
    )

    def span(self) -> dates.Span:
        start = self.cleaned_data["start"]
        return dates.Span(start, self.cleaned_data.get("end") or start)
