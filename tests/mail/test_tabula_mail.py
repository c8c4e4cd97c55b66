"""Lupus in Tabula played by mailed cards only: every card a reply to the seat's newest
mail, read with Tabula's words. After every step each seat's mails are checked for
another seat's secrets (roles, night results, ballots before they are revealed); each
mail asks for the step's card (the ghosts too in the accusation, not the suspects and
the ghosts in the ballot); a ghost's and a suspect's LYNCH are refused, clearly, and
change nothing."""

from __future__ import annotations

from datetime import timedelta
from random import Random
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone

from werewolf import engine
from werewolf.engine.bots import bot_card
from werewolf.games import selectors, services
from werewolf.games.models import Game, InboundMessage, Phase, Player
from werewolf.mail import inbound

from ..web.play import card_summary, mails_for, reply_address, secrets_hidden_from, snapshot

pytestmark = pytest.mark.django_db(transaction=True)

NAMES = [
    "Alba",
    "Brio",
    "Cato",
    "Dara",
    "Ezio",
    "Fenna",
    "Gusto",
    "Hilde",
    "Ivo",
    "Jolanda",
    "Kuno",
    "Lorenza",
    "Marzio",
]


def tabula_game(organiser: Any, players: int, seed: int, **options: Any) -> Game:
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:players]]
    game = services.create_game(
        organiser, name="Tabula by mail", seats=seats, ruleset="tabula", options=options, seed=seed
    )
    return services.start_game(game)


def reply(game: Game, seat: int, card: str, rng: Random, to: str | None = None) -> InboundMessage:
    """The card as the first line of a reply to the seat's newest mail that asks for one,
    the mail quoted below it as a mail client does."""
    player = game.players.get(seat=seat)
    quoted = "\n".join("> " + line for line in mails_for(player).splitlines()[-15:])
    body = f"{card}\n\nOn Monday the moderator wrote:\n{quoted}\n"
    raw = (
        f"From: {player.name} <{player.email}>\r\nTo: {to or reply_address(player)}\r\n"
        f"Subject: Re: your card\r\nMessage-ID: <{rng.getrandbits(64):x}@example.org>\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n\r\n" + body.replace("\n", "\r\n")
    ).encode()
    return inbound.receive(raw)


def last_mail(player: Player) -> str:
    mine = [message for message in mail.outbox if any(player.email in to for to in message.to)]
    return mine[-1].body


def check_mails(game: Game) -> None:
    """No seat's mails hold what its audience rules keep from it."""
    game.refresh_from_db()
    for player in game.players.exclude(seat=None):
        text = mails_for(player)
        for secret in secrets_hidden_from(game, player.seat):
            assert secret not in text, f"{player.name}'s mail shows {secret!r}"


def check_asked(game: Game) -> None:
    """The newest mail of each seat asks for the card the open step asks of it, with
    an example in the card's words, or says why nothing is asked."""
    game.refresh_from_db()
    phase = game.current_phase()
    if phase is None:
        return
    state = game.engine_state
    spec = engine.phase(state)
    for player in game.players.exclude(seat=None):
        body = last_mail(player)
        slot = spec.asks(player.seat)
        if slot is None:
            assert "Nothing is asked of you in this phase" in body
            if phase.stage == "ballot" and not state.alive[player.seat]:
                assert "the dead have no ballot" in body
            elif phase.stage == "ballot":
                assert "you are a suspect" in body
            continue
        assert "reply to this mail with your card" in body, body
        example = {"vote": "VOTE Name (or NO VOTE)", "ballot": "LYNCH Name (or NO LYNCH)"}.get(slot.kind)
        if example is None and slot.card.fields:
            example = f"{slot.card.word} Name"
        if example:
            assert example in body, (slot.kind, body)
        if slot.kind == "vote":
            assert "the dead too" in body
            if not state.alive[player.seat]:
                assert "You are dead, but a ghost still votes in the accusation" in body


def hand_in_by_mail(game: Game, rng: Random, skip: set[int] = frozenset()) -> None:
    """Every seat the open step asks replies with a bot's card, in the step's words."""
    state = game.engine_state
    names = selectors.names(game)
    phase = game.current_phase()
    for seat, slot in sorted(engine.phase(state).slots.items()):
        if seat in skip:
            continue
        current = game.current_phase()
        if current is None or current.pk != phase.pk:
            return
        order = bot_card(slot, seat, rng)
        card = card_summary(order, names)
        if rng.random() < 0.3:
            card = card.lower()
        kept = reply(game, seat, card, rng)
        assert kept.status == InboundMessage.Status.APPLIED, (seat, card, kept.code)


def close(game: Game, phase: Phase) -> None:
    if Phase.objects.get(pk=phase.pk).status == Phase.Status.OPEN:
        Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        assert services.sweep_due_phases() == 1
    assert Phase.objects.get(pk=phase.pk).status == Phase.Status.RESOLVED


def refused_lynch(game: Game, seat: int, suspect: int, rng: Random, words: str) -> None:
    """A LYNCH from a seat the ballot asks nothing of: refused, told why, nothing changed."""
    before = snapshot(game)
    name = game.players.get(seat=suspect).name
    kept = reply(game, seat, f"LYNCH {name}", rng)
    assert kept.status == InboundMessage.Status.REFUSED, kept.code
    assert snapshot(game) == before
    answer = last_mail(game.players.get(seat=seat))
    assert "was not taken as a card, and nothing in the game was changed" in answer
    assert words in answer, answer


def play(game: Game, seed: int) -> dict[str, int]:
    """The whole game by mail; returns how many ghost and suspect LYNCH replies were tried."""
    rng = Random(seed)
    tried = {"ghost": 0, "suspect": 0, "ballots": 0}
    check_mails(game)
    check_asked(game)
    steps = 0
    while (phase := game.current_phase()) is not None:
        steps += 1
        assert steps < 80, "the game does not end"
        state = game.engine_state
        spec = engine.phase(state)
        if phase.stage == "ballot":
            suspects = list(state.rules.suspects)
            assert selectors.running_tally(phase) is None
            ghosts = [seat for seat in range(state.seats) if not state.alive[seat]]
            if ghosts and not tried["ghost"]:
                refused_lynch(game, ghosts[0], suspects[0], rng, "The dead have no ballot")
                tried["ghost"] += 1
            if not tried["suspect"]:
                refused_lynch(game, suspects[0], suspects[1], rng, "A suspect has no ballot")
                tried["suspect"] += 1
            voters = sorted(spec.slots)
            if voters:
                # A ballot handed in and changed tells nobody else anything: not the
                # public poll, not another seat's, not the public tally.
                first, other = voters[0], voters[-1]
                names = selectors.names(game)
                reply(game, first, f"LYNCH {names[suspects[0]]}", rng)
                public = selectors.version(game, engine.PUBLIC)
                watching = selectors.version(game, other) if other != first else None
                reply(game, first, f"LYNCH {names[suspects[1]]}", rng)
                assert selectors.version(game, engine.PUBLIC) == public
                if watching is not None:
                    assert selectors.version(game, other) == watching
                check_mails(game)
                tried["ballots"] += 1
        elif phase.stage == "accusation":
            tally = selectors.running_tally(phase)
            assert tally is not None and tally.electorate == state.seats  # the ghosts vote too
        hand_in_by_mail(game, rng)
        close(game, phase)
        game.refresh_from_db()
        check_mails(game)
        check_asked(game)
    assert game.status == Game.Status.FINISHED
    return tried


def test_an_eight_player_tabula_game_played_by_mail(organiser) -> None:
    game = tabula_game(organiser, 8, seed=5, first_night="normal")
    tried = play(game, 5)
    assert tried["ghost"] and tried["suspect"] and tried["ballots"]
    over = game.events.get(kind="game_over")
    for player in game.players.all():
        assert "The game is over" in mails_for(player)
    assert over.data["winner"] in ("village", "wolves")


def test_a_thirteen_player_game_with_freemasons_by_mail(organiser) -> None:
    game = tabula_game(organiser, 13, seed=3)
    masons = game.events.get(kind="masons_met").data["masons"]
    assert len(masons) == 2
    names = selectors.names(game)
    for player in game.players.exclude(seat=None):
        welcome = mails_for(player)
        told = "The Freemasons, who know each other" in welcome
        assert told == (player.seat in masons), player.name
        if told:
            assert all(names[mason] in welcome for mason in masons)
    play(game, 3)


def test_a_mason_sees_the_other_in_the_circle_and_nobody_else_does(organiser) -> None:
    game = tabula_game(organiser, 13, seed=3)
    masons = game.events.get(kind="masons_met").data["masons"]
    for seat in range(13):
        seen = selectors.visible_events(game, seat)
        shown = {place.seat for place in selectors.circle(game, seat, seen) if place.role}
        pack = set(game.events.get(kind="pack_formed").data["pack"])
        expected = {seat} | (set(masons) if seat in masons else set()) | (pack if seat in pack else set())
        assert shown == expected, seat
