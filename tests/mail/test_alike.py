"""What every mail of a phase says alike is written once for all of them
(outbound._said_alike): each seat's mail is exactly what it would be written alone."""

from __future__ import annotations

import re
from pathlib import Path
from random import Random

import pytest

from werewolf.engine import rulesets
from werewolf.engine.simulate import bot_orders
from werewolf.games import links, services
from werewolf.mail import outbound

from ..web.play import NAMES

pytestmark = pytest.mark.django_db

STAMP = re.compile(r"DTSTAMP:\d{8}T\d{6}Z")


def steady(mail: dict) -> dict:
    """A rendered mail without the moment its calendar event was written."""
    return {**mail, "attachments": [{**a, "content": STAMP.sub("", a["content"])} for a in mail.get("attachments", [])]}


def unmarked(player, phase, events) -> dict:
    """The seat's mail written with nothing kept for the moment: its link written where
    the templates read it, not put in last (outbound.SEAT_LINK)."""
    context = outbound._context(player, phase=phase, events=[e for e in events if e.visible_to(player.seat)])
    return steady(outbound._render(player, "phase", {**context, "said_alike": None}))


@pytest.mark.parametrize("language", ["en", "it"])
def test_each_seat_s_mail_is_what_it_would_be_alone(organiser, language: str) -> None:
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:9]]
    game = services.create_game(organiser, name="Alike", seats=seats, options={"wolves": 2, "seers": 1})
    game.language = language
    game.save(update_fields=["language"])
    game = services.start_game(game)
    phase = game.current_phase()
    services.submit_orders(game, bot_orders(game.engine_state, Random(1)))  # the pack kills
    services.resolve_now(game)
    game.refresh_from_db()
    players = list(game.players.all())
    links.prime(players)
    events = list(phase.events.order_by("pk"))
    together = outbound.Shared(game.engine_state, game.current_phase(), [p.name for p in players])
    batch = [steady(outbound._render_phase(player, phase, events, together)) for player in players]
    assert {key[0] for key in together.words} == {
        "subject",
        "deadline_summary",
        "slot_help",
        "next_phase_deadline",
        "next_phase",
        "deadline_description",
        "alike",
    }
    # The events, said once for every seat that sees the same words: fewer than the seats.
    assert len([key for key in together.words if key[1:3] == ("emails/phase.txt", "story")]) < len(players)
    alone = [steady(outbound._render_phase(player, phase, events)) for player in players]
    assert batch == alone
    assert batch == [unmarked(player, phase, events) for player in players]
    assert all(outbound.SEAT_LINK not in str(mail) for mail in batch)
    # ... and the seats asked for a card and those not asked are both there.
    assert len({mail["attachments"][0]["content"].split("SUMMARY:")[1].split("\r\n")[0] for mail in batch}) == 2


@pytest.mark.parametrize("ruleset", sorted(rulesets.RULESETS))
def test_every_ruleset_s_mails_are_what_they_would_be_alone(organiser, ruleset: str) -> None:
    """Over the first phases of a game of each ruleset (nights and days, with the dead
    among the readers): the help for each seat's card, said once for all the seats asked
    the same card, is what that seat's mail says alone."""
    players = 8 if ruleset.startswith("lupusburg") else 10  # (Lupusburg seats four to eight)
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:players]]
    game = services.start_game(services.create_game(organiser, name="Alike", seats=seats, options={}, ruleset=ruleset))
    rng = Random(3)
    helps = 0
    for _ in range(6):
        game.refresh_from_db()
        if not game.is_running:
            break
        phase = game.current_phase()
        services.submit_orders(game, bot_orders(game.engine_state, rng))
        game.refresh_from_db()
        if game.current_phase() == phase:
            services.resolve_now(game)
        game.refresh_from_db()
        players = list(game.players.all())
        links.prime(players)
        events = list(phase.events.order_by("pk"))
        following = game.current_phase() if game.is_running else None
        together = outbound.Shared(game.engine_state, following, [p.name for p in players])
        batch = [steady(outbound._render_phase(player, phase, events, together)) for player in players]
        alone = [steady(outbound._render_phase(player, phase, events)) for player in players]
        assert batch == alone
        assert batch == [unmarked(player, phase, events) for player in players]
        helps += sum(1 for key in together.words if key[0] == "slot_help")
    assert helps  # (the help was said alike at all)


SEAT_READS = re.compile(
    r"\b(player|viewer|link|role|alive|slot|slot_help|next_phase_text|card_in|mail_orders|unasked|reply_to|private|events|standing)\b"
)
"""What a mail's context says of its seat (outbound._context and the mails' own)."""


def test_a_part_said_alike_reads_nothing_of_its_seat_but_the_values_it_names() -> None:
    """`{% alike name values %}` keeps a part for every mail of the moment: the part may
    read of its seat only the values it names (as the story names the seat's words)."""
    root = Path(__file__).resolve().parents[2] / "templates"
    parts = 0
    for path in sorted(root.rglob("*")):
        if path.suffix not in {".txt", ".html"}:
            continue
        for part in re.finditer(r"{% alike (.*?) %}(.*?){% endalike %}", path.read_text(), re.S):
            named = set(part[1].split()[1:])
            assert set(SEAT_READS.findall(part[2])) <= named, (path, part[0])
            parts += 1
    assert parts  # (the phase mail's head and story)
