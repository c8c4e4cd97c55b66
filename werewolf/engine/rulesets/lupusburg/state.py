"""Lupusburg's own part of the state, and its options."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ...options import gettext_noop as _
from ...options import option

Bet = tuple[int, int, int]
"""A bet: the bettor's seat, the seat bet on, and the coin's value."""


@dataclass(frozen=True, slots=True)
class LupusburgState:
    """Lupusburg's own part of the state. Houses are numbered 0..2n-1, houses 2i and 2i+1
    belonging to seat i, so the ring of houses runs clockwise like the seats.

    `characters[house]` is the character under the house, `living[house]` whether it is
    still in the game (a slaughtered or lynched character leaves with its house);
    `chests[seat]` the house hiding the seat's chest; `burgomaster` the seat holding the
    Burgomaster now, `first` the one who held it first; `coins` the bag's coins (the
    coin-bag edition) or the stack, bottom first (the goals edition); `bets` in the
    order they were placed; `goals[seat]` each seat's secret goal and `goal_deck` the
    goals left, top first (the goals edition; `dealt_goals` and `dealt_deck` as dealt,
    for the replay); `suspects` the two suspected houses of the open ballot; `shower`
    the seat the Burgomaster asked to show a character; `sweeper` the Chimney Sweeper
    named for the open day; `drawn` and `drawn_chests` the characters and chests as dealt
    before the players placed them (placement by card), for the replay."""

    VERSION: ClassVar[int] = 1

    characters: tuple[str, ...]
    living: tuple[bool, ...]
    chests: tuple[int, ...]
    burgomaster: int
    first: int
    coins: tuple[int, ...]
    bets: tuple[Bet, ...] = ()
    goals: tuple[str, ...] = ()
    goal_deck: tuple[str, ...] = ()
    dealt_goals: tuple[str, ...] = ()
    dealt_deck: tuple[str, ...] = ()
    suspects: tuple[int, ...] = ()
    shower: int | None = None
    sweeper: int | None = None
    drawn: tuple[str, ...] = ()
    drawn_chests: tuple[int, ...] = ()

    def owner(self, house: int) -> int:
        return house // 2

    def houses(self, seat: int) -> tuple[int, int]:
        return (2 * seat, 2 * seat + 1)

    def alive_houses(self, seat: int) -> tuple[int, ...]:
        return tuple(house for house in self.houses(seat) if self.living[house])

    def seat_of(self, character: str) -> int:
        """The seat holding `character` (the Werewolf, the Thief), living or not."""
        return self.characters.index(character) // 2

    def has_bet(self, seat: int) -> bool:
        return any(bettor == seat for bettor, _, _ in self.bets)

    def to_json(self) -> dict[str, Any]:
        return {
            "characters": list(self.characters),
            "living": list(self.living),
            "chests": list(self.chests),
            "burgomaster": self.burgomaster,
            "first": self.first,
            "coins": list(self.coins),
            "bets": [list(bet) for bet in self.bets],
            "goals": list(self.goals),
            "goal_deck": list(self.goal_deck),
            "dealt_goals": list(self.dealt_goals),
            "dealt_deck": list(self.dealt_deck),
            "suspects": list(self.suspects),
            "shower": self.shower,
            "sweeper": self.sweeper,
            "drawn": list(self.drawn),
            "drawn_chests": list(self.drawn_chests),
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> LupusburgState:
        return cls(
            characters=tuple(str(x) for x in raw["characters"]),
            living=tuple(bool(x) for x in raw["living"]),
            chests=tuple(int(x) for x in raw["chests"]),
            burgomaster=int(raw["burgomaster"]),
            first=int(raw["first"]),
            coins=tuple(int(x) for x in raw["coins"]),
            bets=tuple((int(a), int(b), int(c)) for a, b, c in raw.get("bets", ())),
            goals=tuple(str(x) for x in raw.get("goals", ())),
            goal_deck=tuple(str(x) for x in raw.get("goal_deck", ())),
            dealt_goals=tuple(str(x) for x in raw.get("dealt_goals", ())),
            dealt_deck=tuple(str(x) for x in raw.get("dealt_deck", ())),
            suspects=tuple(int(x) for x in raw.get("suspects", ())),
            shower=None if raw.get("shower") is None else int(raw["shower"]),
            sweeper=None if raw.get("sweeper") is None else int(raw["sweeper"]),
            drawn=tuple(str(x) for x in raw.get("drawn", ())),
            drawn_chests=tuple(int(x) for x in raw.get("drawn_chests", ())),
        )


@dataclass(frozen=True, slots=True)
class LupusburgOptions:
    """The options of a Lupusburg game; docs/rules.md says what each one does."""

    placement: str = option(
        "random",
        label=_("Placing the characters under the houses"),
        choices={
            "random": _("The server places them at random"),
            "card": _("Each player places their own on a card, before the first night"),
        },
    )
    missing_claw: str = option(
        "random",
        label=_("When the Werewolf hands in no claw"),
        choices={"random": _("A house is clawed at random"), "nobody": _("No house is clawed")},
    )
    reveal_dead: bool = option(
        False,
        label=_("Turn a slaughtered or lynched character face up"),
        help=_("The rulebooks keep it face down: nobody learns who it was until the end."),
    )
