"""The code base lints and type-checks clean, so a red line never waits for a reviewer to spot it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_leaves_every_file_alone() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing() -> None:
    """What pyproject.toml's [tool.mypy] names, checked strictly. Its cache is kept in the
    var directory (each of CI's passes has its own), so a second run checks only what
    changed; a first run, with none, takes a few seconds more."""
    from django.conf import settings

    cache = Path(settings.VAR_DIR) / "mypy-cache"
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(cache)], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_models_and_their_migrations_agree() -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "makemigrations", "--check", "--dry-run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "werewolf.settings", "WEREWOLF_VAR_DIR": str(ROOT / "var")},
    )
    assert result.returncode == 0, result.stdout + result.stderr
