"""`dev.py run` says where this run's mail goes, as the settings the app reads say (the
environment, else the env file): the console, files under the var directory, an SMTP
server, or a mail provider."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
assert _spec and _spec.loader
dev = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dev)

BACKENDS = "django.core.mail.backends"


@pytest.mark.parametrize(
    ("backend", "folder", "sentence"),
    [
        (f"{BACKENDS}.console.EmailBackend", "", "Mail goes to this console"),
        (f"{BACKENDS}.filebased.EmailBackend", str(ROOT / "var" / "mail"), "Mail is written under var/mail."),
        (f"{BACKENDS}.filebased.EmailBackend", "/srv/werewolf/mail", "Mail is written under /srv/werewolf/mail."),
        (f"{BACKENDS}.smtp.EmailBackend", "", "Mail goes to the SMTP server at smtp.example.org:587."),
        ("anymail.backends.mailgun.EmailBackend", "", "Mail goes out through mailgun's API"),
        (f"{BACKENDS}.locmem.EmailBackend", "", "Mail is kept in memory and never sent"),
    ],
)
def test_the_sentence_for_each_backend(backend: str, folder: str, sentence: str) -> None:
    assert dev.mail_sentence(backend, "smtp.example.org", 587, folder).startswith(sentence)


@pytest.fixture
def bare(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The environment of someone who typed `dev.py run`: the app's own settings module,
    an env file of the test's own (empty), none of the mail settings."""
    for name in ("WEREWOLF_EMAIL", "WEREWOLF_EMAIL_HOST", "WEREWOLF_EMAIL_PORT", "WEREWOLF_MAIL_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DJANGO_SETTINGS_MODULE", "werewolf.settings")
    monkeypatch.setenv("WEREWOLF_VAR_DIR", str(tmp_path / "var"))
    env_file = tmp_path / "werewolf.env"
    env_file.write_text("")
    monkeypatch.setenv("WEREWOLF_ENV_FILE", str(env_file))
    return env_file


def test_run_says_console_file_or_smtp_as_the_settings_say(bare: Path, monkeypatch, tmp_path: Path) -> None:
    assert dev._where_mail_goes().startswith("Mail goes to this console")
    bare.write_text("WEREWOLF_EMAIL=smtp\nWEREWOLF_EMAIL_HOST=mail.example.org\nWEREWOLF_EMAIL_PORT=2525\n")
    assert dev._where_mail_goes() == "Mail goes to the SMTP server at mail.example.org:2525."
    monkeypatch.setenv("WEREWOLF_EMAIL", "file")  # the environment wins over the env file
    assert dev._where_mail_goes() == f"Mail is written under {tmp_path / 'var' / 'mail'}."
