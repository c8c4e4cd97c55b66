"""The balance lab (engine/lab.py) against the exact odds of the uniform bots."""

from __future__ import annotations

import pytest

from tests.engine.test_simulate import town_win_probability
from werewolf import engine
from werewolf.engine import lab
from werewolf.engine.simulate import PEOPLE, TALK, UNIFORM

UNIFORM_TABLE = {"wolves": 2, "seers": 0, "day_deadline": "plurality", "tie": "random"}
"""The classic setup whose village win the closed formula gives (tests/engine/test_simulate.py)."""


def test_the_labs_figures_for_a_classic_setup_match_the_exact_odds() -> None:
    """At 8, 9 and 10 players, the uniform bots' village share is within three of the
    lab's stated standard errors of the exact probability, and the shares add up."""
    study = lab.study("classic", 9, UNIFORM_TABLE, games=3000, strategies=(UNIFORM,))
    assert study.counts == (8, 9, 10)
    for players in study.counts:
        figures = study.at(players, UNIFORM)
        assert figures is not None and figures.games == 3000
        village = figures.of("village")
        exact = town_win_probability(2, players - 2)
        assert abs(village.share - exact) < 3 * village.error, (players, village.share, exact, village.error)
        assert village.margin == pytest.approx(1.96 * village.error)
        assert sum(share.wins for share in figures.shares) == 3000


def test_a_study_is_the_same_each_time_and_has_both_strategies() -> None:
    """The lab plays the bots that never talk and the bots that talk as players do."""
    first = lab.study("classic", 7, {}, games=60)
    assert first == lab.study("classic", 7, {}, games=60)
    assert lab.STRATEGIES == (PEOPLE, TALK)
    assert {(f.players, f.strategy) for f in first.figures} == {
        (players, strategy) for players in (6, 7, 8) for strategy in (PEOPLE, TALK)
    }
    assert first.sides == ("village", "wolves")


def test_the_counts_stay_within_the_rulesets_range() -> None:
    rules = engine.rulesets.get("lupusburg")
    study = lab.study("lupusburg", rules.max_players, {}, games=20)
    assert study.counts == (rules.max_players - 1, rules.max_players)


def test_an_invalid_setup_is_refused() -> None:
    with pytest.raises(engine.SetupError):
        lab.study("classic", 7, {"wolves": 9}, games=10)


def test_a_lopsided_setup_is_flagged_and_an_even_one_is_not() -> None:
    """Setups no designer would suggest are flagged (four werewolves at 10, one
    werewolf against two Seers at 12); the New game form's own classic table (two
    werewolves and a Seer) is not, though the bots that never talk lose it almost
    always: only the talking bots' figures flag a setup."""
    lopsided = lab.study("classic", 10, {"wolves": 4}, games=150)
    assert lopsided.flagged is not None and lopsided.flagged.side == "wolves"
    assert lopsided.flagged.share > lab.LOPSIDED
    assert lopsided.flagged == lopsided.at(10, TALK).of("wolves")  # type: ignore[union-attr]
    seers = lab.study("classic", 12, {"wolves": 1, "seers": 2}, games=150)
    assert seers.flagged is not None and seers.flagged.side == "village"
    suggested = lab.study("classic", 10, {}, games=150)
    never_talk = suggested.at(10, PEOPLE)
    assert never_talk is not None and never_talk.of("wolves").share > lab.LOPSIDED
    assert suggested.flagged is None


def test_the_option_moving_a_lopsided_setup_most_comes_first() -> None:
    changes = lab.changes("classic", 12, {"wolves": 4})
    assert ("wolves", 3) in changes and ("wolves", 5) in changes and ("vigilante", True) in changes
    suggested = lab.suggest("classic", 12, {"wolves": 4}, "wolves", PEOPLE, games=60)
    assert len(suggested) == len(changes)
    assert [change.moved for change in suggested] == sorted((change.moved for change in suggested), reverse=True)
    assert (suggested[0].option, suggested[0].value) == ("wolves", 3)


def test_changes_to_a_list_add_or_take_one_item() -> None:
    checked = engine.options("tabula", {}, 12)
    for name, value in lab.changes("tabula", 12, {}):
        if name == "specials":
            assert len(set(value) ^ set(checked["specials"])) == 1
