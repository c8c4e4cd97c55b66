"""Reading an absence as a player writes it, by mail or on their page, in either language.

    AWAY 24 December to 27 December       ASSENTE dal 24 dicembre al 27 dicembre
    AWAY 24 December                      ASSENTE il 24 dicembre
    AWAY 24/12 - 27/12                    ASSENTE 24/12 - 27/12
    AWAY 24 to 27 December                ASSENTE dal 24 al 27 dicembre
    AWAY December 24 - January 2, 2027    ASSENTE 2026-12-24 al 2027-01-02
    NOT AWAY (every absence to come)      NON ASSENTE 24 dicembre (the one that day)

Numbers are day then month. A date without a year is the next such day from today (an
end before its start is in the next year). Month and weekday names are read in both
languages whatever the game's, as notecard words are (engine/grammar.py's ALIASES holds
the Italian words, ASSENTE and NON ASSENTE, read as AWAY and NOT AWAY). What is wrong
is named by a code, which templates turn into words: `away_unreadable`, `away_past`,
`away_order` (the end before the start), `away_too_long`, `away_too_far`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date, timedelta

from werewolf.engine.grammar import ALIASES

AWAY = "AWAY"
NOT_AWAY = "NOT AWAY"
WORDS = (AWAY, NOT_AWAY)
"""The words that open an absence (English; the Italian ones are grammar.ALIASES')."""

MAX_DAYS = 31
"""The longest absence one line declares."""
MAX_AHEAD = 366
"""How far ahead an absence may start."""

MONTHS = {
    **{
        name: number
        for number, names in enumerate(
            [
                ("january", "jan", "gennaio", "gen"),
                ("february", "feb", "febbraio"),
                ("march", "mar", "marzo"),
                ("april", "apr", "aprile"),
                ("may", "maggio", "mag"),
                ("june", "jun", "giugno", "giu"),
                ("july", "jul", "luglio", "lug"),
                ("august", "aug", "agosto", "ago"),
                ("september", "sep", "sept", "settembre", "set"),
                ("october", "oct", "ottobre", "ott"),
                ("november", "nov", "novembre"),
                ("december", "dec", "dicembre", "dic"),
            ],
            start=1,
        )
        for name in names
    }
}
WEEKDAYS = {
    "monday", "mon", "tuesday", "tue", "tues", "wednesday", "wed", "thursday", "thu", "thur", "thurs",
    "friday", "fri", "saturday", "sat", "sunday", "sun",
    "lunedi", "lun", "martedi", "mercoledi", "mer", "giovedi", "gio", "venerdi", "ven", "sabato", "sab",
    "domenica", "dom",
}  # fmt: skip
"""Weekday names a date may start with: read past (the date says the day)."""

_LEAD = re.compile(r"^(?:(?:from|on|the|dalla|dallo|dal|dai|da|del|di|il|lo)\s+|dall'|l')")
_RANGE = re.compile(
    r"\s*[-\u2013\u2014]\s*|\s+(?:to|until|till|through|thru|fino\s+al|fino\s+a|fino|al|allo|a)\s+|\s+all'\s*"
)
_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_NUMERIC = re.compile(r"^(\d{1,2})\s*[/.]\s*(\d{1,2})(?:\s*[/.]\s*(\d{2}|\d{4}))?$")
_DAY_MONTH = re.compile(r"^(\d{1,2})(?:st|nd|rd|th|°|º)?\s*(?:of\s+)?([a-z]+)\.?(?:,?\s+(\d{4}))?$")
_MONTH_DAY = re.compile(r"^([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?$")
_DAY = re.compile(r"^(\d{1,2})(?:st|nd|rd|th|°|º)?$")


@dataclass(frozen=True)
class Span:
    """Days away, `start` to `end` inclusive."""

    start: date
    end: date

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1


@dataclass(frozen=True)
class Request:
    """What an absence line asks: `word` AWAY (declare `span`) or NOT AWAY (withdraw the
    absences that meet `span`, or every one to come when it is None)."""

    word: str
    span: Span | None


@dataclass(eq=False)
class DateError(Exception):
    """An absence that cannot be taken; `code` picks the words that say what to write."""

    code: str


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def word_of(text: str) -> tuple[str, str] | None:
    """The absence word `text` opens with (AWAY or NOT AWAY, in either language) and the
    rest of its first line; None when it opens with neither."""
    line = " ".join((text.strip().splitlines() or [""])[0].split())
    spellings = [(word, word) for word in WORDS]
    spellings += [(alias, english) for alias, english in ALIASES.items() if english in WORDS]
    for spelling, english in sorted(spellings, key=lambda pair: len(pair[0]), reverse=True):
        if line.upper() == spelling or line.upper().startswith((spelling + " ", spelling + ":")):
            return english, line[len(spelling) :].lstrip(" :")
    return None


def read(text: str, today: date) -> Request:
    """The absence line `text` means, as of `today` on the game's clock, or `DateError`.
    A line that does not open with an absence word is `away_unreadable`."""
    opened = word_of(text)
    if opened is None:
        raise DateError("away_unreadable")
    word, rest = opened
    if word == NOT_AWAY and not rest.strip(" .!"):
        return Request(word, None)
    span = read_span(rest, today)
    if word == AWAY:
        check(span, today)
    return Request(word, span)


def check(span: Span, today: date) -> None:
    """Refuse an absence that cannot be declared now (`DateError`)."""
    if span.end < span.start:
        raise DateError("away_order")
    if span.start < today:
        raise DateError("away_past")
    if span.days > MAX_DAYS:
        raise DateError("away_too_long")
    if span.start > today + timedelta(days=MAX_AHEAD):
        raise DateError("away_too_far")


def read_span(text: str, today: date) -> Span:
    """One day or two, as written after the absence word."""
    folded = fold(text).strip(" .!")
    folded = _ISO.sub(lambda found: f"{found[3]}/{found[2]}/{found[1]}", folded)
    folded = _LEAD.sub("", folded)
    parts = [part.strip(" ,.") for part in _RANGE.split(folded, maxsplit=1)]
    parts = [_LEAD.sub("", _weekday_off(part)).strip(" ,.") for part in parts]
    if not parts or not parts[0] or len(parts) > 2 or (len(parts) == 2 and not parts[1]):
        raise DateError("away_unreadable")
    if len(parts) == 1:
        day, month, year = _date_parts(parts[0])
        if month is None:
            raise DateError("away_unreadable")
        start = _dated(day, month, year, today)
        return Span(start, start)
    end_day, end_month, end_year = _date_parts(parts[1])
    if end_month is None:
        raise DateError("away_unreadable")
    day, month, year = _date_parts(parts[0])
    if month is None:  # "24 to 27 December": the month (and year) of the end
        month, year = end_month, year or end_year
    start = _dated(day, month, year, today)
    end = _dated(end_day, end_month, end_year, start)
    if end < start and end_year is None:
        end = _dated(end_day, end_month, start.year + 1, start)
    return Span(start, end)


def _weekday_off(part: str) -> str:
    words = part.split()
    while words and words[0].rstrip(",.") in WEEKDAYS:
        words = words[1:]
    return " ".join(words)


def _date_parts(text: str) -> tuple[int, int | None, int | None]:
    """Day, month (None: a day alone) and year (None: not written)."""
    for pattern, order in ((_NUMERIC, "dmy"), (_DAY_MONTH, "dMy"), (_MONTH_DAY, "Mdy")):
        found = pattern.match(text)
        if found is None:
            continue
        values = dict(zip(order, found.groups(), strict=True))
        month_text = values.get("m") or values.get("M") or ""
        month = int(month_text) if month_text.isdigit() else MONTHS.get(month_text)
        if month is None:
            raise DateError("away_unreadable")
        year_text = values.get("y")
        year = None if not year_text else int(year_text) + (2000 if len(year_text) == 2 else 0)
        return int(values["d"]), month, year
    found = _DAY.match(text)
    if found is not None:
        return int(found[1]), None, None
    raise DateError("away_unreadable")


def _dated(day: int, month: int, year: int | None, after: date) -> date:
    """The date; without a year, the first such day on or after `after`."""
    try:
        if year is not None:
            return date(year, month, day)
        found = date(after.year, month, day) if _exists(after.year, month, day) else None
        if found is None or found < after:
            following = after.year + 1
            while not _exists(following, month, day):  # 29 February
                following += 1
                if following > after.year + 8:
                    raise DateError("away_unreadable")
            found = date(following, month, day)
        return found
    except ValueError:
        raise DateError("away_unreadable") from None


def _exists(year: int, month: int, day: int) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True
