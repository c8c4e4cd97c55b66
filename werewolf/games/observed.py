"""The balance lab's figures of this site's finished games of a setup (demonstrations left
out), shown beside the simulated ones: the viewer's own games as they are, and the
site's as a figure that tells nobody how one game ended.

One's own games (organised or co-organised) always count, exactly: the viewer knows
how they ended. Everyone else's are read through three guards, each against one way of
reading a game's end out of an aggregate (issue 38: an organiser's second account
finished four games of a setup, a stranger one, and "the village 1 (20 %), the
werewolves 4 (80 %)" told how the stranger's ended):

- **k-anonymity by organiser, not by game.** The site's figure shows only when at least
  `FEWEST_ORGANISERS` organisers besides the viewer contributed to it. A game counts for
  the account that organised it: its co-organisers add nobody (else one game with four
  co-organisers would pass for five people), and a game the viewer co-organises is the
  viewer's own.
- **One organiser, one voice.** Each organiser's games are averaged into one vote shared
  among the sides (three wins of the village and one of the werewolves: 0.75 and 0.25),
  so that an organiser, or a person with several accounts, weighs no more than any
  other organiser however many games they finish.
- **Deterministic noise, drawn seldom, with a stated budget (the differencing attack).**
  Whatever the threshold, a figure read before and after one game ends tells how it
  ended to someone who knows the rest (their own accounts' games), and rounding does not
  help: they can place their own games on the edge of a step. So each side's votes get
  Laplace noise of scale `2 / EPSILON`: how one game ended moves the votes by at most 2
  (a lone game of its organiser: a whole vote from one side to another), so each figure
  drawn is EPSILON-differentially private for that game's end. The noise comes from the
  site's secret key and the very games counted: asking again, from any account, gives
  the same figure, not a fresh draw to average away. And the figure counts the site's
  first games of the setup only, up to the last milestone (`FEWEST_ORGANISERS` games,
  then twice as many, and so on, `counted`), so the games finishing meanwhile (anyone's,
  or an attacker's own) draw no new figure: a game's end is in one more figure each time
  the site's count of the setup doubles, and it spends EPSILON each time (after n games,
  at most log2(n / FEWEST_ORGANISERS) + 1 figures; a game of the first ones deleted lets
  the next one in, a new figure paid for with a finished game).

The cost is precision: the site's figure carries a give-or-take of about
`6 / EPSILON` votes, which the page states; it reads well from a few dozen organisers."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Exists, F, OuterRef, Q
from django.utils.crypto import salted_hmac

from werewolf import engine

from .models import Game

FEWEST_ORGANISERS = 5
"""The site's figure shows once at least this many organisers besides the viewer have a
game in it (k-anonymity by organiser)."""

EPSILON = 1.0
"""The privacy budget each figure drawn spends on how one game ended (differential privacy):
the noise's scale is `SENSITIVITY / EPSILON` votes per side."""

SENSITIVITY = 2.0
"""How far the votes move, at most (the sum over the sides), when one game ends the other
way: a whole vote, when the game is its organiser's only one."""

CONFIDENCE = 0.95
"""The give-or-take the page states covers each side's noise this often."""

KEY_SALT = "werewolf.games.observed"


@dataclass(frozen=True)
class Finished:
    """A finished game of the setup: its number, the account that organised it, the side
    that won, and whether it is the viewer's own (organised or co-organised)."""

    pk: int
    organiser: int
    winner: str
    own: bool


@dataclass(frozen=True)
class Figure:
    """The site's figure: each side's share in per cent (noise included), the games and
    organisers it counts, and its give-or-take in percentage points."""

    shares: tuple[tuple[str, float], ...]
    games: int
    organisers: int
    margin: float


def figures(ruleset: str, players: int, options: dict[str, Any], sides: Sequence[str], viewer: Any) -> dict[str, Any]:
    """What the lab shows of the site's finished games of this setup: the viewer's own as
    counts by winning side (`own`, `games`, `shares`), the site's `figure` when it may show
    (`Figure`, for the `sides` the simulation knows, so that no side appears because a
    real game was won by it), and whether other organisers' games are held back
    (`held_back`)."""
    games = finished(ruleset, players, options, viewer)
    own: dict[str, int] = {}
    for game in games:
        if game.own:
            own[game.winner] = own.get(game.winner, 0) + 1
    total = sum(own.values())
    figure = site_figure(games, sides, _setup_words(ruleset, players, options))
    others = any(not game.own for game in games)
    return {
        "games": total,
        "shares": [(side, count, 100 * count / total) for side, count in sorted(own.items())],
        "figure": figure,
        "held_back": others and figure is None,
        "fewest": FEWEST_ORGANISERS,
    }


def finished(ruleset: str, players: int, options: dict[str, Any], viewer: Any) -> list[Finished]:
    """The site's finished games (demonstrations left out) of this very setup (ruleset,
    players and checked options), in the order they finished."""
    checked = _plain(engine.options(ruleset, options, players))
    mine = Game.objects.filter(Q(organiser=viewer) | Q(co_organisers=viewer)).values("pk")
    games = Game.objects.filter(ruleset=ruleset, status=Game.Status.FINISHED, is_demo=False)
    rows = (
        games.annotate(own=Exists(mine.filter(pk=OuterRef("pk"))))
        .order_by(F("finished_at").asc(nulls_first=True), "pk")
        .values_list("pk", "organiser_id", "options", "state", "own")
    )
    found = []
    for pk, organiser, game_options, state, is_own in rows.iterator():
        if not state or len(state.get("alive", ())) != players or _plain(game_options) != checked:
            continue
        found.append(Finished(pk, organiser, str(state.get("winner")), bool(is_own)))
    return found


def counted(count: int) -> int:
    """How many of the site's first games the figure counts, of `count` finished: the last
    milestone reached (`FEWEST_ORGANISERS`, then twice as many, and so on), or 0."""
    milestone = 0
    step = FEWEST_ORGANISERS
    while step <= count:
        milestone, step = step, step * 2
    return milestone


def votes(games: Iterable[Finished]) -> dict[str, float]:
    """Each side's votes: every organiser's games averaged into one vote shared among the
    sides their games were won by."""
    by_organiser: dict[int, dict[str, int]] = {}
    for game in games:
        wins = by_organiser.setdefault(game.organiser, {})
        wins[game.winner] = wins.get(game.winner, 0) + 1
    shared: dict[str, float] = {}
    for wins in by_organiser.values():
        games_of = sum(wins.values())
        for side, count in wins.items():
            shared[side] = shared.get(side, 0.0) + count / games_of
    return shared


def site_figure(games: Sequence[Finished], sides: Sequence[str], setup: str) -> Figure | None:
    """The site's figure from the first games up to the last milestone, when organisers
    enough besides the viewer have one among them, with each side's noise drawn from the
    site's secret and the games counted; None otherwise (or when the noise left no side
    anything to show)."""
    first = list(games[: counted(len(games))])
    if len({game.organiser for game in first if not game.own}) < FEWEST_ORGANISERS:
        return None
    shared = votes(first)
    rng = random.Random(salted_hmac(KEY_SALT, json.dumps([setup, sorted(game.pk for game in first)])).digest())
    scale = SENSITIVITY / EPSILON
    noisy = {side: max(0.0, shared.get(side, 0.0) + laplace(rng, scale)) for side in sorted(sides)}
    total = sum(noisy.values())
    if total <= 0:
        return None
    organisers = len({game.organiser for game in first})
    return Figure(
        shares=tuple((side, 100 * value / total) for side, value in noisy.items()),
        games=len(first),
        organisers=organisers,
        margin=100 * scale * math.log(1 / (1 - CONFIDENCE)) / organisers,
    )


def laplace(rng: random.Random, scale: float) -> float:
    """A draw of Laplace noise of `scale` (the difference of two exponential draws)."""
    return scale * (math.log(1 - rng.random()) - math.log(1 - rng.random()))


def _setup_words(ruleset: str, players: int, options: dict[str, Any]) -> str:
    return json.dumps([ruleset, players, _plain(engine.options(ruleset, options, players))], sort_keys=True)


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True, default=list))
