"""The simulate command against the exact odds of the uniform-random model."""

from __future__ import annotations

import json
import math
from functools import cache
from io import StringIO

import pytest
from django.core.management import call_command


def town_win_probability(wolves: int, others: int) -> float:
    """Exact chance that the village wins with uniform-random bots, night first, every
    day lynching someone (plurality, random ties).

    At night the wolves kill a uniformly random non-wolf. By day every living player
    votes for a uniformly random other living player and ties are drawn uniformly: the
    whole vote is symmetric under any relabelling of the players, so each living player
    is the one lynched with the same chance, 1/n."""

    @cache
    def night(w: int, v: int) -> float:
        return day(w, v - 1) if v > 0 else 0.0

    @cache
    def day(w: int, v: int) -> float:
        if w == 0:
            return 1.0
        if w >= v:
            return 0.0
        n = w + v
        lynch_wolf = 1.0 if w == 1 else night(w - 1, v)
        return w / n * lynch_wolf + v / n * after_lynch_villager(w, v - 1)

    def after_lynch_villager(w: int, v: int) -> float:
        return 0.0 if w >= v else night(w, v)

    return night(wolves, others)


def run(*args: str) -> dict:
    out = StringIO()
    call_command("simulate", *args, "--json", "--no-progress", stdout=out)
    return json.loads(out.getvalue())


def test_the_recursion_on_a_tiny_table() -> None:
    # 1 wolf, 3 others: night leaves 2 others; day lynches the wolf with chance 1/3,
    # else a villager, and 1 wolf vs 1 other is a wolf win.
    assert math.isclose(town_win_probability(1, 3), 1 / 3)


def test_town_win_rate_matches_the_exact_odds() -> None:
    games = 20000
    report = run(
        "--ruleset",
        "classic",
        "--players",
        "9",
        "--set",
        "wolves=2",
        "--set",
        "seers=0",
        "--set",
        "day_deadline=plurality",
        "--set",
        "tie=random",
        "--games",
        str(games),
        "--seed",
        "1",
    )
    exact = town_win_probability(2, 7)
    rate = report["wins"].get("village", 0) / games
    standard_error = math.sqrt(exact * (1 - exact) / games)
    assert abs(rate - exact) < 3 * standard_error, (rate, exact, standard_error)
    assert report["wins"]["village"] + report["wins"]["wolves"] == games


def test_a_seed_replays_the_same_run() -> None:
    first = run("--players", "7", "--games", "300", "--seed", "5")
    second = run("--players", "7", "--games", "300", "--seed", "5")
    assert first["wins"] == second["wins"]


def test_the_bots_that_play_like_people_are_asked_by_name() -> None:
    first = run("--players", "7", "--games", "200", "--seed", "5", "--strategy", "people")
    assert first["wins"] == run("--players", "7", "--games", "200", "--seed", "5", "--strategy", "people")["wins"]
    assert sum(first["wins"].values()) == 200


def test_the_progress_bar_redraws_one_line(capsys) -> None:
    from werewolf.games.management.commands.simulate import ProgressBar

    bar = ProgressBar(200, enabled=True, width=10)
    bar.update(100)
    bar.update(200)
    bar.close()
    err = capsys.readouterr().err
    assert "\r[#####.....] 100/200 games" in err and "\r[##########] 200/200 games" in err and err.endswith("\n")


def test_bot_cards_taken_as_checked_play_the_very_same_games() -> None:
    """The simulator hands the bots' cards to `resolve(..., checked=True)`: made from the
    state's own slots, they are legal by construction, so skipping the check changes no
    game, in any ruleset."""
    from random import Random

    from werewolf import engine
    from werewolf.engine import rulesets
    from werewolf.engine.simulate import bot_orders

    for ruleset, players in [("classic", 9), ("tabula", 16), ("lupusburg", 6), ("lupusburg-goals", 8)]:
        rules = rulesets.get(ruleset)
        options = rules.options({}, players)
        for seed in range(20):
            games = []
            for checked in (False, True):
                rng = Random(seed)
                state, _ = rules.setup(options, players, rng.getrandbits(64))
                log = []
                while state.winner is None:
                    state, events = engine.resolve(state, bot_orders(state, rng), rng, checked=checked)
                    log += [event.to_json() for event in events]
                games.append((state.to_json(), log))
            assert games[0] == games[1], (ruleset, seed)


def test_bot_cards_for_a_whole_table_are_bot_card_for_each_seat() -> None:
    """The table-at-once bots (shared slots looked at once) write the very cards, from
    the very draws, that one bot per seat would."""
    from random import Random

    from werewolf import engine
    from werewolf.engine import rulesets
    from werewolf.engine.bots import bot_card, bot_cards

    for ruleset, players in [("classic", 9), ("tabula", 24), ("lupusburg-goals", 8)]:
        rules = rulesets.get(ruleset)
        options = rules.options({}, players)
        for seed in range(10):
            rng = Random(seed)
            state, _ = rules.setup(options, players, rng.getrandbits(64))
            while state.winner is None:
                slots = engine.phase(state).slots
                draws = rng.getstate()
                one_by_one = {seat: bot_card(slot, seat, rng) for seat, slot in slots.items()}
                rng.setstate(draws)
                assert bot_cards(slots, rng) == one_by_one
                state, _ = engine.resolve(state, one_by_one, rng)


def test_a_card_naming_its_one_choice_is_drawn_as_the_general_case_draws_it() -> None:
    """A one-field card left with one choice (a talking bot's vote, `named_card`) is
    written without the general case's lists, from the very draw that case makes:
    `rng.sample` of one from one, which draws as `rng.choice` of one does. A card with
    more to fill is the general case's, from a slot narrowed to the choice."""
    from random import Random

    from werewolf.engine.bots import bot_card, named_card
    from werewolf.engine.cards import Card, Field, Slot
    from werewolf.engine.orders import Order

    for seed in range(200):
        sampled, chosen = Random(seed), Random(seed)
        assert sampled.sample((7,), 1) == [chosen.choice((7,))]
        assert sampled.getstate() == chosen.getstate()
    vote = Slot(Card("vote", "VOTE", (Field(),)), ((3, 4, 5),))
    pair = Card("swap", "SWAP", (Field(), Field("other", optional=True)))
    for seed in range(50):
        named, general = Random(seed), Random(seed)
        assert named_card(vote, 4, 0, named) == Order("vote", (4,))
        general.sample([4], 1)
        assert named.getstate() == general.getstate()
        slot = Slot(pair, ((3, 4, 5), (1, 2)))
        assert named_card(slot, 4, 0, named) == bot_card(Slot(pair, ((4,), (1, 2))), 0, general)
        assert named.getstate() == general.getstate()


def test_a_bot_game_that_never_ends_is_stopped_and_said_to_be_stuck(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game the bots would play forever stops at `MOST_PHASES` with `Stuck`, not a lab
    request that hangs its worker."""
    from werewolf.engine import simulate as module

    monkeypatch.setattr(module, "MOST_PHASES", 1)
    with pytest.raises(module.Stuck, match="still open after 1 phases"):
        module.simulate("classic", 8, {}, 1, 1)


def test_the_command_says_the_bots_are_stuck_rather_than_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.core.management import CommandError

    from werewolf.engine import simulate as module

    monkeypatch.setattr(module, "MOST_PHASES", 1)
    with pytest.raises(CommandError, match="the bots could not finish a game: a classic bot game was still open"):
        run("--ruleset", "classic", "--players", "8", "--games", "1")
