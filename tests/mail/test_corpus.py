"""The corpus of real clients' replies (tests/fixtures/mail/, one file per client and
language, made by make_corpus.py there): each goes through the whole inbound pipe and is
read as the player meant it; a reply with nothing written and an auto-reply take no card."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from werewolf import engine
from werewolf.engine.grammar import read_card
from werewolf.games import services
from werewolf.games.models import Game, InboundMessage, Order
from werewolf.mail import inbound

from ..web.play import reply_address, snapshot

pytestmark = pytest.mark.django_db(transaction=True)

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "mail"
EXPECTED = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))
ROSTER = ["Ada", "Bruno", "Chiara", "Dmitri", "Elin", "Farid", "Göran", "Hélène", "Ingrid"]


def table_for(organiser, card: str | None) -> tuple[Game, str]:
    """A nine-player classic game in which the card can be played: a day for a VOTE, a
    night otherwise, with the actor (an ASCII name the card does not name) holding the
    role the card needs. Returns the game and the actor's name."""
    named = set((card or "").replace(",", " ").split())
    free = [name for name in ROSTER if name not in named and name.isascii()]
    word = (card or "").split()[0] if card else ""
    seats = [services.Seating(name, f"p{index}@example.org") for index, name in enumerate(ROSTER)]
    options = {"wolves": 2, "seers": 1, **({"start": "day"} if word == "VOTE" else {})}
    game = services.create_game(organiser, name="Corpus", seats=seats, options=options, seed=5, deal_roles=False)
    actor = free[0]
    if word == "KILL":
        wolves, seer = [free[0], free[1]], free[2]
    else:
        wolves, seer = [free[1], free[2]], free[0] if word != "SLEEP" else free[3]
    roles = {}
    for player in game.players.all():
        roles[player.pk] = {"role": "wolf" if player.name in wolves else "seer" if player.name == seer else "villager"}
    services.assign_deal(game, roles, None)
    return services.start_game(game), actor


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_clients_reply_is_read_as_the_player_meant(organiser, name: str) -> None:
    expected = EXPECTED[name]
    game, actor = table_for(organiser, expected["card"])
    player = game.players.get(name=actor)
    raw = (
        (CORPUS / name)
        .read_bytes()
        .replace(b"{{ORDERS}}", reply_address(player).encode())
        .replace(b"{{PLAYER_ADDRESS}}", player.email.encode())
        .replace(b"{{PLAYER}}", f"{player.name} <{player.email}>".encode())
    )
    before = snapshot(game)
    kept = inbound.receive(raw)
    assert bytes(kept.raw) == raw  # every message kept as it came
    if expected["automatic"]:
        assert (kept.status, kept.code) == ("refused", "auto_submitted")
        assert snapshot(game) == before
        return
    if expected["card"] is None:
        assert (kept.status, kept.code) == ("refused", "empty_card"), kept.card
        assert snapshot(game) == before
        return
    assert kept.status == InboundMessage.Status.APPLIED, (kept.code, kept.card)
    slot = engine.phase(game.engine_state).asks(player.seat)
    meant = read_card(expected["card"], [p.name for p in game.players.order_by("seat")], slot, "classic")
    assert Order.objects.get(pk=kept.order_id).order == meant


def test_the_corpus_covers_the_clients_the_players_use() -> None:
    files = sorted(path.name for path in CORPUS.glob("*.eml"))
    assert files == sorted(EXPECTED) and len(files) >= 30
    clients = {entry["client"].split(",")[0].split(" (")[0] for entry in EXPECTED.values()}
    for client in ("Gmail", "Outlook", "Outlook on the web", "Apple Mail", "Thunderbird", "Yahoo Mail", "Yandex Mail"):
        assert client in clients, client
