"""`dev.py`'s install step: it shows its progress (pip's own line per package, each step
said), and a `run` after a `test` install does not install again."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("dev_install", ROOT / "dev.py")
assert _spec and _spec.loader
dev = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dev)


@pytest.fixture
def calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """A fake .venv in tmp_path, and pip's calls recorded instead of run."""
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("")
    monkeypatch.setattr(dev, "VENV", venv)
    monkeypatch.setattr(dev, "PYTHON", venv / "bin" / "python")
    made: list[list[str]] = []

    def check_call(command: list[str], **_: Any) -> int:
        made.append(command)
        return 0

    monkeypatch.setattr(dev.subprocess, "check_call", check_call)
    return made


def test_the_first_install_says_each_step_and_lets_pip_print_each_package(calls, capsys) -> None:
    dev.install(dev=False)
    said = capsys.readouterr().out
    assert "step 1 of 2" in said and "step 2 of 2" in said and "one line a package" in said
    project = next(command for command in calls if "-e" in command)
    assert "--quiet" not in project and "-q" not in project  # pip's "Collecting ..." lines show


def test_a_run_after_a_test_install_installs_nothing(calls) -> None:
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    (dev.VENV / ".installed[dev]").write_text(wanted)
    dev.install(dev=False)
    assert calls == []
