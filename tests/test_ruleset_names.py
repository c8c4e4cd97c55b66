"""One ruleset, one place (issue 30): the shared Python modules and templates ask a ruleset
what it has (`engine.capabilities`, its cards, its roles' data), never which one it is. A
ruleset's own words live in its own templates folder, `templates/rulesets/<family>/` (or,
until they move there, a file named `..._<family>`), where naming its roles is fine.

What the shared code still names is a debt, counted file by file below: the test fails when
a file names a ruleset or branches on a role more often than its count (new debt), and when
it does so less often (pay the debt down here too, so the table stays true). The table
shrinks as the web side comes to be built from each ruleset's description; an entry may
stay only with its reason."""

from __future__ import annotations

import re
from pathlib import Path

from werewolf import engine

ROOT = Path(__file__).resolve().parents[1]
IDS = tuple(engine.rulesets.RULESETS)
"""Every ruleset's id, from the registry."""
FAMILIES = tuple(
    dict.fromkeys(
        folder
        for ruleset in IDS
        for folder in (engine.capabilities(ruleset).family, *engine.capabilities(ruleset).lineage)
    )
)
"""Every folder of a family's own words (its family, and its lineage's: "werewolf"), from
the registry: a new ruleset's folder is its own without a word here."""
_NAMES = "|".join(
    sorted(
        (re.escape(name) for name in {*IDS, *(engine.capabilities(ruleset).family for ruleset in IDS)}),
        key=len,
        reverse=True,
    )
)
NAMED = re.compile(
    rf"""["'](?:{_NAMES})["']"""  # a ruleset's id (or a family's) as a value
    rf"""|startswith\(\s*["'](?:{_NAMES})"""  # a family by the start of its id
    r"""|\brole\s*==\s*["']"""  # a branch on one role's name
    r"""|["'][a-z_]+["']\s+in\s+[\w.]*dealt_roles"""  # a branch on one role being dealt
)

DEBT = {
    # The default ruleset of a new game's row (the first of `engine.listed()` elsewhere):
    # a callable default would cost a migration for nothing a player sees.
    "werewolf/games/models.py": 1,
}


def _ruleset_own(relative: str) -> bool:
    """A ruleset's own file: in a folder named after its family, or named `..._<family>`."""
    path = Path(relative)
    # (below the base folder: the package itself is named `werewolf`, as the werewolf games' lineage is)
    return any(part in FAMILIES for part in path.parts[1:-1]) or path.stem.endswith(
        tuple(f"_{family}" for family in FAMILIES)
    )


def _named() -> dict[str, int]:
    found = {}
    for base in ("werewolf", "templates"):
        for path in sorted((ROOT / base).rglob("*")):
            relative = path.relative_to(ROOT).as_posix()
            if path.is_dir() or path.suffix not in (".py", ".html", ".txt", ".svg"):
                continue
            if relative.startswith(("werewolf/engine/", "werewolf/locale/")) or "/migrations/" in relative:
                continue
            if _ruleset_own(relative):
                continue
            count = len(NAMED.findall(path.read_text(encoding="utf-8")))
            if count:
                found[relative] = count
    return found


def test_shared_code_names_no_ruleset_beyond_its_debt() -> None:
    found = _named()
    grown = {path: count for path, count in found.items() if count > DEBT.get(path, 0)}
    assert not grown, (
        f"these shared files name a ruleset or branch on a role more than before: {grown}. Ask the ruleset "
        "(engine.capabilities, its cards and roles) or put the words in the ruleset's own template."
    )
    paid = {path: (found.get(path, 0), owed) for path, owed in DEBT.items() if found.get(path, 0) < owed}
    assert not paid, f"paid down, well done: lower these counts in DEBT (now, before): {paid}"
