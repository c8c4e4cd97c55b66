"""Whole games with talk: at every phase every seat says something in every place it may
write, and every seat's page, the public page and every digest mailed are then swept for
what was said in places that seat does not read."""

from __future__ import annotations

import re
from random import Random

import pytest
from django.core import mail
from django.test import Client

from werewolf.engine import talk as channels
from werewolf.engine.simulate import bot_orders
from werewolf.games import links, services, talk
from werewolf.games.models import Game, Player

from .play import NAMES

pytestmark = pytest.mark.django_db(transaction=True)
MARK = re.compile(r"said-[a-z]+-\d+-\d+")


def play_with_talk(organiser, ruleset: str, players: int, seed: int, **options) -> None:
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:players]]
    game = services.start_game(
        services.create_game(
            organiser, name=f"Talk {ruleset}", seats=seats, ruleset=ruleset, options=options, seed=seed
        )
    )
    Player.objects.filter(game=game).update(talk_mail="each")
    said: dict[str, str] = {}  # marker -> channel
    rng = Random(seed)
    client = Client()
    urls = {seat: links.url_for(game.players.get(seat=seat), absolute=False) for seat in range(players)}
    emails = {seat: game.players.get(seat=seat).email for seat in range(players)}
    public = f"/g/{game.public_key}/"
    Game.objects.filter(pk=game.pk).update(public_square=True)
    while True:
        game.refresh_from_db()
        state = game.engine_state
        for channel in channels.channels(state):
            for seat in sorted(channel.writers):
                marker = f"said-{channel.name}-{seat}-{state.index}"
                talk.post(game, seat, channel.name, f"{marker} (a word in the {channel.name})")
                said[marker] = channel.name
        mail.outbox.clear()
        talk.send_digests()
        for seat, url in urls.items():
            reads = {channel.name for channel in channels.channels(state) if seat in channel.readers}
            page = client.get(url).content.decode()
            mails = "\n".join(m.body for m in mail.outbox if m.to[0].endswith(f"<{emails[seat]}>"))
            for text, where in ((page, "page"), (mails, "mail")):
                for marker in MARK.findall(text):
                    assert said[marker] in reads, f"seat {seat}'s {where} shows {marker}"
        for marker in MARK.findall(client.get(public).content.decode()):
            assert said[marker] == channels.SQUARE, f"the public page shows {marker}"
        if not game.is_running:
            break
        services.submit_orders(game, bot_orders(state, rng))
        phase = game.current_phase()
        if phase is not None and Game.objects.get(pk=game.pk).current_phase() == phase:
            services.resolve_now(Game.objects.get(pk=game.pk))
    assert {"square", "den", "ghosts"} <= set(said.values())
    return said


def test_classic_with_the_lovers_keeps_each_place_to_its_members(organiser) -> None:
    said = play_with_talk(organiser, "classic", 9, 4, cupid=True, seers=1)
    assert "lovers" in said.values()


def test_tabula_keeps_the_lodge_and_the_den_by_night_to_their_members(organiser) -> None:
    said = play_with_talk(organiser, "tabula", 13, 2)
    assert "lodge" in said.values()
