"""Real Celery worker processes for the integration tests, on the configured broker
(the SQLite file by default, Redis when CELERY_BROKER_URL says so) and the test
database of the running test session."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def database_url() -> str:
    """The URL of the database the tests are using right now (the test database)."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{Path(db['NAME']).resolve()}"
    user = db.get("USER") or ""
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    auth = f"{user}{password}@" if user else ""
    return f"postgres://{auth}{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"


class Worker:
    def __init__(
        self,
        name: str,
        log: Path,
        *,
        beat: bool = False,
        schedule: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.settings",
            "DATABASE_URL": database_url(),
            "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
            "WEREWOLF_REAL_TASKS": "1",
            "WEREWOLF_SWEEP_SECONDS": "1",
            "WEREWOLF_HAND_OUT_AGAIN_SECONDS": "3",  # a task lost with the broker: handed out again soon
            **(env or {}),
        }
        command = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "werewolf",
            "worker",
            "--pool=solo",
            "-n",
            f"{name}@%h",
            "--loglevel=info",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
        if beat:
            command += ["-B", "--schedule", str(schedule or log.with_suffix(".schedule"))]
        self.log = log
        self.handle = log.open("w")
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=self.handle, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"worker exited:\n{self.log.read_text()}")
            if " ready." in self.log.read_text():
                return
            time.sleep(0.2)
        raise TimeoutError(f"worker not ready:\n{self.log.read_text()}")

    def stop(self) -> str:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.handle.close()
        return self.log.read_text()


def wait_for(condition, timeout: float = 60, step: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return False
