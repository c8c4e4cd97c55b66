"""When a game takes a card: the one list of rules every way a card comes in asks.

A card comes in by a seat's page (`views.seat`, through `services.submit_order`), by a
mailed reply (`mail/inbound.py`, the same), by the organiser typing in paper cards
(`services.submit_orders`) and, on PostgreSQL, by a seat link's shortcut
(`cards.hand_in`). Each way says in its own way who hands the card in (a seat's link, a
mail's signed reference and its sender, the organiser's login); what the card must then
meet is the same for all, and written here once:

- `RULES`: the game and its phase as they stand when the card is written. Each rule has
  the code of its refusal (the message a player reads, `templates/includes/service_error.html`),
  its check in Python, read by `services.submit_orders` under the game's lock, and the
  same check as an SQL condition, from which the shortcut's INSERT builds its `WHERE`
  (`where`), so that the statement writes the card only while every rule still holds;
- `checked`: the card itself, for its seat, in the game's state as it stands: the
  engine's one rule for cards (`engine.validate`: the seat is asked for a card, every
  name one the card may take), read against the state the statement then finds
  unchanged.

tests/web/test_card_doors.py hands the same card in by every way, for every refusal,
and checks that they refuse it alike and write nothing, and take it alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from werewolf import engine

from .models import Game, Phase


@dataclass(frozen=True, slots=True)
class Standing:
    """What the rules read of a game when a card comes for it."""

    status: str
    """The game's status."""
    phase: int | None
    """The game's open phase's id, None when none is open."""
    deadline: datetime | None
    """The open phase's deadline."""
    card_phase: int | None
    """The phase the card was written for (None: whichever is open, as an organiser's)."""
    now: datetime
    """When the card is written: what the deadline is compared with, here and in SQL."""
    paused: bool = False
    """Whether the organiser has paused the game (games/pauses.py): it takes no card
    until it is resumed. (The shortcut's read leaves it False: its INSERT's SQL checks it.)"""


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule a card must meet: `code` the refusal when it does not, `holds` the check,
    `sql` the same check on a statement's `game` and the card's `phase` (joined by the
    card's phase's id, which is what the statement may write), with %s placeholders
    filled by `values` in order."""

    code: str
    holds: Callable[[Standing], bool]
    sql: str
    values: Callable[[Standing], tuple[Any, ...]] = lambda standing: ()


RULES: tuple[Rule, ...] = (
    Rule(
        "game_not_running",
        lambda standing: standing.status == Game.Status.RUNNING,
        f"game.status = '{Game.Status.RUNNING}'",
    ),
    # The phase the card was written for is the game's open one: in SQL, the card's
    # phase is open (a game has one open phase at most).
    Rule(
        "phase_closed",
        lambda standing: standing.phase is not None and standing.card_phase in (None, standing.phase),
        f"phase.status = '{Phase.Status.OPEN}'",
    ),
    # The clock is the web process's in both, the moment the card is written (the
    # card's `submitted_at`), not the database's.
    # A paused game takes no card: nothing may end a step while its deadline stands still.
    Rule(
        "game_paused",
        lambda standing: not standing.paused,
        "game.paused_at IS NULL",
    ),
    Rule(
        "deadline_passed",
        lambda standing: standing.deadline is not None and standing.deadline > standing.now,
        "phase.deadline > %s::timestamptz",
        lambda standing: (standing.now,),
    ),
)


def refusal(standing: Standing) -> str | None:
    """The code of the first rule the card does not meet, or None when it meets them all."""
    for rule in RULES:
        if not rule.holds(standing):
            return rule.code
    return None


def where() -> str:
    """Every rule as one SQL condition, for a statement that writes a card only while they
    all hold; its parameters are `values`."""
    return " AND ".join(f"({rule.sql})" for rule in RULES)


def values(standing: Standing) -> list[Any]:
    """The parameters of `where`, in order."""
    return [value for rule in RULES for value in rule.values(standing)]


def checked(state: engine.State, seat: int, order: engine.Order) -> engine.Order | engine.OrderError:
    """The card as the game's state takes it from `seat`, or why it is refused."""
    return engine.validate(state, seat, order)
