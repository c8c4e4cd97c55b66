"""Reading a Lupusburg game for one viewer: the ring of houses as the table shows it.

Like the other selectors, a viewer is shown only what its seat may know: its own two
characters and its chest, its goal and its coin; of everyone, what lies face up on a
real table (which houses are gone, the bets and on whom, the Burgomaster and the Chimney
Sweeper); a character another player showed it; and everything once the game is over.
The moderator sees everything."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from werewolf import engine
from werewolf.engine.rulesets.lupusburg.state import LupusburgState

from .models import Event, Player

RING_SIZE = 400
"""The drawing's width and height (SVG user units)."""
_RING_RADIUS = 150
_HOUSE_HALF = 22


@dataclass
class House:
    number: int
    seat: int
    living: bool
    character: str | None
    chest: bool | None
    """True/False where the viewer knows whether the chest is under it; None if not."""
    x: float = 0
    y: float = 0
    rotate: float = 0


@dataclass
class BetShown:
    seat: int
    target: int
    coin: int | None
    """The coin's value where the viewer may know it (its own bet; all at the end)."""
    x: float = 0
    y: float = 0


@dataclass
class Board:
    houses: list[House]
    bets: list[BetShown]
    burgomaster: int
    sweeper: int | None
    seats: int
    goal: str | None
    goals: list[str] = field(default_factory=list)
    """Everyone's goals, shown at the end."""
    size: int = RING_SIZE
    seat_marks: list[tuple[int, float, float]] = field(default_factory=list)
    """Each seat's name position: (seat, x, y)."""

    @property
    def centre(self) -> float:
        return self.size / 2


def board(state: engine.State, viewer: engine.Viewer, seen: Sequence[Event]) -> Board:
    """What `viewer` sees of the table (`seen`: the events it may see)."""
    rules: LupusburgState = state.rules
    everything = viewer == engine.MODERATOR or state.over
    known: dict[int, str] = {}
    chests: dict[int, bool] = {}
    for event in seen:
        if event.kind == "character_shown":
            known[int(event.data["house"])] = str(event.data["role"])
        elif event.kind in ("killed", "lynched") and event.data.get("role"):
            known[int(event.data["house"])] = str(event.data["role"])
        elif event.kind == "house_seen":
            chests[int(event.data["house"])] = bool(event.data["chest"])
    houses = []
    for number in range(2 * state.seats):
        owner = rules.owner(number)
        own = everything or viewer == owner
        character = rules.characters[number] if own else known.get(number)
        chest = (rules.chests[owner] == number) if own else chests.get(number)
        houses.append(House(number, owner, rules.living[number], character, chest))
    bets = [
        BetShown(bettor, target, coin if everything or viewer == bettor else None)
        for bettor, target, coin in rules.bets
    ]
    goal = rules.goals[viewer] if isinstance(viewer, int) and rules.goals else None
    drawn = Board(
        houses=houses,
        bets=bets,
        burgomaster=rules.burgomaster,
        sweeper=rules.sweeper,
        seats=state.seats,
        goal=goal,
        goals=list(rules.goals) if everything else [],
    )
    _place(drawn)
    return drawn


def _place(drawn: Board) -> None:
    """Put the houses on a ring, clockwise from the top, each player's two side by side,
    the names outside and the bets inside, in front of their players."""
    centre = drawn.centre
    slots = 2 * drawn.seats
    for house in drawn.houses:
        angle = 2 * math.pi * (house.number + 0.5) / slots
        house.x = round(centre + _RING_RADIUS * math.sin(angle), 1)
        house.y = round(centre - _RING_RADIUS * math.cos(angle), 1)
        house.rotate = round(math.degrees(angle), 1)
    for seat in range(drawn.seats):
        angle = 2 * math.pi * (2 * seat + 1) / slots
        drawn.seat_marks.append(
            (
                seat,
                round(centre + (_RING_RADIUS + 38) * math.sin(angle), 1),
                round(centre - (_RING_RADIUS + 38) * math.cos(angle), 1),
            )
        )
    for bet in drawn.bets:
        angle = 2 * math.pi * (2 * bet.seat + 1) / slots
        bet.x = round(centre + (_RING_RADIUS - 52) * math.sin(angle), 1)
        bet.y = round(centre - (_RING_RADIUS - 52) * math.cos(angle), 1)


def series_totals(game: Any) -> dict[str, int] | None:
    """A series' running totals up to `game` (None outside a series): each player's points
    over the finished games of the series so far, by address (else name), the Werewolf's
    bonus included (a Werewolf who won scores as many points as there are players)."""
    from .models import Game

    if game.series is None and not Game.objects.filter(series=game).exists():
        return None
    first = game.series or game
    later = Game.objects.filter(series=first, series_number__lte=game.series_number).order_by("series_number")
    games = [first, *later]
    totals: dict[str, int] = {}
    for played in games:
        if played.status != Game.Status.FINISHED:
            continue
        over = played.events.filter(kind="game_over").order_by("-pk").first()
        if over is None:
            continue
        seated = {player.seat: player for player in played.players.exclude(seat=None)}
        for seat, points in enumerate(over.data.get("scores", ())):
            player = seated.get(seat)
            if player is not None:
                key = _who(player)
                totals[key] = totals.get(key, 0) + int(points)
    return totals


def _who(player: Player) -> str:
    return (player.email or player.name).casefold()


def score_rows(outcome: Event | None, names: Sequence[str], game: Any = None) -> list[dict[str, Any]]:
    """The final score table from the game's end (public then): each player's points by
    source and total, the winner first... in seat order, the winner marked."""
    if outcome is None or outcome.kind != "game_over" or "scores" not in outcome.data:
        return []
    data = outcome.data
    parts = data.get("points") or [{} for _ in data["scores"]]
    winners = set(data.get("winners", ()))
    rows = [
        {
            "seat": seat,
            "name": names[seat] if seat < len(names) else "?",
            "total": total,
            "won": seat in winners,
            **parts[seat],
        }
        for seat, total in enumerate(data["scores"])
    ]
    totals = series_totals(game) if game is not None else None
    if totals is not None:
        seated = {player.seat: player for player in game.players.exclude(seat=None)}
        for row in rows:
            player = seated.get(row["seat"])
            row["series"] = totals.get(_who(player), 0) if player is not None else None
    return rows


def series_blocks(game: Any, seated: Sequence[Any]) -> list[Any]:
    """The finished games of `game`'s series up to it (or `game` alone), as score-sheet
    blocks: each of `seated`'s players' points by source in that game, and the running
    total after it (players matched by address, else name)."""
    from werewolf.printing import ScoreBlock

    from .models import Game

    first = game.series or game
    games = [first, *Game.objects.filter(series=first, series_number__lte=game.series_number).order_by("series_number")]
    running: dict[str, int] = {}
    blocks = []
    for played in games:
        over = played.events.filter(kind="game_over").order_by("-pk").first()
        if played.status != Game.Status.FINISHED or over is None:
            continue
        by_who = {_who(player): player.seat for player in played.players.exclude(seat=None)}
        parts = over.data.get("points") or [{} for _ in over.data["scores"]]
        rows = []
        for player in seated:
            seat = by_who.get(_who(player))
            if seat is None:
                rows.append({"name": player.name})
                continue
            total = int(over.data["scores"][seat])
            running[_who(player)] = running.get(_who(player), 0) + total
            rows.append({"name": player.name, **parts[seat], "total": total, "series": running[_who(player)]})
        blocks.append(ScoreBlock(played.series_number, rows, True))
    return blocks
