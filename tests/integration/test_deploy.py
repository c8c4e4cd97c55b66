"""The production settings: `manage.py check --deploy` is clean with the environment the
README's deployment section gives."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_check_deploy_is_clean_with_the_documented_environment(tmp_path) -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "werewolf.settings",
        "WEREWOLF_VAR_DIR": str(tmp_path),
        "WEREWOLF_SITE_URL": "https://wolves.example.org",
        "WEREWOLF_ALLOWED_HOSTS": "wolves.example.org",
        "WEREWOLF_HSTS_SECONDS": "31536000",
        "WEREWOLF_SECRET_KEY": secrets.token_urlsafe(50),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_procfile_names_every_production_process() -> None:
    processes = dict(
        line.split(":", 1) for line in (ROOT / "Procfile").read_text().splitlines() if line and line[0] != "#"
    )
    assert set(processes) == {"web", "worker", "beat", "mail"}
    assert "gunicorn werewolf.wsgi" in processes["web"]
