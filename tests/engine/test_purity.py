"""The engine is pure Python: no Django, no Celery, and typed on its whole surface."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_engine_imports_neither_django_nor_celery() -> None:
    probe = (
        "import sys, werewolf.engine, werewolf.engine.simulate, werewolf.engine.replay;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'django', 'celery', 'kombu'}))"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_engine_passes_mypy_strict(tmp_path: Path) -> None:
    # A cache of its own: CI runs two test passes side by side in one checkout.
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-error-summary",
            "--cache-dir",
            str(tmp_path),
            "werewolf/engine",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
