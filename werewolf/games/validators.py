"""Checks of what an organiser types about the people who play: a name must fit a seat,
a mail header and a notecard; an address must be one a mail can go to.

The game form and the substitute form both use these, so a name refused at creation is
refused at substitution too, with the same words.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import cache

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils.translation import gettext_lazy as _

from werewolf import engine
from werewolf.engine import grammar

from . import dates

NAME_MAX_LENGTH = 60
"""Player.name's max_length."""
EMAIL_MAX_LENGTH = 254
"""Player.email's max_length (an EmailField's)."""

_NUMBER = re.compile(r"[0-9]{1,9}")
_MARKUP = frozenset("<>")

MESSAGES = {
    "empty": _("A player needs a name."),
    "too_long": _("“%(name)s” is too long: a name may have at most %(max)s characters."),
    "control": _("“%(name)s” holds a line break, a tab or another invisible character: write the name on one line."),
    "markup": _("“%(name)s” holds “<” or “>”: leave them out of a name."),
    "separator": _(
        "“%(name)s” cannot be written on a notecard: commas, semicolons, “>” and the words “and” and “then” "
        "separate names there. Write the name without them."
    ),
    "keyword": _("“%(name)s” would be read as the notecard word %(word)s: choose a name that does not begin with it."),
    "unwritable": _("“%(name)s” cannot be written on a notecard: choose a name of letters, digits and spaces."),
    "look_alike": _("%(first)s and %(second)s look the same on a notecard: make them differ in more than accents."),
    "same_name": _("Two players are called “%(name)s”: names must differ."),
    "taken": _("Another seat already has the name “%(name)s”."),
    "email": _("“%(email)s” is not an email address."),
    "email_too_long": _("“%(email)s” is too long: an email address may have at most %(max)s characters."),
}


def ascii_number(value: str) -> int | None:
    """`value` as a number if it is one to nine ASCII digits, else None. (`str.isdigit`
    is true for "²", which `int` refuses.)"""
    return int(value) if isinstance(value, str) and _NUMBER.fullmatch(value) else None


def clean_player_name(value: str) -> str:
    """A player's name as it will be kept, runs of spaces folded to one (a card folds
    them too), or `ValidationError`: the name must fit a seat (60 characters), a mail
    header (no line breaks nor other control characters, no angle brackets) and a
    notecard (no separator, no notecard word at its start, readable by the grammar)."""
    if any(_invisible(char) for char in value):
        raise ValidationError(MESSAGES["control"], code="control", params={"name": _shown(value)})
    name = " ".join(value.split())
    params = {"name": name, "max": NAME_MAX_LENGTH}
    if not name:
        raise ValidationError(MESSAGES["empty"], code="empty")
    if len(name) > NAME_MAX_LENGTH:
        raise ValidationError(MESSAGES["too_long"], code="too_long", params=params)
    if _MARKUP & set(name):
        raise ValidationError(MESSAGES["markup"], code="markup", params=params)
    words = grammar.grammar()  # every ruleset's words: a name may sit at any game's table
    if grammar.SEPARATORS.search(name) or words.clause(name):
        raise ValidationError(MESSAGES["separator"], code="separator", params=params)
    keyword, _rest = words.keyword(name)
    if keyword is not None:
        raise ValidationError(MESSAGES["keyword"], code="keyword", params={**params, "word": keyword.word})
    asked = grammar.command(name)
    if asked is not None:  # a mail holding only the name would be read as HELP or STATUS
        raise ValidationError(MESSAGES["keyword"], code="keyword", params={**params, "word": asked.upper()})
    away = dates.word_of(name)
    if away is not None:  # a mail opening with the name would be read as an absence (AWAY, ASSENTE)
        raise ValidationError(MESSAGES["keyword"], code="keyword", params={**params, "word": away[0]})
    if not _readable(name):
        raise ValidationError(MESSAGES["unwritable"], code="unwritable", params=params)
    return name


def clean_email(value: str) -> str:
    """An address a mail can go to, or `ValidationError`."""
    email = value.strip()
    params = {"email": email, "max": EMAIL_MAX_LENGTH}
    if len(email) > EMAIL_MAX_LENGTH:
        raise ValidationError(MESSAGES["email_too_long"], code="email_too_long", params=params)
    if any(_invisible(char) for char in email):
        raise ValidationError(MESSAGES["email"], code="email", params={"email": _shown(email)})
    try:
        validate_email(email)
    except ValidationError:
        raise ValidationError(MESSAGES["email"], code="email", params=params) from None
    return email


def validate_one_line(value: str) -> None:
    """A line of text that goes into a mail's subject (a game's name): no line breaks
    nor other invisible characters."""
    if any(_invisible(char) for char in value):
        raise ValidationError(MESSAGES["control"], code="control", params={"name": _shown(value)})


def check_distinct(names: Iterable[str]) -> None:
    """`ValidationError` if two names are the same, or the same once case and accents
    are ignored, as the notecard grammar reads them (Zoe and Zoë, Ann and ANN)."""
    seen: dict[str, str] = {}
    for name in names:
        key = notecard_key(name)
        if key in seen:
            first = seen[key]
            if first.casefold() == name.casefold():
                raise ValidationError(MESSAGES["same_name"], code="same_name", params={"name": name})
            raise ValidationError(MESSAGES["look_alike"], code="look_alike", params={"first": first, "second": name})
        seen[key] = name


def check_new_name(name: str, others: Iterable[str]) -> None:
    """`ValidationError` if a new name (a substitute's) reads on a notecard as one of
    the other seats' names."""
    key = notecard_key(name)
    for other in others:
        if notecard_key(other) == key:
            if other.casefold() == name.casefold():
                raise ValidationError(MESSAGES["taken"], code="taken", params={"name": other})
            raise ValidationError(MESSAGES["look_alike"], code="look_alike", params={"first": other, "second": name})


def notecard_key(name: str) -> str:
    """The name as a notecard reads it: the grammar's own folding of case and accents."""
    return grammar.fold(" ".join(name.split()))


def _invisible(char: str) -> bool:
    """Control, format, private and unassigned characters, and line and paragraph
    separators: nothing a mail header or a notecard can carry (spaces are fine)."""
    category = unicodedata.category(char)
    return category[0] == "C" or category in ("Zl", "Zp")


def _shown(text: str) -> str:
    """The text with its invisible characters made visible, to quote in a message."""
    return "".join("\N{REPLACEMENT CHARACTER}" if _invisible(char) else char for char in text)[:NAME_MAX_LENGTH]


def _readable(name: str) -> bool:
    """Whether the grammar reads the name back as its seat, alone and after each
    keyword of a card that takes names."""
    if not notecard_key(name):
        return False
    probes = _probes()
    try:
        alone = grammar.read_card(name, [name], probes[0][1]).targets == (0,)
        return alone and all(grammar.read_card(f"{word} {name}", [name], slot).targets == (0,) for word, slot in probes)
    except grammar.CardError:
        return False


@cache
def _probes() -> list[tuple[str, engine.Slot]]:
    """A slot naming seat 0 for each word of a card whose first field takes names, of
    every ruleset."""
    probes: dict[str, engine.Slot] = {}
    for card in grammar.grammar().cards:
        if card.fields and card.fields[0].refers == "seat" and card.word not in probes:
            probes[card.word] = engine.Slot(card, tuple((0,) for _ in card.fields))
    return list(probes.items())
