"""Reading the player's own text out of a reply: each shape real clients send, and the
card in it. One case per shape the issue measured failing, and the ones that worked."""

from __future__ import annotations

import pytest

from werewolf.engine.grammar import grammar
from werewolf.mail import replies

NAMES = ["Ada", "Bruno", "Chiara", "Dmitri", "Elin", "Farid", "Göran", "Hélène", "Ingrid"]
WORDS = grammar("classic")
SERVER = "Werewolf <orders+x1@example.org>"


def card(body: str) -> str | None:
    found = replies.card_texts(body, WORDS, NAMES)
    return found[0] if found else None


SHAPES = {
    # Outlook without ">", in German and French, to the player's own earlier card.
    "outlook de, quoted card below": (
        "Hélène\n\n________________________________\nVon: Farid <farid@example.org>\n"
        "Gesendet: Montag, 23. November 2026 10:12\nAn: orders+x1@example.org\nBetreff: Night 2\n\nINQUIRE Göran\n",
        "Hélène",
    ),
    "outlook fr, quoted card below": (
        "Hélène\n\nDe : Farid <farid@example.org>\nEnvoyé : lundi 23 novembre 2026 10:12\n"
        "À : orders+x1@example.org\nObjet : Night 2\n\nINQUIRE Göran\n",
        "Hélène",
    ),
    "outlook, nothing written": (
        "\n\nFrom: Farid <farid@example.org>\nSent: Monday, November 23, 2026 10:12 AM\n"
        "To: orders+x1@example.org\nSubject: Night 2\n\nINQUIRE Göran\n",
        None,
    ),
    # A quote header or sign-off right under the card.
    "gmail android, header wrapped": (
        "INQUIRE Farid\nOn Mon, 23 Nov 2026, 10:12 Werewolf, <\norders+x1@example.org> wrote:\n> Night 2\n",
        "INQUIRE Farid",
    ),
    "gmail mobile, address on the next line": (
        "VOTE Bruno\nOn Mon, Nov 23, 2026 at 10:12 AM Werewolf\n<orders+x1@example.org> wrote:\n\n> Day 2\n",
        "VOTE Bruno",
    ),
    "yandex, wrapped": (
        'KILL Ada, Bruno\n23.11.2026, 10:12, "Werewolf"\n<orders+x1@example.org>:\n> Night 2\n',
        "KILL Ada, Bruno",
    ),
    "card and header on one line": (
        f"INQUIRE Farid On Mon, 23 Nov 2026 at 10:12, {SERVER} wrote:\n> Night 2\n",
        "INQUIRE Farid",
    ),
    "names alone and header on one line": (
        f"Hélène On Mon, 23 Nov 2026 at 10:12, {SERVER} wrote:\n> Night 2\n",
        "Hélène",
    ),
    "swedish header": (f"VOTE Elin\nDen mån 23 nov. 2026 kl 10:12 skrev {SERVER}:\n> Day 2\n", "VOTE Elin"),
    "norwegian header": (f"VOTE Elin\nman. 23. nov. 2026 kl. 10:12 skrev {SERVER}:\n> Day 2\n", "VOTE Elin"),
    "italian header": (
        f"INQUIRE Chiara\nIl giorno lun 23 nov 2026 alle ore 10:12 {SERVER} ha scritto:\n> Notte 2\n",
        "INQUIRE Chiara",
    ),
    "date-first header": (f"INQUIRE Dmitri\n2026-11-23 10:12 GMT+01:00, {SERVER}:\n> Night 2\n", "INQUIRE Dmitri"),
    "date block": (
        f"INQUIRE Dmitri\nDate: Mon, 23 Nov 2026 10:12:00 +0100\nFrom: {SERVER}\nSubject: Night 2\n\nINQUIRE Ada\n",
        "INQUIRE Dmitri",
    ),
    "get outlook for ios": (
        "INQUIRE Ingrid\nGet Outlook for iOS<https://aka.ms/o0ukef>\n________________________________\n"
        f"From: {SERVER}\nSent: Monday, November 23, 2026 10:12:00 AM\n",
        "INQUIRE Ingrid",
    ),
    "sent from samsung mobile": (
        "INQUIRE Ingrid\nSent from Samsung Mobile\n\n-------- Original message --------\n"
        f"From: {SERVER}\nDate: 23/11/2026 10:12 (GMT+01:00)\n",
        "INQUIRE Ingrid",
    ),
    "a wolf's list over three lines, then a sign-off": (
        "KILL Ada\nBruno\nChiara\nSent from my iPhone\n",
        "KILL Ada\nBruno\nChiara",
    ),
    # A greeting above the card.
    "greeting above": ("Hi,\nINQUIRE Farid\nThanks!\n", "INQUIRE Farid"),
    "greeting above names alone": ("Hi,\nFarid\nThanks!\n", "Farid"),
    # A card under the quote.
    "thunderbird bottom-posting": (
        "On 23/11/2026 10:12, Werewolf wrote:\n> Night 2.\n> Write INQUIRE and one name.\n\n"
        "INQUIRE Göran\n\n-- \nFarid\n",
        "INQUIRE Göran",
    ),
    "inline answer": (
        "Am 23.11.26 um 10:12 schrieb Werewolf:\n> Night 2.\n> Write INQUIRE and one name.\nINQUIRE Hélène\n"
        "> Hand it in by Tuesday.\n",
        "INQUIRE Hélène",
    ),
    "undated header line over a quote": ("\n\nOn Monday the moderator wrote:\n> INQUIRE Ada\n", None),
    # A greeting above the quote, the card under it (issue 28: read as the card "Hi").
    "greeting above the quote, card below": (
        "Hi,\n\nOn Mon, 23 Nov 2026 at 10:12, Werewolf <orders+x1@example.org> wrote:\n> Night 2.\n"
        "> Write INQUIRE and one name.\n\nINQUIRE Bruno\n",
        "INQUIRE Bruno",
    ),
    "greeting directly above the marks, card below, sign-off": (
        "Hi,\n\n> Night 2.\n> Write INQUIRE and one name.\n\nINQUIRE Bruno\n\nCheers,\nFarid\n",
        "INQUIRE Bruno",
    ),
    "greeting above the quote, names below": (
        "Good evening!\n\n> Night 2.\n> Write INQUIRE and one name.\n\nBruno\n",
        "Bruno",
    ),
    "card above the quote, another below it": ("INQUIRE Ada\n\n> Night 2.\n\nINQUIRE Bruno\n", "INQUIRE Ada"),
    # What worked before keeps working.
    "signature": ("INQUIRE Ada\n\n-- \nAda Lovelace\nAnalytical Engines Ltd.\n", "INQUIRE Ada"),
    "sent from my iphone": ("SLEEP\n\nSent from my iPhone\n", "SLEEP"),
    "no vote": ("NO VOTE\n", "NO VOTE"),
    "quoted card only, marked": ("\n> INQUIRE Göran\n", None),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_the_card_is_what_the_player_wrote(shape: str) -> None:
    body, expected = SHAPES[shape]
    assert card(body) == expected


def test_a_quoted_card_is_never_a_candidate() -> None:
    body = SHAPES["outlook de, quoted card below"][0]
    assert all("Göran" not in text for text in replies.card_texts(body, WORDS, NAMES))


def test_a_header_needs_a_date_and_an_address_or_a_quote() -> None:
    """A line ending with a colon is no header without a date, nor without an address
    or a quote below: a player's own text may end with a colon."""
    assert card("Tonight my card:\nINQUIRE Ada\n") == "INQUIRE Ada"
    assert replies.split("Meet at 10:30 after school:\nINQUIRE Ada\n", WORDS, NAMES).own[-1] == "INQUIRE Ada"


def test_a_refusal_names_the_players_own_words_not_a_greeting() -> None:
    assert card("Hello,\n\nI think I will pass tonight.\n") == "I think I will pass tonight."
    # A greeting above a quote with no card under it either: the greeting is what was written.
    assert card("Hi,\n\n> Night 2.\n> Write INQUIRE and one name.\n") == "Hi,"


def test_a_header_line_starting_with_a_name_prefix_is_still_a_header() -> None:
    """ "On" is the start of nobody's name here; with a player called Onslow, "On Mon,"
    still opens the header (exact names only are cut from a header's line)."""
    names = [*NAMES, "Onslow"]
    body = f"\n\nOn Mon, 23 Nov 2026 at 10:12, {SERVER} wrote:\n> Night 2\n\nINQUIRE Onslow\n"
    assert replies.card_texts(body, WORDS, names)[0] == "INQUIRE Onslow"


def test_reading_is_bounded() -> None:
    body = "x:\n" * 100_000 + "INQUIRE Ada\n"
    assert replies.card_texts(body, WORDS, NAMES) != []
