"""Italian everywhere (issue 9): every string marked for translation, in the templates
(pages, mails, notecard words, printed documents) and in the Python code, has its Italian
translation; the catalogue compiles; and a game in Italian reads Italian."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

from werewolf.engine import grammar

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "werewolf" / "locale" / "it" / "LC_MESSAGES" / "django.po"
_spec = importlib.util.spec_from_file_location("dev_translations", ROOT / "dev.py")
assert _spec and _spec.loader
dev = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dev)
TAG = re.compile(r"</?[a-zA-Z][^<>]*>")


def _catalogue(path: Path) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle, locale="it")


def _strings(message: Message) -> tuple[str, ...]:
    return tuple(message.string) if isinstance(message.id, (list, tuple)) else (message.string,)


def _ids(message: Message) -> tuple[str, ...]:
    return tuple(message.id) if isinstance(message.id, (list, tuple)) else (message.id,)


def _key(message: Message) -> tuple[str, str | None]:
    return (_ids(message)[0], message.context)


def test_every_marked_string_has_its_italian_translation(tmp_path: Path) -> None:
    """Django's makemessages, run on a copy of the code and templates as `dev.py messages`
    runs it, finds nothing the committed catalogue lacks: every msgid already there,
    translated, not fuzzy; and the catalogue holds no string the code no longer marks."""
    if shutil.which("xgettext") is None:
        message = "GNU gettext (xgettext) is missing: python3 dev.py install installs it"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    fresh = tmp_path / "django.po"
    fresh.write_text(dev.fresh_catalogue(ROOT, Path(sys.executable)), encoding="utf-8")
    translated = {_key(message): message for message in _catalogue(CATALOGUE) if message.id}
    committed = set(translated)
    marked = {_key(message): message for message in _catalogue(fresh) if message.id}
    untranslated = sorted(
        f"{key[0]!r} ({', '.join(f'{path}:{line}' for path, line in message.locations[:2])})"
        for key, message in marked.items()
        if key not in committed or translated[key].fuzzy or not all(_strings(translated[key]))
    )
    assert not untranslated, (
        f"{len(untranslated)} string(s) marked for translation have no Italian translation in "
        f"{CATALOGUE.relative_to(ROOT)} (run `python3 dev.py messages`, which appends them untranslated, "
        "and translate them):\n" + "\n".join(untranslated)
    )
    stale = sorted(repr(key[0]) for key in committed - set(marked))
    assert not stale, (
        "the catalogue holds strings nothing marks any more (run `python3 dev.py messages`, which marks them "
        "obsolete):\n" + "\n".join(stale)
    )


def test_the_catalogue_compiles_and_keeps_every_placeholder_and_tag(tmp_path: Path) -> None:
    """Compiled as dev.py compiles it (Babel), with Babel's checks (placeholders, plural
    forms), every HTML tag kept, and the Italian header."""
    catalogue = _catalogue(CATALOGUE)
    assert catalogue.locale is not None and str(catalogue.locale) == "it"
    assert catalogue.num_plurals == 2 and catalogue.plural_expr.replace(" ", "") == "(n!=1)"
    assert "charset=UTF-8" in CATALOGUE.read_text(encoding="utf-8").split("\n\n", 1)[0]
    problems = [f"{message.id!r}: {errors}" for message, errors in catalogue.check()]
    for message in catalogue:
        if not message.id:
            continue
        for source, translated in zip(_ids(message), _strings(message), strict=True):
            if sorted(TAG.findall(source)) != sorted(TAG.findall(translated)):
                problems.append(f"{message.id!r}: the HTML tags differ")
        if message.fuzzy:
            problems.append(f"{message.id!r}: fuzzy")
    assert not problems, "\n".join(problems)
    with (tmp_path / "django.mo").open("wb") as compiled:
        write_mo(compiled, catalogue)
    assert (tmp_path / "django.mo").stat().st_size > 10_000
    # The .mo the app reads is built, not committed (.gitignore): dev.py compiles it when
    # the .po is newer. The one here must say what this .po says, or the pages would lag.
    built = CATALOGUE.with_suffix(".mo")
    assert built.exists(), f"{built.relative_to(ROOT)} is missing: run python3 dev.py install"
    with built.open("rb") as handle:
        assert _table(read_mo(handle)) == _table(catalogue), (
            f"{built.relative_to(ROOT)} is older than its .po: run python3 dev.py install"
        )


def _table(catalogue: Catalog) -> dict[tuple[str | None, tuple[str, ...]], tuple[str, ...]]:
    def context(message: Message) -> str | None:  # Babel reads a .mo's contexts as bytes
        return message.context.decode() if isinstance(message.context, bytes) else message.context

    return {(context(message), _ids(message)): _strings(message) for message in catalogue if message.id}


ENGLISH_WORDS = sorted(set(grammar.ALIASES.values()), key=len, reverse=True)
"""The notecard words in English (NO VOTE before VOTE)."""


def _words(words: list[str], text: str) -> set[str]:
    found = set()
    for word in words:
        if re.search(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])", text):
            found.add(word)
            text = re.sub(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])", " ", text)
    return found


def test_notecard_words_are_the_italian_words_the_server_reads() -> None:
    """Where a string shows a notecard word (KILL, NO VOTE), its translation shows the
    Italian word the grammar reads as it (UCCIDI, NESSUN VOTO), never the English one."""
    problems = []
    for message in _catalogue(CATALOGUE):
        if not message.id:
            continue
        for source, translated in zip(_ids(message), _strings(message), strict=True):
            for word in _words(ENGLISH_WORDS, source):
                italian = grammar.spoken(word, "it")
                if not re.search(rf"(?<![A-Za-z]){re.escape(italian)}(?![A-Za-z])", translated):
                    problems.append(f"{source!r}: {word} should read {italian}")
            left = _words(ENGLISH_WORDS, translated)
            if left:
                problems.append(f"{source!r}: English notecard words in the translation: {sorted(left)}")
    assert not problems, "\n".join(problems)
    for italian, english in grammar.ALIASES.items():
        assert grammar.ALIASES[grammar.spoken(english, "it")] == english, italian


ITALIAN_MONTH = r"(?:gen|feb|mar|apr|mag|giu|lug|ago|set|ott|nov|dic)"


def _italian_game(organiser: Any, ruleset: str = "classic", players: int = 7, **options: Any) -> Any:
    from werewolf.games import services

    from .web.play import NAMES

    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:players]]
    game = services.create_game(
        organiser, name="Villaggio", ruleset=ruleset, seats=seats, options=options, seed=5, language="it"
    )
    return services.start_game(game)


@pytest.mark.django_db(transaction=True)
def test_a_game_in_italian_reads_italian_on_its_pages_mails_and_paper(
    organiser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The seat page, the public page, the welcome and phase mails and the printed
    documents of a game in Italian are in Italian, whatever the reader's browser says,
    with Italian dates and Italian notecard words, and without the English of a few key
    strings."""
    from django.core import mail
    from django.test import Client
    from django.utils import translation

    from werewolf.games import services
    from werewolf.games.models import Phase
    from werewolf.printing import documents

    from .web.play import seat_paths

    game = _italian_game(organiser, wolves=2, seers=1)
    browser = Client(HTTP_ACCEPT_LANGUAGE="en")
    paths = seat_paths(game)
    page = browser.get(paths[0]).content.decode()
    assert '<html lang="it"' in page
    for italian in ("Notte 1", "Il tuo ruolo", "Scadenza:", "Tempo rimasto:", "La piazza", "Cos'è successo"):
        assert italian in page, italian
    assert re.search(rf"Scadenza: [A-Z][a-z]{{2}} \d{{1,2}} {ITALIAN_MONTH} \d{{4}}, \d\d:\d\d", page)
    for english in ("Night 1", "Your role", "Deadline:", "Time left:", "The town square", "What has happened"):
        assert english not in page, english
    assert 'id="site-language"' not in page  # the game's language, not the viewer's

    public = browser.get(f"/g/{game.public_key}/").content.decode()
    assert "La vista pubblica" in public and "The public view" not in public

    welcome = next(message for message in mail.outbox if "Il tuo posto e il tuo link privato" in message.subject)
    assert welcome.body.startswith("Ciao ") and "Your role" not in welcome.body

    mail.outbox.clear()
    night = game.current_phase()
    services.resolve_phase(night.pk, Phase.Resolution.MODERATOR)
    phase_mails = [message for message in mail.outbox if "Notte 1 – fase conclusa" in message.subject]
    assert phase_mails, [message.subject for message in mail.outbox]
    body = phase_mails[0].body
    assert body.startswith("Ciao ") and "All'alba" in body and "Giorno 1" in body, body
    assert re.search(rf"scadenza [A-Z][a-z]{{2}} \d{{1,2}} {ITALIAN_MONTH} \d{{4}}, \d\d:\d\d", body), body
    for english in ("Hello", "Dawn", "Day 1", "deadline", "Hand in your card"):
        assert english not in body, english
    assert "VOTO " in body and "VOTE " not in body  # the card to write, in Italian words

    game.refresh_from_db()
    with translation.override(game.language):
        notecards = documents.notecards_html(game, *documents.notecards(game))
        role_cards = documents.role_cards_html(documents.game_cards(game), ruleset=game.ruleset, language="it")
    assert "Scrivi una di queste:" in notecards and "VOTO" in notecards and "VOTE" not in notecards
    assert "Lupo Mannaro" in role_cards and "Veggente" in role_cards and "Plays for" not in role_cards


@pytest.mark.django_db
def test_the_site_follows_its_viewers_language_and_offers_italian(organiser_client: Any) -> None:
    """The site's own pages follow the viewer: the browser's language, or the one chosen
    in the footer; the New game form offers Italian for a game."""
    from django.test import Client

    assert "Lupi Mannari, a biglietti scritti" in Client(HTTP_ACCEPT_LANGUAGE="it").get("/").content.decode()
    visitor = Client(HTTP_ACCEPT_LANGUAGE="en")
    home = visitor.get("/").content.decode()
    assert "Werewolf, by written notecard" in home and 'id="site-language"' in home
    response = visitor.post("/i18n/setlang/", {"language": "it", "next": "/"})
    assert response.status_code == 302 and response["Location"] == "/"
    home = visitor.get("/").content.decode()
    assert '<html lang="it"' in home and "Lupi Mannari, a biglietti scritti" in home
    assert "Lingua di questo sito" in home

    form = organiser_client.get("/games/new/", HTTP_ACCEPT_LANGUAGE="it").content.decode()
    assert '<option value="it">Italiano</option>' in form and "Nuova partita" in form
