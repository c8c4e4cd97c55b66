"""Every reply answered, also from an address whose seat was handed on (werewolf/mail/held.py):
the player a standby stands in for, the person replaced for good, and the standby whose
stand-in is over each reply to an old mail of the seat. Each mail is kept with its game,
listed on the dashboard under the person who wrote it, and answered at their own address
with who holds the seat (for now, or for good) and what to do; the game is not changed,
and the answer tells nothing the seat learnt since. A stranger with an old mail is told
nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client

from werewolf import engine
from werewolf.games import absences, services
from werewolf.games.models import Game, InboundMessage
from werewolf.mail import inbound

from ..web.play import NAMES, reply_address, secrets_hidden_from, snapshot, text_of
from ..web.test_away_standby import away, away_game, next_phase, over
from .test_inbound import letter

pytestmark = pytest.mark.django_db(transaction=True)

SEAT = 3


def answers_to(address: str) -> list:
    return [message for message in mail.outbox if address in message.to[0] and message.extra_headers.get("In-Reply-To")]


def old_reply_address(game: Game) -> tuple[str, str, str]:
    """The name, address and newest reply address of the seat's player now."""
    player = game.players.get(seat=SEAT)
    return player.name, player.email, reply_address(player)


def vote_for(game: Game) -> str:
    return f"VOTE {game.players.get(seat=0).name}"


def test_the_player_a_standby_stands_in_for_is_answered_until_when_and_how_to_come_back(
    organiser, organiser_client: Client
) -> None:
    game = away_game(organiser)
    name, email, old = old_reply_address(game)
    absence = away(game, SEAT, days=3)
    next_phase(game)  # a standby takes the seat for the absence
    game = Game.objects.get(pk=game.pk)
    standby = game.players.get(seat=SEAT).name
    assert standby != name
    before = snapshot(game)
    kept = inbound.receive(letter(game, SEAT, f"{vote_for(game)}\n\nThanks", to=old, sender=email))
    assert (kept.status, kept.code) == (InboundMessage.Status.REFUSED, "seat_away")
    assert kept.game_id == game.pk and kept.player.seat == SEAT and kept.author == name
    assert snapshot(game) == before  # the game is not changed
    (answer,) = answers_to(email)
    assert answer.subject.endswith("A standby plays your seat while you are away")
    body = " ".join(answer.body.split())
    assert "was not taken, and nothing in the game was changed" in body
    assert f"until the end of your absence on {absence.end.day} {absence.end:%b %Y}" in body
    assert "Back early? Tell your organiser" in body
    said = answer.message().as_string()
    assert "/p/" not in said and standby not in said and "Your role" not in said
    for secret in secrets_hidden_from(game, engine.PUBLIC):
        assert secret not in said
    page = text_of(organiser_client.get(f"/games/{game.pk}/").content.decode())
    assert "Mail received: 1 message" in page and f"{email} {name} seat {SEAT + 1}" in page
    assert "told the seat is theirs again after the absence" in page


def test_a_player_replaced_for_good_is_told_so(organiser) -> None:
    game = away_game(organiser)
    name, email, old = old_reply_address(game)
    services.substitute_player(game.players.get(seat=SEAT), name="Ivan", email="ivan@example.org", new_person=True)
    game = Game.objects.get(pk=game.pk)
    kept = inbound.receive(letter(game, SEAT, vote_for(game), to=old, sender=email))
    assert (kept.code, kept.game_id, kept.author) == ("seat_replaced", game.pk, name)
    (answer,) = answers_to(email)
    assert "given to someone else for good" in " ".join(answer.body.split())
    assert answers_to("ivan@example.org") == []  # the seat's person now is not troubled


def test_the_standby_whose_stand_in_is_over_is_told_the_seat_is_back(organiser) -> None:
    game = away_game(organiser)
    absence = away(game, SEAT)
    next_phase(game)
    _, standby_email, standby_old = old_reply_address(Game.objects.get(pk=game.pk))
    over(absence)
    next_phase(game)
    game = Game.objects.get(pk=game.pk)
    kept = inbound.receive(letter(game, SEAT, vote_for(game), to=standby_old, sender=standby_email))
    assert (kept.code, kept.author) == ("stand_in_over", "Zelda")
    (answer,) = answers_to(standby_email)
    assert "The player is back and has the seat again" in " ".join(answer.body.split())


def test_the_player_back_replying_to_a_mail_before_the_absence_is_answered_at_their_address(organiser) -> None:
    game = away_game(organiser)
    name, email, old = old_reply_address(game)
    absence = away(game, SEAT)
    next_phase(game)
    over(absence)
    next_phase(game)
    game = Game.objects.get(pk=game.pk)
    kept = inbound.receive(letter(game, SEAT, vote_for(game), to=old, sender=email))
    assert (kept.code, kept.author, kept.player.seat) == ("revoked_reference", name, SEAT)
    (answer,) = answers_to(email)
    assert "Reply to the newest mail" in answer.body


def test_a_stranger_with_an_old_mail_is_told_nothing_but_the_mail_is_kept_with_its_game(organiser) -> None:
    game = away_game(organiser)
    _, _, old = old_reply_address(game)
    away(game, SEAT)
    next_phase(game)
    mail.outbox.clear()
    kept = inbound.receive(letter(game, SEAT, "VOTE Alba", to=old, sender="someone@example.net"))
    assert (kept.status, kept.code, kept.game_id) == (InboundMessage.Status.UNMATCHED, "revoked_reference", game.pk)
    assert kept.author == "" and mail.outbox == []


def test_the_dashboard_lists_each_mail_under_the_person_who_wrote_it_and_an_absence_in_words(
    organiser, organiser_client: Client
) -> None:
    game = away_game(organiser)
    player = game.players.get(seat=SEAT)
    start = absences.today(game)
    end = start + timedelta(days=2)
    inbound.receive(letter(game, SEAT, "STATUS"))
    inbound.receive(letter(game, SEAT, f"AWAY {start:%d/%m} - {end:%d/%m}"))
    next_phase(game)  # Zelda stands in for the absence
    assert Game.objects.get(pk=game.pk).players.get(seat=SEAT).name == "Zelda"
    html = organiser_client.get(f"/games/{game.pk}/").content.decode()
    mails = text_of(html.split('data-live="mail"', 1)[1].split("</details>", 1)[0])
    assert mails.count(f"{player.email} {player.name} seat {SEAT + 1}") == 2 and "Zelda" not in mails
    assert "absence noted (away_declared)" in mails and "answered with the card as it stands (STATUS)" in mails
    assert "HELP or STATUS" not in mails


def test_the_answer_is_in_the_games_language(organiser) -> None:
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    game = services.start_game(
        services.create_game(organiser, name="Villaggio", seats=seats, options={}, seed=5, language="it")
    )
    name, email, old = old_reply_address(game)
    services.substitute_player(game.players.get(seat=SEAT), name="Ivan", email="ivan@example.org", new_person=True)
    inbound.receive(letter(Game.objects.get(pk=game.pk), SEAT, "VOTO Alba", to=old, sender=email))
    (answer,) = answers_to(email)
    assert answer.subject.endswith("Il tuo posto è ora di qualcun altro")
    assert f"Ciao {name}," in answer.body and "dato definitivamente a qualcun altro" in " ".join(answer.body.split())


def test_a_player_whose_address_was_corrected_is_answered_at_the_new_one(organiser) -> None:
    game = away_game(organiser)
    name, email, old = old_reply_address(game)
    services.substitute_player(game.players.get(seat=SEAT), name=name, email="new@example.org")
    mail.outbox.clear()
    kept = inbound.receive(letter(Game.objects.get(pk=game.pk), SEAT, vote_for(game), to=old, sender=email))
    assert (kept.code, kept.author, kept.player.seat) == ("revoked_reference", name, SEAT)
    assert answers_to(email) == []
    (answer,) = answers_to("new@example.org")
    assert "Reply to the newest mail" in answer.body


def test_the_seat_stays_the_away_players_when_the_organiser_replaces_their_standby(organiser) -> None:
    game = away_game(organiser)
    name, email, old = old_reply_address(game)
    absence = away(game, SEAT, days=3)
    next_phase(game)  # Zelda stands in
    _, zelda, zelda_old = old_reply_address(Game.objects.get(pk=game.pk))
    seat = Game.objects.get(pk=game.pk).players.get(seat=SEAT)
    services.substitute_player(seat, name="Yorick", email="yorick@example.org", new_person=True)
    game = Game.objects.get(pk=game.pk)
    kept = inbound.receive(letter(game, SEAT, vote_for(game), to=old, sender=email))
    assert (kept.code, kept.author) == ("seat_away", name)
    (answer,) = answers_to(email)
    assert f"until the end of your absence on {absence.end.day} {absence.end:%b %Y}" in " ".join(answer.body.split())
    kept = inbound.receive(letter(game, SEAT, vote_for(game), to=zelda_old, sender=zelda))
    assert (kept.code, kept.author) == ("seat_replaced", "Zelda")
