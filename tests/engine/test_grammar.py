"""Reading notecards written in words."""

from __future__ import annotations

import pytest

from werewolf import engine
from werewolf.engine import grammar
from werewolf.engine.grammar import CardError, find_seat, read_card
from werewolf.engine.rulesets import classic

NAMES = ["Ada", "Bruno", "Brunella", "Chloé", "Dmitri", "Ana", "Aña"]
WOLF = engine.Slot(classic.KILL, ((1, 2, 3, 4),))
SEER = engine.Slot(classic.INQUIRE, ((0, 1, 2, 3),))
VOTER = engine.Slot(classic.VOTE, ((0, 1, 2, 3, 4),))
SLEEPER = engine.Slot(engine.SLEEP)
HERBALIST = engine.Slot(classic.PROTECT, ((0, 1, 2, 3, 4),))
VIGILANTE = engine.Slot(classic.SHOOT, ((0, 1, 2, 3),))
CUPID = engine.Slot(classic.PAIR, ((0, 1, 2, 3),))
DARK_WOLF = engine.Slot(classic.KILL_AND_SWAP, ((1, 2, 3, 4), (1, 2, 3, 4)))


def swap(*seats: int) -> tuple[tuple[str, tuple[int, ...]], ...]:
    return (("swap", seats),)


@pytest.mark.parametrize(
    ("text", "slot", "order"),
    [
        ("KILL Bruno, Dmitri", WOLF, engine.Order("kill", (1, 4))),
        ("kill: brunella; chloe", WOLF, engine.Order("kill", (2, 3))),
        ("Dmitri then Chloé", WOLF, engine.Order("kill", (4, 3))),
        ("inquire Dm", SEER, engine.Order("inquire", (4,))),
        ("Ada", SEER, engine.Order("inquire", (0,))),
        ("  sleep ", SLEEPER, engine.Order("sleep")),
        ("SLEEP", WOLF, engine.Order("sleep")),
        ("vote chloe", VOTER, engine.Order("vote", (3,))),
        ("No vote", VOTER, engine.Order("vote")),
        ("ada", VOTER, engine.Order("vote", (0,))),
        ("PROTECT Dmitri", HERBALIST, engine.Order("protect", (4,))),
        ("chloe", HERBALIST, engine.Order("protect", (3,))),
        ("shoot: Bruno", VIGILANTE, engine.Order("shoot", (1,))),
        ("SLEEP", VIGILANTE, engine.Order("sleep")),
        ("PAIR Ada, Chloé", CUPID, engine.Order("pair", (0, 3))),
        ("bruno and ada", CUPID, engine.Order("pair", (1, 0))),
        ("KILL Bruno, Dmitri SWAP Chloé, Ada", DARK_WOLF, engine.Order("kill", (1, 4), swap(3, 0))),
        ("kill dmitri\nswap: chloe and bruno", DARK_WOLF, engine.Order("kill", (4,), swap(3, 1))),
        ("SWAP Chloé, Ada", DARK_WOLF, engine.Order("kill", (), swap(3, 0))),
        ("Dmitri swap Chloé, Ada", DARK_WOLF, engine.Order("kill", (4,), swap(3, 0))),
    ],
)
def test_cards_are_read(text, slot, order) -> None:
    assert read_card(text, NAMES, slot) == order


@pytest.mark.parametrize(
    ("text", "slot", "code", "part"),
    [
        ("EAT Bruno", SLEEPER, "unknown_keyword", "EAT"),
        ("SLEEP well", SLEEPER, "extra_words", "well"),
        ("KILL", WOLF, "no_name", "KILL"),
        ("KILL Bru", WOLF, "ambiguous_name", "Bru"),
        ("VOTE Zed", VOTER, "unknown_name", "Zed"),
        ("", VOTER, "empty_card", ""),
    ],
)
def test_unreadable_cards_say_why(text, slot, code, part) -> None:
    with pytest.raises(CardError) as refused:
        read_card(text, NAMES, slot)
    assert (refused.value.code, refused.value.text) == (code, part)


def test_exact_name_wins_over_a_longer_one() -> None:
    assert find_seat("bruno", NAMES) == 1


def test_names_differing_only_by_accents_are_ambiguous() -> None:
    with pytest.raises(CardError) as refused:
        find_seat("Ana", NAMES)
    assert refused.value.candidates == ("Ana", "Aña")


def test_a_card_may_be_written_one_name_a_line() -> None:
    assert read_card("KILL\nBruno\nDmitri", NAMES, WOLF) == engine.Order("kill", (1, 4))
    assert read_card("Bruno\nDmitri", NAMES, WOLF) == engine.Order("kill", (1, 4))


def test_a_text_longer_than_any_card_is_refused_at_once() -> None:
    with pytest.raises(CardError) as refused:
        read_card("KILL " + "Bruno, " * 1_000, NAMES, WOLF)
    assert refused.value.code == "too_long" and len(refused.value.text) <= 40


def test_a_card_error_passes_through_context_managers() -> None:
    """A frozen dataclass exception cannot take the traceback a context manager sets."""
    from contextlib import contextmanager

    @contextmanager
    def around():
        yield

    with pytest.raises(CardError), around():
        read_card("EAT Bruno", NAMES, SLEEPER)


@pytest.mark.parametrize(
    "text,ruleset,kind,targets,more",
    [
        ("UCCIDI Ada, Bruno", "classic", "kill", (0, 1), ()),
        ("dormi", "classic", "sleep", (), ()),
        ("VOTO Cleo", "classic", "vote", (2,), ()),
        ("NESSUN VOTO", "classic", "vote", (), ()),
        ("INDAGA Bruno", "classic", "inquire", (1,), ()),
        ("LINCIA Ada", "tabula", "ballot", (0,), ()),
        ("ACCUSA Ada 1 ANCHE Bruno 2", "lupusburg", "accuse", (0,), (("also", (3,)),)),
        ("PUNTA Cleo TIENI 2", "lupusburg", "bet", (2,), (("keep", (1,)),)),
    ],
)
def test_italian_notecard_words_are_read_beside_the_english(
    text: str, ruleset: str, kind: str, targets: tuple[int, ...], more: tuple
) -> None:
    names = ["Ada", "Bruno", "Cleo", "Dino"]
    assert grammar.read_card(text, names, None, ruleset) == engine.Order(kind, targets, more)
    assert grammar.command("AIUTO") == "help" and grammar.command("stato") == "status"


# Houses (Lupusburg): a player's name, or its beginning, and 1 or 2 ------------------------

HOUSE_NAMES = ["Esmeralda", "Benedikt", "Bernadette", "Cato", "Ann", "Anna"]
"""Six players, twelve houses: seat i owns houses 2i (its 1) and 2i + 1 (its 2)."""


def _lupusburg_slot(card: engine.Card) -> engine.Slot:
    return engine.Slot(card, tuple(tuple(range(2 * len(HOUSE_NAMES))) for _ in card.fields))


@pytest.mark.parametrize(
    ("text", "targets", "more"),
    [
        ("PEEK esm 1", (0,), ()),
        ("peek Esm 2", (1,), ()),
        ("PEEK esm1", (0,), ()),
        ("PEEK Esmeralda 2", (1,), ()),
        ("peek ben 2", (3,), ()),
        ("PEEK BERN 1", (4,), ()),
        ("PEEK c 2", (7,), ()),
        ("esm 2", (1,), ()),  # the keyword left out
        ("PEEK Ann 1", (8,), ()),  # an exact name wins over a longer one
        ("PEEK anna 2", (11,), ()),
    ],
)
def test_a_house_is_a_names_beginning_and_its_number(text: str, targets: tuple[int, ...], more: tuple) -> None:
    from werewolf.engine.rulesets.lupusburg import table

    slot = _lupusburg_slot(table.PEEK)
    assert read_card(text, HOUSE_NAMES, slot, "lupusburg") == engine.Order("peek", targets, more)


def test_every_field_naming_a_house_takes_a_names_beginning() -> None:
    from werewolf.engine.rulesets.lupusburg import table

    ballot = _lupusburg_slot(table.BALLOT)
    assert read_card("LYNCH ben 1 ALSO esm 2", HOUSE_NAMES, ballot, "lupusburg") == engine.Order(
        "ballot", (2,), (("also", (1,)),)
    )
    privilege = _lupusburg_slot(table.PRIVILEGE)
    assert read_card("LOOK cat 2 BACK ann 1", HOUSE_NAMES, privilege, "lupusburg") == engine.Order(
        "privilege", (7,), (("back", (8,)),)
    )
    assert read_card("ACCUSA esm 1 ANCHE cat 1", HOUSE_NAMES, None, "lupusburg") == engine.Order(
        "accuse", (0,), (("also", (6,)),)
    )


@pytest.mark.parametrize(
    ("text", "code", "part", "candidates"),
    [
        ("PEEK be 1", "ambiguous_name", "be 1", ("Benedikt 1", "Bernadette 1")),
        ("PEEK an 2", "ambiguous_name", "an 2", ("Ann 2", "Anna 2")),
        ("PEEK esm", "ambiguous_name", "esm", ("Esmeralda 1", "Esmeralda 2")),  # which house?
        ("PEEK zed 1", "unknown_name", "zed 1", ()),
        ("PEEK esm 3", "unknown_name", "esm 3", ()),
    ],
)
def test_a_house_that_could_be_several_or_none_is_refused_clearly(
    text: str, code: str, part: str, candidates: tuple[str, ...]
) -> None:
    from werewolf.engine.rulesets.lupusburg import table

    with pytest.raises(CardError) as refused:
        read_card(text, HOUSE_NAMES, _lupusburg_slot(table.PEEK), "lupusburg")
    assert (refused.value.code, refused.value.text, refused.value.candidates) == (code, part, candidates)
