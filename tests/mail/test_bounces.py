"""Bounces: every mail's return path names it (VERP); a delivery report coming back is
matched to its mail and seat, flags the seat for the organiser, stops mail to an address
that failed for good, and is never read as a card nor answered."""

from __future__ import annotations

import pytest
from django.core import mail
from django.test import Client

from werewolf.games import links
from werewolf.games.models import Dispatch, Event, Game, InboundMessage, Player
from werewolf.mail import inbound

from ..web.play import snapshot, started_game

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def game(organiser) -> Game:
    return started_game(organiser, "Bounces")


def welcome_of(player: Player) -> Dispatch:
    return Dispatch.objects.filter(player=player, kind=Dispatch.Kind.WELCOME).latest("pk")


def report(
    dispatch: Dispatch,
    *,
    status: str = "5.1.1",
    action: str = "failed",
    diagnostic: str = "smtp; 550 5.1.1 <x@example.org>: Recipient address rejected: User unknown",
    verp: bool = True,
    mac: str | None = None,
    number: int = 0,
) -> bytes:
    """A delivery status notification (RFC 3464) as Postfix sends it, for `dispatch`."""
    reference = links.bounce_reference(dispatch.pk) if mac is None else f"b-{dispatch.pk}-{mac}"
    to = f"orders+{reference}@werewolf.test" if verp else "moderator@werewolf.test"
    text = f"""\
Return-Path: <>
From: MAILER-DAEMON@mx.example.org (Mail Delivery System)
To: {to}
Subject: Undelivered Mail Returned to Sender
Message-ID: <dsn.{dispatch.pk}.{status}.{action}.{verp}.{number}@mx.example.org>
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="B"

--B
Content-Type: text/plain; charset=us-ascii

I'm sorry to have to inform you that your message could not be delivered.

--B
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.org

Final-Recipient: rfc822; {dispatch.player.email}
Action: {action}
Status: {status}
Diagnostic-Code: {diagnostic}

--B
Content-Type: text/rfc822-headers

Message-ID: {dispatch.message_id}
To: {dispatch.player.email}
Subject: Your seat

--B--
"""
    return text.replace("\n", "\r\n").encode()


def test_every_mail_has_a_return_path_naming_it(game: Game) -> None:
    for sent in mail.outbox:
        local, _, domain = sent.from_email.partition("@")
        assert domain == "werewolf.test" and local.startswith("orders+b-")
        dispatch = Dispatch.objects.get(pk=links.dispatch_for_bounce(local.split("+", 1)[1]))
        assert dispatch.recipient == sent.to[0]
        assert sent.message()["From"] == sent.extra_headers["From"]  # players see the moderator


def test_a_hard_bounce_flags_the_seat_and_stops_its_mail(game: Game, organiser_client: Client) -> None:
    player = game.players.get(seat=2)
    dispatch = welcome_of(player)
    before, outbox = snapshot(game), len(mail.outbox)
    kept = inbound.receive(report(dispatch), [f"orders+{links.bounce_reference(dispatch.pk)}@werewolf.test"])
    assert kept.status == InboundMessage.Status.BOUNCE and kept.player == player
    assert len(mail.outbox) == outbox  # never answered
    dispatch.refresh_from_db()
    player.refresh_from_db()
    assert dispatch.status == Dispatch.Status.BOUNCED and "User unknown" in dispatch.last_error
    assert player.mail_stopped and "User unknown" in player.bounce_reason
    told = Event.objects.get(game=game, kind="mail_bounced")
    assert told.data["seat"] == 2 and told.data["stopped"] and told.visible_to("moderator")
    assert not told.visible_to(2)
    # The moderator's note is the one new event: no card, state or phase moved.
    after = snapshot(game)
    assert (after[0], after[1] - 1, *after[2:]) == before
    page = organiser_client.get(f"/games/{game.pk}/").content.decode()
    assert "mail stopped: it bounced" in page and "User unknown" in page
    # The next mail to the seat is held, not sent, and says why.
    from werewolf.games import services

    services.mail_link_again(player)
    held = Dispatch.objects.filter(player=player).latest("pk")
    assert held.status == Dispatch.Status.FAILED and held.last_error == "address_stopped"
    assert len(mail.outbox) == outbox
    assert "mail to this address bounced" in organiser_client.get(f"/games/{game.pk}/").content.decode()
    # The organiser resumes it: mail goes out again.
    response = organiser_client.post(f"/games/{game.pk}/", {"action": "resume_mail", "seat": "2"})
    assert response.status_code == 302
    player.refresh_from_db()
    services.mail_link_again(player)
    assert len(mail.outbox) == outbox + 1


def test_temporary_failures_stop_mail_only_after_three_in_a_row(game: Game) -> None:
    player = game.players.get(seat=3)
    dispatch = welcome_of(player)
    for number in range(3):
        full = f"smtp; 452 4.2.2 Mailbox full ({number})"
        inbound.receive(report(dispatch, status="4.2.2", diagnostic=full, number=number))
        player.refresh_from_db()
        assert player.mail_stopped == (number == 2)
    assert player.bounces == 3 and "Mailbox full (2)" in player.bounce_reason


def test_a_delay_notice_changes_nothing(game: Game) -> None:
    player = game.players.get(seat=1)
    dispatch = welcome_of(player)
    kept = inbound.receive(report(dispatch, status="4.4.1", action="delayed"))
    assert kept.status == InboundMessage.Status.BOUNCE and kept.code == "bounce_delayed"
    player.refresh_from_db()
    dispatch.refresh_from_db()
    assert not player.mail_stopped and player.bounces == 0 and dispatch.status == Dispatch.Status.SENT


def test_a_report_without_the_return_path_is_matched_by_message_id(game: Game) -> None:
    player = game.players.get(seat=4)
    dispatch = welcome_of(player)
    kept = inbound.receive(report(dispatch, verp=False))
    assert kept.status == InboundMessage.Status.BOUNCE and kept.player == player
    player.refresh_from_db()
    assert player.mail_stopped


def test_a_forged_return_path_bounces_nothing(game: Game) -> None:
    player = game.players.get(seat=5)
    dispatch = welcome_of(player)
    forged = report(dispatch, mac="a" * 16)
    # Without a returned Message-ID of ours either, it is no bounce of ours at all.
    forged = forged.replace(dispatch.message_id.encode(), b"<someone-else@example.org>")
    before, outbox = snapshot(game), len(mail.outbox)
    kept = inbound.receive(forged)
    assert kept.status != InboundMessage.Status.BOUNCE
    player.refresh_from_db()
    assert not player.mail_stopped and snapshot(game) == before and len(mail.outbox) == outbox


def test_a_substitute_starts_with_a_clean_address(game: Game) -> None:
    from werewolf.games import services

    player = game.players.get(seat=2)
    inbound.receive(report(welcome_of(player)))
    services.substitute_player(game.players.get(seat=2), name=player.name, email="fixed@example.org")
    player.refresh_from_db()
    assert not player.mail_stopped and not player.bounce_reason
    assert mail.outbox[-1].to[0].endswith("<fixed@example.org>")
