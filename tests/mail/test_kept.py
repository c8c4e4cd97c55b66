"""A thread's mail server connection is kept between batches while it is good
(werewolf/mail/kept.py), against a real SMTP server on loopback."""

from __future__ import annotations

import socket

import pytest
from aiosmtpd.controller import Controller
from django.core.mail import EmailMessage

from werewolf.mail import kept


class Server:
    """An SMTP server that notes from which connection each message came."""

    def __init__(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.peers: list[tuple[str, int]] = []
        self.start()

    def start(self) -> None:
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's name
        self.peers.append(session.peer)
        return "250 OK"


@pytest.fixture
def server(settings):
    started = Server()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", started.port
    yield started
    kept.close()
    started.controller.stop()


def batch(mails: int = 2) -> None:
    backend = kept.borrow()
    for number in range(mails):
        sent = backend.send_messages([EmailMessage(f"Mail {number}", "Hello", "a@example.org", ["b@example.org"])])
        assert sent == 1
    kept.give_back(backend)


def test_batches_one_after_another_share_one_connection(server) -> None:
    batch()
    batch()
    batch()
    assert len(server.peers) == 6
    assert len(set(server.peers)) == 1


def test_a_connection_the_server_closed_is_not_used_again(server) -> None:
    batch()
    server.controller.stop()  # the server hangs up (a restart, an idle timeout)
    server.start()
    batch()
    assert len(server.peers) == 4
    assert len(set(server.peers)) == 2


def test_a_connection_kept_too_long_is_replaced(server, monkeypatch) -> None:
    batch()
    monkeypatch.setattr(kept, "KEEP_SECONDS", 0.0)
    batch()
    assert len(set(server.peers)) == 2


def test_a_connection_to_another_server_is_not_used_when_the_settings_change(server, settings) -> None:
    batch()
    other = Server()
    try:
        settings.EMAIL_PORT = other.port
        batch()
    finally:
        other.controller.stop()
    assert len(server.peers) == 2
    assert len(other.peers) == 2


def test_another_backend_is_closed_after_its_batch(settings) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    backend = kept.borrow()
    kept.give_back(backend)
    assert kept._kept.backend is None
