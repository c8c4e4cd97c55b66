"""Orders from a mailbox: `fetch_mail` against a real IMAP server on loopback (Debian's
Dovecot, started by the test with its own configuration, over TLS), exactly once across
a crash between reading and moving, a connection dropped mid-fetch, and the same message
arriving twice."""

from __future__ import annotations

import imaplib
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from django.core import mail
from django.core.management import call_command

from tests.conftest import require
from werewolf.games.models import InboundMessage, Order
from werewolf.mail import imap

from ..mail.test_inbound import letter, name_of, seat_of
from ..web.play import started_game

pytestmark = pytest.mark.django_db(transaction=True)

USER, PASSWORD = "orders", "secret-pw-1"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def dovecot(settings):
    """A Dovecot of the test's own: its config, state and mail in a directory of its own
    (which Dovecot's users can traverse, unlike pytest's), IMAP over TLS on a free port
    with a certificate made now; the system's Dovecot untouched."""
    require("dovecot", bool(shutil.which("dovecot")), "install Debian's dovecot-imapd")
    require("openssl", bool(shutil.which("openssl")), "install openssl")
    base = Path(tempfile.mkdtemp(prefix="werewolf-dovecot-"))
    base.chmod(0o755)
    for name in ("run", "state", "home"):
        (base / name).mkdir(parents=True)
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(base / "key.pem"), "-out", str(base / "cert.pem")],
        check=True, capture_output=True,
    )  # fmt: skip
    shutil.chown(base / "home", "dovecot", "dovecot")
    (base / "users").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
    port = free_port()
    (base / "dovecot.conf").write_text(
        f"""protocols = imap
listen = 127.0.0.1
base_dir = {base}/run
state_dir = {base}/state
log_path = {base}/dovecot.log
ssl = required
ssl_cert = <{base}/cert.pem
ssl_key = <{base}/key.pem
auth_mechanisms = plain login
first_valid_uid = 1
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {base}/users
}}
userdb {{
  driver = static
  args = uid=dovecot gid=dovecot home={base}/home/%u
}}
mail_location = maildir:~/Maildir
namespace inbox {{
  inbox = yes
  separator = /
}}
service imap-login {{
  inet_listener imap {{
    port = 0
  }}
  inet_listener imaps {{
    port = {port}
    ssl = yes
  }}
  chroot =
}}
service anvil {{
  chroot =
}}
"""
    )
    server = subprocess.Popen(
        ["dovecot", "-F", "-c", str(base / "dovecot.conf")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    settings.WEREWOLF_IMAP_HOST, settings.WEREWOLF_IMAP_PORT = "127.0.0.1", port
    settings.WEREWOLF_IMAP_SECURITY, settings.WEREWOLF_IMAP_CAFILE = "tls", str(base / "cert.pem")
    settings.WEREWOLF_IMAP_USER, settings.WEREWOLF_IMAP_PASSWORD = USER, PASSWORD
    settings.WEREWOLF_IMAP_FOLDER, settings.WEREWOLF_IMAP_DONE_FOLDER = "INBOX", "Werewolf/Done"
    yield base
    server.terminate()
    server.wait(timeout=20)
    shutil.rmtree(base, ignore_errors=True)


def mailbox(base: Path) -> imaplib.IMAP4_SSL:
    from django.conf import settings

    context = ssl.create_default_context(cafile=str(base / "cert.pem"))
    connection = imaplib.IMAP4_SSL("127.0.0.1", settings.WEREWOLF_IMAP_PORT, ssl_context=context, timeout=10)
    connection.login(USER, PASSWORD)
    return connection


def deliver(base: Path, raw: bytes) -> None:
    with mailbox(base) as connection:
        assert connection.append("INBOX", None, None, raw)[0] == "OK"


def count(base: Path, folder: str) -> int:
    with mailbox(base) as connection:
        status, data = connection.select(f'"{folder}"', readonly=True)
        return int(data[0]) if status == "OK" else -1


def test_fetch_mail_takes_each_card_once_and_moves_it(organiser, dovecot) -> None:
    game = started_game(organiser, "IMAP")
    seer = seat_of(game, "seer")
    target = next(seat for seat in game.engine_state.living() if seat != seer)
    deliver(dovecot, letter(game, seer, f"INQUIRE {name_of(game, target)}"))
    outbox = len(mail.outbox)
    call_command("fetch_mail", stdout=open("/dev/null", "w"))
    kept = InboundMessage.objects.get()
    assert kept.status == "applied" and kept.source.startswith("imap://orders@127.0.0.1/INBOX;UIDVALIDITY=")
    assert Order.objects.filter(seat=seer).count() == 1 and len(mail.outbox) == outbox + 1
    assert count(dovecot, "INBOX") == 0 and count(dovecot, "Werewolf/Done") == 1
    assert imap.fetch().taken == 0  # nothing left


def test_a_crash_between_reading_and_moving_reads_nothing_twice(organiser, dovecot, monkeypatch) -> None:
    game = started_game(organiser, "IMAP crash")
    seer = seat_of(game, "seer")
    target = next(seat for seat in game.engine_state.living() if seat != seer)
    deliver(dovecot, letter(game, seer, f"INQUIRE {name_of(game, target)}"))

    def crash(connection, uid):
        raise imaplib.IMAP4.abort("the worker died here")

    with monkeypatch.context() as patched:
        patched.setattr(imap, "_move", crash)
        with pytest.raises(imap.MailboxError):
            imap.fetch()
    assert InboundMessage.objects.count() == 1 and count(dovecot, "INBOX") == 1
    outbox = len(mail.outbox)
    done = imap.fetch()
    assert (done.taken, done.already) == (0, 1)
    assert InboundMessage.objects.count() == 1 and Order.objects.filter(seat=seer).count() == 1
    assert len(mail.outbox) == outbox and count(dovecot, "INBOX") == 0


def test_a_connection_dropped_mid_fetch_loses_nothing(organiser, dovecot, monkeypatch) -> None:
    game = started_game(organiser, "IMAP drop")
    seers = seat_of(game, "seer")
    others = [seat for seat in game.engine_state.living() if seat != seers][:3]
    for seat in others:
        deliver(dovecot, letter(game, seat, "SLEEP", message_id=f"<sleep.{seat}@example.org>"))
    fetched = imap._message
    calls = []

    def drop_on_the_second(connection, uid):
        calls.append(uid)
        if len(calls) == 2:
            connection.shutdown()  # the network goes away in the middle of the fetch
        return fetched(connection, uid)

    with monkeypatch.context() as patched:
        patched.setattr(imap, "_message", drop_on_the_second)
        with pytest.raises(imap.MailboxError):
            imap.fetch()
    assert InboundMessage.objects.count() == 1
    done = imap.fetch()
    assert done.taken == 2 and InboundMessage.objects.count() == 3
    assert sorted(InboundMessage.objects.values_list("player__seat", flat=True)) == sorted(others)
    assert count(dovecot, "INBOX") == 0 and count(dovecot, "Werewolf/Done") == 3


def test_the_same_message_twice_in_the_mailbox_is_one_card(organiser, dovecot) -> None:
    game = started_game(organiser, "IMAP twice")
    seer = seat_of(game, "seer")
    target = next(seat for seat in game.engine_state.living() if seat != seer)
    raw = letter(game, seer, f"INQUIRE {name_of(game, target)}", message_id="<same@example.org>")
    deliver(dovecot, raw)
    deliver(dovecot, raw)
    outbox = len(mail.outbox)
    assert imap.fetch().taken == 2
    assert sorted(InboundMessage.objects.values_list("status", flat=True)) == ["applied", "duplicate"]
    assert Order.objects.filter(seat=seer).count() == 1 and len(mail.outbox) == outbox + 1


def test_a_mailbox_that_cannot_be_reached_exits_75(settings) -> None:
    settings.WEREWOLF_IMAP_HOST, settings.WEREWOLF_IMAP_PORT = "127.0.0.1", free_port()
    settings.WEREWOLF_IMAP_SECURITY = "none"
    with pytest.raises(SystemExit) as exit:
        call_command("fetch_mail", stdout=open("/dev/null", "w"), stderr=open("/dev/null", "w"))
    assert exit.value.code == 75


def test_a_whole_game_by_replies_through_the_mailbox(organiser, dovecot) -> None:
    """Every card of a whole game is a player's reply delivered to the IMAP mailbox and read
    from there by fetch_mail: each kept once, applied, answered once, and moved to Done."""
    from random import Random

    from django.utils import timezone

    from werewolf import engine
    from werewolf.games import services
    from werewolf.games.models import Game, Phase

    from ..web.play import card_form, reply_card

    game = started_game(organiser, "IMAP game", seed=12)
    rng = Random(12)
    sent = 0
    for _ in range(40):
        game.refresh_from_db()
        phase = game.current_phase()
        if phase is None:
            break
        for seat in sorted(engine.phase(game.engine_state).slots):
            game.refresh_from_db()
            if game.current_phase() is None or game.current_phase().pk != phase.pk:
                break
            deliver(dovecot, reply_card(game, seat, card_form(game, seat, rng), rng))
            sent += 1
            call_command("fetch_mail", stdout=open("/dev/null", "w"))
        game.refresh_from_db()
        if game.current_phase() is not None and game.current_phase().pk == phase.pk:
            Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now())
            services.sweep_due_phases()
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    kept = InboundMessage.objects.all()
    assert kept.count() == sent
    assert set(kept.values_list("status", flat=True)) == {"applied"}, list(kept.values_list("status", "code"))
    assert all(row.source.startswith("imap://") for row in kept)
    answers = [message for message in mail.outbox if message.extra_headers.get("In-Reply-To")]
    assert sorted(m.extra_headers["In-Reply-To"] for m in answers) == sorted(kept.values_list("message_id", flat=True))
    assert count(dovecot, "INBOX") == 0 and count(dovecot, "Werewolf/Done") == sent


def until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_fetch_mail_watch_reads_a_reply_as_it_arrives_by_idle(organiser, dovecot, settings, monkeypatch) -> None:
    """`fetch_mail --watch` waits in IDLE: a reply appended to the mailbox is read, stored,
    answered once and moved to Done as soon as the server says it arrived (polling is
    set to ten minutes, so it is not what reads it); an IDLE that runs its time is
    renewed, and the next reply is read as well."""
    import functools
    import threading

    from django.db import connections

    game = started_game(organiser, "IMAP watch")
    seer = seat_of(game, "seer")
    target = next(seat for seat in game.engine_state.living() if seat != seer)
    sleeper = next(seat for seat in game.engine_state.living() if seat not in (seer, target))
    settings.WEREWOLF_IMAP_POLL_SECONDS = 600
    monkeypatch.setattr(imap, "IDLE_SECONDS", 2)
    idles: list[tuple[float, float, bool | None]] = []
    idle = imap._idle

    def recorded(connection, seconds):
        idles.append((time.monotonic(), 0.0, None))
        woken = idle(connection, seconds)
        idles[-1] = (idles[-1][0], time.monotonic(), woken)
        return woken

    monkeypatch.setattr(imap, "_idle", recorded)
    stop, failures = threading.Event(), []
    monkeypatch.setattr(imap, "watch", functools.partial(imap.watch, stop=stop))

    def command() -> None:
        try:
            call_command("fetch_mail", "--watch", stdout=open("/dev/null", "w"))
        except BaseException as failure:  # shown by the test
            failures.append(failure)
        finally:
            connections.close_all()

    outbox = len(mail.outbox)
    watcher = threading.Thread(target=command, daemon=True)
    watcher.start()
    try:
        assert until(lambda: idles, 5), "the watcher never went into IDLE"
        card = letter(game, seer, f"INQUIRE {name_of(game, target)}", message_id="<watched.1@example.org>")
        appended = time.monotonic()
        deliver(dovecot, card)
        assert until(lambda: InboundMessage.objects.filter(message_id="<watched.1@example.org>").exists(), 1.5)
        assert time.monotonic() - appended < imap.IDLE_SECONDS
        assert idles[0][2] is True  # woken by the server's EXISTS, not by the IDLE running out
        assert until(lambda: count(dovecot, "Werewolf/Done") == 1, 2) and count(dovecot, "INBOX") == 0
        kept = InboundMessage.objects.get()
        assert kept.status == "applied" and kept.source.startswith("imap://")
        assert Order.objects.filter(seat=seer).count() == 1
        answers = [m for m in mail.outbox[outbox:] if m.extra_headers.get("In-Reply-To") == kept.message_id]
        assert len(answers) == 1
        # An IDLE that ran its time out is renewed (on a new connection) and the watch goes on.
        assert until(lambda: any(woken is False for _, _, woken in idles) and idles[-1][2] is None, 5)
        deliver(dovecot, letter(game, sleeper, "SLEEP", message_id="<watched.2@example.org>"))
        assert until(lambda: InboundMessage.objects.filter(message_id="<watched.2@example.org>").exists(), 2)
        assert until(lambda: count(dovecot, "Werewolf/Done") == 2, 2)
    finally:
        stop.set()
        watcher.join(timeout=10)
    assert not watcher.is_alive() and not failures, failures
    assert InboundMessage.objects.count() == 2 and Order.objects.filter(seat=seer).count() == 1
    assert len([m for m in mail.outbox[outbox:] if m.extra_headers.get("In-Reply-To")]) == 2


def test_the_beat_reads_the_mailbox_when_a_host_is_set(organiser, dovecot, settings) -> None:
    """With WEREWOLF_IMAP_HOST set, the beat's schedule has the fetch (every
    WEREWOLF_IMAP_POLL_SECONDS), and one run of its task reads the mailbox; without a
    host, the schedule has no such job."""
    from celery import Celery

    from tasks.mail import fetch_mail
    from werewolf.celery import _schedule_sweeper

    def schedule() -> dict:
        app = Celery("werewolf")
        app.config_from_object("django.conf:settings", namespace="CELERY")
        _schedule_sweeper(app)
        return app.conf.beat_schedule

    settings.WEREWOLF_IMAP_POLL_SECONDS = 45
    job = schedule()["fetch mail"]
    assert job["task"] == "tasks.mail.fetch_mail" and job["schedule"] == 45
    game = started_game(organiser, "IMAP beat")
    seer = seat_of(game, "seer")
    target = next(seat for seat in game.engine_state.living() if seat != seer)
    deliver(dovecot, letter(game, seer, f"INQUIRE {name_of(game, target)}"))
    outbox = len(mail.outbox)
    assert fetch_mail.apply().get() == 1
    assert InboundMessage.objects.get().status == "applied" and Order.objects.filter(seat=seer).count() == 1
    assert len(mail.outbox) == outbox + 1 and count(dovecot, "INBOX") == 0 and count(dovecot, "Werewolf/Done") == 1
    assert fetch_mail.apply().get() == 0  # nothing left
    settings.WEREWOLF_IMAP_HOST = ""
    assert "fetch mail" not in schedule()
