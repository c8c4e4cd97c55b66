"""A whole game played by mail through a declared absence that moves a deadline, and a
pause and a resume, with the secrecy sweep after every phase and around each of those:
every page (the seat's, its absences page, the public pages) and every mail (the pause,
the moved deadlines, the answers to AWAY) keeps what its audience may not know. Nobody
but the absent seat and the organiser reads whose absence it was."""

from __future__ import annotations

from datetime import timedelta
from random import Random
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from werewolf import engine
from werewolf.games import services
from werewolf.games.models import Absence, Event, Game, InboundMessage, Phase
from werewolf.mail import inbound

from ..mail.test_inbound import letter
from .play import card_form, create_game, mail_card, mails_for, open_phase, seat_paths, text_of
from .test_game_flow import sweep

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_game_by_mail_through_an_absence_and_a_pause_keeps_every_secret(organiser_client: Client) -> None:
    game = create_game(organiser_client, players=7)
    Game.objects.filter(pk=game.pk).update(seed=31)
    calendar_url = f"/games/{game.pk}/calendar/"
    response = organiser_client.post(
        calendar_url, {"action": "calendar", "absence_policy": "move", "absence_days": "3", "off_dates": ""}
    )
    assert response.status_code == 302
    assert organiser_client.post(f"/games/{game.pk}/", {"action": "start"}).status_code == 302
    game.refresh_from_db()
    paths = seat_paths(game)
    client = Client()
    rng = Random(31)
    sweep(game, paths, client)

    # A living seat mails that it is away on the day of the open deadline: it moves past it.
    phase = open_phase(game)
    zone = ZoneInfo(game.timezone)
    day = phase.deadline.astimezone(zone).date()
    absent = max(engine.phase(game.engine_state).slots)
    absent_player = game.players.get(seat=absent)
    kept = inbound.receive(letter(game, absent, f"AWAY {day.day}/{day.month}"))
    assert kept.code == "away_declared", kept.code
    phase.refresh_from_db()
    assert phase.deadline.astimezone(zone).date() == day + timedelta(days=1)
    assert Event.objects.filter(game=game, kind="deadline_moved_away").count() == 1
    sweep(game, paths, client)
    for player in game.players.exclude(pk=absent_player.pk):
        told = mails_for(player)
        assert "moved past their absence" in told
        page = text_of(client.get(paths[player.seat] + "away/").content.decode())
        assert "You have not said you will be away." in page  # another seat's absence is not there
    assert Absence.objects.get().player == absent_player
    # Withdrawn by mail: what it moved stays moved; the phases to come are not moved by it
    # (and no page shows a countdown that sits on a whole day, which a render a second
    # later could read one unit otherwise).
    kept = inbound.receive(letter(game, absent, "NOT AWAY"))
    assert kept.code == "away_withdrawn", kept.code
    assert Absence.objects.get().withdrawn_at is not None

    # The organiser pauses: nothing is taken, nothing resolves; then resumes.
    assert organiser_client.post(calendar_url, {"action": "pause"}).status_code == 302
    sweep(game, paths, client)
    seat = min(engine.phase(game.engine_state).slots)
    refused = mail_card(game, seat, card_form(game, seat, rng), rng)
    assert refused.status == InboundMessage.Status.REFUSED and refused.code == "game_paused"
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    assert services.sweep_due_phases() == 0
    assert Phase.objects.get(pk=phase.pk).status == Phase.Status.OPEN
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() + timedelta(minutes=90, seconds=30))
    assert organiser_client.post(calendar_url, {"action": "resume"}).status_code == 302
    sweep(game, paths, client)
    public = text_of(Client().get(f"/g/{game.public_key}/").content.decode())
    assert "paused the game" in public and "resumed the game" in public

    # The rest of the game by mail, the sweep after every phase.
    rounds = 0
    while open_phase(game) is not None:
        rounds += 1
        assert rounds < 100, "the game does not end"
        phase = open_phase(game)
        for seat in sorted(engine.phase(game.engine_state).slots):
            current = open_phase(game)
            if current is None or current.pk != phase.pk:
                break
            form = card_form(game, seat, rng)
            kept = mail_card(game, seat, form, rng)
            assert kept.status == "applied", (kept.code, kept.card)
        if Phase.objects.get(pk=phase.pk).status == Phase.Status.OPEN:
            Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))
            assert services.sweep_due_phases() == 1
        sweep(game, paths, client)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert len({message.extra_headers.get("Message-ID") for message in mail.outbox}) == len(mail.outbox)
