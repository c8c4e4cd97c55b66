"""Lupusburg's data: the characters, the decks, the coins, the secret goals, the cards
and the named steps of a night and a day. docs/rules.md, section "Lupusburg", says how
each is played with written cards."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from ...cards import Card, Field
from ...options import gettext_noop as _
from ...state import Stage
from ...table import Role, table
from ..base import Timing

BAG = "lupusburg"
GOALS = "lupusburg-goals"
EDITIONS = (BAG, GOALS)
MIN_PLAYERS = 4
MAX_PLAYERS = 8

WEREWOLF = "werewolf"
THIEF = "thief"
TOWNSFOLK = "townsfolk"
MAN = "man"
WOMAN = "woman"

TOWN = "town"
"""Everyone's side but the Werewolf's; a townsman who wins, wins alone on points."""
SCORE = "score"
"""The winner of a game the Werewolf lost: one player, on points."""


@dataclass(frozen=True, slots=True)
class LupusburgRole(Role):
    """A Lupusburg character: the common row, and the columns only Lupusburg reads.

    - `hidden_from_chest`: it may never stand under the house with its owner's chest
      (the Werewolf and the Thief);
    - `gender`: "man", "woman" or "" (the Werewolf and the Thief count as neither for
      the secret goals).
    A player holding the Werewolf (the Thief) plays as the Werewolf (Thief) until both
    of his characters are gone: the row of one character rules the whole hand."""

    hidden_from_chest: bool = False
    gender: str = ""


ROLES = cast(
    Mapping[str, LupusburgRole],
    table(
        (
            LupusburgRole(
                WEREWOLF,
                WEREWOLF,
                seen_as_wolf=True,
                counts_as_wolf=True,
                pack=True,
                prey=True,
                night="claw",
                hidden_from_chest=True,
            ),
            LupusburgRole(THIEF, TOWN, night="peek", hidden_from_chest=True),
            LupusburgRole(TOWNSFOLK, TOWN),
            LupusburgRole(MAN, TOWN, gender=MAN),
            LupusburgRole(WOMAN, TOWN, gender=WOMAN),
        )
    ),
)


def deck(edition: str, players: int) -> tuple[str, ...]:
    """Two characters a player: the Werewolf, the Thief, and townsfolk for the rest (the
    goals edition's are half men, half women)."""
    rest = 2 * players - 2
    if edition == GOALS:
        return (WEREWOLF, THIEF, *([MAN] * (rest // 2)), *([WOMAN] * (rest // 2)))
    return (WEREWOLF, THIEF, *([TOWNSFOLK] * rest))


BAG_COINS = (8, 7, 6, 5, 4, 3, 2, 2)
"""The coin-bag edition puts every coin in the bag, whatever the table."""


def stack(players: int) -> tuple[int, ...]:
    """The goals edition's stack, bottom first: one coin a player, the two 2s and then
    3, 4... up to the number of players, the highest on top."""
    return (2, 2, *range(3, players + 1))


TWO_LIVING = "two_living"
TWO_ELIMINATED = "two_eliminated"
ONE_EACH = "one_each"
ELIMINATED_MEN = "eliminated_men"
ELIMINATED_WOMEN = "eliminated_women"
GOAL_KINDS = (TWO_LIVING, TWO_ELIMINATED, ONE_EACH, ELIMINATED_MEN, ELIMINATED_WOMEN)
GOAL_DECK = tuple(kind for kind in GOAL_KINDS for _ in range(3))
"""Fifteen secret goals, three of each kind."""


def goal_points(goal: str, hand: tuple[tuple[str, bool], ...]) -> int:
    """What a secret goal is worth for a hand of (character, living) pairs at the end:
    both living 2; both gone 6; exactly one gone 3; 2 for each character of the named
    gender gone and 1 for each of the other gender still living (the Werewolf and the
    Thief count as neither)."""
    living = sum(1 for _, alive in hand if alive)
    if goal == TWO_LIVING:
        return 2 if living == 2 else 0
    if goal == TWO_ELIMINATED:
        return 6 if living == 0 else 0
    if goal == ONE_EACH:
        return 3 if living == 1 else 0
    gone_gender, living_gender = (MAN, WOMAN) if goal == ELIMINATED_MEN else (WOMAN, MAN)
    points = 0
    for character, alive in hand:
        gender = ROLES[character].gender
        if gender == gone_gender and not alive:
            points += 2
        elif gender == living_gender and alive:
            points += 1
    return points


KEEP_RANKS = 3
"""A bag-edition bettor keeps the coin of this rank among those drawn: 0 the highest."""

_HOUSE = Field(refers="house")
PEEK = Card("peek", "PEEK", (_HOUSE,))
CLAW = Card("claw", "CLAW", (Field(refers="house", least=0),), blank=False, empty_error="must_claw")
"""The Werewolf must kill every night at the table: neither SLEEP nor an empty card is
taken (a card missing at the deadline is the `missing_claw` option's)."""
REDRAW = Card("redraw", "REDRAW")
PRIVILEGE = Card(
    "privilege",
    "LOOK",
    (
        Field(refers="house", optional=True),
        Field("player", refers="seat", optional=True, word="ASK"),
        Field("back", refers="house", optional=True, word="BACK"),
    ),
)
SHOW = Card("show", "SHOW", (_HOUSE,))
BROOM = Card("broom", "BROOM", (Field(),))
PLACE = Card(
    "place",
    "PLACE",
    (Field(refers="house"), Field("chest", refers="house", optional=True, word="CHEST")),
)
"""Placement by card: the house of the player's first character (the other goes under the
other house) and, optionally, the house of the chest."""
BET = Card(
    "bet",
    "BET",
    (Field(), Field("keep", refers="token", optional=True, word="KEEP")),
    instant=True,
)
_TWO_VOTES = (
    Field(refers="house", least=0),
    Field("also", refers="house", optional=True, word="ALSO"),
)
ACCUSE = Card("accuse", "ACCUSE", _TWO_VOTES, blank=False)
BALLOT = Card("ballot", "LYNCH", _TWO_VOTES, blank=False)
CARDS = (PLACE, PEEK, CLAW, REDRAW, PRIVILEGE, SHOW, BROOM, BET, ACCUSE, BALLOT)

# The steps, in order; a day's step number is its place here.
PLACEMENT = Stage("placement", "setup")
"""Before the first night, with placement by card: each player places their characters."""
NIGHT = Stage("night", "night")
GOALS_STEP, PRIVILEGE_STEP, SHOW_STEP, SWEEPER_STEP, SWEEP_STEP, BETS_STEP, ACCUSATION_STEP, BALLOT_STEP = range(1, 9)
DAY = {
    GOALS_STEP: Stage("goals", "day"),
    PRIVILEGE_STEP: Stage("privilege", "day"),
    SHOW_STEP: Stage("show", "day"),
    SWEEPER_STEP: Stage("sweeper", "day"),
    SWEEP_STEP: Stage("sweep", "day"),
    BETS_STEP: Stage("bets", "day", cards="public"),
    ACCUSATION_STEP: Stage("accusation", "day", cards="public"),
    BALLOT_STEP: Stage("ballot", "day", cards="revealed"),
}
OVER = Stage("over", "over")
SHORT_STEPS = Timing(
    "step",
    (PLACEMENT.name, *(DAY[step].name for step in range(GOALS_STEP, ACCUSATION_STEP))),
    short=True,
    label=_("Length of each short day step (minutes)"),
    help=_(
        "The placing of the characters, the goals, the Burgomaster's privilege, the Chimney Sweeper and the "
        "bets. The accusation and the ballot last a day. Empty: a third of a day, at least ten minutes."
    ),
)
"""The placing and the day's steps before the accusation share one length; the accusation
and the ballot last a day."""
SWEEPER_FROM = 6
"""The Chimney Sweeper is named while at least this many players hold a living character."""
