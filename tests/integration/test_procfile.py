"""The production processes as the README brings them up: the Procfile under honcho
(gunicorn, a Celery worker, beat and the SMTP listener) against PostgreSQL and Redis,
driven through a whole game over HTTP by an organiser and seven players."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from random import Random

import pytest
import requests
from django.conf import settings
from django.db import connection

from werewolf.games import links
from werewolf.games.models import Game

from ..web.play import GAME_FORM, NAMES, card_form
from .workers import database_url

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(check, timeout: float, what: str, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"{what}; the processes said:\n{log.read_text()[-4000:]}"
        time.sleep(0.3)


def csrf(session: requests.Session, url: str) -> str:
    page = session.get(url, timeout=20)
    page.raise_for_status()
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)


@pytest.fixture
def served(tmp_path: Path, django_user_model):
    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("the served deployment runs in the PostgreSQL + Redis pass")
    honcho = shutil.which("honcho", path=str(Path(sys.executable).parent)) or shutil.which("honcho")
    assert honcho, "honcho is a test dependency (pyproject.toml)"
    port, mail_port = free_port(), free_port()
    env = {
        **{key: value for key, value in os.environ.items() if not key.startswith(("WEREWOLF_", "DJANGO_"))},
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "DJANGO_SETTINGS_MODULE": "werewolf.settings",
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "PORT": str(port),
        "MAIL_PORT": str(mail_port),
        "WEB_WORKERS": "2",
        "WORKER_CONCURRENCY": "1",
        "WEREWOLF_VAR_DIR": str(tmp_path / "var"),
        "WEREWOLF_SECRET_KEY": settings.SECRET_KEY,  # the seat links the test works out are the server's
        "WEREWOLF_SITE_URL": f"http://127.0.0.1:{port}",
        "WEREWOLF_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "WEREWOLF_EMAIL": "file",
        "WEREWOLF_MAIL_ORDERS": "1",
        "WEREWOLF_ORDERS_ADDRESS": "orders@werewolf.test",
        "WEREWOLF_SWEEP_SECONDS": "2",
        "WEREWOLF_MAIL_SWEEP_SECONDS": "2",
    }
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    # Hashed as the served settings hash (the tests' own hasher is a fast one they lack).
    hashed = PBKDF2PasswordHasher().encode("procfile-pass-1", PBKDF2PasswordHasher().salt())
    django_user_model.objects.create(username="organiser", password=hashed)
    log = tmp_path / "honcho.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [honcho, "start", "-f", str(ROOT / "Procfile"), "-d", str(ROOT)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"

    def ready() -> bool:
        assert process.poll() is None, log.read_text()[-4000:]
        try:
            return requests.get(base + "/readyz", timeout=2).status_code == 200
        except requests.RequestException:
            return False

    try:
        wait_for(ready, 90, "the served app never became ready", log)
        yield base, tmp_path / "var", log
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=40)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        deadline = time.monotonic() + 20
        while subprocess.run(["pgrep", "-f", f"0.0.0.0:{port}"], capture_output=True).returncode == 0:
            assert time.monotonic() < deadline, "gunicorn outlived honcho"
            time.sleep(0.3)


def test_the_procfile_serves_a_whole_game_over_http(served) -> None:
    base, var, log = served
    organiser = requests.Session()
    token = csrf(organiser, base + "/accounts/login/")
    response = organiser.post(
        base + "/accounts/login/",
        {"username": "organiser", "password": "procfile-pass-1", "csrfmiddlewaretoken": token},
        headers={"Referer": base + "/accounts/login/"},
        timeout=20,
    )
    assert response.ok and "/accounts/login/" not in response.url, response.text[:2000]
    players = "\n".join(f"{name} <{name.lower()}@example.org>" for name in NAMES[:7])
    token = csrf(organiser, base + "/games/new/")
    form = {**GAME_FORM, "players": players, "wolves": 2, "csrfmiddlewaretoken": token}
    response = organiser.post(base + "/games/new/", form, headers={"Referer": base + "/games/new/"}, timeout=20)
    assert response.ok, log.read_text()[-3000:]
    game = Game.objects.get()
    dashboard = f"{base}/games/{game.pk}/"
    token = csrf(organiser, dashboard)
    response = organiser.post(
        dashboard, {"action": "start", "csrfmiddlewaretoken": token}, headers={"Referer": dashboard}, timeout=20
    )
    assert response.ok
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    # The worker mails every seat its link (the file backend, under var/mail).
    wait_for(lambda: len(list((var / "mail").glob("*"))) >= 1, 60, "no mail was written", log)
    rng = Random(7)
    player = requests.Session()
    for _ in range(30):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        phase = game.current_phase()
        for seat_player in game.players.order_by("seat"):
            form = card_form(game, seat_player.seat, rng)
            if form is None:
                continue
            url = base + links.url_for(seat_player, absolute=False)
            form["csrfmiddlewaretoken"] = csrf(player, url)
            response = player.post(url, form, headers={"Referer": url}, timeout=20, allow_redirects=False)
            assert response.status_code in (302, 400), response.text[:2000]  # 400: the phase ended first
        # Every card in: the worker resolves the phase at once (or the beat's sweep does).
        wait_for(
            lambda phase=phase: Game.objects.get(pk=game.pk).phases.get(pk=phase.pk).status == "resolved",
            60,
            f"phase {phase.index} was never resolved",
            log,
        )
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED, "the game did not end in 30 phases"
    for phase in game.phases.all():
        kinds = list(phase.events.values_list("kind", flat=True))
        assert kinds.count("dawn_no_death") + kinds.count("killed") <= 1  # each phase resolved once
    public = requests.get(f"{base}/g/{game.public_key}/", timeout=20).text
    for seat_player in game.players.all():
        assert f"{seat_player.name}:" in public  # every role revealed at the end
    assert len(list((var / "mail").glob("*"))) >= 2  # the results went out too
