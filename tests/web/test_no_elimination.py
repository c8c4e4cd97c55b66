"""A day's vote for no elimination on the web (issue 41): the card a simple ruleset's day
slot offers instead of a VOTE (`Slot.instead`: Mafia's NO ELIMINATION) is a choice of the
seat's card form, read back as that card; the seat page shows it counted, and the running
tally, the replay and the vote count in the square count it beside the players, toward the
majority the engine counts. The shared pages need nothing of
Mafia's own for this."""

from __future__ import annotations

from datetime import timedelta
from html import unescape

import pytest
from django.core import mail
from django.test import Client
from django.utils import translation

from werewolf import engine
from werewolf.engine.rulesets import mafia
from werewolf.games import selectors, services, vote_counts
from werewolf.games.forms import NotecardForm, posted_card
from werewolf.games.models import Game, Post
from werewolf.games.templatetags.werewolf import render_event

from .play import NAMES, seat_paths

NO = engine.Order("no_elimination")


pytestmark = pytest.mark.django_db(transaction=True)


def mafia_day(organiser, players: int = 7, **options) -> Game:
    """A running Mafia game that opens on a day, every player with an address."""
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:players]]
    game = services.create_game(
        organiser, name="Mafia", seats=seats, options={"start": "day", **options}, ruleset=mafia.ID, seed=5
    )
    return services.start_game(game)


def names(game: Game) -> dict[int, str]:
    return dict(game.players.values_list("seat", "name"))


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
    assert "Or vote NO ELIMINATION: it counts like a vote for a player" in page
    welcome = next(message.body for message in mail.outbox if path in message.body)
    assert "Or vote NO ELIMINATION" in welcome
    phase = game.current_phase()
    response = client.post(path, {"phase": phase.pk, "target": "no_elimination"})
    assert response.status_code == 302
    assert selectors.card_of(phase, 0) == NO
    page = unescape(client.get(path).content.decode())
    assert 'value="no_elimination" selected' in page
    assert "Counted now: <strong>NO ELIMINATION</strong>" in page


def no_elimination_ballots(game: Game) -> None:
    """Seats 0 and 1 vote for no elimination, seat 2 for seat 3, seat 4 abstains."""
    services.submit_orders(game, {0: NO, 1: NO, 2: engine.Order("vote", (3,)), 4: engine.Order("vote")})


def test_the_running_tally_counts_no_elimination_as_a_candidate(organiser) -> None:
    game = mafia_day(organiser)
    no_elimination_ballots(game)
    tally = selectors.running_tally(game.current_phase())
    assert tally is not None
    assert [(getattr(target, "kind", target), voters) for target, voters in tally.rows] == [
        ("no_elimination", [0, 1]),
        (3, [2]),
    ]
    assert tally.voters == 3
    page = unescape(Client().get(f"/g/{game.public_key}/").content.decode())
    seat = names(game)
    assert f"<strong>No elimination</strong>: 2 ({seat[0]}, {seat[1]})</li>\n  <li><strong>{seat[3]}</strong>" in page
    # In the players' words at every door (the card's word is what a card writes).
    assert "NO ELIMINATION</strong>:" not in page
    Game.objects.filter(pk=game.pk).update(language="it")
    italian = unescape(Client().get(f"/g/{game.public_key}/").content.decode())
    assert f"<strong>Nessuna eliminazione</strong>: 2 ({seat[0]}, {seat[1]})" in italian


def test_the_vote_count_names_no_elimination_and_the_majority_it_makes(organiser) -> None:
    game = mafia_day(organiser)
    Game.objects.filter(pk=game.pk).update(vote_count_hours=6)
    game.refresh_from_db()
    phase = game.current_phase()
    no_elimination_ballots(game)
    assert vote_counts.post_due(phase.opened_at + timedelta(hours=6, seconds=1)) == 1
    text = Post.objects.get(game=game, key__startswith="votecount:").text
    seat = names(game)
    assert f"No elimination (2): {seat[0]}, {seat[1]}\n{seat[3]} (1): {seat[2]}\n" in text
    assert f"Not voting (4): {seat[3]}, {seat[4]}, {seat[5]}, {seat[6]}" in text
    assert "A majority is 4 votes." in text
    # Two more for no elimination are a majority: the day ends at once, as the engine
    # counts it, and the final count says so.
    services.submit_orders(game, {5: NO, 6: NO})
    game.refresh_from_db()
    assert game.current_phase().pk != phase.pk
    final = Post.objects.get(game=game, key=vote_counts.key_of(phase, vote_counts.FINAL)).text
    assert f"No elimination (4): {seat[0]}, {seat[1]}, {seat[5]}, {seat[6]}" in final
    day_ended = game.events.get(kind="day_ended")
    assert day_ended.data["no_elimination"] == [0, 1, 5, 6] and day_ended.data["how"] == "no_elimination"


def test_the_replay_counts_no_elimination(organiser, organiser_client: Client) -> None:
    game = mafia_day(organiser)
    services.submit_orders(game, {0: NO, 1: NO, 2: NO, 3: NO})
    page = unescape(organiser_client.get(f"/g/{game.public_key}/replay/?step=1").content.decode())
    seat = names(game)
    assert f"<strong>No elimination</strong>: 4 ({seat[0]}, {seat[1]}, {seat[2]}, {seat[3]})" in page
    Game.objects.filter(pk=game.pk).update(language="it")
    italian = unescape(organiser_client.get(f"/g/{game.public_key}/replay/?step=1").content.decode())
    assert f"<strong>Nessuna eliminazione</strong>: 4 ({seat[0]}, {seat[1]}, {seat[2]}, {seat[3]})" in italian


def test_the_vote_count_in_italian(organiser) -> None:
    game = mafia_day(organiser)
    Game.objects.filter(pk=game.pk).update(vote_count_hours=6, language="it")
    game.refresh_from_db()
    phase = game.current_phase()
    no_elimination_ballots(game)
    assert vote_counts.post_due(phase.opened_at + timedelta(hours=6, seconds=1)) == 1
    seat = names(game)
    assert f"Nessuna eliminazione (2): {seat[0]}, {seat[1]}" in Post.objects.get(game=game).text


def test_the_day_that_ended_says_who_voted_for_no_elimination_in_neutral_words() -> None:
    """The simple rulesets' day in the shared tree's words (eliminated, not lynched: the
    werewolf games say so in their own folder), with the votes for no elimination."""
    from types import SimpleNamespace

    names = ["Ada", "Bruno", "Carla", "Dino", "Elsa"]

    def said(ruleset: str, language: str = "en", **data) -> str:
        event = SimpleNamespace(
            kind="day_ended",
            data={"lynched": None, "tied": [], "ballots": [], "how": "no_votes", **data},
            phase=SimpleNamespace(resolution="all_in"),
        )
        with translation.override(language):
            return render_event(event, names, engine.PUBLIC, autoescape=False, ruleset=ruleset)

    won = said(mafia.ID, ballots=[[2, 3]], no_elimination=[0, 1], how="no_elimination")
    assert "Carla → Dino; Ada → No elimination; Bruno → No elimination." in won
    assert "The vote for no elimination won: nobody is eliminated." in won and "majority" not in won
    assert "Dino had the most votes and is eliminated." in said(mafia.ID, ballots=[[2, 3]], lynched=3, how="plurality")
    assert "nobody voted" in said(mafia.ID)
    tied = said(mafia.ID, ballots=[[2, 3]], no_elimination=[0], tied=[3], how="tie")
    assert "A tie between Dino and the vote for no elimination: nobody is eliminated." in tied
    two = said(mafia.ID, ballots=[[2, 3], [3, 2], [1, 2]], no_elimination=[0], tied=[], how="plurality", lynched=2)
    assert "Carla had the most votes and is eliminated." in two
    players = said(mafia.ID, ballots=[[2, 3], [3, 2], [4, 3], [1, 2]], no_elimination=[0], tied=[2, 3], how="tie")
    assert "A tie between Carla, Dino: nobody is eliminated." in players
    assert "lynch" not in said(mafia.ID, ballots=[[2, 3], [0, 2]], tied=[2, 3], how="tie")
    assert "Dino had the most votes." in said("classic", ballots=[[2, 3]], lynched=3, how="plurality")
    assert "→ Nessuna eliminazione." in said(mafia.ID, "it", no_elimination=[0], how="no_elimination")


def test_paper_and_the_printed_notecards_offer_no_elimination(organiser, organiser_client: Client) -> None:
    """The words a phase's cards may hold, as the paper door lists them (the organiser's
    page, the printed notecards, a seat's mail), include the cards taken instead of a vote;
    a line with NO ELIMINATION reads as that card."""
    from werewolf.engine import grammar
    from werewolf.printing import documents

    game = mafia_day(organiser)
    spec = engine.phase(game.engine_state)
    words = [verb.word for verb in grammar.verbs(grammar.slot_cards(spec.slots.values()), mafia.ID)]
    assert words == ["VOTE", "NO VOTE", "NO ELIMINATION"]
    page = unescape(organiser_client.get(f"/games/{game.pk}/cards/").content.decode())
    assert "<code>NO ELIMINATION</code>" in page
    phase, cards, verbs = documents.notecards(game)
    assert "<code>NO ELIMINATION</code>" in documents.notecards_html(game, phase, cards, verbs)
    response = organiser_client.post(
        f"/games/{game.pk}/cards/", {"phase": phase.pk, "seat_0": "NO ELIMINATION", "seat_1": "no elimination"}
    )
    assert response.status_code == 302, response.content.decode()[-3000:]
    assert selectors.card_of(phase, 0) == NO and selectors.card_of(phase, 1) == NO
    with translation.override("it"):
        italian = unescape(organiser_client.get(f"/games/{game.pk}/cards/", HTTP_ACCEPT_LANGUAGE="it").content.decode())
    assert "NESSUNA ELIMINAZIONE" in italian


def test_the_printed_tally_sheet_has_a_row_for_no_elimination(organiser, organiser_client: Client) -> None:
    from .test_printing import text_of

    game = mafia_day(organiser)
    (page,) = text_of(organiser_client.get(f"/games/{game.pk}/print/tally.pdf").content)
    assert "No elimination" in page and "NO ELIMINATION" not in page and "Nobody (a blank vote)" in page
    Game.objects.filter(pk=game.pk).update(language="it")
    (italian,) = text_of(organiser_client.get(f"/games/{game.pk}/print/tally.pdf").content)
    assert "Nessuna eliminazione" in italian


def test_a_reply_by_mail_hands_in_no_elimination(organiser) -> None:
    """The mail door reads the card the web form writes (the form's choice, its words)."""
    from random import Random

    from .play import mail_card

    game = mafia_day(organiser)
    phase = game.current_phase()
    mail_card(game, 2, {"phase": phase.pk, "target": "no_elimination"}, Random(1))
    assert selectors.card_of(phase, 2) == NO
