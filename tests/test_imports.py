"""Which module may import which (issue 30, "one-way arrows"), read from the source: every
`import` of a werewolf module, at the top of a file or inside a function alike.

- Reads never import writes: what a page and a poll read (`selectors`, `polls`, `rooms`)
  reaches neither `services` nor `talk`, however indirectly.
- Packages: `mail` and `printing` sit above `games`: they read the games' rows (mail
  renders them and takes the games' mail in; printing lays them on paper), and the games
  never import either: they queue their mail through the outbox the mail app registers
  with them (`games/outbox.py`), and the paper's views, urls and command live in
  `printing`. A circle between these packages fails.
- The engine has no circle at all (its registry is a leaf the rulesets register into)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
READS = ("werewolf.games.selectors", "werewolf.games.polls", "werewolf.games.rooms")
WRITES = ("werewolf.games.services", "werewolf.games.talk")
PACKAGES = ("werewolf.games", "werewolf.mail", "werewolf.printing")


def _modules() -> dict[str, Path]:
    found = {}
    for path in (ROOT / "werewolf").rglob("*.py"):
        if "migrations" in path.parts:
            continue
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _executed(tree: ast.AST) -> list[ast.AST]:
    """Every node of `tree` but those under `if TYPE_CHECKING:` (read by the type checker
    only, never imported when the code runs)."""
    found: list[ast.AST] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        found.append(node)
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()

    def known(name: str) -> str:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        imported: set[str] = set()
        for node in _executed(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    above = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*above, base] if base else above)
                imported.update(
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names
                )
        graph[module] = {known(name) for name in imported if name.startswith("werewolf")} - {module, ""}
    return graph


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    stack = [start]
    while stack:
        for name in graph.get(stack.pop(), ()):
            if name not in seen:
                seen.add(name)
                stack.append(name)
    return seen


def _circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected parts of `graph` with more than one member."""
    return [
        frozenset(part)
        for part in {
            frozenset({node} | {other for other in _reach(graph, node) if node in _reach(graph, other)})
            for node in graph
        }
        if len(part) > 1
    ]


def test_reads_never_import_writes() -> None:
    graph = _graph()
    for read in READS:
        assert read in graph, read
        reached = sorted(_reach(graph, read) & set(WRITES))
        assert not reached, f"{read} reaches {reached}: a read must not import a write"


def test_no_circle_between_games_mail_and_printing() -> None:
    graph = _graph()

    def package(name: str) -> str:
        return next((top for top in PACKAGES if name == top or name.startswith(top + ".")), name)

    packages: dict[str, set[str]] = {}
    for module, imported in graph.items():
        for name in imported:
            if package(module) in PACKAGES and package(name) in PACKAGES and package(module) != package(name):
                packages.setdefault(package(module), set()).add(package(name))
    circles = {
        frozenset({first, second})
        for first, seconds in packages.items()
        for second in seconds
        if first in packages.get(second, set())
    }
    assert not circles, f"import circles between packages: {circles}"


@pytest.mark.parametrize("above", ["werewolf.mail", "werewolf.printing"])
def test_the_games_never_import_mail_or_printing(above: str) -> None:
    """Not even inside a function: the games ask `games.outbox.outbox()` for what they
    queue (the mail app registers it, `werewolf.mail.apps`), and the paper's views and
    command live in `printing`, which reads the games."""
    graph = _graph()
    found = sorted(
        f"{module} -> {name}"
        for module, names in graph.items()
        if module.startswith("werewolf.games")
        for name in names
        if name == above or name.startswith(above + ".")
    )
    assert not found, found


def test_no_circle_inside_the_engine() -> None:
    """The rulesets register into a leaf (`engine.registry`), so the state reads its
    ruleset's part without importing the rulesets, which import the state."""
    graph = _graph()
    engine = {
        module: {name for name in names if name.startswith("werewolf.engine")}
        for module, names in graph.items()
        if module.startswith("werewolf.engine")
    }
    assert not _circles(engine)
