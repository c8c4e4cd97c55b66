"""Replies through a mail provider's inbound webhook (django-anymail), in each provider's
documented payload shape: taken like a reply from the MTA, once; a webhook call that
fails the provider's signature or the basic-auth secret stores nothing."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import pytest
from django.test import Client

from werewolf.games.models import Game, InboundMessage, Order

from ..web.play import reply_address, started_game
from .test_inbound import letter, name_of, seat_of

pytestmark = pytest.mark.django_db(transaction=True)

AUTH = "Basic " + base64.b64encode(b"hook:secret-words").decode()


@pytest.fixture
def game(organiser) -> Game:
    return started_game(organiser, "Providers")


def card_letter(game: Game) -> tuple[int, bytes, str]:
    seer = seat_of(game, "seer")
    target = next(seat for seat in game.engine_state.living() if seat != seer)
    raw = letter(game, seer, f"INQUIRE {name_of(game, target)}")
    return seer, raw, reply_address(game.players.get(seat=seer))


def mailgun_fields(raw: bytes, recipient: str, key: str = "key-mailgun-test") -> dict[str, str]:
    timestamp, token = str(int(time.time())), "a" * 50
    signature = hmac.new(key.encode(), (timestamp + token).encode(), hashlib.sha256).hexdigest()
    return {
        "body-mime": raw.decode(),
        "recipient": recipient,
        "sender": "someone@example.org",
        "timestamp": timestamp,
        "token": token,
        "signature": signature,
    }


def test_mailgun_forwards_the_raw_reply_and_the_card_is_taken(game: Game) -> None:
    seer, raw, recipient = card_letter(game)
    response = Client().post(
        "/mail/provider/mailgun/inbound_mime/", mailgun_fields(raw, recipient), HTTP_AUTHORIZATION=AUTH
    )
    assert response.status_code == 200
    kept = InboundMessage.objects.get()
    assert kept.status == "applied" and kept.recipients == recipient
    assert Order.objects.filter(seat=seer).count() == 1


def test_a_mailgun_call_with_a_wrong_signature_stores_nothing(game: Game) -> None:
    _, raw, recipient = card_letter(game)
    fields = mailgun_fields(raw, recipient, key="not-the-key")
    response = Client().post("/mail/provider/mailgun/inbound_mime/", fields, HTTP_AUTHORIZATION=AUTH)
    assert response.status_code >= 400 and not InboundMessage.objects.exists()


def test_sendgrid_inbound_parse_with_the_raw_message(game: Game) -> None:
    seer, raw, recipient = card_letter(game)
    fields = {
        "email": raw.decode(),
        "to": recipient,
        "from": "Seer <seer@example.org>",
        "envelope": json.dumps({"to": [recipient], "from": "seer@example.org"}),
        "charsets": json.dumps({"to": "UTF-8", "from": "UTF-8", "subject": "UTF-8"}),
        "spam_score": "0.1",
    }
    response = Client().post("/mail/provider/sendgrid/inbound/", fields, HTTP_AUTHORIZATION=AUTH)
    assert response.status_code == 200
    assert InboundMessage.objects.get().status == "applied" and Order.objects.filter(seat=seer).count() == 1
    refused = Client().post("/mail/provider/sendgrid/inbound/", fields)  # no secret
    assert refused.status_code >= 400 and InboundMessage.objects.count() == 1


def test_postmark_inbound_json_with_the_raw_email(game: Game) -> None:
    seer, raw, recipient = card_letter(game)
    payload = {
        "FromName": "Seer",
        "From": "seer@example.org",
        "FromFull": {"Email": "seer@example.org", "Name": "Seer"},
        "To": recipient,
        "ToFull": [{"Email": recipient, "Name": ""}],
        "OriginalRecipient": recipient,
        "Subject": "Re: your seat",
        "MessageID": "0c2d5a4f-0b7b-4c4f-9b1d-6f0e8a2d7a11",
        "Date": "Mon, 23 Nov 2026 10:14:03 +0100",
        "TextBody": "see RawEmail",
        "Headers": [],
        "Attachments": [],
        "RawEmail": raw.decode(),
    }
    response = Client().post(
        "/mail/provider/postmark/inbound/",
        json.dumps(payload),
        content_type="application/json",
        HTTP_AUTHORIZATION=AUTH,
    )
    assert response.status_code == 200
    kept = InboundMessage.objects.get()
    assert kept.status == "applied" and Order.objects.filter(seat=seer).count() == 1


def test_a_provider_posting_the_same_reply_twice_takes_it_once(game: Game) -> None:
    seer, raw, recipient = card_letter(game)
    for _ in range(2):
        fields = mailgun_fields(raw, recipient)
        assert Client().post("/mail/provider/mailgun/inbound_mime/", fields, HTTP_AUTHORIZATION=AUTH).status_code == 200
    assert sorted(InboundMessage.objects.values_list("status", flat=True)) == ["applied", "duplicate"]
    assert Order.objects.filter(seat=seer).count() == 1


def test_a_provider_without_a_webhook_secret_is_refused_at_startup(settings) -> None:
    from werewolf.mail.providers import check_webhook_secret

    settings.WEREWOLF_MAIL_PROVIDER = "sendgrid"
    settings.ANYMAIL = {}
    assert [error.id for error in check_webhook_secret(None)] == ["werewolf.E001"]
    settings.ANYMAIL = {"WEBHOOK_SECRET": "a:b"}
    assert check_webhook_secret(None) == []


def mailgun_tracking(event: dict) -> str:
    timestamp, token = str(int(time.time())), "b" * 50
    signature = hmac.new(b"key-mailgun-test", (timestamp + token).encode(), hashlib.sha256).hexdigest()
    return json.dumps(
        {"signature": {"timestamp": timestamp, "token": token, "signature": signature}, "event-data": event}
    )


def test_a_providers_bounce_report_flags_the_seat_and_stops_its_mail(game: Game) -> None:
    from werewolf.games.models import Dispatch, Event

    player = game.players.get(seat=2)
    dispatch = Dispatch.objects.filter(player=player).latest("pk")
    event = {
        "event": "failed",
        "severity": "permanent",
        "id": "evt-1",
        "timestamp": time.time(),
        "recipient": player.email,
        "message": {"headers": {"message-id": dispatch.message_id.strip("<>")}},
        "delivery-status": {"code": 550, "message": "5.1.1 The email account does not exist", "description": ""},
    }
    url = "/mail/provider/mailgun/tracking/"
    response = Client().post(url, mailgun_tracking(event), content_type="application/json", HTTP_AUTHORIZATION=AUTH)
    assert response.status_code == 200
    player.refresh_from_db()
    dispatch.refresh_from_db()
    assert player.mail_stopped and "does not exist" in player.bounce_reason
    assert dispatch.status == Dispatch.Status.BOUNCED
    assert Event.objects.filter(game=game, kind="mail_bounced").count() == 1


def test_a_postmark_bounce_is_matched_by_the_providers_own_id(game: Game) -> None:
    from werewolf.games.models import Dispatch

    player = game.players.get(seat=3)
    dispatch = Dispatch.objects.filter(player=player).latest("pk")
    Dispatch.objects.filter(pk=dispatch.pk).update(provider_id="883953f4-6105-42a2-a16a-77a8eac79483")
    payload = {
        "RecordType": "Bounce",
        "ID": 4323372036854775807,
        "Type": "SoftBounce",
        "TypeCode": 4096,
        "Name": "Soft bounce",
        "MessageID": "883953f4-6105-42a2-a16a-77a8eac79483",
        "Description": "The server was unable to deliver your message (ex: unknown user, mailbox not found).",
        "Details": "mailbox full",
        "Email": player.email,
        "BouncedAt": "2026-11-24T10:00:00Z",
        "Inactive": False,
        "CanActivate": True,
        "Subject": "Your seat",
    }
    url = "/mail/provider/postmark/tracking/"
    response = Client().post(url, json.dumps(payload), content_type="application/json", HTTP_AUTHORIZATION=AUTH)
    assert response.status_code == 200
    player.refresh_from_db()
    assert player.bounces == 1 and not player.mail_stopped  # a soft bounce: counted, mail goes on


def ses_notification(raw: bytes, recipient: str, message_id: str = "6c4a1a7e-1f0d-5e35-9e0b-3f7b4c0d2a91") -> dict:
    """An Amazon SES receipt rule's SNS action, as SNS posts it: the SES event (with the
    whole message, Base64) as the notification's JSON Message."""
    ses_event = {
        "notificationType": "Received",
        "mail": {
            "timestamp": "2026-11-23T09:14:03.511Z",
            "source": "seer@example.org",
            "messageId": "o3vrnil0e2ic28trm7dfhrc2v0clambfu7uvrld1",
            "destination": [recipient],
        },
        "receipt": {
            "recipients": [recipient],
            "spamVerdict": {"status": "PASS"},
            "action": {"type": "SNS", "topicArn": "arn:aws:sns:eu-west-1:111122223333:werewolf", "encoding": "BASE64"},
        },
        "content": base64.b64encode(raw).decode("ascii"),
    }
    return {
        "Type": "Notification",
        "MessageId": message_id,
        "TopicArn": "arn:aws:sns:eu-west-1:111122223333:werewolf",
        "Subject": "Amazon SES Email Receipt Notification",
        "Message": json.dumps(ses_event),
        "Timestamp": "2026-11-23T09:14:04.000Z",
        "SignatureVersion": "1",
        "Signature": "EXAMPLE",
        "SigningCertURL": "https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-example.pem",
        "UnsubscribeURL": "https://sns.eu-west-1.amazonaws.com/?Action=Unsubscribe",
    }


def test_amazon_ses_receipt_by_sns_with_the_raw_message(game: Game) -> None:
    seer, raw, recipient = card_letter(game)
    body = ses_notification(raw, recipient)
    headers = {
        "HTTP_X_AMZ_SNS_MESSAGE_TYPE": "Notification",
        "HTTP_X_AMZ_SNS_MESSAGE_ID": body["MessageId"],
        "HTTP_AUTHORIZATION": AUTH,
    }
    url = "/mail/provider/amazon_ses/inbound/"
    response = Client().post(url, json.dumps(body), content_type="text/plain; charset=UTF-8", **headers)
    assert response.status_code == 200
    kept = InboundMessage.objects.get()
    assert kept.status == "applied" and Order.objects.filter(seat=seer).count() == 1
    # SNS posts again when it hears nothing in time: the same reply is one card.
    again = Client().post(url, json.dumps(body), content_type="text/plain; charset=UTF-8", **headers)
    assert again.status_code == 200
    assert sorted(InboundMessage.objects.values_list("status", flat=True)) == ["applied", "duplicate"]
    assert Order.objects.filter(seat=seer).count() == 1
    # Without the secret, SNS is asked for it (401) and nothing is stored.
    anonymous = Client().post(
        url, json.dumps(ses_notification(raw, recipient, "other")), content_type="text/plain; charset=UTF-8",
        HTTP_X_AMZ_SNS_MESSAGE_TYPE="Notification", HTTP_X_AMZ_SNS_MESSAGE_ID="other",
    )  # fmt: skip
    assert anonymous.status_code == 401 and InboundMessage.objects.count() == 2


class FakePostmark:
    """Postmark's send API (POST /email) on loopback: keeps each message posted and
    answers as Postmark does, with an id of its own for each."""

    def __init__(self) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        posted = self.posted = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                answer = {
                    "To": body["To"],
                    "SubmittedAt": "2026-11-23T10:14:03.511Z",
                    "MessageID": f"pm-{len(posted) + 1:04d}-0b7b-4c4f-9b1d",
                    "ErrorCode": 0,
                    "Message": "OK",
                }
                posted.append((self.path, self.headers["X-Postmark-Server-Token"], body, answer["MessageID"]))
                data = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def postmark(settings):
    """WEREWOLF_MAIL_PROVIDER=postmark, as settings.py makes it: anymail's Postmark
    backend, its API pointed at a server of the test's own."""
    fake = FakePostmark()
    settings.WEREWOLF_MAIL_PROVIDER = "postmark"
    settings.EMAIL_BACKEND = "anymail.backends.postmark.EmailBackend"
    settings.ANYMAIL = {**settings.ANYMAIL, "POSTMARK_SERVER_TOKEN": "pm-token", "POSTMARK_API_URL": fake.url}
    yield fake
    fake.close()


def test_a_phases_mail_goes_out_through_the_provider_with_its_headers_and_id_kept(organiser, postmark) -> None:
    """With a provider configured, a phase's results go through anymail's backend to the
    provider's API, carrying the same headers as over SMTP (Message-ID, Auto-Submitted,
    the moderator as From, the signed Reply-To); the provider's own id is kept on each
    outbox row, and its bounce report finds the mail by that id."""
    from django.utils import timezone

    from werewolf.games import services
    from werewolf.games.models import Dispatch, Phase

    game = started_game(organiser, "Provider out")
    assert postmark.posted and Dispatch.objects.filter(status=Dispatch.Status.SENT).count() == len(postmark.posted)
    night = game.current_phase()
    Phase.objects.filter(pk=night.pk).update(deadline=timezone.now())
    assert services.sweep_due_phases() == 1
    rows = list(Dispatch.objects.filter(phase=night, kind=Dispatch.Kind.PHASE).select_related("player"))
    assert len(rows) == game.players.count()
    by_message_id = {
        {h["Name"]: h["Value"] for h in body.get("Headers", [])}.get("Message-ID"): (path, token, body, provider_id)
        for path, token, body, provider_id in postmark.posted
    }
    for row in rows:
        assert row.status == Dispatch.Status.SENT, (row.status, row.last_error)
        path, token, body, provider_id = by_message_id[row.message_id]
        assert (path, token) == ("/email", "pm-token")
        headers = {h["Name"]: h["Value"] for h in body["Headers"]}
        assert headers["Auto-Submitted"] == "auto-generated" and headers["X-Auto-Response-Suppress"] == "All"
        assert body["From"] == "Werewolf moderator <moderator@localhost>" and row.player.email in body["To"]
        assert body["ReplyTo"].startswith("orders+") and body["ReplyTo"].endswith("@werewolf.test")
        assert row.provider_id == provider_id  # the provider's own id, for its tracking webhook
    # The provider's bounce report names its own id: it finds the mail and the seat.
    row = rows[0]
    report = {"RecordType": "Bounce", "Type": "HardBounce", "TypeCode": 1, "MessageID": row.provider_id,
              "Description": "Unknown user", "Details": "smtp;550 5.1.1 unknown", "Email": row.player.email,
              "BouncedAt": "2026-11-24T10:00:00Z", "Inactive": True, "CanActivate": True}  # fmt: skip
    url = "/mail/provider/postmark/tracking/"
    response = Client().post(url, json.dumps(report), content_type="application/json", HTTP_AUTHORIZATION=AUTH)
    assert response.status_code == 200
    row.refresh_from_db()
    row.player.refresh_from_db()
    assert row.status == Dispatch.Status.BOUNCED and row.player.mail_stopped
