"""The notecard grammar: what a player writes on a card, read into an order.

    KILL Ada, Bruno        a wolf's preference list, most wanted first
    INQUIRE Ada            the Seer's one name
    PROTECT Ada            the Herbalist's doorstep (Princeton wolfsbane)
    SHOOT Ada              the Vigilante's one shot
    PAIR Ada, Bruno        Cupid's two Lovers, on the first night
    KILL Ada SWAP Bo, Cy   in Dark City, a wolf's list and the two cards to swap
    SLEEP                  no action
    VOTE Ada / NO VOTE     a day vote, or none
    KILL Ada BY Bruno      in Mafia, the kill and the mafioso who carries it out
    BLOCK Ada              a Roleblocker's card
    NO ELIMINATION         in Mafia, a day vote for nobody (not an abstention)

The words come from the ruleset's card schemas (`engine.Card.word`, `engine.Field.word`
for a card's other fields, SLEEP), so a new card is read without edits here: a card that
may be handed in empty and cannot be SLEEP (a vote) is also written NO VOTE (`NO` and
the card's word) or ABSTAIN. The keyword may be left out: names alone are read as the
card the phase asks of the seat. Names match a seat's name ignoring case and accents, or
a unique beginning of it; a Lupusburg house is its player's name (or a unique beginning)
and 1 or 2 (`PEEK Esm 1`). The organiser types paper cards in with it; mailed orders are
read with it too. A text longer than MAX_CARD_CHARS is no card (`too_long`), so reading
one costs little.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from werewolf import engine
from werewolf.engine import rulesets

MAX_CARD_CHARS = 2000  # a notecard holds a few names: a longer text is not a card
SEPARATORS = re.compile(r"\s*(?:,|;|\bthen\b|\band\b|>|\n)\s*", re.IGNORECASE)
"""What separates the names on a card."""
NO = "NO"
"""Written before a card's word, the card handed in empty (NO VOTE)."""
ABSTAIN = "ABSTAIN"
"""The card that may be handed in empty, handed in empty."""
COMMANDS = ("HELP", "STATUS")
"""Words a mail may hold instead of a card: HELP (how to write this seat's card, and
where) and STATUS (the seat's card as it stands, and the deadline)."""


ALIASES = {
    "UCCIDI": "KILL",
    "DORMI": "SLEEP",
    "VOTO": "VOTE",
    "VOTA": "VOTE",
    "NESSUN VOTO": "NO VOTE",
    "LINCIA": "LYNCH",
    "NESSUN LINCIAGGIO": "NO LYNCH",
    "INDAGA": "INQUIRE",
    "PROTEGGI": "PROTECT",
    "SPARA": "SHOOT",
    "UNISCI": "PAIR",
    "SCAMBIA": "SWAP",
    "GUFO": "OWL",
    "IMITA": "MIMIC",
    "LEGGI": "READ",
    "RISVEGLIA": "RAISE",
    "DONA": "GIVE",
    "BLOCCA": "BLOCK",
    "PER MANO DI": "BY",
    "NESSUNA ELIMINAZIONE": "NO ELIMINATION",
    "ACCUSA": "ACCUSE",
    "NESSUNA ACCUSA": "NO ACCUSE",
    "ANCHE": "ALSO",
    "SBIRCIA": "PEEK",
    "ARTIGLIA": "CLAW",
    "CAMBIA": "REDRAW",
    "GUARDA": "LOOK",
    "RICAMBIA": "BACK",
    "CHIEDI": "ASK",
    "MOSTRA": "SHOW",
    "SCOPA": "BROOM",
    "PUNTA": "BET",
    "TIENI": "KEEP",
    "METTI": "PLACE",
    "FORZIERE": "CHEST",
    "ASTENUTO": "ABSTAIN",
    "AIUTO": "HELP",
    "STATO": "STATUS",
    "ASSENTE": "AWAY",
    "NON ASSENTE": "NOT AWAY",
}
"""The Italian notecard words, each read as the English one beside it: a card may be
written in either language, whatever the game's (UCCIDI Ada, DORMI, VOTO Bruno)."""

SPOKEN: dict[str, dict[str, str]] = {"it": {}}
for _italian, _english in ALIASES.items():
    SPOKEN["it"].setdefault(_english, _italian)
"""The words a game in each language prints (pages, mails, paper) for each English one:
the first Italian word read as it (VOTO for VOTE, NESSUN VOTO for NO VOTE)."""


def spoken(word: str, language: str | None) -> str:
    """The notecard `word` (in English: KILL, NO VOTE) as the players of `language`
    write it (UCCIDI, NESSUN VOTO); a word without a translation stays as it is."""
    return SPOKEN.get((language or "").split("-")[0], {}).get(word.upper(), word) if word else word


def command(text: str) -> str | None:
    """The mail command `text` is (lowercase, in English), if it is one alone."""
    folded = " ".join(text.split()).rstrip(".!?").upper()
    folded = ALIASES.get(folded, folded)
    return folded.lower() if folded in COMMANDS else None


@dataclass(eq=False)  # not frozen: raising sets __traceback__ (and context managers too)
class CardError(Exception):
    """A card that could not be read: `code` picks the message; `text` is the part at
    fault; `candidates` are the names it could mean."""

    code: str
    text: str = ""
    candidates: tuple[str, ...] = ()


@dataclass(frozen=True)
class Word:
    """A keyword that opens a card: the `kind` it writes, its printed `word`, and
    whether it is the whole card (`alone`: SLEEP, NO VOTE; nothing may follow it)."""

    kind: str
    word: str
    alone: bool = False


@dataclass(frozen=True)
class Clause:
    """A keyword that opens one of a card's other fields (SWAP): the field's `name`, its
    printed `word`, and the kinds of the cards that have it, the ruleset's first first."""

    name: str
    word: str
    kinds: tuple[str, ...]


@dataclass(frozen=True)
class Verb:
    """A notecard word as the help lists it, with what its example needs: `names`, how
    many names follow it (0 for SLEEP), and `lead`, the card's word a field's word
    follows (KILL before SWAP). Its text is the word."""

    word: str
    names: int = 1
    lead: str = ""
    refers: str = "seat"
    """What its names name (`Field.refers`): a house is written as a name and 1 or 2."""

    def __str__(self) -> str:
        return self.word


@dataclass(frozen=True)
class Grammar:
    """The words of a set of card schemas, by their lowercase spellings."""

    cards: tuple[engine.Card, ...]
    words: dict[str, tuple[Word, ...]] = field(default_factory=dict)
    clauses: dict[str, Clause] = field(default_factory=dict)
    spellings: tuple[str, ...] = ()
    clause_pattern: re.Pattern[str] | None = None

    def keyword(self, text: str, slot: engine.Slot | None = None) -> tuple[Word | None, str]:
        """The keyword `text` starts with (the one meaning the slot's card, where a word
        means more than one), and the rest of the text; (None, text) without one."""
        lowered = text.lower()
        for spelling in self.spellings:
            if lowered == spelling or lowered.startswith((spelling + " ", spelling + ":", spelling + "\n")):
                meanings = self.words[spelling]
                meaning = next((word for word in meanings if slot is not None and word.kind == slot.kind), meanings[0])
                return meaning, text[len(spelling) :].lstrip(" :\n")
        return None, text

    def clause(self, text: str) -> re.Match[str] | None:
        """The first word in `text` that opens a card's other field (SWAP), if any."""
        return self.clause_pattern.search(text) if self.clause_pattern else None

    def starts_with_word(self, text: str) -> bool:
        """Whether `text` starts with a notecard word (a card's, or a field's)."""
        folded = " ".join(text.lower().split())
        return self.keyword(folded)[0] is not None or any(
            folded == word or folded.startswith((word + " ", word + ":")) for word in self.clauses
        )

    def card(self, kind: str) -> engine.Card | None:
        """The first schema of the card `kind`."""
        return next((card for card in self.cards if card.kind == kind), None)

    def spell(self, order: engine.Order) -> list[tuple[str, tuple[int, ...], str]]:
        """The order as it is written: each keyword with the values that follow it and
        what they name (`Field.refers`: the card's word first, then each other field's),
        the inverse of `read_card`."""
        card = self.card(order.kind)
        if card is None:
            return [(order.kind.upper(), order.targets, "seat")]
        if not order.targets and not order.more:
            return [(_blank_word(card) or card.word, (), "seat")]
        main = card.fields[0].refers if card.fields else "seat"
        spelled: list[tuple[str, tuple[int, ...], str]] = (
            [(card.word, order.targets, main)] if order.targets or not order.more else []
        )
        for name, values in order.more:
            written = card.field(name)
            word = written.word if written and written.word else name.upper()
            spelled.append((word, values, written.refers if written else "seat"))
        return spelled


@lru_cache(maxsize=64)
def grammar(ruleset: str | None = None, card: engine.Card | None = None) -> Grammar:
    """The words of `ruleset`'s cards (of every ruleset's, without one), SLEEP and, if
    given, the words of `card` too (a slot's card the ruleset does not list)."""
    cards: list[engine.Card] = []
    for source in [rulesets.get(ruleset)] if ruleset else list(rulesets.RULESETS.values()):
        cards += [known for known in source.cards if known not in cards]
    for extra in (engine.SLEEP, card):
        if extra is not None and extra not in cards:
            cards.append(extra)
    words: dict[str, list[Word]] = {}
    clauses: dict[str, Clause] = {}
    for known in cards:
        spellings = [(known.word, Word(known.kind, known.word, alone=not known.fields))]
        blank = _blank_word(known)
        if blank:
            word = Word(known.kind, blank, alone=True)
            spellings += [(blank, word), (blank.replace(" ", ""), word), (ABSTAIN, word)]
        for spelling, word in spellings:
            meanings = words.setdefault(spelling.lower(), [])
            if all(meaning.kind != word.kind for meaning in meanings):
                meanings.append(word)
        for other in known.fields:
            if other.word:
                found = clauses.get(other.word.lower())
                kinds = found.kinds if found else ()
                if known.kind not in kinds:
                    clauses[other.word.lower()] = Clause(other.name, other.word, (*kinds, known.kind))
    for alias, english in ALIASES.items():
        if english.lower() in words and alias.lower() not in words:
            words[alias.lower()] = list(words[english.lower()])
        if english.lower() in clauses and alias.lower() not in clauses:
            clauses[alias.lower()] = clauses[english.lower()]
    pattern = None
    if clauses:
        pattern = re.compile(
            r"\b(?:" + "|".join(re.escape(word) for word in sorted(clauses, key=len, reverse=True)) + r")\b:?",
            re.IGNORECASE,
        )
    return Grammar(
        cards=tuple(cards),
        words={spelling: tuple(meanings) for spelling, meanings in words.items()},
        clauses=clauses,
        spellings=tuple(sorted(words, key=len, reverse=True)),
        clause_pattern=pattern,
    )


def _blank_word(card: engine.Card) -> str:
    """NO and the card's word for a card that may be handed in empty; "" for any other."""
    return f"{NO} {card.word}" if card.may_be_empty else ""


def read_card(text: str, names: Sequence[str], slot: engine.Slot | None, ruleset: str | None = None) -> engine.Order:
    """The order a card's text means for a seat asked for `slot`, or `CardError`, in
    the words of `ruleset` (of every ruleset, without one). Clauses that open a card's
    other fields (a Dark City wolf's SWAP) may follow its list, or stand alone."""
    words = "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())
    if not words:
        raise CardError("empty_card")
    if len(words) > MAX_CARD_CHARS:
        raise CardError("too_long", words[:40])
    known = grammar(ruleset, slot.card if slot is not None else None)
    found = list(known.clause_pattern.finditer(words)) if known.clause_pattern else []
    if not found:
        return _read_main(words, names, slot, known)
    head = words[: found[0].start()].strip()
    more: dict[str, tuple[int, ...]] = {}
    clauses: list[Clause] = []
    for number, match in enumerate(found):
        clause = known.clauses[match.group(0).rstrip(":").lower()]
        end = found[number + 1].start() if number + 1 < len(found) else len(words)
        if clause.name in more:
            raise CardError("repeated_word", clause.word)
        written = _field(known, slot, clause)
        refers = written.refers if written else "seat"
        values = tuple(find(part, refers, names) for part in SEPARATORS.split(words[match.end() : end].strip()) if part)
        if not values:
            raise CardError("no_name", clause.word)
        more[clause.name] = values
        clauses.append(clause)
    owner = _owner(clauses, slot)
    main = _read_main(head, names, slot, known) if head else engine.Order(owner)
    kind = owner if main.kind == engine.SLEEP.kind else main.kind
    schema = known.card(kind)
    order = [written.name for written in schema.fields] if schema else []
    ranked = sorted(more.items(), key=lambda item: order.index(item[0]) if item[0] in order else len(order))
    targets = main.targets or more.get(engine.TARGETS, ())
    return engine.Order(kind, targets, tuple((name, values) for name, values in ranked if name != engine.TARGETS))


def labels_for(refers: str, names: Sequence[str]) -> Sequence[str]:
    """What a card writes for the things a field names (`Field.refers`): the seats'
    names; a Lupusburg house as its owner's name and its number, 1 or 2 ("Ada 2"); a
    coin's rank among those drawn as a number from 1, the highest."""
    if refers == "house":
        return [f"{name} {number}" for name in names for number in (1, 2)]
    if refers == "token":
        return [str(rank) for rank in range(1, KEEP_RANKS + 1)]
    return names


KEEP_RANKS = 3
"""How many ranks a `token` field may name (Lupusburg's bag: three coins drawn)."""


def _field(known: Grammar, slot: engine.Slot | None, clause: Clause) -> engine.Field | None:
    """The field a clause opens, on the slot's card if it has it, else on the first card
    that does."""
    if slot is not None and slot.card.field(clause.name):
        return slot.card.field(clause.name)
    for kind in clause.kinds:
        schema = known.card(kind)
        if schema is not None and schema.field(clause.name):
            return schema.field(clause.name)
    return None


def _owner(clauses: Iterable[Clause], slot: engine.Slot | None) -> str:
    """The kind of card the clauses belong to: the slot's, if it has their fields, else
    the first card that has the first of them."""
    clauses = list(clauses)
    if slot is not None and all(slot.card.field(clause.name) for clause in clauses):
        return slot.kind
    return clauses[0].kinds[0]


def _read_main(words: str, names: Sequence[str], slot: engine.Slot | None, known: Grammar) -> engine.Order:
    """A card without clauses: a keyword (or the slot's card, for names alone) and names."""
    keyword, rest = known.keyword(words, slot)
    if keyword is None:
        if slot is None or not slot.card.fields:
            raise CardError("unknown_keyword", words.split()[0])
        keyword = Word(slot.kind, slot.card.word)
    if keyword.alone:
        if rest:
            raise CardError("extra_words", rest)
        return engine.Order(keyword.kind)
    schema = slot.card if slot is not None and slot.kind == keyword.kind else known.card(keyword.kind)
    refers = schema.fields[0].refers if schema and schema.fields else "seat"
    targets = tuple(find(part, refers, names) for part in SEPARATORS.split(rest) if part)
    if not targets:
        raise CardError("no_name", keyword.word)
    return engine.Order(keyword.kind, targets)


HOUSE_WRITTEN = re.compile(r"^(?P<name>.*?\S)\s*(?P<number>[12])$")
"""A house as a card may write it: a name, or its beginning, then 1 or 2 ("Esm 1")."""


def find(text: str, refers: str, names: Sequence[str]) -> int:
    """The value `text` names in a field that names `refers` (`Field.refers`), the seats
    being called `names`: a seat by its name or a unique beginning of it; a house by its
    whole label ("Esmeralda 1") or by the beginning of its player's name and its number
    ("Esm 1"); a name alone where a house is asked is ambiguous (which of the two?)."""
    labels = labels_for(refers, names)
    if refers != "house":
        return find_seat(text, labels)
    try:
        return find_seat(text, labels)
    except CardError as whole:
        written = HOUSE_WRITTEN.match(text.strip())
        if whole.code != "unknown_name" or written is None:
            raise
        number = int(written["number"])
        try:
            seat = find_seat(written["name"], names)
        except CardError as part:
            raise CardError(part.code, text, tuple(f"{name} {number}" for name in part.candidates)) from None
        return 2 * seat + number - 1


def find_seat(text: str, names: Sequence[str]) -> int:
    """The seat whose name `text` means: exact, then a unique beginning, ignoring case
    and accents."""
    wanted = fold(text)
    folded = [fold(name) for name in names]
    exact = [seat for seat, name in enumerate(folded) if name == wanted]
    if len(exact) == 1:
        return exact[0]
    starts = [seat for seat, name in enumerate(folded) if name.startswith(wanted)]
    if len(starts) == 1:
        return starts[0]
    if starts:
        raise CardError("ambiguous_name", text, tuple(names[seat] for seat in starts))
    raise CardError("unknown_name", text)


def fold(text: str) -> str:
    """Text as a card reads it: case and accents ignored."""
    decomposed = unicodedata.normalize("NFKD", text.strip().casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def slot_cards(slots: Iterable[engine.Slot]) -> list[engine.Card]:
    """The cards `slots` ask for, each followed by those it takes instead (NO ELIMINATION)."""
    return [card for slot in slots for card in (slot.card, *slot.instead)]


def verbs(cards: Iterable[engine.Card], ruleset: str | None = None) -> list[Verb]:
    """The notecard words of `cards` (a phase's slots' cards, with those they take
    instead: `slot_cards`), as the help lists them: the cards that may be SLEEP in the
    ruleset's order, each with its fields' words, then SLEEP, then the cards that may not
    (a vote), each with its empty form, and a card written alone (NO ELIMINATION)."""
    known = grammar(ruleset)
    asked = set(cards)
    place = {card: number for number, card in enumerate(known.cards)}
    ordered = sorted(asked, key=lambda card: place.get(card, len(place)))
    sleep = any(card.blank for card in ordered)
    listed: list[Verb] = []
    for blank in (True, False):
        for card in ordered:
            if card.blank != blank or not card.fields and card.blank:
                continue
            if not card.fields:  # (a card written alone that is no SLEEP: NO ELIMINATION)
                listed.append(Verb(card.word, 0))
                continue
            listed.append(Verb(card.word, _example_names(card.fields[0]), refers=card.fields[0].refers))
            listed += [
                Verb(other.word, _example_names(other), lead=card.word, refers=other.refers)
                for other in card.fields[1:]
                if other.word
            ]
            if _blank_word(card):
                listed.append(Verb(_blank_word(card), 0))
        if blank and sleep:
            listed.append(Verb(engine.SLEEP.word, 0))
    unique: list[Verb] = []
    for verb in listed:
        if all(seen.word != verb.word for seen in unique):
            unique.append(verb)
    return unique


def _example_names(written: engine.Field) -> int:
    """How many names an example of the field shows: one for one, two for a list."""
    if written.most == 1:
        return 1
    return max(2, written.least) if written.most is None else min(max(2, written.least), written.most)
