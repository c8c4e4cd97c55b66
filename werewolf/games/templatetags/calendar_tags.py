"""Filters for a game's calendar: its days off in the reader's language."""

from __future__ import annotations

from datetime import date

from django import template
from django.utils.dates import WEEKDAYS

from werewolf.games.calendar import DaysOff

register = template.Library()


@register.filter
def weekday_names(days_off: DaysOff) -> list[str]:
    """The weekdays without deadlines, Monday first, named in the active language."""
    return [str(WEEKDAYS[day]) for day in sorted(days_off.weekdays)]


@register.filter
def off_dates(days_off: DaysOff) -> list[date]:
    """The dates without deadlines, soonest first."""
    return sorted(days_off.dates)
