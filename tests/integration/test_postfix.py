"""A whole game played by mail through a real Postfix (Debian's package), set up with the
lines `manage.py mail_setup postfix` prints and nothing else: an instance of the test's own
(its own configuration and queue directories and port; the system's Postfix untouched),
by both routes of the guide: the pipe to `receive_mail` run as an unprivileged user with an
empty environment, and the relay to `mail_server`; the settings from the env file, and a
real Celery worker sending every mail to a loopback SMTP server. Every reply is kept,
applied and answered once; Postfix bounces and defers nothing."""

from __future__ import annotations

import email
import os
import re
import shutil
import smtplib
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from email import policy
from pathlib import Path
from random import Random

import pytest
from aiosmtpd.controller import Controller
from django.db import connection
from django.utils import timezone

from werewolf import engine
from werewolf.celery import app
from werewolf.games import links, selectors, services
from werewolf.games.forms import NotecardForm
from werewolf.games.models import Game, InboundMessage, Phase
from werewolf.mail import outbound

from ..conftest import require
from ..web.play import NAMES, card_form, card_summary
from .test_smtp import Inbox, free_port
from .workers import Worker, database_url, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
PIPE_USER = "daemon"
"""An unprivileged account every Debian system has: Postfix runs no pipe as root."""


def guide_lines(output: str) -> dict[str, list[str]]:
    """The configuration lines of `mail_setup postfix`, by the file they go in (the
    numbered `# N. <file>:` headings); comments left out."""
    files: dict[str, list[str]] = {}
    current = None
    for line in output.splitlines():
        heading = re.match(r"# \d\. (/\S+):", line)
        if heading:
            current = files.setdefault(heading.group(1), [])
        elif current is not None and line.strip() and not line.startswith("#"):
            current.append(line)
    return files


def base_master_cf(port: int) -> str:
    """Debian's master.cf with smtpd on the instance's own loopback port, nothing
    chrooted (the instance's queue is not a chroot), and the optional pipes left out."""
    kept, skipping = [], False
    for line in Path("/etc/postfix/master.cf").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line[0].isspace():
            if not skipping:
                kept.append(line)
            continue
        fields = line.split()
        skipping = len(fields) > 7 and fields[7] == "pipe"
        if skipping:
            continue
        if fields[:2] == ["smtp", "inet"]:
            fields[0] = f"127.0.0.1:{port}"
        if len(fields) >= 5:
            fields[4] = "n"
        kept.append("  ".join(fields))
    return "\n".join(kept) + "\n"


@pytest.fixture
def sink(settings) -> Iterator[tuple[Inbox, int]]:
    inbox, port = Inbox(), free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield inbox, port
    controller.stop()


@pytest.fixture(params=["pipe", "listener"])
def postfix(request, sink, settings) -> Iterator[tuple[int, Path]]:
    """Postfix as the guide sets it up, by either route: the pipe to `receive_mail`, or
    (`--listener`) a relay to `mail_server` on loopback."""
    if connection.vendor != "postgresql":
        pytest.skip("the Postfix route runs in the PostgreSQL pass (the pipe's user reaches its database)")
    require("postfix", bool(shutil.which("postfix")), "install Debian's postfix (dev.py install does)")
    inbox, sink_port = sink
    base = Path(tempfile.mkdtemp(prefix="werewolf-postfix-"))
    base.chmod(0o755)
    conf, queue, data, var = base / "etc", base / "queue", base / "data", base / "var"
    for directory in (conf, queue, data, var):
        directory.mkdir()
    shutil.chown(data, "postfix")
    shutil.chown(var, PIPE_USER)
    env_file = base / "werewolf.env"
    env_file.write_text(
        "# every process's settings: the web app's, the worker's and the pipe's\n"
        f"WEREWOLF_VAR_DIR={var}\n"
        f"DATABASE_URL={database_url()}\n"
        f"CELERY_BROKER_URL={settings.CELERY_BROKER_URL}\n"
        f"WEREWOLF_SECRET_KEY={settings.SECRET_KEY}\n"
        "WEREWOLF_MAIL_ORDERS=on\n"
        f"WEREWOLF_ORDERS_ADDRESS={settings.WEREWOLF_ORDERS_ADDRESS}\n"
        f"WEREWOLF_FROM_EMAIL={settings.DEFAULT_FROM_EMAIL}\n"
        "WEREWOLF_EMAIL=smtp\n"
        "WEREWOLF_EMAIL_HOST=127.0.0.1\n"
        f"WEREWOLF_EMAIL_PORT={sink_port}\n"
        "WEREWOLF_SITE_URL=http://testserver\n"
    )
    env_file.chmod(0o644)
    port = free_port()
    (conf / "main.cf").write_text(
        "# the instance's own: directories, port, no local delivery, bounces to the sink\n"
        "compatibility_level = 3.6\n"
        f"queue_directory = {queue}\ndata_directory = {data}\n"
        "mail_owner = postfix\nsetgid_group = postdrop\n"
        "myhostname = mx.werewolf.test\nmydestination =\nmynetworks = 127.0.0.0/8\n"
        "inet_interfaces = 127.0.0.1\ninet_protocols = ipv4\n"
        "alias_maps =\nalias_database =\nsmtputf8_enable = no\n"
        f"relayhost = [127.0.0.1]:{sink_port}\n"
        f"maillog_file_prefixes = {base}\nmaillog_file = {base}/maillog\n"
    )
    (conf / "master.cf").write_text(base_master_cf(port))
    # The guide's own lines, for this instance's directory, as the organiser prints them.
    listener = free_port() if request.param == "listener" else None
    route = ["--listener", "--port", str(listener)] if listener else []
    printed = subprocess.run(
        [
            *(sys.executable, "manage.py", "mail_setup", "postfix", "--user", PIPE_USER),
            *("--config-directory", str(conf), *route),
        ],
        cwd=ROOT,
        env={"PATH": os.environ["PATH"], "LANG": "C", "WEREWOLF_ENV_FILE": str(env_file)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert "Fix these first" not in printed, printed
    for path, lines in guide_lines(printed).items():
        with open(path, "a", encoding="utf-8") as target:
            target.write("\n".join(lines) + "\n")
    # The guide's load line: postmap, then start (a new instance is not running yet).
    load = re.search(r"#    (postmap .+) && \(postfix (.+) start \|\| postfix .+ reload\)", printed)
    assert load is not None, printed
    postmap = load.group(1)
    subprocess.run(postmap.split(), check=True, timeout=60)
    started = subprocess.run(
        ["postfix", "-c", str(conf), "start"], capture_output=True, text=True, timeout=60, check=False
    )
    log = base / "maillog"
    server = None
    if listener:  # run as the guide says, reading the same env file
        server = subprocess.Popen(
            [sys.executable, "manage.py", "mail_server", "--host", "127.0.0.1", "--port", str(listener)],
            cwd=ROOT,
            env={"PATH": os.environ["PATH"], "LANG": "C", "WEREWOLF_ENV_FILE": str(env_file)},
            stdout=(base / "mail_server.log").open("w"),
            stderr=subprocess.STDOUT,
        )
        assert wait_for(lambda: _listening(listener), 60), (base / "mail_server.log").read_text()
    assert started.returncode == 0, started.stdout + started.stderr + (log.read_text() if log.exists() else "")
    try:
        assert wait_for(lambda: _listening(port), 30), log.read_text()
        yield port, base
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=20)
        subprocess.run(["postfix", "-c", str(conf), "stop"], capture_output=True, timeout=60, check=False)
        time.sleep(0.5)
        shutil.rmtree(base, ignore_errors=True)


def _listening(port: int) -> bool:
    try:
        with smtplib.SMTP("127.0.0.1", port, timeout=2):
            return True
    except OSError:
        return False


@pytest.fixture
def worker(postfix, tmp_path, settings) -> Iterator[Worker]:
    """A real worker with the production settings and the same env file as the pipe."""
    settings.WEREWOLF_INLINE_TASKS = False
    app.control.purge()
    _, base = postfix
    started = Worker(
        "mail",
        tmp_path / "worker.log",
        env={"DJANGO_SETTINGS_MODULE": "werewolf.settings", "WEREWOLF_ENV_FILE": str(base / "werewolf.env")},
    )
    started.wait_ready()
    yield started
    log = started.stop()
    app.control.purge()
    assert "Traceback" not in log, log


def _server_log(base: Path) -> str:
    path = base / "mail_server.log"
    return path.read_text()[-3000:] if path.exists() else ""


def _to(message: email.message.EmailMessage, address: str) -> bool:
    return message["To"].addresses[0].addr_spec == address


def test_a_whole_game_by_mail_through_postfix_as_the_guide_sets_it_up(organiser, sink, postfix, worker) -> None:
    inbox, _ = sink
    port, base = postfix
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    game = services.start_game(
        services.create_game(organiser, name="Postfix", seats=seats, options={"wolves": 2, "seers": 1}, seed=8)
    )
    assert wait_for(lambda: len(inbox.messages) >= 7, 60), worker.log.read_text()[-4000:]  # the welcomes
    rng = Random(8)
    sent = 0
    for _ in range(40):
        game.refresh_from_db()
        phase = game.current_phase()
        if phase is None:
            break
        names = selectors.names(game)
        state = game.engine_state
        for seat in sorted(engine.phase(state).slots):
            game.refresh_from_db()
            if game.current_phase() is None or game.current_phase().pk != phase.pk:
                break
            player = game.players.get(seat=seat)
            slot = engine.phase(game.engine_state).asks(seat)
            form = NotecardForm(
                card_form(game, seat, rng), slot=slot, names=names, seat=seat, submit="hand_in", ruleset=game.ruleset
            )
            assert form.is_valid(), form.errors
            # Reply to the mail of this phase, once the worker has sent it.
            address = outbound.orders_address(links.reference_for(player, phase.index))

            def mailed(player=player, address=address) -> list[email.message.EmailMessage]:
                return [
                    m
                    for m in inbox.messages
                    if _to(m, player.email) and m["Reply-To"] and m["Reply-To"].addresses[0].addr_spec == address
                ]

            assert wait_for(lambda: bool(mailed()), 60), (
                f"{player.name} got no mail for {phase} ({address}): "
                + repr([(m["Subject"], m["Reply-To"]) for m in inbox.messages if _to(m, player.email)])
                + (base / "var" / "receive_mail.log").read_text()[-3000:]
            )
            reply = email.message.EmailMessage(policy=policy.SMTP)
            reply["From"], reply["To"] = player.email, address
            reply["Subject"] = "Re: " + str(mailed()[-1]["Subject"])
            reply["Message-ID"] = f"<postfix-{sent}@example.org>"
            reply.set_content(card_summary(form.order(), names, game.ruleset) + "\n\n> the quoted mail\n")
            with smtplib.SMTP("127.0.0.1", port) as client:
                client.send_message(reply)
            sent += 1
            message_id = reply["Message-ID"]

            def read(message_id: str = message_id) -> bool:  # kept, and read to its end
                return InboundMessage.objects.filter(message_id=message_id).exclude(status="received").exists()

            assert wait_for(read, 60), (base / "maillog").read_text()[-3000:] + _server_log(base)
        game.refresh_from_db()
        if game.current_phase() is not None and game.current_phase().pk == phase.pk:
            Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now())
            services.sweep_due_phases()
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    kept = InboundMessage.objects.all()
    assert kept.count() == sent, list(kept.values_list("message_id", "status", "code", "game_id"))
    assert set(kept.values_list("status", flat=True)) <= {InboundMessage.Status.APPLIED}, list(
        kept.exclude(status=InboundMessage.Status.APPLIED).values_list("status", "code")
    )
    # Each reply answered once, to its sender, over the worker's SMTP.
    answered = lambda: sum(1 for m in inbox.messages if m["In-Reply-To"]) >= sent  # noqa: E731
    assert wait_for(answered, 60)
    answers = [m["In-Reply-To"] for m in inbox.messages if m["In-Reply-To"]]
    assert sorted(answers) == sorted(f"<postfix-{n}@example.org>" for n in range(sent))
    relay = "relay=werewolf, " if not (base / "mail_server.log").exists() else "relay=127.0.0.1["
    delivered = lambda: (base / "maillog").read_text().count(relay) >= sent  # noqa: E731
    assert wait_for(delivered, 30)  # each reply handed on once (Postfix logs it as it goes)
    log = (base / "maillog").read_text()
    assert "status=bounced" not in log and "status=deferred" not in log, log[-3000:]


@pytest.mark.parametrize("postfix", ["pipe"], indirect=True)
def test_postfix_takes_pipelined_envelopes_and_refusals_leave_the_connection_usable(sink, postfix) -> None:
    """The outbox's pipelined sending (werewolf/mail/pipelining.py) against a real MTA
    that offers PIPELINING and is strict about it: two mails and, between them, one whose
    recipient Postfix refuses (none: `<>`), on one connection; both mails reach the relay's far side."""
    from werewolf.mail import pipelining

    inbox, _ = sink
    port, base = postfix

    def mail(number: int, to: str) -> bytes:
        return (
            f"From: moderator@example.org\r\nTo: {to}\r\nSubject: Pipelined {number}\r\n"
            f"Message-ID: <pipelined-{number}@example.org>\r\n\r\nNight {number} is over.\r\n.A dotted line\r\n"
        ).encode()

    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.ehlo()
        assert client.has_extn("pipelining")
        sender = "moderator@example.org"
        assert pipelining.sendmail(client, sender, ["anna@example.org"], mail(1, "anna@example.org")) == {}
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            pipelining.sendmail(client, sender, [""], mail(2, "bruno@example.org"))
        assert pipelining.sendmail(client, sender, ["carla@example.org"], mail(3, "carla@example.org")) == {}
    assert wait_for(lambda: len(inbox.messages) >= 2, 60), (base / "maillog").read_text()[-3000:]
    time.sleep(1)  # nothing more comes: no bounce, no third mail
    assert sorted(str(message["Subject"]) for message in inbox.messages) == ["Pipelined 1", "Pipelined 3"]
    assert all(".A dotted line" in message.get_content() for message in inbox.messages)
