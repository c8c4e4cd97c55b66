"""The mail app plugs into the games (issue 30, one-way arrows): the games never import
mail, and queue their mail through the outbox the mail app registers when Django starts."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.core.management import get_commands

from werewolf.games import outbox
from werewolf.mail import outbound


def test_the_mail_app_registers_its_outbox_with_the_games() -> None:
    assert apps.get_app_config("mail").name == "werewolf.mail"
    assert outbox.outbox() is outbound


def test_without_a_mail_app_the_games_say_so(monkeypatch) -> None:
    monkeypatch.setattr(outbox, "_registered", None)
    with pytest.raises(ImproperlyConfigured):
        outbox.outbox()
    assert [error.id for error in outbox.check_outbox(None)] == ["werewolf.E002"]


def test_the_checks_find_the_outbox_and_the_webhook_check() -> None:
    registered = checks.registry.registry.get_checks()
    assert outbox.check_outbox in registered
    assert "check_webhook_secret" in {check.__name__ for check in registered}
    assert outbox.check_outbox(None) == []


def test_the_mail_commands_are_the_mail_apps() -> None:
    commands = get_commands()
    for name in ("receive_mail", "mail_server", "mail_setup", "fetch_mail"):
        assert commands[name] == "werewolf.mail", name
