"""CI's two passes share the tests that cannot differ between them (tests/conftest.py)."""

from __future__ import annotations

from types import SimpleNamespace

from tests.conftest import _unbound_pass


def item(nodeid: str, fixtures: tuple[str, ...] = (), marker: object = None) -> SimpleNamespace:
    return SimpleNamespace(nodeid=nodeid, fixturenames=fixtures, get_closest_marker=lambda name: marker)


def test_an_engine_test_runs_in_one_pass_the_same_one_every_run() -> None:
    ids = [f"tests/engine/test_cards.py::test_{n}" for n in range(200)]
    passes = [_unbound_pass(item(nodeid)) for nodeid in ids]
    assert set(passes) == {"sqlite", "postgresql"}
    assert 60 < passes.count("sqlite") < 140  # about half in each
    assert passes == [_unbound_pass(item(nodeid)) for nodeid in ids]


def test_a_test_that_asks_for_the_database_runs_in_both() -> None:
    assert _unbound_pass(item("tests/engine/test_simulate.py::test_x", fixtures=("db",))) is None
    assert _unbound_pass(item("tests/engine/test_simulate.py::test_x", marker=object())) is None
    assert _unbound_pass(item("tests/web/test_lab.py::test_x")) is None
    assert _unbound_pass(item("tests/test_style.py::test_ruff")) in ("sqlite", "postgresql")
