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


def test_check_deploy_asks_for_the_sites_address(tmp_path) -> None:
    """Without WEREWOLF_SITE_URL the links in mail point to the built-in address (or to
    the one `dev.py run` wrote for this machine): the deploy check says so, and where to
    set it. (Cookies and the HTTPS redirect are set here, so that it is the only word.)"""
    env_file = tmp_path / "werewolf.env"
    env_file.write_text("")
    env = {
        **{key: value for key, value in os.environ.items() if key != "WEREWOLF_SITE_URL"},
        "DJANGO_SETTINGS_MODULE": "werewolf.settings",
        "WEREWOLF_ENV_FILE": str(env_file),
        "WEREWOLF_VAR_DIR": str(tmp_path),
        "WEREWOLF_ALLOWED_HOSTS": "wolves.example.org",
        "WEREWOLF_HSTS_SECONDS": "31536000",
        "WEREWOLF_SECURE_COOKIES": "1",
        "WEREWOLF_SSL_REDIRECT": "1",
        "WEREWOLF_SECRET_KEY": secrets.token_urlsafe(50),
    }
    for written in ("", "http://127.0.0.1:8420"):
        if written:
            (tmp_path / "site-url").write_text(written)  # as dev.py run leaves it
        result = subprocess.run(
            [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        said = result.stdout + result.stderr
        assert result.returncode == 1 and "System check identified 1 issue" in said, said
        assert "(werewolf.W010) WEREWOLF_SITE_URL is not set" in said, said
        hint = "HINT: Set WEREWOLF_SITE_URL to the public address (https://werewolf.example.org) in the env file"
        assert f"{hint} every process reads ({env_file})" in said, said
        assert (written or "http://127.0.0.1:8000") in said
