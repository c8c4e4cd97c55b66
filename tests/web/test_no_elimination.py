"""A day's vote for no elimination on the web (issue 41): the card a simple ruleset's day
slot offers instead of a VOTE (`Slot.instead`: Mafia's NO ELIMINATION) is a choice of the
seat's card form, read back as that card; the seat page shows it counted, and the running
tally, the replay and the vote count in the square count it beside the players, toward the
majority the engine counts. Mafia is registered only while these tests run (its commit
registers it); the shared pages need nothing of its own for this."""

from __future__ import annotations

from html import unescape

import pytest
from django.test import Client
from django.utils import translation

from werewolf import engine
from werewolf.engine.rulesets import mafia
from werewolf.games import selectors, services
from werewolf.games.forms import NotecardForm, posted_card
from werewolf.games.models import Game

from .play import NAMES, seat_paths
from .sixth import registered  # noqa: F401 (a fixture)

NO = engine.Order("no_elimination")


pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("registered")]


def mafia_day(organiser, players: int = 7, **options) -> Game:
    """A running Mafia game that opens on a day, every player with an address."""
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:players]]
    game = services.create_game(
        organiser, name="Mafia", seats=seats, options={"start": "day", **options}, ruleset=mafia.ID, seed=5
    )
    return services.start_game(game)


def slot_of(game: Game, seat: int = 0) -> engine.Slot:
    slot = engine.phase(game.engine_state).asks(seat)
    assert slot is not None
    return slot


def test_the_card_form_offers_no_elimination_and_reads_it_back(organiser) -> None:
    game = mafia_day(organiser)
    slot = slot_of(game)
    form = NotecardForm(slot=slot, names=NAMES[:7], seat=0, submit="hand_in", ruleset=mafia.ID)
    assert ("no_elimination", "NO ELIMINATION") in list(form.fields["target"].choices)
    posted = NotecardForm(
        {"phase": "3", "target": "no_elimination"},
        slot=slot,
        names=NAMES[:7],
        seat=0,
        submit="hand_in",
        ruleset=mafia.ID,
    )
    assert posted.is_valid(), posted.errors
    assert posted.order() == NO
    assert posted_card(slot, {"phase": "3", "target": "no_elimination"}) == (3, NO)
    assert posted_card(slot, {"phase": "3", "target": "2"}) == (3, engine.Order("vote", (2,)))
    assert NotecardForm.initial_for(3, NO, slot) == {"phase": 3, "target": "no_elimination"}
    with translation.override("it"):
        italian = NotecardForm(slot=slot, names=NAMES[:7], seat=0, submit="hand_in", ruleset=mafia.ID)
        assert ("no_elimination", "NESSUNA ELIMINAZIONE") in list(italian.fields["target"].choices)


def test_a_game_that_takes_no_such_vote_offers_none(organiser) -> None:
    game = mafia_day(organiser, no_elimination=False)
    form = NotecardForm(slot=slot_of(game), names=NAMES[:7], seat=0, submit="hand_in", ruleset=mafia.ID)
    assert "no_elimination" not in dict(form.fields["target"].choices)


def test_a_seat_hands_in_no_elimination_on_its_page(organiser) -> None:
    game = mafia_day(organiser)
    path = seat_paths(game)[0]
    client = Client()
    page = unescape(client.get(path).content.decode())
    assert 'value="no_elimination"' in page
    phase = game.current_phase()
    response = client.post(path, {"phase": phase.pk, "target": "no_elimination"})
    assert response.status_code == 302
    assert selectors.card_of(phase, 0) == NO
    page = unescape(client.get(path).content.decode())
    assert 'value="no_elimination" selected' in page
    assert "Counted now: <strong>NO ELIMINATION</strong>" in page
