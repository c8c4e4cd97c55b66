"""The README's run command: it sets up, serves the app with a worker, and says how to
log in, on the embedded defaults in a fresh data directory."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.integration


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def started_in(var_dir: Path) -> list[int]:
    """The processes whose environment names `var_dir` as theirs: what one run started."""
    mark = f"WEREWOLF_VAR_DIR={var_dir}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if mark in (entry / "environ").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_the_run_command_serves_the_app_and_a_worker(tmp_path) -> None:
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update({"WEREWOLF_VAR_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "werewolf.settings"})
    log = tmp_path / "run.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "dev.py", "run", f"127.0.0.1:{port}"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 180
            while " log in: " not in log.read_text():
                assert process.poll() is None, log.read_text()
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.5)
            text = log.read_text()
            assert f"Werewolf is running at http://127.0.0.1:{port}/" in text
            password = (tmp_path / "organiser-password").read_text().strip()
            assert f"user organiser password {password}" in text
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/") as response:
                assert response.status == 200
            assert (tmp_path / "db.sqlite3").exists()
            # The worker makes its broker file when it connects, which may be a moment later.
            while not (tmp_path / "broker.sqlite3").exists():
                assert process.poll() is None, log.read_text()
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.5)
        finally:
            process.send_signal(signal.SIGTERM)
            time.sleep(0.3)  # an impatient second Ctrl-C while it stops: at once, and no traceback
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                raise
    assert process.returncode == 0, log.read_text()
    assert "Traceback" not in log.read_text(), log.read_text()
    deadline = time.monotonic() + 15
    while started_in(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = started_in(tmp_path)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, "a process the run command started outlived it (the worker's beat, say)"
    leftovers = subprocess.run(["pgrep", "-f", f"runserver --noreload 127.0.0.1:{port}"], capture_output=True)
    assert leftovers.returncode == 1, "the server outlived the run command"


def test_a_worker_that_dies_at_start_is_reported_and_the_run_fails(tmp_path) -> None:
    """The worker cannot start (here its broker URL names no transport): the run says
    which process stopped, with its exit status and last lines, stops the server, and
    exits non-zero, instead of saying Werewolf runs. (`run` itself, not `dev.py run`:
    the install step is the README's test's, above.)"""
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL",)}
    env.update(
        {
            "WEREWOLF_VAR_DIR": str(tmp_path),
            "DJANGO_SETTINGS_MODULE": "werewolf.settings",
            "CELERY_BROKER_URL": "nosuchtransport://nowhere",
        }
    )
    code = f"import sys; sys.path.insert(0, {str(ROOT)!r}); import dev; sys.exit(dev.run('127.0.0.1:{port}'))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert "the Celery worker (and its beat) stopped (exit status" in done.stderr, said
    assert "nosuchtransport" in done.stderr.split("Its last lines:")[1], said
    assert "Ctrl-C stops" not in said or "Werewolf is not running" in done.stderr
    deadline = time.monotonic() + 15
    while started_in(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not started_in(tmp_path), "a process the run started outlived it"


@pytest.mark.parametrize("to", ["group", "dev.py"])
def test_ctrl_c_stops_the_run_quietly(tmp_path, to: str) -> None:
    """Issue 38: Ctrl-C on `dev.py run` (SIGINT to the process group, as a terminal sends
    it) exited 1 saying the worker had stopped. Started as a shell without job control
    starts a job in the background, dev.py began with SIGINT ignored (Python keeps it
    so), and only its children reacted. Now dev.py handles Ctrl-C itself, whatever it
    inherited, and its children, each in a process group of its own, hear of it from
    dev.py alone: it stops everything and exits 0 with nothing to say, whether SIGINT
    reaches the group or dev.py alone."""
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update({"WEREWOLF_VAR_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "werewolf.settings"})
    log = tmp_path / "run.log"
    with log.open("w") as out:
        process = subprocess.Popen(  # (the shell's `trap "" INT`, then dev.py in its place)
            ["sh", "-c", f'trap "" INT; exec "$0" dev.py run 127.0.0.1:{port}', sys.executable],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 180
            while " log in: " not in log.read_text() or not (tmp_path / "broker.sqlite3").exists():
                assert process.poll() is None, log.read_text()
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.5)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/") as response:
                assert response.status == 200
            time.sleep(1)  # the worker past its start, its own Ctrl-C handler in place
            serving = len(log.read_text())
            if to == "group":
                os.killpg(process.pid, signal.SIGINT)
            else:
                process.send_signal(signal.SIGINT)
            process.wait(timeout=40)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            deadline = time.monotonic() + 15
            while started_in(tmp_path) and time.monotonic() < deadline:
                time.sleep(0.2)
            left = started_in(tmp_path)
            for pid in left:
                os.kill(pid, signal.SIGKILL)
    said = log.read_text()[serving:]
    assert process.returncode == 0, said
    assert "stopped" not in said and "Traceback" not in said, said
    assert not left, "a process the run command started outlived it"
