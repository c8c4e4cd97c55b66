"""`python3 dev.py messages` (issue 41): the Italian catalogue follows the code and templates
with a small diff. A new msgid is appended untranslated, a msgid nothing marks any more is
marked obsolete in place, and every other entry stays byte for byte as it was written
(Django's makemessages alone rewrites the whole catalogue: references, wrapping, order)."""

from __future__ import annotations

import importlib.util
import io
import shutil
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("dev_messages", ROOT / "dev.py")
assert _spec and _spec.loader
dev = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dev)

HEADER = """# A catalogue written by hand.
msgid ""
msgstr ""
"Language: it\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"""
CURRENT = (
    HEADER
    + """
#: templates/old/place.html:3
msgid "Kept as it was"
msgstr "Tenuto com'era"

#, python-format
msgid ""
"A long one, wrapped by hand %(name)s "
"where the translator liked."
msgstr "Una lunga, %(name)s."

msgctxt "card"
msgid "Vote"
msgstr "Voto"

# A translator's note.
#: templates/gone.html:1
#. Translators: a word nothing uses any more
msgid "Gone"
msgstr "Andato"
msgid "Appended without a blank line"
msgstr "Aggiunta senza riga vuota"

#~ msgid "Back again"
#~ msgstr "Di nuovo qui"

#, python-format
msgid "%(n)s card"
msgid_plural "%(n)s cards"
msgstr[0] "%(n)s biglietto"
msgstr[1] "%(n)s biglietti"
"""
)
FRESH = """# SOME DESCRIPTIVE TITLE.
#, fuzzy
msgid ""
msgstr ""
"Language: it\\n"

#: templates/new/place.html:9
msgid "Kept as it was"
msgstr ""

#: werewolf/x.py:1
#, python-format
msgid "A long one, wrapped by hand %(name)s where the translator liked."
msgstr ""

#: templates/card.html:2
msgctxt "card"
msgid "Vote"
msgstr ""

#: templates/again.html:4
msgid "Back again"
msgstr ""

#: templates/other.html:1
msgid "Appended without a blank line"
msgstr ""

#: templates/count.html:1
#, python-format
msgid "%(n)s card"
msgid_plural "%(n)s cards"
msgstr[0] ""
msgstr[1] ""
"""


def test_a_catalogue_up_to_date_is_left_byte_for_byte() -> None:
    """References, wrapping, order, an entry appended without its blank line, an obsolete
    one: makemessages writes them all otherwise, and they all stay as written."""
    fresh = FRESH.replace('#: templates/again.html:4\nmsgid "Back again"\nmsgstr ""\n\n', "")
    fresh += '\n#: templates/gone.html:7\nmsgid "Gone"\nmsgstr ""\n'
    merged, changes = dev.merge_catalogue(CURRENT, fresh)
    assert merged == CURRENT
    assert (changes.added, changes.revived, changes.obsolete, changes.flags) == ([], [], [], [])


def test_a_missing_format_flag_is_set_in_place_and_nothing_else_moves() -> None:
    """The flag is what makes the compiler check a translation's placeholders: an entry
    appended by hand without it takes makemessages' flag where it stands."""
    fresh = FRESH.replace('#: templates/again.html:4\nmsgid "Back again"\nmsgstr ""\n\n', "")
    fresh += '\n#: templates/gone.html:7\nmsgid "Gone"\nmsgstr ""\n'
    unflagged = CURRENT.replace('#, python-format\nmsgid "%(n)s card"', 'msgid "%(n)s card"')
    assert unflagged != CURRENT
    merged, changes = dev.merge_catalogue(unflagged, fresh)
    assert changes.flags == [(("%(n)s card", None), "", "python-format")]
    assert merged == CURRENT


def test_a_new_msgid_is_appended_untranslated_as_makemessages_wrote_it() -> None:
    current = CURRENT.replace('#~ msgid "Back again"\n#~ msgstr "Di nuovo qui"\n\n', "")
    fresh = FRESH.replace('#: templates/again.html:4\nmsgid "Back again"\nmsgstr ""\n\n', "")
    fresh += '\n#: templates/gone.html:7\nmsgid "Gone"\nmsgstr ""\n'
    block = '#: templates/new.html:2\n#, python-format\nmsgid ""\n"A new one, %(name)s, long "\n"enough to wrap"\n'
    block += 'msgstr ""\n'
    fresh += "\n" + block
    merged, changes = dev.merge_catalogue(current, fresh)
    assert changes.added == [("A new one, %(name)s, long enough to wrap", None)]
    assert (changes.obsolete, changes.revived) == ([], [])
    assert merged == current + "\n" + block
    catalogue = read_po(io.BytesIO(merged.encode()), locale="it")
    new = catalogue.get("A new one, %(name)s, long enough to wrap")
    assert new is not None and new.string == "" and "python-format" in new.flags


def test_a_msgid_nothing_marks_is_marked_obsolete_where_it_stands() -> None:
    merged, changes = dev.merge_catalogue(CURRENT, FRESH)
    assert changes.obsolete == [("Gone", None)]
    assert '# A translator\'s note.\n#~ msgid "Gone"\n#~ msgstr "Andato"\nmsgid "Appended' in merged
    assert "templates/gone.html" not in merged and "Translators: a word" not in merged
    catalogue = read_po(io.BytesIO(merged.encode()), locale="it")
    assert catalogue.get("Gone") is None and "Gone" in catalogue.obsolete
    assert catalogue.get("Appended without a blank line").string == "Aggiunta senza riga vuota"
    assert catalogue.get("Vote", context="card").string == "Voto"
    again, _ = dev.merge_catalogue(merged, FRESH)
    assert again == merged, "a second run changes nothing"


def test_an_obsolete_msgid_used_again_comes_back_with_its_translation() -> None:
    merged, changes = dev.merge_catalogue(CURRENT, FRESH)
    assert changes.revived == [("Back again", None)]
    assert '\n#: templates/again.html:4\n#, fuzzy\nmsgid "Back again"\nmsgstr "Di nuovo qui"\n' in merged
    back = read_po(io.BytesIO(merged.encode()), locale="it").get("Back again")
    assert back.string == "Di nuovo qui" and back.fuzzy, "a translator checks it before it is used"


def test_entries_are_keyed_by_context_and_singular() -> None:
    entries = dev.parse_catalogue(CURRENT)
    keys = [entry.key for entry in entries]
    assert keys == [
        None,
        ("Kept as it was", None),
        ("A long one, wrapped by hand %(name)s where the translator liked.", None),
        ("Vote", "card"),
        ("Gone", None),
        ("Appended without a blank line", None),
        ("Back again", None),
        ("%(n)s card", None),
    ]
    assert [entry.obsolete for entry in entries].count(True) == 1
    assert all(CURRENT[entry.start : entry.end] == "\n".join(entry.lines) for entry in entries)


def test_check_writes_nothing_and_says_the_catalogue_would_change(tmp_path: Path, monkeypatch, capsys) -> None:
    catalogue = tmp_path / "django.po"
    catalogue.write_text(CURRENT, encoding="utf-8")
    monkeypatch.setattr(dev, "ROOT", tmp_path)
    monkeypatch.setattr(dev, "CATALOGUE", catalogue)
    monkeypatch.setattr(dev, "ensure_debian", lambda *_: True)
    monkeypatch.setattr(dev, "fresh_catalogue", lambda *_: FRESH)
    assert dev.messages(check=True) == 1
    assert catalogue.read_text(encoding="utf-8") == CURRENT
    assert dev.messages(check=False) == 0
    said = capsys.readouterr().out
    assert "obsolete, marked #~: 'Gone'" in said and "used again" in said
    assert dev.messages(check=True) == 0
    assert dev.main(["messages", "--prune"]) == 2


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="GNU gettext (xgettext) is missing")
def test_on_the_committed_catalogue_only_a_new_template_word_is_appended(tmp_path: Path) -> None:
    """makemessages on the project, a template given one new word: the committed catalogue
    gains exactly that entry, untranslated, and nothing else changes (the committed one is
    up to date, as tests/test_translations.py holds)."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "werewolf").symlink_to(ROOT / "werewolf")
    (root / "manage.py").symlink_to(ROOT / "manage.py")
    shutil.copytree(ROOT / "templates", root / "templates")
    page = root / "templates" / "400.html"
    lines = page.read_text(encoding="utf-8").count("\n")
    with page.open("a", encoding="utf-8") as handle:
        handle.write('{% translate "A sentence no catalogue holds yet" %}\n')
    current = dev.CATALOGUE.read_text(encoding="utf-8")
    merged, changes = dev.merge_catalogue(current, dev.fresh_catalogue(root, Path(sys.executable)))
    assert (changes.added, changes.revived, changes.obsolete) == ([("A sentence no catalogue holds yet", None)], [], [])
    entry = f'#: templates/400.html:{lines + 1}\nmsgid "A sentence no catalogue holds yet"\nmsgstr ""\n'
    assert merged == current.rstrip("\n") + "\n\n" + entry
    assert dev.CATALOGUE.read_text(encoding="utf-8") == current, "the committed catalogue is never written"
