"""The provider route as docs/organiser-guide.md writes it: WEREWOLF_MAIL_PROVIDER set (mail
goes out through django-anymail), the provider's inbound route pointed at
`https://hook:<secret>@.../mail/provider/mailgun/inbound_mime/` with Mailgun's signing key.
A whole small game is played by replies that arrive only through that webhook: each card
applied once and answered once, and a payload the provider posts twice is one card."""

from __future__ import annotations

from random import Random

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from werewolf import engine
from werewolf.games import services
from werewolf.games.models import Dispatch, Game, InboundMessage, Order, Phase

from ..web.play import card_form, reply_address, reply_card, started_game
from .test_providers import AUTH, mailgun_fields

pytestmark = pytest.mark.django_db(transaction=True)

WEBHOOK = "/mail/provider/mailgun/inbound_mime/"


@pytest.fixture
def provider(settings) -> None:
    """The guide's settings for Mailgun; its send API is anymail's test backend, which
    answers with an id of its own for each message (kept in mail.outbox)."""
    settings.WEREWOLF_MAIL_PROVIDER = "mailgun"
    settings.EMAIL_BACKEND = "anymail.backends.test.EmailBackend"
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:secret-words", "MAILGUN_WEBHOOK_SIGNING_KEY": "key-mailgun-test"}


def test_a_whole_game_by_replies_through_the_providers_webhook(organiser, provider) -> None:
    game = started_game(organiser, "Provider game", players=5, seed=5, wolves=1)
    assert game.players.count() == 5
    rng = Random(5)
    posted = 0
    client = Client()
    for _ in range(30):
        game.refresh_from_db()
        phase = game.current_phase()
        if phase is None:
            break
        for seat in sorted(engine.phase(game.engine_state).slots):
            game.refresh_from_db()
            if game.current_phase() is None or game.current_phase().pk != phase.pk:
                break
            raw = reply_card(game, seat, card_form(game, seat, rng), rng)
            fields = mailgun_fields(raw, reply_address(game.players.get(seat=seat)))
            cards, answers = Order.objects.count(), len(mail.outbox)
            assert client.post(WEBHOOK, fields, HTTP_AUTHORIZATION=AUTH).status_code == 200
            posted += 1
            kept = InboundMessage.objects.latest("pk")
            assert kept.status == "applied", (kept.status, kept.code)
            assert Order.objects.count() == cards + 1
            # The provider posts the very same payload again (it heard nothing in time).
            settled = Order.objects.count(), len(mail.outbox)
            assert client.post(WEBHOOK, fields, HTTP_AUTHORIZATION=AUTH).status_code == 200
            assert InboundMessage.objects.latest("pk").status == "duplicate"
            assert (Order.objects.count(), len(mail.outbox)) == settled and settled[1] > answers
        game.refresh_from_db()
        if game.current_phase() is not None and game.current_phase().pk == phase.pk:
            Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now())
            services.sweep_due_phases()
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    kept = InboundMessage.objects.order_by("pk")
    assert kept.count() == 2 * posted
    assert [row.status for row in kept] == ["applied", "duplicate"] * posted
    applied = list(kept.filter(status="applied").values_list("message_id", flat=True))
    answered = [m.extra_headers["In-Reply-To"] for m in mail.outbox if m.extra_headers.get("In-Reply-To")]
    assert sorted(answered) == sorted(applied)  # each card answered once, the duplicate not at all
    # Everything went out through the provider, and its id is kept on each row.
    assert all(getattr(m, "anymail_status", None) for m in mail.outbox)
    sent = Dispatch.objects.filter(status=Dispatch.Status.SENT)
    assert sent.count() == len(mail.outbox) and not sent.filter(provider_id="").exists()
    assert {str(m.anymail_status.message_id) for m in mail.outbox} == set(sent.values_list("provider_id", flat=True))
    assert game.phases.count() >= 3 and posted >= 6
