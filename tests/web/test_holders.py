"""Who held each seat, when, and why (issue 42): the seats' holders record
(`SeatHolding`, read by werewolf/games/holders.py) is written where a seat changes hands,
and every door that tells the past names the person it names: the record PDF, the
replay, the export.

The game of the issue: Chiara (seat 7) is away from the first day with a standby
waiting (Sam stands in, and she comes back), and the organiser replaces Hugo (seat 6)
by Ivan in the middle of Day 1, after Hugo voted."""

from __future__ import annotations

import io
import re
from datetime import timedelta
from random import Random
from typing import Any
from unittest import mock

import pytest
from django.apps import apps
from django.test import Client
from django.utils import timezone
from pypdf import PdfReader

from werewolf import engine
from werewolf.games import absences, attendance, dates, holders, links, pauses, services, standbys
from werewolf.games.models import Absence, AbsencePolicy, Game, Phase, SeatHolding, SeatPolicy, Standby

from .play import card_form, mail_card, open_phase, seat_paths, story_sweep, text_of
from .test_game_flow import sweep

pytestmark = pytest.mark.django_db(transaction=True)

NAMES = ["Ada", "Bruno", "Dario", "Elena", "Fabio", "Hugo", "Chiara"]
"""In seat order. With seed 11: Ada and Dario are the wolves, Bruno the Seer."""
ADA, BRUNO, DARIO, ELENA, FABIO, HUGO, CHIARA = range(7)
Reason = SeatHolding.Reason


def new_game(organiser: Any, policy: str = AbsencePolicy.STANDBY) -> Game:
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES]
    game = services.create_game(
        organiser, name="Class 3B", seats=seats, options={"wolves": 2, "seers": 1}, seed=11, draw_seats=False
    )
    Game.objects.filter(pk=game.pk).update(absence_policy=policy)
    game = services.start_game(Game.objects.get(pk=game.pk))
    assert [engine.roles_of(game.engine_state, seat)[0] for seat in (ADA, BRUNO, DARIO)] == ["wolf", "seer", "wolf"]
    return game


def card(game: Game, seat: int, kind: str, *targets: int) -> None:
    game = Game.objects.get(pk=game.pk)
    phase = game.current_phase()
    assert phase is not None
    services.submit_order(game, seat, engine.Order(kind, tuple(targets)), phase_id=phase.pk)


def name_at(game: Game, seat: int) -> str:
    return Game.objects.get(pk=game.pk).players.get(seat=seat).name


def pdf_text(pdf: bytes) -> str:
    return " ".join(" ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(pdf)).pages)


def sections(text: str, headings: list[str]) -> dict[str, str]:
    """The record's text cut at its headings, in order: each heading's text up to the next."""
    found: dict[str, str] = {}
    at = 0
    for number, heading in enumerate(headings):
        start = text.index(heading, at)
        following = headings[number + 1] if number + 1 < len(headings) else None
        end = text.index(following, start + len(heading)) if following else len(text)
        found[heading] = text[start + len(heading) : end]
        at = start + len(heading)
    return found


def kind_open(game: Game) -> str:
    phase = open_phase(game)
    assert phase is not None
    return phase.kind


def play_the_issue(organiser: Any, organiser_client: Client) -> Game:
    """Night 1 with Chiara's own card (she is away from today), Day 1 with Sam in her
    seat and Hugo's vote before Ivan replaces him, Night 2 with Sam's and Ivan's cards,
    Day 2 with Chiara back and voting; then the organiser ends the game."""
    game = new_game(organiser)
    Standby.objects.create(game=game, name="Sam", email="sam@example.org", pending=False)
    start = absences.today(game)
    absence = absences.declare(game.players.get(seat=CHIARA), dates.Span(start, start + timedelta(days=1)))
    # Night 1: every card in (Chiara's her own), so it resolves; Day 1 opens with Sam.
    card(game, BRUNO, "inquire", ADA)
    for seat in (ELENA, FABIO, HUGO, CHIARA):
        card(game, seat, "sleep")
    card(game, ADA, "kill", ELENA)
    card(game, DARIO, "kill", ELENA)
    assert kind_open(game) == "day" and name_at(game, CHIARA) == "Sam"
    # Day 1: Hugo votes, the organiser replaces him by Ivan, Sam votes; no majority.
    card(game, HUGO, "vote", DARIO)
    response = organiser_client.post(
        f"/games/{game.pk}/seats/{HUGO}/substitute/", {"name": "Ivan", "email": "ivan@example.org"}
    )
    assert response.status_code == 302 and name_at(game, HUGO) == "Ivan"
    # The organiser opens the seat's card: the one in is Hugo's, whoever holds the seat now.
    opened = text_of(organiser_client.get(f"/games/{game.pk}/seats/{HUGO}/card/").content.decode())
    assert "VOTE Dario (Hugo, web form," in opened
    card(game, CHIARA, "vote", BRUNO)
    assert services.resolve_now(Game.objects.get(pk=game.pk))
    # Night 2: Sam's and Ivan's cards; the absence is over by the time Day 2 opens.
    assert kind_open(game) == "night"
    Absence.objects.filter(pk=absence.pk).update(start=start - timedelta(days=5), end=start - timedelta(days=1))
    card(game, BRUNO, "inquire", DARIO)
    for seat in (HUGO, CHIARA):
        card(game, seat, "sleep")
    living = Game.objects.get(pk=game.pk).engine_state.alive
    assert living[FABIO]
    card(game, FABIO, "sleep")
    card(game, ADA, "kill", FABIO)
    card(game, DARIO, "kill", FABIO)
    assert kind_open(game) == "day" and name_at(game, CHIARA) == "Chiara"
    # Day 2: Chiara votes; the organiser ends the game.
    card(game, CHIARA, "vote", ADA)
    services.end_game(Game.objects.get(pk=game.pk))
    return Game.objects.get(pk=game.pk)


def test_each_hand_over_is_recorded_with_its_step_and_its_reason(organiser: Any, organiser_client: Client) -> None:
    game = play_the_issue(organiser, organiser_client)
    held = holders.of(game)
    seventh = [(holding.name, holding.reason, holding.from_index) for holding in held.of_seat(CHIARA)]
    day1, night2, day2 = (game.phases.get(index=index) for index in (1, 2, 3))
    assert seventh == [("Chiara", Reason.DEALT, None), ("Sam", Reason.STOOD_IN, 1), ("Chiara", Reason.BACK, 3)]
    sixth = [(holding.name, holding.reason, holding.from_index) for holding in held.of_seat(HUGO)]
    assert sixth == [("Hugo", Reason.DEALT, None), ("Ivan", Reason.SUBSTITUTED, 1)]
    assert held.of_seat(CHIARA)[1].until_index == 3 and held.of_seat(HUGO)[1].until is None
    assert [held.during(CHIARA, phase).name for phase in (day1, night2, day2)] == ["Sam", "Sam", "Chiara"]
    assert held.during(HUGO, game.phases.get(index=0)).name == "Hugo"
    assert held.during(HUGO, day1).name == "Ivan"  # who answered for it when Day 1 closed
    hugo_vote = day1.orders.get(seat=HUGO)
    assert held.at(HUGO, hugo_vote.submitted_at).name == "Hugo"  # ... but Hugo wrote its card
    assert held.names_dealt() == NAMES
    assert [holding.email for holding in held.of_seat(CHIARA)] == [
        "chiara@example.org",
        "sam@example.org",
        "chiara@example.org",
    ]
    assert [(holding.seat, holding.name) for holding in held.by_address("SAM@example.org")] == [(CHIARA, "Sam")]


def test_the_record_pdf_names_who_held_the_seat_when_each_card_was_written(
    organiser: Any, organiser_client: Client
) -> None:
    game = play_the_issue(organiser, organiser_client)
    response = Client().get(f"/g/{game.public_key}/replay.pdf")  # public after the game, by default
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    text = pdf_text(response.content)
    parts = sections(text, ["The roles as dealt", "Setup", "Night 1", "Day 1", "Night 2", "Day 2"])
    dealt = parts["The roles as dealt"]
    assert "Hugo Villager" in dealt and "Chiara Villager" in dealt
    assert "Ivan" not in dealt and "Sam" not in dealt
    assert "Hugo is dealt the card" in parts["Setup"]
    assert "Chiara SLEEP" in parts["Night 1"]  # her own card, before she left
    assert "Hugo VOTE Dario" in parts["Day 1"]  # cast before Ivan took the seat
    assert "Sam VOTE Bruno" in parts["Day 1"]
    assert "Chiara VOTE" not in parts["Day 1"] and "Ivan VOTE" not in parts["Day 1"]
    assert "Sam SLEEP" in parts["Night 2"] and "Ivan SLEEP" in parts["Night 2"]
    assert "Chiara SLEEP" not in parts["Night 2"]
    assert "Chiara VOTE Ada" in parts["Day 2"]
    assert "Sam takes over seat 7 from Chiara. Why: a standby standing in while the player is away." in text
    assert "Ivan takes over seat 6 from Hugo. Why: the organiser's substitution." in text
    assert "Chiara takes over seat 7 from Sam. Why: the player back after an absence." in text
    # The dashboard's record is the same document.
    assert pdf_text(organiser_client.get(f"/games/{game.pk}/print/record.pdf").content) == text


def replay_cards(client: Client, game: Game, step: int) -> list[tuple[str, str]]:
    """The counted cards of a replay step, as (writer, card) read off its table (those
    of the step the organiser's end cut short too: the record lists them)."""
    html = client.get(f"/g/{game.public_key}/replay/?step={step}").content.decode()
    table = re.search(r'<table class="table table-sm replay-cards">(.*?)</table>', html, re.S)
    rows = []
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table.group(1) if table else "", re.S):
        cells = [text_of(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        if cells and (cells[3].startswith("yes") or "ended the game" in cells[3]):
            rows.append((cells[0], cells[1]))
    return rows


def test_the_replay_and_the_record_agree_and_the_replay_tells_why(organiser: Any, organiser_client: Client) -> None:
    game = play_the_issue(organiser, organiser_client)
    text = pdf_text(Client().get(f"/g/{game.public_key}/replay.pdf").content)
    parts = sections(text, ["Setup", "Night 1", "Day 1", "Night 2", "Day 2"])
    for step, heading in enumerate(["Night 1", "Day 1", "Night 2", "Day 2"], start=1):
        rows = replay_cards(organiser_client, game, step)
        assert rows, heading
        for writer, written in rows:
            assert f"{writer} {written}" in parts[heading], (heading, writer, written)
    assert ("Sam", "VOTE Bruno") in replay_cards(organiser_client, game, 2)
    assert ("Hugo", "VOTE Dario") in replay_cards(organiser_client, game, 2)
    day1 = text_of(organiser_client.get(f"/g/{game.public_key}/replay/?step=2").content.decode())
    assert "Sam takes over seat 7 from Chiara. Why: a standby standing in while the player is away." in day1
    assert "Ivan takes over seat 6 from Hugo. Why: the organiser's substitution." in day1
    # The votes are their writers': Hugo's for Dario, Sam's for Bruno.
    assert "Dario : 1 (Hugo)" in day1 and "Bruno : 1 (Sam)" in day1
    # The public log during the game tells no reason: an absence is not the table's.
    public = text_of(Client().get(f"/g/{game.public_key}/").content.decode())
    assert "Sam takes over seat 7 from Chiara." in public and "Why:" not in public


def test_the_closing_events_name_who_wrote_the_card_after_a_substitution_in_the_middle_of_the_step(
    organiser: Any, organiser_client: Client
) -> None:
    """Hugo voted, then the organiser put Ivan in his seat, then Day 1 closed: the day's
    tally is of the cards as written, so every door says "Hugo → Dario", never
    "Ivan → Dario" (Ivan wrote no card that day); the Night after is Ivan's."""
    from django.core import mail

    game = play_the_issue(organiser, organiser_client)
    hugo, ivan = "Hugo → Dario", "Ivan → Dario"
    record = sections(
        pdf_text(organiser_client.get(f"/games/{game.pk}/print/record.pdf").content), ["Day 1", "Night 2"]
    )["Day 1"]
    replay_day1 = text_of(organiser_client.get(f"/g/{game.public_key}/replay/?step=2").content.decode())
    public = text_of(Client().get(f"/g/{game.public_key}/").content.decode())
    day1 = game.phases.get(index=1)
    from werewolf.games.models import Dispatch

    mailed = [row.body_text for row in Dispatch.objects.filter(phase=day1, kind=Dispatch.Kind.PHASE)]
    assert mailed and all("The votes:" in body for body in mailed)
    for door, text in [
        ("record", record),
        ("replay", replay_day1),
        ("public log", public),
        *[("mail", body) for body in mailed],
    ]:
        assert hugo in text and ivan not in text, door
    assert any(hugo in message.body for message in mail.outbox)
    # The export tells the card's writer beside its seat (its events name seats only).
    exported = organiser_client.get(f"/games/{game.pk}/export.json").json()
    day = next(phase for phase in exported["phases"] if phase["index"] == 1)
    assert day["by"][str(HUGO)] == "Hugo" and day["orders"][str(HUGO)]["targets"] == [DARIO]


def test_the_nights_results_name_who_wrote_the_card_after_a_substitution_in_the_middle_of_the_night(
    organiser: Any, organiser_client: Client
) -> None:
    """Bruno, the Seer, inquires about Ada; the organiser puts Olga in his seat before the
    night ends: the moderator's words for the inquiry (the replay, the record) say Bruno
    asked, and Olga's page tells her the seat's answer as the seat's own."""
    game = new_game(organiser)
    card(game, BRUNO, "inquire", ADA)
    response = organiser_client.post(
        f"/games/{game.pk}/seats/{BRUNO}/substitute/", {"name": "Olga", "email": "olga@example.org"}
    )
    assert response.status_code == 302 and name_at(game, BRUNO) == "Olga"
    for seat in (ELENA, FABIO, HUGO, CHIARA):
        card(game, seat, "sleep")
    card(game, ADA, "kill", ELENA)
    card(game, DARIO, "kill", ELENA)
    assert kind_open(game) == "day"
    night = text_of(organiser_client.get(f"/g/{game.public_key}/replay/?step=1").content.decode())
    assert "The Seer Bruno asked about Ada: a werewolf." in night
    assert "The Seer Olga asked" not in night
    assert ("Bruno", "INQUIRE Ada") in replay_cards(organiser_client, game, 1)
    seat = text_of(Client().get(links.url_for(game.players.get(seat=BRUNO), absolute=False)).content.decode())
    assert "Your inquiry came back: Ada is a werewolf." in seat
    services.end_game(Game.objects.get(pk=game.pk))
    record = pdf_text(organiser_client.get(f"/games/{game.pk}/print/record.pdf").content)
    assert "The Seer Bruno asked about Ada: a werewolf." in record and "The Seer Olga" not in record
    story_sweep(game, organiser_client, steps=None)


def test_a_steps_mail_names_who_held_the_seats_in_it_not_who_holds_them_as_the_next_opens(
    organiser: Any, organiser_client: Client
) -> None:
    """Fabio votes on Day 1 and is away from today: Sam stands in for him as Night 2
    opens, and the day's mails are queued after that: they tell Fabio's vote as Fabio's,
    as the log does (they said "Sam → Ada": the names as the mails were queued)."""
    from werewolf.games.models import Dispatch

    game = new_game(organiser)
    Standby.objects.create(game=game, name="Sam", email="sam@example.org", pending=False)
    card(game, BRUNO, "inquire", ADA)
    for seat in (ELENA, FABIO, HUGO, CHIARA):
        card(game, seat, "sleep")
    card(game, ADA, "kill", ELENA)
    card(game, DARIO, "kill", ELENA)
    assert kind_open(game) == "day"
    card(game, FABIO, "vote", ADA)
    start = absences.today(game)
    absences.declare(game.players.get(seat=FABIO), dates.Span(start, start + timedelta(days=1)))
    assert services.resolve_now(Game.objects.get(pk=game.pk))
    assert kind_open(game) == "night" and name_at(game, FABIO) == "Sam"
    mailed = [row.body_text for row in Dispatch.objects.filter(phase__index=1, kind=Dispatch.Kind.PHASE)]
    assert mailed and all("Fabio → Ada" in body and "Sam → Ada" not in body for body in mailed)
    public = text_of(Client().get(f"/g/{game.public_key}/").content.decode())
    assert "Fabio → Ada" in public


def test_the_export_names_the_holders_and_each_cards_writer(organiser: Any, organiser_client: Client) -> None:
    game = play_the_issue(organiser, organiser_client)
    exported = organiser_client.get(f"/games/{game.pk}/export.json").json()
    assert [player["name"] for player in exported["players"]] == [
        "Ada",
        "Bruno",
        "Dario",
        "Elena",
        "Fabio",
        "Ivan",
        "Chiara",
    ]
    by_phase = {phase["index"]: phase.get("by", {}) for phase in exported["phases"]}
    assert by_phase[0][str(CHIARA)] == "Chiara"
    assert by_phase[1][str(CHIARA)] == "Sam" and by_phase[1][str(HUGO)] == "Hugo"
    assert by_phase[2][str(CHIARA)] == "Sam" and by_phase[2][str(HUGO)] == "Ivan"
    assert by_phase[3][str(CHIARA)] == "Chiara"
    seventh = [(row["name"], row["reason"], row["from_phase"]) for row in exported["holders"] if row["seat"] == CHIARA]
    assert seventh == [("Chiara", "dealt", None), ("Sam", "stood_in", 1), ("Chiara", "back", 3)]
    assert "@" not in str(exported["holders"])  # no addresses


def test_a_take_over_after_missed_cards_says_so(organiser: Any) -> None:
    game = new_game(organiser, policy=AbsencePolicy.NOTHING)
    SeatPolicy.objects.create(game=game, at_limit=attendance.AtLimit.STANDBY, act_after=1)
    Standby.objects.create(game=game, name="Olga", email="olga@example.org", pending=False)
    card(game, BRUNO, "inquire", ADA)
    for seat in (ELENA, FABIO, CHIARA):
        card(game, seat, "sleep")
    card(game, ADA, "kill", ELENA)
    card(game, DARIO, "kill", ELENA)  # Hugo's card never comes
    phase = open_phase(game)
    assert phase is not None
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert services.sweep_due_phases() == 1
    standbys.sweep_take_overs()  # (the task after the resolution's, if it has not run)
    taken = holders.of(Game.objects.get(pk=game.pk)).handovers()
    assert [(holding.seat, holding.name, holding.reason, holding.from_index) for holding in taken] == [
        (HUGO, "Olga", Reason.TOOK_OVER, 1)
    ]


def test_a_crash_inside_a_hand_over_leaves_no_half_record(organiser: Any) -> None:
    game = new_game(organiser)
    Standby.objects.create(game=game, name="Sam", email="sam@example.org", pending=False)
    start = absences.today(game)
    absences.declare(game.players.get(seat=CHIARA), dates.Span(start, start + timedelta(days=1)))
    with mock.patch.object(services, "_mail", side_effect=RuntimeError("the worker died")):
        with pytest.raises(RuntimeError):
            services.resolve_now(Game.objects.get(pk=game.pk))
    assert SeatHolding.objects.filter(game=game).count() == len(NAMES)  # the dealt players only
    assert name_at(game, CHIARA) == "Chiara"
    services.resolve_now(Game.objects.get(pk=game.pk))  # the resolution again: the hand-over, once
    rows = SeatHolding.objects.filter(game=game, seat=CHIARA).order_by("since")
    assert [(row.name, row.reason) for row in rows] == [("Chiara", Reason.DEALT), ("Sam", Reason.STOOD_IN)]
    # ... and the organiser's substitution, the same.
    with mock.patch.object(services, "_mail", side_effect=RuntimeError("the worker died")):
        with pytest.raises(RuntimeError):
            services.substitute_player(game.players.get(seat=HUGO), name="Ivan", email="ivan@example.org")
    assert not SeatHolding.objects.filter(game=game, name="Ivan").exists() and name_at(game, HUGO) == "Hugo"


def test_the_address_goes_from_the_record_with_the_games_other_addresses(
    organiser: Any, organiser_client: Client
) -> None:
    from werewolf.games import retention

    game = play_the_issue(organiser, organiser_client)
    retention.forget_addresses(game)
    assert not SeatHolding.objects.filter(game=game).exclude(email="").exists()
    assert holders.of(Game.objects.get(pk=game.pk)).names_dealt() == NAMES


def test_the_migration_fills_the_record_of_a_game_stored_before(organiser: Any, organiser_client: Client) -> None:
    game = play_the_issue(organiser, organiser_client)
    kept = [
        (row.seat, row.name, row.reason, row.phase_id)
        for row in SeatHolding.objects.filter(game=game).order_by("seat", "since")
    ]
    SeatHolding.objects.filter(game=game).delete()
    fill = __import__("werewolf.games.migrations.0015_seat_holders", fromlist=["fill"]).fill
    fill(apps, None)
    filled = [
        (row.seat, row.name, row.reason, row.phase_id)
        for row in SeatHolding.objects.filter(game=game).order_by("seat", "since")
    ]
    assert filled == kept
    chiara = SeatHolding.objects.filter(game=game, seat=CHIARA).order_by("since")
    assert [row.email for row in chiara] == ["chiara@example.org", "sam@example.org", "chiara@example.org"]


def test_the_migration_that_drops_the_links_addresses_gives_the_record_those_it_lacks(
    organiser: Any, organiser_client: Client
) -> None:
    """Before 0016 a link kept the name and address it was issued to; the record of a
    game stored then may lack an address a link had (0015 knew only today's and an
    absence's), and 0016 gives it to the record before the links drop theirs."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    game = play_the_issue(organiser, organiser_client)
    before, after = [("games", "0015_seat_holders")], [("games", "0016_seatlink_drop_name_email")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    try:
        old = executor.loader.project_state(before).apps
        Link, Holding = old.get_model("games", "SeatLink"), old.get_model("games", "SeatHolding")
        hugo = Holding.objects.get(game_id=game.pk, seat=HUGO, name="Hugo")
        Holding.objects.filter(pk=hugo.pk).update(email="")
        first = Link.objects.filter(player_id=hugo.player_id).order_by("pk").first()
        Link.objects.filter(pk=first.pk).update(name="Hugo", email="hugo@example.org")
        Link.objects.filter(player_id=hugo.player_id).exclude(pk=first.pk).update(name="Ivan", email="ivan@x.org")
        MigrationExecutor(connection).migrate(after)
    finally:
        # Forward to every app's latest migration, not to 0016 only: later migrations
        # (0017 on) were unapplied by the step back, and the tests after this one need them.
        latest = MigrationExecutor(connection)
        latest.migrate(latest.loader.graph.leaf_nodes())
    held = holders.of(Game.objects.get(pk=game.pk))
    assert [holding.email for holding in held.of_seat(HUGO)] == ["hugo@example.org", "ivan@example.org"]


def test_the_story_sweep_over_the_issues_game(organiser: Any, organiser_client: Client) -> None:
    game = play_the_issue(organiser, organiser_client)
    story_sweep(game, organiser_client, steps=None)


STANDBYS = ("Olga", "Piero", "Quinto", "Rita", "Sergio", "Tina")
SUBSTITUTES = ("Ivan", "Jonas", "Katia", "Luca", "Mirta")


@pytest.mark.parametrize(("seed", "secrecy"), [(9, True), (10, False)])
def test_a_whole_game_of_hand_overs_tells_one_story(
    organiser: Any, organiser_client: Client, settings: Any, seed: int, secrecy: bool
) -> None:
    """The story sweep over a whole game played by the web and by mail, with random
    absences (a standby stands in, the player comes back), the organiser's substitutions
    in the middle of a step (before or after the seat's card), a standby's take-over
    after missed cards, and pauses resumed: after every phase, the export, the replay, the
    public log, the dashboard's mail received and the mails name each card's writer and
    each seat's holder as the holders record does; at the end the record PDF too. One game
    runs the secrecy sweep beside it (tests/web/test_game_flow.py)."""
    settings.WEREWOLF_MAIL_ORDERS = True
    rng = Random(seed)
    pausing = Random(seed + 1)  # its own draws: the seed's hand-overs stay as they were
    game = new_game(organiser)
    SeatPolicy.objects.create(game=game, at_limit=attendance.AtLimit.STANDBY, prod_after=0, act_after=2)
    for name in STANDBYS:
        Standby.objects.create(game=game, name=name, email=f"{name.lower()}@example.org", pending=False)
    substitutes = list(SUBSTITUTES)
    anonymous = Client()
    rounds = 0
    while open_phase(game) is not None:
        rounds += 1
        assert rounds < 40, "the game does not end"
        phase = open_phase(game)
        assert phase is not None
        game = Game.objects.get(pk=game.pk)
        state = game.engine_state
        living = [seat for seat in range(state.seats) if state.alive[seat]]
        if rng.random() < 0.4:  # someone will be away from today: a standby for the next steps
            start = absences.today(game)
            seat = rng.choice(living)
            try:
                absences.declare(game.players.get(seat=seat), dates.Span(start, start + timedelta(days=1)))
            except services.ServiceError:
                pass
        for absence in Absence.objects.filter(game=game, stood_in_at__isnull=False, handed_back_at=None):
            if rng.random() < 0.5:  # ... and back by the next step
                start = absences.today(game)
                Absence.objects.filter(pk=absence.pk).update(
                    start=start - timedelta(days=5), end=start - timedelta(days=1)
                )
        if pausing.random() < 0.3:  # the organiser pauses the game for a while, and resumes it
            game = pauses.resume(pauses.pause(Game.objects.get(pk=game.pk)))
        # The silent villager writes nothing while still the dealt player: a standby
        # takes the seat over after two missed cards.
        silent = FABIO if game.players.get(seat=FABIO).name == "Fabio" else None
        replaced = rng.choice(living) if substitutes and rng.random() < 0.3 else None
        seats = sorted(engine.phase(state).slots)
        for handed, seat in enumerate(seats):
            current = open_phase(game)
            if current is None or current.pk != phase.pk:
                break
            if replaced is not None and handed == len(seats) // 2:
                name = substitutes.pop(0)
                response = organiser_client.post(
                    f"/games/{game.pk}/seats/{replaced}/substitute/",
                    {"name": name, "email": f"{name.lower()}@example.org"},
                )
                assert response.status_code == 302
            if seat == silent:
                continue
            game = Game.objects.get(pk=game.pk)
            form = card_form(game, seat, rng)
            assert form is not None
            if rng.random() < 0.3:
                kept = mail_card(game, seat, form, rng)
                assert kept.status == "applied", (kept.code, kept.card)
            else:
                path = links.url_for(game.players.get(seat=seat), absolute=False)
                assert anonymous.post(path, form).status_code == 302
        if Phase.objects.get(pk=phase.pk).status == Phase.Status.OPEN:
            Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))
            assert services.sweep_due_phases() == 1
        standbys.sweep_take_overs()
        story_sweep(game, organiser_client)
        if secrecy:  # beside the secrecy sweep, which reads every seat's page and mails
            paths = seat_paths(game)
            assert len(paths) == len(NAMES)
            sweep(Game.objects.get(pk=game.pk), paths, Client())
    game = Game.objects.get(pk=game.pk)
    assert game.status == Game.Status.FINISHED
    reasons = {holding.reason for holding in holders.of(game).handovers()}
    assert {Reason.STOOD_IN, Reason.SUBSTITUTED, Reason.TOOK_OVER} <= reasons, reasons
    story_sweep(game, organiser_client, steps=None)


def test_the_roles_as_dealt_are_the_deals_whatever_became_of_them(organiser: Any, organiser_client: Client) -> None:
    game = play_the_issue(organiser, organiser_client)
    later = dict(game.state)
    later["rules"] = {
        **later["rules"],
        "roles": ["villager" if seat == ADA else role for seat, role in enumerate(later["rules"]["roles"])],
    }
    Game.objects.filter(pk=game.pk).update(state=later)  # (as if Ada's card had changed since)
    text = pdf_text(Client().get(f"/g/{game.public_key}/replay.pdf").content)
    assert "Ada Werewolf" in sections(text, ["The roles as dealt", "Setup"])["The roles as dealt"]


def test_the_staff_admin_shows_who_held_each_seat(
    organiser: Any, organiser_client: Client, django_user_model: Any
) -> None:
    game = play_the_issue(organiser, organiser_client)
    staff = Client()
    staff.force_login(django_user_model.objects.create_superuser("staff", password="x" * 12))
    page = text_of(staff.get(f"/admin/games/game/{game.pk}/change/").content.decode())
    assert "a standby standing in while the player is away" in page and "sam@example.org" in page


def test_how_a_persons_time_in_a_seat_ended() -> None:
    """`Holders.left`: a correction keeps the seat the person's, a stand-in gives it back
    once they are back (whoever held it meanwhile), anything else takes it for good."""
    when = timezone.now()

    def chain(seat: int, *held: tuple[str, str]) -> list[holders.Holding]:
        return [
            holders.Holding(seat, name, f"{name.lower()}@example.org", reason, when + timedelta(minutes=at), at, 1)
            for at, (name, reason) in enumerate(held)
        ]

    Left = holders.Left
    away = chain(0, ("Chiara", Reason.DEALT), ("Sam", Reason.STOOD_IN), ("Ivan", Reason.SUBSTITUTED))
    back = chain(
        1, ("Chiara", Reason.DEALT), ("Sam", Reason.STOOD_IN), ("Sam", Reason.CORRECTED), ("Chiara", Reason.BACK)
    )
    replaced = chain(2, ("Hugo", Reason.DEALT), ("Hugo", Reason.CORRECTED), ("Ivan", Reason.TOOK_OVER))
    held = holders.Holders([away, back, replaced])
    assert [held.left(holding) for holding in away] == [Left.AWAY, Left.REPLACED, Left.HOLDS]
    assert [held.left(holding) for holding in back] == [Left.HOLDS, Left.STAND_IN_OVER, Left.STAND_IN_OVER, Left.HOLDS]
    assert [held.left(holding) for holding in replaced] == [Left.REPLACED, Left.REPLACED, Left.HOLDS]
    assert held.by_address("SAM@example.org", 1) == back[1:3] and held.by_address("sam@example.org", 2) == []
