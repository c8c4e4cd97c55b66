"""Every benchmark script still runs: each one, on the smallest input it takes, on the
embedded defaults (SQLite, the SQLite broker, its own var directory), ends well and
prints its figures. No figure is read: benchmarks/ measures, the tests never time.
A script that measures PostgreSQL itself (`ON_POSTGRESQL`) is given the configured
PostgreSQL server when there is one (always in CI's pass on PostgreSQL, the one these
run in) and makes a database of its own there; on SQLite it only says it needs one.

A benchmark nobody runs between two issues rots quietly (a renamed helper, a changed
view); this finds that the day it happens. In CI they run in one pass only: they leave
the configured database and broker alone either way."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.conftest import require

ROOT = Path(__file__).resolve().parents[1]

_SERVED = ["--seconds", "0.4", "--rounds", "1", "--clients", "2", "--workers", "1", "--threads", "2"]
"""The smallest run of a benchmark that serves pages under gunicorn."""

SMALLEST = {
    "game_digests.py": ["write", os.devnull, "--games", "2", "--ruleset", "classic"],
    "ideal_village.py": ["--games", "20", "--ruleset", "lunapiena"],
    "inbound_limits.py": ["--scale", "0.01"],
    "lab.py": ["--games", "20", "--repeat", "1", "--players", "8", "--web"],
    "mail_sweep.py": ["--mails", "20", "--repeat", "2"],
    "outbox_indexes.py": ["--games", "3", "--players", "7", "--phases", "2", "--marks", "10", "--plans"],
    "phase_mail.py": ["--players", "7", "--repeat", "2"],
    "printing.py": ["--repeat", "1"],
    "seat_profile.py": ["--pages", "5", "--top", "3", "--profile"],
    "simulate.py": ["--games", "20", "--repeat", "1"],
    "storm.py": ["--games", "3", "--players", "7", "--workers", "1", "--concurrency", "2", "--timeout", "120"],
    "storm_pages.py": [
        *["--games", "3", "--players", "7", "--workers", "1", "--timeout", "120", "--quiet-seconds", "0.5"],
        *["--web-workers", "1", "--threads", "2", "--clients", "2", "--drain", "30", "--no-scaling"],
    ],
    "talk.py": [*_SERVED],
    "worker_profile.py": ["--games", "2", "--players", "7", "--top", "3"],
    "web.py": [*_SERVED, "--games", "2"],
}
"""Each script, and the arguments that make it smallest."""

PRINTS = {
    "game_digests.py": "classic 16 talk: 2 games",
    "ideal_village.py": "| 24 | 3 | no |",
    "inbound_limits.py": "baseline",
    "lab.py": "ratio whole answer / bare simulate runs of its games",
    "mail_sweep.py": "ratio full / empty",
    "outbox_indexes.py": "index entries a mark",
    "phase_mail.py": "ratio project / Django backend",
    "printing.py": "ratio",
    "seat_profile.py": "ratio page / trivial:",
    "simulate.py": "ratio (model/engine)",
    "storm.py": "mails received 21 of 21",
    "storm_pages.py": "issue 40's figures",
    "worker_profile.py": "function calls a game",
    "talk.py": "ratio:",
    "web.py": "card POST:",
}
"""A line each prints when it ran to the end."""

ON_POSTGRESQL = {"outbox_indexes.py": "outbox_indexes.py measures PostgreSQL's indexes"}
"""The scripts that measure PostgreSQL itself, and what each prints on SQLite instead."""


def run_script(
    script: str, args: list[str], env: dict[str, str], timeout: int = 300
) -> subprocess.CompletedProcess[str]:
    """A benchmark script run as the program it is, from the project's root."""
    return subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_every_benchmark_is_listed() -> None:
    assert sorted(path.name for path in (ROOT / "benchmarks").glob("*.py") if path.name != "__init__.py") == sorted(
        SMALLEST
    )
    assert PRINTS.keys() == SMALLEST.keys()


@pytest.mark.one_pass("postgresql")
@pytest.mark.parametrize("script", sorted(SMALLEST))
def test_the_benchmark_runs_to_its_figures(script: str, tmp_path: Path) -> None:
    env = {name: value for name, value in os.environ.items() if name not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update({"WEREWOLF_VAR_DIR": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"})
    prints = PRINTS[script]
    if script in ON_POSTGRESQL:
        server = os.environ.get("DATABASE_URL", "")
        if server.startswith("postgres") or os.environ.get("CI"):
            require("PostgreSQL", server.startswith("postgres"), "set DATABASE_URL=postgres://...")
            env["DATABASE_URL"] = server
        else:
            prints = ON_POSTGRESQL[script]
    env.pop("DJANGO_SETTINGS_MODULE", None)  # each script names its own
    result = run_script(script, SMALLEST[script], env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert prints in result.stdout, result.stdout[-3000:]


def test_a_table_the_rules_refuse_is_refused_before_any_setup(tmp_path: Path) -> None:
    env = {**os.environ, "WEREWOLF_VAR_DIR": str(tmp_path)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    result = run_script("storm.py", ["--players", "4"], env, timeout=60)
    assert result.returncode == 2
    assert "--players 4: the classic rules refuse that table" in result.stderr


@pytest.mark.parametrize("script", ["storm.py", "storm_pages.py"])
def test_code_from_a_directory_that_is_no_checkout_is_refused_before_any_setup(tmp_path: Path, script: str) -> None:
    env = {**os.environ, "WEREWOLF_VAR_DIR": str(tmp_path)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    result = run_script(script, ["--code", str(tmp_path)], env, timeout=60)
    assert result.returncode == 2
    assert "is no checkout of this project" in result.stderr


@pytest.mark.one_pass("postgresql")
def test_the_storm_sets_its_games_up_once_and_runs_on_copies(tmp_path: Path) -> None:
    """`--setup-once`: the first run sets the games up in a template database, the next
    copies it (and signs the seats' links with the key they were set up under)."""
    server = os.environ.get("DATABASE_URL", "")
    if not server.startswith("postgres"):
        require("PostgreSQL", not os.environ.get("CI"), "set DATABASE_URL=postgres://...")
        pytest.skip("--setup-once copies a PostgreSQL database")
    env = {name: value for name, value in os.environ.items() if name != "CELERY_BROKER_URL"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env["DATABASE_URL"] = urlsplit(server)._replace(path="/storm_once_test").geturl()
    outputs = []
    for run in range(2):
        env["WEREWOLF_VAR_DIR"] = str(tmp_path / f"run{run}")
        result = run_script("storm_pages.py", [*SMALLEST["storm_pages.py"], "--setup-once"], env)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        outputs.append(result.stdout)
    assert "setting the games up once" in outputs[0] or "a copy of storm_setup_3x7_" in outputs[0]
    assert "setting the games up once" not in outputs[1]
    assert "a copy of storm_setup_3x7_" in outputs[1]
    assert "errors: 0" in outputs[1]  # every seat's page answered: its link's key came with the games
    # What a durable commit costs is counted (PostgreSQL's log flushes): the marks, one a mail.
    flushes = re.findall(r"the database log flushed, a game\s+([\d.]+)\s+([\d.]+)", outputs[1])
    assert flushes and all(float(ours) > 0 for ours, _ in flushes), outputs[1]


def test_the_storm_refuses_to_copy_a_database_that_is_not_postgresql(tmp_path: Path) -> None:
    env = {name: value for name, value in os.environ.items() if name not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env["WEREWOLF_VAR_DIR"] = str(tmp_path)
    result = run_script("storm.py", ["--games", "2", "--players", "7", "--setup-once"], env, timeout=120)
    assert result.returncode != 0
    assert "--setup-once copies a PostgreSQL database" in result.stdout + result.stderr
