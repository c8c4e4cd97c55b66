"""Vote counts in the square (games/vote_counts.py): during an open public vote, at the
organiser's interval from the day's opening and once as the vote closes, who votes whom,
who has not voted and how many votes a majority needs; once per (phase, slot) whatever
ticks repeat; never at night, never when off; in the game's language; read wherever the
square is read (the seats' pages, the public page, the dashboard, the talk digests)."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from html import unescape

import pytest
from django.core import mail
from django.test import Client

from werewolf import engine
from werewolf.engine import talk as engine_talk
from werewolf.games import holders, services, talk, vote_counts
from werewolf.games.models import Game, Phase, Post, VoteCounts

from .play import NAMES, seat_paths, started_game

pytestmark = pytest.mark.django_db(transaction=True)


def vote(*targets: int) -> engine.Order:
    return engine.Order("vote", targets)


def day_game(organiser, name: str = "Counted", hours: int = 6, **options) -> Game:
    """A classic game of seven that opens on a day of 24 hours, counting every `hours`."""
    game = started_game(organiser, name, start="day", **options)
    Game.objects.filter(pk=game.pk).update(vote_count_hours=hours)
    game.refresh_from_db()
    return game


def names(game: Game) -> dict[int, str]:
    return dict(game.players.values_list("seat", "name"))


def counts(game: Game) -> list[Post]:
    return list(Post.objects.filter(game=game, key__startswith="votecount:").order_by("pk"))


def three_on_d(game: Game) -> None:
    """Seats 0, 1 and 2 vote for seat 3, seat 4 for seat 0, seat 5 names nobody."""
    services.submit_orders(game, {0: vote(3), 1: vote(3), 2: vote(3), 4: vote(0), 5: vote()})


def test_a_count_names_each_candidates_voters_the_silent_and_the_majority(organiser) -> None:
    game = day_game(organiser)
    phase = game.current_phase()
    three_on_d(game)
    assert vote_counts.post_due(phase.opened_at + timedelta(hours=6, seconds=1)) == 1
    [count] = counts(game)
    seat = names(game)
    assert count.text == (
        "Vote count, day 1\n"
        f"{seat[3]} (3): {seat[0]}, {seat[1]}, {seat[2]}\n"
        f"{seat[0]} (1): {seat[4]}\n"
        f"Not voting (3): {seat[3]}, {seat[5]}, {seat[6]}\n"
        "A majority is 4 votes."
    )
    assert (count.channel, count.seat, count.author, count.phase_id) == (engine_talk.SQUARE, None, "", phase.pk)
    assert count.key == f"votecount:{phase.pk}:1"


def test_the_majority_comes_from_the_ruleset() -> None:
    state, _ = engine.setup("classic", {"wolves": 2, "seers": 1, "start": "day"}, 7, seed=1)
    assert engine.majority(state) == 4  # more than half of seven living
    night, _ = engine.setup("classic", {"wolves": 2, "seers": 1}, 7, seed=1)
    assert engine.majority(night) is None  # no vote settles a night
    tabula, _ = engine.setup("tabula", {}, 9, seed=1)
    assert engine.majority(tabula) is None  # nor anything of Tabula's before its deadline


def test_counts_come_at_each_interval_once_and_the_final_as_the_vote_closes(organiser) -> None:
    game = day_game(organiser)
    phase = game.current_phase()
    opened = phase.opened_at
    assert vote_counts.post_due(opened + timedelta(hours=5, minutes=59)) == 0
    assert vote_counts.post_due(opened + timedelta(hours=6, seconds=1)) == 1
    assert vote_counts.post_due(opened + timedelta(hours=6, seconds=2)) == 0  # a duplicate tick
    # Two ticks that both found it not posted yet: the second insert is refused by the key.
    assert not vote_counts._post_open(phase.pk, 1)
    assert vote_counts.post_due(opened + timedelta(hours=11)) == 0
    three_on_d(game)
    assert vote_counts.post_due(opened + timedelta(hours=12, seconds=1)) == 1
    assert vote_counts.post_due(opened + timedelta(hours=23, minutes=59)) == 1  # the 18th hour's
    assert vote_counts.post_due(opened + timedelta(hours=24, seconds=1)) == 0  # the deadline's is the final
    assert [post.key.rsplit(":", 1)[1] for post in counts(game)] == ["1", "2", "3"]
    assert (
        counts(game)[0].text
        == "Vote count, day 1\nNobody has voted.\nNot voting (7): "
        + ", ".join(names(game)[seat] for seat in range(7))
        + "\nA majority is 4 votes."
    )

    game.refresh_from_db()
    assert vote_counts.count_of(game, game.engine_state, phase.cards(), phase.opened_at, final=True) is not None
    # (Read afresh, not kept on the game: the resolution reads the holders again after its hand-overs.)
    assert holders.read_already(game) is None
    Phase.objects.filter(pk=phase.pk).update(deadline=opened)
    assert services.resolve_phase(phase.pk, Phase.Resolution.DEADLINE)
    final = counts(game)[-1]
    assert final.key == f"votecount:{phase.pk}:final"
    assert final.text.startswith("Final vote count, day 1\n") and f"{names(game)[3]} (3):" in final.text
    assert len(counts(game)) == 4


def test_nothing_at_night_nor_in_a_paused_game(organiser) -> None:
    game = day_game(organiser)
    phase = game.current_phase()
    services.resolve_phase(phase.pk, Phase.Resolution.MODERATOR)  # on to the night
    game.refresh_from_db()
    night = game.current_phase()
    assert night.kind == "night"
    before = len(counts(game))
    assert vote_counts.post_due(night.opened_at + timedelta(hours=6, seconds=1)) == 0
    services.resolve_phase(night.pk, Phase.Resolution.MODERATOR)
    assert len(counts(game)) == before  # no final count of a night either
    game.refresh_from_db()
    day = game.current_phase()
    Game.objects.filter(pk=game.pk).update(paused_at=day.opened_at)
    assert vote_counts.post_due(day.opened_at + timedelta(hours=6, seconds=1)) == 0


def test_nothing_when_off(organiser) -> None:
    game = day_game(organiser, hours=0)
    phase = game.current_phase()
    three_on_d(game)
    assert vote_counts.post_due(phase.opened_at + timedelta(hours=6, seconds=1)) == 0
    services.resolve_phase(phase.pk, Phase.Resolution.MODERATOR)
    assert counts(game) == []


def test_a_count_in_italian(organiser) -> None:
    game = day_game(organiser)
    Game.objects.filter(pk=game.pk).update(language="it")
    game.refresh_from_db()
    phase = game.current_phase()
    three_on_d(game)
    assert vote_counts.post_due(phase.opened_at + timedelta(hours=6, seconds=1)) == 1
    seat = names(game)
    assert counts(game)[0].text == (
        "Conteggio dei voti, giorno 1\n"
        f"{seat[3]} (3): {seat[0]}, {seat[1]}, {seat[2]}\n"
        f"{seat[0]} (1): {seat[4]}\n"
        f"Non votano (3): {seat[3]}, {seat[5]}, {seat[6]}\n"
        "La maggioranza è di 4 voti."
    )


def test_the_names_are_the_seats_holders_at_the_count(organiser) -> None:
    game = day_game(organiser)
    phase = game.current_phase()
    three_on_d(game)
    services.substitute_player(game.players.get(seat=3), name="Zoë Nuova", email="zoe@example.org")
    assert vote_counts.post_due(phase.opened_at + timedelta(hours=6, seconds=1)) == 1
    assert counts(game)[0].text.splitlines()[1].startswith("Zoë Nuova (3): ")


def test_the_count_is_read_wherever_the_square_is(organiser, organiser_client: Client) -> None:
    game = day_game(organiser)
    Game.objects.filter(pk=game.pk).update(public_square=True)
    phase = game.current_phase()
    three_on_d(game)
    paths = seat_paths(game)
    vote_counts.post_due(phase.opened_at + timedelta(hours=6, seconds=1))
    line = f"{names(game)[3]} (3): {names(game)[0]}, {names(game)[1]}, {names(game)[2]}"
    for page in (
        Client().get(paths[6]),
        Client().get(f"/g/{game.public_key}/"),
        organiser_client.get(f"/games/{game.pk}/"),
    ):
        html = unescape(page.content.decode())
        assert "Vote count, day 1" in html and line in html and "Posted by the server" in html
    mail.outbox.clear()
    assert talk.send_digests(phase.opened_at + timedelta(hours=7)) == 7  # no seat wrote it: everyone
    assert all("Vote count, day 1" in message.body and line in message.body for message in mail.outbox)


def test_the_organiser_sets_the_interval_on_the_calendar_page(organiser, organiser_client: Client) -> None:
    game = started_game(organiser, "Set", start="day")
    assert game.vote_count_hours == 0  # off unless chosen
    page = organiser_client.get(f"/games/{game.pk}/calendar/").content.decode()
    assert "Vote counts in the square" in page and "every 12 hours" in page
    form = {"action": "calendar", "absence_policy": "nothing", "absence_days": 3, "vote_count_hours": 12}
    assert organiser_client.post(f"/games/{game.pk}/calendar/", form).status_code == 302
    game.refresh_from_db()
    assert game.vote_count_hours == 12
    dashboard = organiser_client.get(f"/games/{game.pk}/").content.decode()
    assert "Vote counts in the square: every 12 hours, and as the vote closes" in dashboard
    assert organiser_client.post(f"/games/{game.pk}/calendar/", {**form, "vote_count_hours": 5}).status_code == 400


def test_a_tabula_accusation_is_counted_and_its_secret_ballot_is_not(organiser) -> None:
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:9]]
    game = services.create_game(organiser, name="Tabula counted", seats=seats, ruleset="tabula", options={})
    game = services.start_game(game)
    Game.objects.filter(pk=game.pk).update(vote_count_hours=6)
    game.refresh_from_db()
    while game.current_phase().stage != "accusation":
        services.resolve_phase(game.current_phase().pk, Phase.Resolution.MODERATOR)
        game.refresh_from_db()
    accusation = game.current_phase()
    state = game.engine_state
    living = [seat for seat in range(9) if state.alive[seat]]
    first, second = living[0], living[1]
    services.submit_orders(game, {seat: vote(first if seat != first else second) for seat in living[:5]})
    assert vote_counts.post_due(accusation.opened_at + timedelta(hours=6, seconds=1)) == 1
    text = counts(game)[-1].text
    assert text.startswith("Vote count, day 1\n") and "majority" not in text  # nothing settles it early
    services.resolve_phase(accusation.pk, Phase.Resolution.MODERATOR)
    assert counts(game)[-1].key == f"votecount:{accusation.pk}:final"
    game.refresh_from_db()
    ballot = game.current_phase()
    assert ballot.stage == "ballot" and not engine.phase(game.engine_state).public_orders
    before = len(counts(game))
    assert vote_counts.post_due(ballot.opened_at + timedelta(hours=6, seconds=1)) == 0
    services.resolve_phase(ballot.pk, Phase.Resolution.MODERATOR)
    assert len(counts(game)) == before  # a secret ballot is never counted aloud


def test_a_ruleset_may_count_by_default_and_the_organiser_chooses(organiser, monkeypatch) -> None:
    # Every ruleset's default is one the organiser's form offers.
    assert all(engine.capabilities(ruleset).vote_counts in VoteCounts.values for ruleset in engine.listed())
    shipped = engine.capabilities

    def counting(ruleset: str):
        return dataclasses.replace(shipped(ruleset), vote_counts=24)

    monkeypatch.setattr(engine, "capabilities", counting)
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    game = services.create_game(organiser, name="Forum", seats=seats, options={"wolves": 2})
    assert game.vote_count_hours == 24
