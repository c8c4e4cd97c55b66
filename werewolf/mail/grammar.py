"""The notecard grammar: what a player writes on a card, read into an order.

    KILL Ada, Bruno        a wolf's preference list, most wanted first
    INQUIRE Ada            the Seer's one name
    PROTECT Ada            the Herbalist's doorstep (Princeton wolfsbane)
    SHOOT Ada              the Vigilante's one shot
    PAIR Ada, Bruno        Cupid's two Lovers, on the first night
    KILL Ada SWAP Bo, Cy   in Dark City, a wolf's list and the two cards to swap
    SLEEP                  no action
    VOTE Ada / NO VOTE     a day vote, or none

The keyword may be left out: names alone are read as the card the phase asks of the
seat. Names match a seat's name ignoring case and accents, or a unique beginning of it.
The organiser types paper cards in with it; mailed orders are read with it too. A text
longer than MAX_CARD_CHARS is no card (`too_long`), so reading one costs little.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from werewolf import engine

KEYWORDS = {
    "kill": "kill",
    "inquire": "inquire",
    "protect": "protect",
    "shoot": "shoot",
    "pair": "pair",
    "sleep": "sleep",
    "vote": "vote",
    "no vote": "no vote",
    "novote": "no vote",
    "abstain": "no vote",
}
MAX_CARD_CHARS = 2000  # a notecard holds a few names: a longer text is not a card
_SEPARATORS = re.compile(r"\s*(?:,|;|\bthen\b|\band\b|>|\n)\s*", re.IGNORECASE)


@dataclass(eq=False)  # not frozen: raising sets __traceback__ (and context managers too)
class CardError(Exception):
    """A card that could not be read: `code` picks the message; `text` is the part at
    fault; `candidates` are the names it could mean."""

    code: str
    text: str = ""
    candidates: tuple[str, ...] = ()


_SWAP = re.compile(r"\bswap\b:?", re.IGNORECASE)


def read_card(text: str, names: Sequence[str], slot: engine.Slot | None) -> engine.Order:
    """The order a card's text means for a seat asked for `slot`, or `CardError`. A
    Dark City wolf's card may carry a SWAP clause after (or instead of) its list."""
    words = "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())
    if not words:
        raise CardError("empty_card")
    if len(words) > MAX_CARD_CHARS:
        raise CardError("too_long", words[:40])
    found = _SWAP.search(words)
    if found:
        head, tail = words[: found.start()].strip(), words[found.end() :].strip()
        swap = tuple(find_seat(part, names) for part in _SEPARATORS.split(tail) if part)
        if not swap:
            raise CardError("no_name", "SWAP")
        main = read_card(head, names, slot) if head else engine.Order("kill")
        return engine.Order("kill" if main.kind == "sleep" else main.kind, main.targets, swap)
    keyword, rest = _keyword(words)
    if keyword is None:
        if slot is None or slot.kind == "sleep":
            raise CardError("unknown_keyword", words.split()[0])
        keyword = slot.kind
    if keyword in ("sleep", "no vote"):
        if rest:
            raise CardError("extra_words", rest)
        return engine.Order("sleep") if keyword == "sleep" else engine.Order("vote")
    targets = tuple(find_seat(part, names) for part in _SEPARATORS.split(rest) if part)
    if not targets:
        raise CardError("no_name", keyword.upper())
    return engine.Order(keyword, targets)  # type: ignore[arg-type]


def find_seat(text: str, names: Sequence[str]) -> int:
    """The seat whose name `text` means: exact, then a unique beginning, ignoring case
    and accents."""
    wanted = _fold(text)
    folded = [_fold(name) for name in names]
    exact = [seat for seat, name in enumerate(folded) if name == wanted]
    if len(exact) == 1:
        return exact[0]
    starts = [seat for seat, name in enumerate(folded) if name.startswith(wanted)]
    if len(starts) == 1:
        return starts[0]
    if starts:
        raise CardError("ambiguous_name", text, tuple(names[seat] for seat in starts))
    raise CardError("unknown_name", text)


def _keyword(words: str) -> tuple[str | None, str]:
    lowered = words.lower()
    for spelling in sorted(KEYWORDS, key=len, reverse=True):
        if lowered == spelling or lowered.startswith((spelling + " ", spelling + ":", spelling + "\n")):
            return KEYWORDS[spelling], words[len(spelling) :].lstrip(" :\n")
    return None, words


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.strip().casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))
