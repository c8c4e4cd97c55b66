"""One site address for every process (issue 38). `dev.py run 127.0.0.1:8420` with the
settings in the env file, then a reply piped through `receive_mail`: every mail that
process wrote linked to http://127.0.0.1:8000, the built-in address, because the address
was set only in the environment of the processes dev.py started. Now settings read the
address from the environment, else the env file, else the file `dev.py run` writes
under the var directory; `migrate` records it as the site's; and a process whose own
address is only the built-in one on a site that recorded another refuses to start,
saying where to set it (`receive_mail` keeps the mail queued: exit 75)."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from random import Random

import pytest
from django.db.models import Max

from werewolf.games.models import Dispatch

from ..web.play import card_form, reply_address, reply_card, started_game
from .workers import database_url

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"https?://[^\s\"'<>]+")


def manage(args: list[str], env: dict[str, str], stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, input=stdin, capture_output=True, timeout=120
    )


def bare_env(env_file: Path, **extra: str) -> dict[str, str]:
    """What a mail system gives its pipe: next to nothing, and the env file's name."""
    return {"PATH": os.environ["PATH"], "LANG": "C", "WEREWOLF_ENV_FILE": str(env_file), **extra}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("where", ["env file", "dev.py run"])
def test_a_reply_through_receive_mail_links_to_the_sites_address(where: str, organiser, tmp_path, settings) -> None:
    """The game is this test's; the pipe is the mail system's: an empty environment and
    the env file. The site's address is only in the env file, or only where `dev.py run
    127.0.0.1:8420` writes it. Every link of every mail the pipe wrote (the answers to a
    card and to STATUS) leads there."""
    game = started_game(organiser, "Env file")
    var = tmp_path / "var"
    env_file = tmp_path / "werewolf.env"
    env_file.write_text(
        f"WEREWOLF_VAR_DIR={var}\n"
        f"DATABASE_URL={database_url()}\n"
        f"CELERY_BROKER_URL=sqla+sqlite:///{var}/broker.sqlite3\n"
        f"WEREWOLF_SECRET_KEY={settings.SECRET_KEY}\n"
        "WEREWOLF_MAIL_ORDERS=on\n"
        f"WEREWOLF_ORDERS_ADDRESS={settings.WEREWOLF_ORDERS_ADDRESS}\n"
        "WEREWOLF_EMAIL=file\n"
    )
    if where == "env file":
        env_file.write_text(env_file.read_text() + "WEREWOLF_SITE_URL=http://127.0.0.1:8420\n")
    else:  # what dev.py run does first
        written = manage(["site_url", "http://127.0.0.1:8420"], bare_env(env_file))
        assert written.returncode == 0, written.stderr.decode()
    before = Dispatch.objects.aggregate(last=Max("pk"))["last"]
    rng = Random(38)
    first, second = game.players.order_by("seat")[:2]
    card = reply_card(game, first.seat, card_form(game, first.seat, rng), rng)
    status = (
        f"From: {second.name} <{second.email}>\r\nTo: {reply_address(second)}\r\nSubject: Re: your card\r\n"
        "Message-ID: <status-38@example.org>\r\n\r\nSTATUS\r\n"
    ).encode()
    for raw in (card, status):
        done = manage(["receive_mail"], bare_env(env_file), raw)
        assert done.returncode == 0, done.stderr.decode() + (var / "receive_mail.log").read_text()
    written = Dispatch.objects.filter(pk__gt=before or 0)
    assert {row.recipient.split("<")[-1].rstrip(">") for row in written} == {first.email, second.email}
    for row in written:
        links = LINK.findall(row.body_text) + LINK.findall(row.body_html)
        assert links, row.body_text
        assert all(link.startswith("http://127.0.0.1:8420/") for link in links), (row.subject, links)
    # And as sent, by that process, to the files its settings name.
    sent = [path.read_text() for path in (var / "mail").glob("*")]
    assert sent and all(
        link.startswith("http://127.0.0.1:8420/") for text in sent for link in LINK.findall(text.replace("=\n", ""))
    )


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A site whose address was set in the environment of the process that migrated it
    (the web server's, say), and an env file without it: the trap."""
    var = tmp_path / "var"
    env_file = tmp_path / "werewolf.env"
    env_file.write_text(
        f"WEREWOLF_VAR_DIR={var}\n"
        f"DATABASE_URL=sqlite:///{var}/db.sqlite3\n"
        f"CELERY_BROKER_URL=sqla+sqlite:///{var}/broker.sqlite3\n"
        "WEREWOLF_MAIL_ORDERS=on\n"
        "WEREWOLF_ORDERS_ADDRESS=orders@wolves.example.org\n"
        "WEREWOLF_EMAIL=file\n"
    )
    migrated = manage(
        ["migrate", "--no-input", "-v", "0"], bare_env(env_file, WEREWOLF_SITE_URL="https://wolves.example.org")
    )
    assert migrated.returncode == 0, migrated.stderr.decode()
    return env_file


def refusal_in(text: str, env_file: Path) -> bool:
    return (
        "built-in http://127.0.0.1:8000, not to the site's address wolves.example.org" in text
        and f"set WEREWOLF_SITE_URL in the env file every process reads ({env_file})" in text
    )


def test_a_process_with_the_built_in_address_on_a_site_that_set_another_refuses(site: Path) -> None:
    env_file, var = site, site.parent / "var"
    message = b"From: a@example.org\r\nTo: orders@wolves.example.org\r\nSubject: hi\r\n\r\nSLEEP\r\n"
    # The pipe: the mail system keeps the message (75) and shows why; nothing stored.
    done = manage(["receive_mail"], bare_env(env_file), message)
    assert done.returncode == 75 and done.stdout == b"", done.stderr
    assert done.stderr.decode().startswith("receive_mail: the message was not stored")
    assert "WEREWOLF_SITE_URL" in done.stderr.decode()
    assert refusal_in((var / "receive_mail.log").read_text(), env_file)
    with sqlite3.connect(var / "db.sqlite3") as db:
        assert db.execute("select count(*) from games_inboundmessage").fetchone() == (0,)
    # The listener and the mailbox reader do not start.
    listener = manage(["mail_server", "--port", "0"], bare_env(env_file))
    assert listener.returncode != 0 and refusal_in(listener.stderr.decode(), env_file), listener.stderr
    imap = bare_env(env_file, WEREWOLF_IMAP_HOST="127.0.0.1", WEREWOLF_IMAP_USER="u", WEREWOLF_IMAP_PASSWORD="p")
    fetch = manage(["fetch_mail"], imap)
    assert fetch.returncode != 0 and refusal_in(fetch.stderr.decode(), env_file), fetch.stderr
    # A worker says why in its log, and exits at once.
    worker = subprocess.run(
        [sys.executable, "-m", "celery", "-A", "werewolf", "worker", "--pool=solo", "--without-mingle"],
        cwd=ROOT,
        env=bare_env(env_file),
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = worker.stdout + worker.stderr
    assert worker.returncode == 78 and "The worker does not start." in said and refusal_in(said, env_file), said
    # Set in the env file, the address is everyone's: the pipe takes the message.
    env_file.write_text(env_file.read_text() + "WEREWOLF_SITE_URL=https://wolves.example.org\n")
    done = manage(["receive_mail"], bare_env(env_file), message)
    assert done.returncode == 0, done.stderr.decode() + (var / "receive_mail.log").read_text()


def test_the_address_comes_from_the_environment_the_env_file_dev_py_run_or_the_default(tmp_path: Path) -> None:
    """Each source in turn, as `manage.py site_url` says; the address dev.py run writes is
    recorded by the next migrate, and the built-in one never overwrites a recorded one."""
    var = tmp_path / "var"
    env_file = tmp_path / "werewolf.env"
    env_file.write_text(f"WEREWOLF_VAR_DIR={var}\nDATABASE_URL=sqlite:///{var}/db.sqlite3\n")

    def said(**extra: str) -> str:
        done = manage(["site_url"], bare_env(env_file, **extra))
        assert done.returncode == 0, done.stderr.decode()
        return done.stdout.decode().strip()

    def recorded() -> tuple[str, str]:
        with sqlite3.connect(var / "db.sqlite3") as db:
            return db.execute("select domain, name from django_site").fetchone()

    assert said() == "http://127.0.0.1:8000 (the built-in default: WEREWOLF_SITE_URL is not set)"
    assert manage(["migrate", "-v", "0"], bare_env(env_file)).returncode == 0
    assert recorded() == ("127.0.0.1:8000", "Werewolf")
    # dev.py run 127.0.0.1:8420 writes its address, which every process then reads.
    assert manage(["site_url", "http://127.0.0.1:8420"], bare_env(env_file)).returncode == 0
    assert said() == f"http://127.0.0.1:8420 ({var / 'site-url'}, written by dev.py run)"
    assert manage(["migrate", "-v", "0"], bare_env(env_file, WEREWOLF_SITE_NAME="Wolves")).returncode == 0
    assert recorded() == ("127.0.0.1:8420", "Wolves")
    env_file.write_text(env_file.read_text() + "WEREWOLF_SITE_URL=https://wolves.example.org/\n")
    assert said() == f"https://wolves.example.org (WEREWOLF_SITE_URL in the env file {env_file})"
    assert said(WEREWOLF_SITE_URL="https://other.example.org") == (
        "https://other.example.org (WEREWOLF_SITE_URL in the environment)"
    )
    # dev.py run on a site whose env file names its address: said, and the env file wins.
    written = manage(["site_url", "http://127.0.0.1:8421"], bare_env(env_file))
    assert b"point to https://wolves.example.org nonetheless" in written.stderr
    assert manage(["migrate", "-v", "0"], bare_env(env_file)).returncode == 0
    assert recorded()[0] == "wolves.example.org"
    # The built-in address (nothing set, no file) records nothing over it.
    env_file.write_text(f"WEREWOLF_VAR_DIR={var}\nDATABASE_URL=sqlite:///{var}/db.sqlite3\n")
    (var / "site-url").unlink()
    assert manage(["migrate", "-v", "0"], bare_env(env_file)).returncode == 0
    assert recorded()[0] == "wolves.example.org"
