"""Every hand-over told to everyone it concerns, in a mail that stands alone (issue 42):
the standby who stands in for an absent player (whose seat, until when, that it goes
back, what they may know and the seat's story so far), the player who gave it up (held
until when, how to come back early), the player back (what happened meanwhile, as the
seat saw it), a substitute for good (the story so far) and the person replaced (no
longer theirs, without a secret). Each once, and the seat lists of mails and pages mark
the dead."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.core import mail
from django.test import Client
from django.utils import formats

from werewolf import addresses, engine
from werewolf.games import links, services, standbys
from werewolf.games.models import Dispatch, Game, Player, SeatPolicy

from .play import secrets_hidden_from, text_of
from .test_away_standby import BOSS, away, away_game, next_phase, over, to

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def boss(organiser):
    addresses.confirm_for(organiser, BOSS)  # the operator's word: organiser mails reach it
    return organiser


LINK = re.compile(r"http://testserver(/p/[a-z2-7]{32}/)")
ITEM = re.compile(r'<li class="event event-[\w-]+">(.*?)</li>', re.S)
BADGE = re.compile(r'<span class="badge[^"]*">.*?</span>', re.S)


def newest(address: str, subject: str) -> str:
    """The whole of the newest mail to `address` whose subject holds `subject` (its text
    and its HTML, headers and all)."""
    found = [message for message in to(address) if subject in message.subject]
    assert found, f"no mail {subject!r} to {address}: {[message.subject for message in to(address)]}"
    message = found[-1]
    return message.message().as_string() + "\n" + "\n".join(str(part[0]) for part in message.alternatives)


def body(address: str, subject: str) -> str:
    """The text of that mail, whitespace folded, as its reader reads it."""
    found = [message for message in to(address) if subject in message.subject]
    assert found, f"no mail {subject!r} to {address}"
    return " ".join(found[-1].body.split())


def seat_log(player: Player) -> list[str]:
    """The seat page's log, each event as the page words it (without its audience badge)."""
    page = Client().get(links.url_for(player, absolute=False)).content.decode()
    log = page.split('data-live="log"', 1)[1]
    return [text_of(BADGE.sub("", item)) for item in ITEM.findall(log)]


def date_of(day) -> str:
    return formats.date_format(day, "DATE_FORMAT")


def no_secret_of(game: Game, whole: str, viewer: engine.Viewer) -> None:
    for secret in secrets_hidden_from(Game.objects.get(pk=game.pk), viewer):
        assert secret not in whole, f"a hand-over mail tells {secret!r}"


def test_the_standby_who_stands_in_is_told_whose_seat_until_when_and_the_seats_story(boss) -> None:
    game = away_game(boss)
    seat = 3
    away_name = game.players.get(seat=seat).name
    absence = away(game, seat, days=3)
    mail.outbox.clear()
    next_phase(game)  # Night 1 resolves (its news is the seat's story), Day 1 opens: Zelda stands in
    game = Game.objects.get(pk=game.pk)
    zelda = game.players.get(seat=seat)
    assert zelda.name == "Zelda"
    said = body("zelda@example.org", "You stand in for")
    assert f"you stand in for {away_name}, who is away" in said
    assert f"you play seat {seat + 1} until {away_name} is back, after {date_of(absence.end)}" in said
    assert f"The seat goes back to {away_name} with the first phase that opens after that day" in said
    assert "You know what this seat knows, and nothing more" in said
    assert "Your role:" in said and LINK.search(said)
    # The story so far: every event of the seat's own page, and nothing it may not know.
    story = said.split(f"The story so far, as seat {seat + 1} saw it:", 1)[1]
    log = seat_log(zelda)
    assert len(log) > 3 and all(event in story for event in log), [e for e in log if e not in story]
    assert "Setup:" in story and "Night 1:" in story
    no_secret_of(game, newest("zelda@example.org", "You stand in for"), seat)


def test_the_player_away_is_told_the_seat_is_held_until_when_and_how_to_come_back_early(boss) -> None:
    game = away_game(boss)
    seat = 3
    player = game.players.get(seat=seat)
    absence = away(game, seat, days=2)
    mail.outbox.clear()
    next_phase(game)
    said = body(player.email, "Your seat is held for you")
    end = date_of(absence.end)
    assert "Zelda, a standby, plays your seat" in said and f"seat {seat + 1}, until {end}" in said
    assert f"The seat comes back to you with the first phase that opens after {end}" in said
    assert "Back early? Tell your organiser" in said
    whole = newest(player.email, "Your seat is held for you")
    assert not LINK.search(whole), "a link to a seat in the mail of someone who holds none"
    assert f"/g/{game.public_key}/" in whole
    no_secret_of(game, whole, engine.PUBLIC)


def test_the_player_back_is_told_what_happened_while_away_as_the_seat_saw_it(boss) -> None:
    game = away_game(boss)
    seat = 3
    player = game.players.get(seat=seat)
    absence = away(game, seat)
    next_phase(game)  # Night 1 resolves, Day 1 opens: Zelda stands in
    next_phase(game)  # Day 1, played by Zelda
    over(absence)
    mail.outbox.clear()
    next_phase(game)  # Night 2 opens after the absence: the seat goes back
    game = Game.objects.get(pk=game.pk)
    back = game.players.get(seat=seat)
    assert back.name == player.name
    said = body(player.email, "is yours again")
    assert f"seat {seat + 1} in the Werewolf game “Away” is yours again" in said
    assert "Zelda, a standby, played it while you were away" in said
    path = LINK.search(said).group(1)
    assert Client().get(path).status_code == 200
    story = said.split("What happened while you were away, as your seat saw it:", 1)[1]
    # From Night 1 (whose news went to Zelda) on, and not the setup the player had seen.
    assert "Night 1:" in story and "Day 1:" in story and "Setup:" not in story
    assert f"Zelda takes over seat {seat + 1} from {player.name}." in story
    assert f"{player.name} takes over seat {seat + 1} from Zelda." in story
    the_day = [event for event in seat_log(back) if event.startswith("The votes")]
    assert the_day and all(event in story for event in the_day)
    no_secret_of(game, newest(player.email, "is yours again"), seat)


def test_a_substitute_for_good_gets_the_story_so_far_and_the_person_replaced_no_secret(
    boss, organiser_client: Client
) -> None:
    game = away_game(boss, standbys_waiting=())
    seat = 2
    replaced = game.players.get(seat=seat)
    day = next_phase(game)
    target = game.players.get(seat=5).name
    services.submit_order(Game.objects.get(pk=game.pk), seat, engine.Order("vote", (5,)), phase_id=day.pk)
    mail.outbox.clear()
    response = organiser_client.post(
        f"/games/{game.pk}/seats/{seat}/substitute/", {"name": "Ivan", "email": "ivan@example.org"}
    )
    assert response.status_code == 302
    ivan = Game.objects.get(pk=game.pk).players.get(seat=seat)
    said = body("ivan@example.org", "You take over seat")
    assert f"you take over seat {seat + 1} from {replaced.name}" in said and "for the rest of the game" in said
    assert "The seat keeps its role and everything it has learned" in said
    assert f"Day 1: your card as it stands: VOTE {target}. You can change it until the deadline." in said
    story = said.split(f"The story so far, as seat {seat + 1} saw it:", 1)[1]
    assert all(event in story for event in seat_log(ivan))
    no_secret_of(game, newest("ivan@example.org", "You take over seat"), seat)
    lost = body(replaced.email, "You no longer hold seat")
    assert f"you no longer hold seat {seat + 1}" in lost and "the organiser gave it to Ivan" in lost
    whole = newest(replaced.email, "You no longer hold seat")
    assert not LINK.search(whole)
    no_secret_of(game, whole, engine.PUBLIC)


def test_the_person_a_missed_cards_take_over_replaces_is_told_why(boss) -> None:
    game = away_game(boss)
    SeatPolicy.objects.update_or_create(game=game, defaults={"prod_after": 1, "act_after": 2, "at_limit": "standby"})
    seat = 5
    replaced = game.players.get(seat=seat)
    Player.objects.filter(pk=replaced.pk).update(missed_cards=2)
    mail.outbox.clear()
    assert standbys.take_over(replaced.pk, 2) is not None
    lost = body(replaced.email, "You no longer hold seat")
    assert "after 2 missed cards in a row, the seat went to Zelda, a standby" in lost
    assert f"you take over seat {seat + 1} from {replaced.name}" in body("zelda@example.org", "You take over seat")
    no_secret_of(game, newest(replaced.email, "You no longer hold seat"), engine.PUBLIC)


def test_each_hand_over_is_told_once(boss) -> None:
    from werewolf.games.models import SeatHolding
    from werewolf.games.outbox import HandOver, outbox

    game = away_game(boss)
    seat = 3
    player = game.players.get(seat=seat)
    away(game, seat)
    next_phase(game)
    zelda = Game.objects.get(pk=game.pk).players.get(seat=seat)
    before = Dispatch.objects.count()
    handed = HandOver(SeatHolding.Reason.STOOD_IN, player.name, player.email)
    assert outbox().queue_hand_over(zelda, handed) == []
    assert Dispatch.objects.count() == before
    assert len(to("zelda@example.org")) == 2  # the stand-in's mail and the night's news
    assert len([message for message in to(player.email) if "held for you" in message.subject]) == 1


def test_a_hand_over_is_told_in_the_games_language(boss) -> None:
    game = away_game(boss)
    Game.objects.filter(pk=game.pk).update(language="it")
    player = game.players.get(seat=3)
    away(game, 3)
    mail.outbox.clear()
    next_phase(game)
    assert f"sostituisci {player.name}, che è via" in body("zelda@example.org", "Sostituisci")
    assert "Torni prima? Dillo al tuo organizzatore" in body(player.email, "Il tuo posto ti aspetta")


def test_seat_lists_mark_the_dead_in_mails_and_pages(boss) -> None:
    game = away_game(boss, standbys_waiting=())
    dead = game.engine_state.to_json()
    dead["alive"][4] = False
    Game.objects.filter(pk=game.pk).update(state=dead)
    game = Game.objects.get(pk=game.pk)
    fifth = game.players.get(seat=4).name
    mail.outbox.clear()
    player = game.players.get(seat=0)
    services.mail_link_again(player)
    said = body(player.email, "Your seat and your private link")
    assert f"5. {fifth} (dead)" in said
    assert "1. " in said and f"1. {player.name} (dead)" not in said
    html = next(str(part[0]) for part in to(player.email)[-1].alternatives)
    assert f"5. {fifth} (dead)" in unescape(html)
    seat_page = text_of(Client().get(links.url_for(player, absolute=False)).content.decode())
    public = text_of(Client().get(f"/g/{game.public_key}/").content.decode())
    projector = text_of(Client().get(f"/g/{game.public_key}/projector/").content.decode())
    for page in (seat_page, public, projector):
        assert f"5 {fifth} dead" in page.replace(".", "")


def test_the_dead_are_marked_in_a_hand_over_mail_too(boss) -> None:
    game = away_game(boss)
    dead = game.engine_state.to_json()
    dead["alive"][4] = False
    Game.objects.filter(pk=game.pk).update(state=dead)
    fifth = game.players.get(seat=4).name
    away(game, 3)
    mail.outbox.clear()
    next_phase(game)
    assert f"5. {fifth} (dead)" in body("zelda@example.org", "You stand in for")
