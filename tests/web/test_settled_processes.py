"""A web process and a worker set what they load at start out of the garbage collector's
way (`gc.freeze`): it lives as long as the process, and a full collection walked it all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str, tmp_path: Path) -> str:
    env = {**os.environ, "WEREWOLF_VAR_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "werewolf.settings"}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_the_web_process_loads_its_views_and_freezes_them(tmp_path: Path) -> None:
    out = _run(
        "import gc, sys, werewolf.wsgi\nprint(gc.get_freeze_count(), 'werewolf.games.views' in sys.modules)",
        tmp_path,
    )
    frozen, views = out.split()
    assert int(frozen) > 10_000
    assert views == "True"


def test_a_worker_freezes_what_it_warmed(tmp_path: Path) -> None:
    out = _run(
        "import gc, django; django.setup()\n"
        "from werewolf import celery\n"
        "before = gc.get_freeze_count(); celery._warm()\n"
        "print(before, gc.get_freeze_count())",
        tmp_path,
    )
    before, after = map(int, out.split())
    assert before == 0
    assert after > 10_000
