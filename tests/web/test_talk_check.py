"""A link's next post is checked from the channels its game's state has, kept per state
(`talk._allowed`, issue 10): it takes exactly the posts the full check (`talk._check`,
the engine's `talk.refusal`) takes, for every seat, channel and text, in every ruleset,
the dead, a closed den and a game over included."""

from __future__ import annotations

import json
from random import Random

from werewolf import engine
from werewolf.engine import rulesets
from werewolf.engine.simulate import bot_orders
from werewolf.games import links, talk
from werewolf.games.models import Game
from werewolf.games.services import ServiceError

TEXTS = ["Hello", "", "   ", "\n", "x" * engine.talk.MAX_POST, "x" * (engine.talk.MAX_POST + 1)]
STATUSES = [Game.Status.RUNNING, Game.Status.FINISHED, Game.Status.ENDED, Game.Status.DRAFT]


def states_met(seed: int = 5) -> list[engine.State]:
    found = []
    setups = [(name, {}) for name in rulesets.RULESETS] + [("classic", {"cupid": True})]
    for name, options in setups:
        for players in (7, 12):
            try:
                state, _ = engine.setup(name, options, players, seed)
            except rulesets.SetupError:
                continue
            rng = Random(seed)
            found.append(state)
            while not state.over and state.index < 30:
                state, _ = engine.resolve(state, bot_orders(state, rng))
                found.append(state)
    return found


def test_a_links_next_post_is_taken_exactly_as_the_full_check_takes_it() -> None:
    checked = taken = 0
    for state in states_met():
        text = json.dumps(state.to_json())
        names = {channel.name for channel in engine.talk.channels(state)} | {"square", "den", "ghosts", "nowhere"}
        for seat in range(state.seats):
            for status in STATUSES:
                speaker = links.Speaker(1, seat, "Ada", 1, status, text, None)
                for name in sorted(names):
                    for words in TEXTS:
                        try:
                            talk._check(status, text, seat, name, words)
                            expected = True
                        except ServiceError:
                            expected = False
                        assert talk._allowed(speaker, name, words) == expected, (state.ruleset, seat, status, name)
                        checked += 1
                        taken += expected
    assert checked > 10_000 and 0 < taken < checked
