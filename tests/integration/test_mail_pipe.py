"""`manage.py receive_mail` as a mail system runs it: with an empty environment (the
settings come from the one env file every process reads), printing nothing a bounce
could carry to the sender, and exiting 75 (try again) for any failure before the
message is stored, even one loading the settings."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(args: list[str], env: dict[str, str], stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, input=stdin, capture_output=True, timeout=120
    )


@pytest.fixture
def env_file(tmp_path: Path) -> Path:
    var = tmp_path / "var"
    path = tmp_path / "werewolf.env"
    path.write_text(
        "# the app's settings, for every process\n"
        f"export WEREWOLF_VAR_DIR={var}\n"
        f'DATABASE_URL="sqlite:///{var}/pipe.sqlite3"\n'
        "WEREWOLF_MAIL_ORDERS=on\n"
        "WEREWOLF_ORDERS_ADDRESS=orders@pipe.example.org\n"
        "WEREWOLF_EMAIL=file\n"
    )
    return path


def bare_env(**extra: str) -> dict[str, str]:
    """What Postfix gives a pipe: next to nothing."""
    return {"PATH": os.environ["PATH"], "LANG": "C", **extra}


def test_an_empty_environment_reads_the_env_file_and_prints_nothing(env_file: Path, tmp_path: Path) -> None:
    migrated = run(["migrate", "--noinput"], bare_env(WEREWOLF_ENV_FILE=str(env_file)))
    assert migrated.returncode == 0, migrated.stderr.decode()
    message = b"From: a@example.org\r\nTo: orders@pipe.example.org\r\nSubject: hi\r\nMessage-ID: <1@x>\r\n\r\nSLEEP\r\n"
    done = run(
        ["receive_mail", "--recipient", "orders@pipe.example.org"], bare_env(WEREWOLF_ENV_FILE=str(env_file)), message
    )
    assert done.returncode == 0 and done.stdout == b"" and done.stderr == b""
    with sqlite3.connect(tmp_path / "var" / "pipe.sqlite3") as db:
        assert db.execute("select count(*), max(recipients) from games_inboundmessage").fetchone() == (
            1,
            "orders@pipe.example.org",
        )
    assert "receive_mail exit 0" in (tmp_path / "var" / "receive_mail.log").read_text()


def said_why(done: subprocess.CompletedProcess[bytes]) -> str:
    """The one line a pipe that exits 75 says on stderr (Postfix shows it in the
    deferral): no traceback, nothing on stdout."""
    assert done.returncode == 75 and done.stdout == b""
    said = done.stderr.decode()
    assert said.startswith("receive_mail: the message was not stored") and "Traceback" not in said, said
    return said


def test_a_failure_loading_the_settings_exits_75_and_says_why_in_one_line(tmp_path: Path) -> None:
    """The settings can't load (here: an env file that is not there; for Postfix's
    `nobody`, a secret key it may not read): the message waits in the mail system's
    queue, which shows why; no traceback reaches the sender."""
    log = tmp_path / "mail.log"
    env = bare_env(WEREWOLF_ENV_FILE=str(tmp_path / "missing.env"), WEREWOLF_MAIL_LOG=str(log))
    done = run(["receive_mail"], env, b"Subject: hi\r\n\r\nSLEEP\r\n")
    assert "not a readable file" in said_why(done) and len(done.stderr.splitlines()) == 1
    assert "not a readable file" in log.read_text()


def test_a_pipe_that_cannot_write_its_log_says_so_on_stderr(tmp_path: Path) -> None:
    """Issue 28: a pipe user that may write neither the log nor the database deferred
    every reply with nothing logged anywhere. Now the deferral says both."""
    log = tmp_path / "no" / "such" / "dir" / "mail.log"
    env = bare_env(WEREWOLF_ENV_FILE=str(tmp_path / "missing.env"), WEREWOLF_MAIL_LOG=str(log))
    done = run(["receive_mail"], env, b"Subject: hi\r\n\r\nSLEEP\r\n")
    said = said_why(done)
    assert f"cannot write its log {log}" in said and "not a readable file" in said, said


def test_a_database_that_is_down_exits_75(env_file: Path, tmp_path: Path) -> None:
    env = bare_env(WEREWOLF_ENV_FILE=str(env_file), DATABASE_URL=f"sqlite:///{tmp_path}/no/such/dir/db.sqlite3")
    done = run(["receive_mail"], env, b"Subject: hi\r\n\r\nSLEEP\r\n")
    said_why(done)


def test_the_environment_wins_over_the_env_file(env_file: Path, tmp_path: Path) -> None:
    env = bare_env(WEREWOLF_ENV_FILE=str(env_file), WEREWOLF_ORDERS_ADDRESS="other@pipe.example.org")
    code = "from django.conf import settings; print(settings.WEREWOLF_ORDERS_ADDRESS, settings.WEREWOLF_MAIL_ORDERS)"
    done = run(["shell", "-v", "0", "-c", code], env)
    assert done.stdout.decode().split() == ["other@pipe.example.org", "True"], done.stderr.decode()


def test_the_doors_refuse_to_start_without_the_apps_settings(tmp_path: Path) -> None:
    """Started with no settings at all (no env file), `receive_mail` would take orders for
    orders@localhost and answer on the console: it keeps the message queued (75) and logs
    why; `mail_server` does not start, and says why."""
    var = tmp_path / "var"
    empty = tmp_path / "empty.env"  # (not a werewolf.env a developer may keep beside manage.py)
    empty.write_text("")
    env = bare_env(WEREWOLF_VAR_DIR=str(var), WEREWOLF_ENV_FILE=str(empty))
    done = run(["receive_mail"], env, b"Subject: hi\r\n\r\nSLEEP\r\n")
    said_why(done)
    logged = (var / "receive_mail.log").read_text()
    assert "orders address is the built-in" in logged and "Mail goes to the console" in logged
    listener = run(["mail_server", "--port", "0"], env)
    assert listener.returncode != 0 and b"The orders listener does not start" in listener.stderr


def test_mail_setup_prints_the_postfix_lines_for_this_install() -> None:
    from io import StringIO

    from django.core.management import CommandError, call_command

    out = StringIO()
    call_command("mail_setup", "postfix", "--user", "werewolf", stdout=out)
    text = out.getvalue()
    assert "recipient_delimiter = +" in text and "werewolf_destination_recipient_limit = 1" in text
    assert f"user=werewolf argv={sys.executable} {ROOT / 'manage.py'} receive_mail --recipient ${{recipient}}" in text
    assert (
        "werewolf.test    werewolf:" in text
        and "postmap /etc/postfix/transport && (postfix start || postfix reload)" in text
    )
    out = StringIO()
    call_command("mail_setup", "postfix", "--user", "werewolf", "--listener", "--port", "2626", stdout=out)
    assert "werewolf.test    smtp:[127.0.0.1]:2626" in out.getvalue() and "pipe" not in out.getvalue().split("#")[-1]
    with pytest.raises(CommandError, match="must not run as nobody"):
        call_command("mail_setup", "postfix", "--user", "nobody")


def test_mail_setup_says_what_the_pipes_user_cannot_read_or_write(settings) -> None:
    """Issue 28: the guide's pipe user could read neither the secret key (0600, root's)
    nor write the database or the log, and nothing said so. `mail_setup --user` says
    each, one line with its fix; and a user that does not exist."""
    from io import StringIO

    from django.core.management import call_command

    if os.geteuid() != 0:
        pytest.skip("the files must belong to another user than the pipe's (run as root)")
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="werewolf-access-"))  # (pytest's own is 0700: nobody else enters)
    base.chmod(0o755)
    var = base / "var"
    var.mkdir()
    var.chmod(0o755)
    (var / "secret_key").write_text("x")
    (var / "secret_key").chmod(0o600)
    database = var / "db.sqlite3"
    database.write_bytes(b"")
    database.chmod(0o644)
    settings.VAR_DIR = var
    settings.DATABASES = {**settings.DATABASES, "default": {**settings.DATABASES["default"], "NAME": str(database)}}
    out = StringIO()
    os.environ.pop("WEREWOLF_MAIL_LOG", None)
    call_command("mail_setup", "postfix", "--user", "daemon", stdout=out)
    text = out.getvalue()
    assert f"daemon cannot read {var / 'secret_key'}: chown daemon {var / 'secret_key'}" in text, text
    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        assert f"daemon cannot write {database}: chown daemon {database}" in text, text
    assert f"daemon cannot write {var}: chown daemon {var}" in text, text
    out = StringIO()
    call_command("mail_setup", "postfix", "--user", "no-such-werewolf-user", stdout=out)
    assert "There is no user no-such-werewolf-user: create it (adduser" in out.getvalue()
    shutil.rmtree(base)
