"""What a player wrote in a reply, and the cards in it.

A reply holds the player's new text and, usually, the mail it answers. Clients quote
that mail in three shapes, in whatever language the player uses:

- lines marked with ">" (Gmail, Apple Mail, Thunderbird...), under a one-line header
  such as "On <date>, <name> <address> wrote:", which a phone may wrap over two or
  three lines;
- a block of header lines without any mark ("From: / Sent: / To: / Subject:", or
  "Von: / Gesendet:", "De : / Envoyé :"...: Outlook), with the old mail below it;
- a separator line ("-----Original Message-----", or a rule of underscores).

Headers are recognised by their shape, never by a list of phrases: a line (or two or
three lines joined) that holds a date or a time and an address, or that a ">" quote
follows, and ends with a colon; or two or more "Label: value" lines in a row, one of
them holding a date or an address. Only the player's own text counts: above the
quote, or, when nothing is written above it (or nothing that may be a card: a
greeting such as "Hi,"), between and below ">"-marked lines too (a bottom-posted or
inline answer under a greeting). Unmarked quoted mail (Outlook's) is never read.

In the player's text a card starts on a line that starts with a notecard word (a
greeting above it is passed over) and ends at the end of that line; a wolf's list may
go on over the next lines only while they hold nothing but names. Without a notecard
word, a run of lines holding only names is the card. What follows (a sign-off such as
"Sent from my phone", a signature under "-- ") is never part of a card. A line that
opens with an absence word (AWAY, NOT AWAY: games/dates.py) is never a card either: it
is one of the reply's absence lines (`absence_lines`), read beside its card, wherever
it stands in the player's text.

We studied quotequail and mail-parser-reply: both recognise quote headers by phrases
listed per language (neither knows Norwegian; quotequail neither Italian), which is
the weakness this module avoids; quotequail's idea of joining wrapped header lines and
of counting "Label: value" lines is kept here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from werewolf.engine.grammar import SEPARATORS, CardError, Grammar, find_seat, fold
from werewolf.games import dates

MAX_LINES = 2000
"""Lines of a reply looked at: a card sits near the top of what the player wrote."""
MAX_HEADER_LINES = 3
"""A quote header wraps over at most this many lines."""
MAX_HEADER_CHARS = 400
MAX_CANDIDATES = 5
MAX_ABSENCE_LINES = 3
"""Absence lines read in one reply (a player writes one; two at most, to move one)."""

_DATE = re.compile(
    r"(?<!\d)(?:19|20)\d{2}(?!\d)"  # a year
    r"|(?<!\d)\d{1,2}[:.]\d{2}(?!\d)"  # a time
    r"|(?<!\d)\d{1,2}[./-]\d{1,2}[./-]\d{2,4}(?!\d)"  # a numeric date
)
_ADDRESS = re.compile(r"[^\s<>@\"']+@[^\s<>@\"']+\.[^\s<>@\"']+")
_LABEL = re.compile(r"^\*?[^\W\d_][\w .'-]{0,24}?\s?:\*?(?:\s+\S|$)")
_SEPARATOR = re.compile(r"^(?:-{2,}\s*[^-\s][^-]{0,60}?\s*-{2,}|_{8,}|-{8,})$")
_SIGNATURE = re.compile(r"^--\s?$")


@dataclass(frozen=True)
class Reply:
    """A reply's text split: `own` the lines the player wrote (in order), `cut` the text
    the player wrote on the first line of a quote header, before it (the card and
    "On ... wrote:" on one line), and whether anything was quoted at all."""

    own: tuple[str, ...]
    cut: str = ""
    quoted: bool = False


def _marked(line: str) -> bool:
    return line.lstrip().startswith(">")


def _ends_header(text: str) -> bool:
    return text.rstrip().endswith(":") and len(text) <= MAX_HEADER_CHARS


def _header_start(lines: Sequence[str], end: int) -> int | None:
    """Where a quote header ending at line `end` starts, if one does: the latest start
    (so a card written just above is not taken in) of up to three lines that end with a
    colon and hold a date or a time, and an address or a ">" quote right after."""
    if not _ends_header(lines[end]):
        return None
    following = next((line for line in lines[end + 1 :] if line.strip()), "")
    for start in range(end, max(-1, end - MAX_HEADER_LINES), -1):
        if start < end and not lines[start].strip():
            break
        text = " ".join(line.strip() for line in lines[start : end + 1])
        if len(text) > MAX_HEADER_CHARS:
            break
        if _DATE.search(text) and (_ADDRESS.search(text) or _marked(following)):
            return start
    return None


def _label_block(lines: Sequence[str], start: int) -> bool:
    """Whether a block of "Label: value" lines starts at `start`: two or more in a row,
    one of them holding a date or an address (Outlook's From/Sent/To/Subject, in any
    language)."""
    block = []
    for line in lines[start : start + 6]:
        if not _LABEL.match(line.strip()):
            break
        block.append(line)
    return len(block) >= 2 and any(_DATE.search(line) or _ADDRESS.search(line) for line in block)


def split(body: str, words: Grammar, names: Sequence[str]) -> Reply:
    """The player's own text in a reply's `body` (`words` and `names` tell a card
    written on a quote header's line from the header's own first words)."""
    lines = [line.replace("\u00a0", " ").rstrip() for line in body.splitlines()[:MAX_LINES]]
    first, header, marked = len(lines), None, False
    body_from = len(lines)  # where the quote's own lines start, under its header
    for number, line in enumerate(lines):
        stripped = line.strip()
        if _marked(line):
            first, marked, body_from = number, True, number
            # The line right above a ">" quote that ends with a colon is its header,
            # dated or not ("On Monday the moderator wrote:").
            written = [index for index in range(number) if lines[index].strip()]
            if written and _ends_header(lines[written[-1]]) and number - written[-1] <= 2:
                first = written[-1]
            break
        if _SEPARATOR.match(stripped) or _label_block(lines, number):
            first = number
            break
        start = _header_start(lines, number)
        if start is not None:
            first, header, body_from = start, start, number + 1
            marked = _marked(next((line for line in lines[number + 1 :] if line.strip()), ""))
            break
    quoted = first < len(lines)
    above = _until_signature(lines[:first])
    cut = ""
    if header is not None:
        dated = _DATE.search(lines[header])
        before = lines[header][: dated.start()].strip() if dated is not None else ""
        if before and (words.starts_with_word(before) or names_only(before.split()[0], names, exact=True)):
            cut = before
    if cut or (any(line.strip() for line in above) and (not marked or _holds_card(above, words, names))):
        return Reply(tuple(line.strip() for line in above), cut, quoted)
    if not marked:
        return Reply((), "", quoted)
    # Nothing above a ">" quote, or only words that are no card (a greeting: "Hi,"):
    # the answer is below it, or between its lines.
    greeting = [line.strip() for line in above if line.strip()]
    headers: set[int] = set()
    for number in range(body_from, len(lines)):
        start = _header_start(lines, number)
        if start is not None:
            headers.update(range(start, number + 1))
    below: list[str] = []
    for number in range(body_from, len(lines)):
        stripped = lines[number].strip()
        if _SIGNATURE.match(stripped):
            break
        if not (_marked(stripped) or _SEPARATOR.match(stripped) or number in headers):
            below.append(stripped)
    if greeting and not _holds_card(below, words, names):
        return Reply(tuple(line.strip() for line in above), "", quoted)
    return Reply((*greeting, "", *below) if greeting else tuple(below), "", quoted)


def _holds_card(lines: Sequence[str], words: Grammar, names: Sequence[str]) -> bool:
    """Whether any of `lines` may be a card or an absence: it starts with a notecard
    word or an absence word, or holds nothing but players' names."""
    return any(
        line.strip() and (words.starts_with_word(line.strip()) or _absence(line) or names_only(line, names))
        for line in lines
    )


def _absence(line: str) -> bool:
    return dates.word_of(line) is not None


def absence_lines(reply: Reply) -> list[str]:
    """The lines of the player's own text that open with an absence word (AWAY, NOT
    AWAY, in either language), in order: a greeting above them, or a card beside them,
    changes nothing."""
    return [line.strip() for line in reply.own if line.strip() and _absence(line)][:MAX_ABSENCE_LINES]


def holds_card(reply: Reply, words: Grammar, names: Sequence[str]) -> bool:
    """Whether the reply holds anything that may be a card, its absence lines aside (a
    greeting and an AWAY line hold none: the absence is the whole of it)."""
    own = [line for line in reply.own if not _absence(line)]
    return bool(reply.cut) or _holds_card(own, words, names)


def _until_signature(lines: Sequence[str]) -> list[str]:
    kept = []
    for line in lines:
        if _SIGNATURE.match(line.strip()):
            break
        kept.append(line)
    return kept


def names_only(line: str, names: Sequence[str], exact: bool = False) -> bool:
    """Whether `line` holds nothing but players' names (a unique beginning will do,
    unless `exact`)."""
    parts = [part for part in SEPARATORS.split(line.strip()) if part]
    if not parts:
        return False
    folded = {fold(name) for name in names}
    for part in parts:
        if exact:
            if fold(part) not in folded:
                return False
            continue
        try:
            find_seat(part, names)
        except CardError:
            return False
    return True


def card_texts(body: str, words: Grammar, names: Sequence[str]) -> list[str]:
    """The texts that may be the card of a reply whose text is `body`, best first."""
    return cards(split(body, words, names), words, names)


def cards(reply: Reply, words: Grammar, names: Sequence[str]) -> list[str]:
    """The texts that may be the reply's card, best first: each line starting with a
    notecard word, with the lines of names under it; then runs of lines of names alone;
    else the player's lines themselves (so that the refusal names what was written)."""
    own = ["" if _absence(line) else line for line in reply.own]  # (an absence is no card)
    if reply.cut:
        own.append("")  # the cut line is read on its own, below
    found: list[str] = []
    for number, line in enumerate(own):
        if line and words.starts_with_word(line):
            card = [line]
            for following in own[number + 1 :]:
                if not following or not names_only(following, names):
                    break
                card.append(following)
            found.append("\n".join(card))
    if reply.cut:
        found += _cut_cards(reply.cut, words, names)
    if not found:
        run: list[str] = []
        for line in [*own, ""]:
            if line and names_only(line, names):
                run.append(line)
            elif run:
                found.append("\n".join(run))
                run = []
    if not found:
        written = [line for line in own if line]
        plain = [line for line in written if not line.endswith((",", ":", "!", "?"))]
        found = plain or written
    return found[:MAX_CANDIDATES]


def _cut_cards(cut: str, words: Grammar, names: Sequence[str]) -> list[str]:
    """The card written on the same line as a quote header ("VOTE Ada On Mon, ... Ada
    <ada@...> wrote:"): the header's first words ("On Mon,") are cut from the end one
    by one, and the longest text whose names are all exact is the card."""
    parts = cut.split()
    for length in range(len(parts), 0, -1):
        text = " ".join(parts[:length])
        keyword, rest = words.keyword(text)
        if keyword is None:
            if names_only(text, names, exact=True):
                return [text]
        elif (keyword.alone and not rest) or (rest and names_only(rest, names, exact=True)):
            return [text]
    return [cut]
