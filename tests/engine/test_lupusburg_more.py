"""Lupusburg, the gaps left by test_lupusburg.py: the simulate command's report for both
editions, the goals edition's privilege naming a character, and the goals edition's
Werewolf scoring the table's size for a series."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from werewolf import engine
from werewolf.engine.rulesets.lupusburg.table import BETS_STEP, GOALS, PRIVILEGE_STEP, SHOW_STEP

from .test_lupusburg import EDITIONS, TH, M, Order, at, kinds, one, refused, start, without


def simulate(*args: str) -> dict:
    out = StringIO()
    call_command("simulate", *args, "--games", "30", "--seed", "3", "--json", "--no-progress", stdout=out)
    return json.loads(out.getvalue())


# 1. simulate --ruleset lupusburg|lupusburg-goals --players N --json


@pytest.mark.parametrize("ruleset", EDITIONS)
@pytest.mark.parametrize("players", [4, 8])
def test_simulate_reports_the_werewolfs_win_rate_and_each_seats_mean_score(ruleset: str, players: int) -> None:
    report = simulate("--ruleset", ruleset, "--players", str(players))
    assert (report["ruleset"], report["players"], report["games"]) == (ruleset, players, 30)
    rates = report["win_rates"]
    assert "werewolf" in rates and set(rates) <= {"werewolf", "score"}
    assert rates["werewolf"] == report["wins"]["werewolf"] / 30
    assert sum(report["wins"].values()) == 30 and abs(sum(rates.values()) - 1) < 1e-9
    means = report["mean_scores"]
    assert sorted(means, key=int) == [str(seat) for seat in range(players)]  # every seat, keys as JSON has them
    assert all(0 <= mean <= 2 * 2 + 1 + players + 6 for mean in means.values())  # 2 characters, chest, coin, goal
    # A winning Werewolf scores the table's size: the means hold at least that share.
    assert sum(means.values()) >= rates["werewolf"] * players - 1e-9
    assert simulate("--ruleset", ruleset, "--players", str(players)) | {"seconds": 0, "games_per_second": 0} == (
        report | {"seconds": 0, "games_per_second": 0}
    )  # the seed gives the same games


@pytest.mark.parametrize("ruleset", EDITIONS)
@pytest.mark.parametrize("players", [3, 9])
def test_simulate_refuses_a_table_lupusburg_cannot_seat(ruleset: str, players: int) -> None:
    out = StringIO()
    with pytest.raises(CommandError) as refused_:
        call_command("simulate", "--ruleset", ruleset, "--players", str(players), "--json", stdout=out)
    message = str(refused_.value)
    assert ruleset in message and "4 to 8 players" in message and str(players) in message, message
    assert out.getvalue() == ""


# 4. The goals edition's privilege naming a character.


def test_goals_privilege_naming_a_character_sees_it_and_shows_one_back() -> None:
    """Andrew (the Burgomaster, a man under house 0, the Werewolf under 1) names Carl's
    Thief under house 4: Carl shows it to him, and he shows Carl the character BACK names;
    nobody else sees either, and nobody is asked to show one (no SHOW step)."""
    state = at(start(GOALS), PRIVILEGE_STEP)
    spec = engine.phase(state)
    assert spec.name == "privilege" and set(spec.slots) == {0}
    assert refused(state, 0, Order("privilege", (4,), (("back", (0,)),))) is None
    assert refused(state, 0, Order("privilege", (4,), (("back", (2,)),))) == "not_your_house"
    after, events = engine.resolve(state, {0: Order("privilege", (4,), (("back", (0,)),))})
    used = one(events, "privilege_used")
    assert used.data == {"burgomaster": 0, "house": 4, "player": 2} and used.audience == engine.Audience.public()
    shown = [event for event in events if event.kind == "character_shown"]
    assert [event.data for event in shown] == [
        {"seat": 2, "house": 4, "role": TH, "to": 0},  # Carl's Thief, to the Burgomaster
        {"seat": 0, "house": 0, "role": M, "to": 2},  # shown back: Andrew's man, to Carl
    ]
    assert all(event.audience == engine.Audience.of(0, 2) for event in shown)
    assert all(event.audience.seats == frozenset({0, 2}) for event in shown)
    # Only the two see a character; every other event is public and names none.
    for event in events:
        if event.kind != "character_shown":
            assert event.audience == engine.Audience.public() and "role" not in event.data, event
    assert after.rules.shower is None and after.step != SHOW_STEP
    assert after.step == BETS_STEP  # 5 players: no Chimney Sweeper
    # Without BACK the Burgomaster shows one of his living characters drawn at random;
    # with one left, that one.
    _, events = engine.resolve(state, {0: Order("privilege", (4,))})
    back = [event for event in events if event.kind == "character_shown"][1]
    assert back.data["seat"] == 0 and back.data["house"] in (0, 1) and back.data["to"] == 2
    assert back.audience == engine.Audience.of(0, 2)
    _, events = engine.resolve(at(without(start(GOALS), 1), PRIVILEGE_STEP), {0: Order("privilege", (4,))})
    back = [event for event in events if event.kind == "character_shown"][1]
    assert back.data == {"seat": 0, "house": 0, "role": M, "to": 2}
    # A card naming both a character and a player is read as naming the character.
    after, events = engine.resolve(state, {0: Order("privilege", (4,), (("player", (3,)),))})
    assert after.rules.shower is None and one(events, "privilege_used").data["house"] == 4
    assert [event.data["seat"] for event in events if event.kind == "character_shown"] == [2, 0]
    assert "privilege_unused" not in kinds(events)


# 6. The goals edition's Werewolf, winning, scores the table's size for a series.


@pytest.mark.parametrize("players", [4, 5, 8])
def test_goals_a_winning_werewolf_scores_as_many_points_as_there_are_players(players: int) -> None:
    """The 2009 rulebook: "play several games in a row, adding your scores together after
    each game. A winning werewolf is awarded points equal to the number of players in the
    game." Everyone else scores nothing: the table's points, chests and bets are not
    counted when the Werewolf has won."""
    state, _ = engine.setup(GOALS, {}, players, 17)
    rules = state.rules
    wolf = rules.seat_of("werewolf")
    other = next(seat for seat in range(players) if seat != wolf)
    # Everyone's characters gone but the Werewolf's and one of another player's; he claws it.
    last = rules.houses(other)[0]
    gone = [house for house in range(2 * players) if house // 2 != wolf and house != last]
    state = without(state, *gone).with_rules(bets=((other, wolf, 2),))
    assert engine.phase(state).slots[wolf].kind == "claw"
    after, events = engine.resolve(state, {wolf: Order("claw", (last,))})
    assert after.over and after.winner == "werewolf"
    outcome = engine.outcome(after)
    assert outcome is not None and outcome.winner == "werewolf" and outcome.winners == (wolf,)
    assert dict(outcome.scores) == {seat: players if seat == wolf else 0 for seat in range(players)}
    over = one(events, "game_over")
    assert over.audience == engine.Audience.public()
    assert over.data["scores"] == [players if seat == wolf else 0 for seat in range(players)]
    assert "points" not in over.data  # no table of points by source: only the bonus
    assert over.data["winners"] == [wolf] and over.data["goals"] == list(rules.goals)
