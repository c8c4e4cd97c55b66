"""Every word belongs to its family (issue 41): the shared templates, those outside
`templates/rulesets/<family>/`, hold no word of any ruleset's world: no role's id or name,
no side, and none of the words the werewolf games share (`FAMILY_WORDS`). A family words
them in its own folder, which `own` looks up first (its family, then its lineage:
`rulesets/werewolf/` for every werewolf game), and the shared tree says "the game", "a
side", "the square" for a ruleset of another world (Mafia) that words nothing of its own.

The words are read from the registry (every ruleset's roles by id and by name, in English,
and their sides), so a new ruleset's words are checked the day it registers. What is left
is allowed file by file below, each with its reason."""

from __future__ import annotations

import re
from pathlib import Path

from django.utils import translation

from werewolf import engine
from werewolf.games.templatetags.werewolf import role

ROOT = Path(__file__).resolve().parents[2] / "templates"

FAMILY_WORDS = {"werewolf", "werewolves", "wolf", "wolves", "pack", "village", "villager", "town"}
"""The words of the werewolf games' world that name no role nor side of their own."""

SITE_NAME = re.compile(r"""\{% translate "Werewolf" context "the name of the game and of this site" %\}""")
"""The site's name (its own message, with its context): the name of the site, not a role."""

ALLOWED = {
    "games/home.html": ({"werewolf"}, "the site presents itself: it plays Werewolf, its name"),
    "games/character_form.html": (
        {"werewolf", "pack"},
        "the Characters page builds characters from the engine's ability blocks, whose sides are the "
        "werewolf games' (engine/characters.py); it belongs to no game, so no family's folder is asked",
    ),
    "includes/print_refusal.html": (
        {"pack"},
        "the print form's refusal of a pack of pieces for a ruleset that has none: it names the pieces "
        "(a pack of cards), not the wolves",
    ),
    "mail_setup/postfix.txt": ({"werewolf"}, "the operator's mail set-up names the project's settings"),
    **{
        name: ({"werewolf"}, "the site's name in a sentence of a mail about a seat or an account")
        for name in (
            "account/email/base_message.txt",
            "accounts/email/invitation_message.txt",
            "accounts/email/invitation_subject.txt",
            "emails/handed_on_body.txt",
            "emails/seat_back.html",
            "emails/seat_back.txt",
            "emails/seat_held.html",
            "emails/seat_held.txt",
            "emails/seat_lost.html",
            "emails/seat_lost.txt",
            "emails/signup.html",
            "emails/signup.txt",
            "emails/stand_in.html",
            "emails/stand_in.txt",
            "emails/stand_in_over.html",
            "emails/stand_in_over.txt",
            "emails/standby_signup.html",
            "emails/standby_signup.txt",
            "emails/take_over.html",
            "emails/take_over.txt",
            "emails/welcome.html",
            "emails/welcome.txt",
        )
    },
}
"""Shared templates that may still hold a family word, each with the words and why."""

LOAD = re.compile(r"\{%\s*load\s[^%]*%\}")
"""`{% load werewolf %}` names the project's tag library, not a werewolf."""


def world_words() -> set[str]:
    """Every ruleset's roles (ids and English names) and sides, and the family words."""
    words = set(FAMILY_WORDS)
    with translation.override("en"):
        for ruleset, rules in engine.rulesets.RULESETS.items():
            for name, row in rules.roles.items():
                words |= {name.replace("_", " "), role(name, ruleset), row.side}
    return {word.lower() for word in words if word}


def shared_templates() -> list[Path]:
    return [
        path
        for path in sorted(ROOT.rglob("*"))
        if path.is_file() and path.relative_to(ROOT).parts[0] != "rulesets" and path.suffix in (".html", ".txt", ".svg")
    ]


def found_in(text: str, pattern: re.Pattern[str]) -> set[str]:
    text = SITE_NAME.sub("", LOAD.sub("", text))
    return {match.lower() for match in pattern.findall(text)}


def test_the_shared_templates_hold_no_word_of_a_rulesets_world() -> None:
    words = sorted(world_words(), key=len, reverse=True)
    # A word alone (a plural too), never inside a path ("rulesets/werewolf/...", "static/werewolf/").
    pattern = re.compile(rf"(?<![\w/.-])({'|'.join(map(re.escape, words))})(?:e?s)?(?![\w/-])", re.IGNORECASE)
    wrong = {}
    for path in shared_templates():
        relative = path.relative_to(ROOT).as_posix()
        found = found_in(path.read_text(encoding="utf-8"), pattern) - ALLOWED.get(relative, (set(), ""))[0]
        if found:
            wrong[relative] = sorted(found)
    assert not wrong, (
        f"these shared templates name a ruleset's world: {wrong}. Put the words in the family's own "
        "folder (templates/rulesets/<family>/, through `own`), and leave neutral ones here."
    )
    stale = sorted(name for name in ALLOWED if not (ROOT / name).exists())
    assert not stale, f"allowed templates that are gone: {stale}"


def test_the_check_finds_a_word_of_the_world() -> None:
    words = world_words()
    assert {"werewolf", "seer", "wolves", "village", "town", "townsfolk"} <= words
    pattern = re.compile(r"(?<![\w/.-])(werewolf|pack)(?:e?s)?(?![\w/-])", re.IGNORECASE)
    assert found_in('{% load i18n werewolf %}{% translate "The pack\'s den" %}', pattern) == {"pack"}
    assert not found_in('{% include "rulesets/werewolf/x.html" %}', pattern)


def test_a_family_words_its_own_refusals_and_the_shared_tree_the_rest() -> None:
    """A card refusal only a werewolf game has is worded by the werewolf games' folder;
    a ruleset that words nothing of its own (no game here) reads the shared, neutral
    refusal; a refusal every ruleset has reads the same in both."""
    from types import SimpleNamespace

    from django.template.loader import render_to_string

    def refusal(code: str, game: object) -> str:
        error = SimpleNamespace(code=code, params={"target": 1})
        context = {"error": error, "names": ["Ada", "Bruno"], "game": game}
        return " ".join(render_to_string("includes/service_error.html", context).split())

    with translation.override("en"):
        assert (
            refusal("target_wolf", "classic") == "Bruno is a werewolf: the pack cannot kill its own. Name someone else."
        )
        assert refusal("target_wolf", None).startswith("That could not be done.")
        assert (
            refusal("target_dead", "classic") == refusal("target_dead", None) == "Bruno is dead: name a living player."
        )
        assert "house" in refusal("house_gone", "lupusburg") and "werewolf" in refusal("target_wolf", "lupusburg")
