"""A ring of houses drawn for one viewer, for a ruleset whose seats play houses
(`capabilities.houses`): where each house, bet and name goes on the page's drawing.

What the viewer may see of the table is the ruleset's to say (`engine.ring`: its own
houses, what lies face up, what was shown to it, everything at the end); this module only
lays that out, so that no name runs over a house or out of the drawing."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from werewolf import engine

from .models import Event

HOUSE_WIDTH = 48
HOUSE_HEIGHT = 38
"""A house on the ring (SVG user units), drawn upright so that its labels read level."""
_HOUSE_GAP = 6
"""The least room between two houses' boxes."""
_RING_LEAST = 110
"""The ring's least radius, whatever the table: room inside for the bets."""
NAME_SIZE = 15
"""The players' names' font size, in the drawing's units."""
NAME_ON_RING = 12
"""The most characters a name is written with on the ring; a longer one is cut with an
ellipsis there (the whole name is its tooltip, and the page writes it in full below)."""
_NAME_CLEAR = 10
"""The room between a house's box and the name beside it."""
_MARGIN = 8
"""Room around everything drawn."""

_EM = (
    (0.40, " '.,:;IJijl|"),
    (0.53, '!()[]/\\frt-"*_`'),
    (0.68, "cszkL?"),
    (0.74, "abdeghnopquvxy0123456789$CEFPSTYZ"),
    (0.88, "ABDGHKNOQRUVX#+<=>^~&{}"),
    (1.11, "mwMW@%"),
)
_WIDTH = {char: em for em, chars in _EM for char in chars}
"""A character's advance in ems, taken on the wide side of common sans-serif faces (DejaVu
Sans Bold's, rounded up): a name measured with it is never wider in a browser."""
_WIDE = 1.11
"""Any other character's (a letter of another script, a symbol)."""


def text_width(text: str, size: float) -> float:
    """How wide `text` is written at `size`, at most: each accented Latin letter measured
    as its base letter, anything unknown as a wide character."""
    width = 0.0
    for char in text:
        base = unicodedata.normalize("NFKD", char)[:1] or char
        width += _WIDTH.get(base, _WIDE)
    return width * size


def on_ring(name: str) -> str:
    """`name` as the ring writes it: whole, or cut to NAME_ON_RING characters."""
    return name if len(name) <= NAME_ON_RING else name[: NAME_ON_RING - 1].rstrip() + "\u2026"


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


@dataclass
class BetShown:
    seat: int
    target: int
    coin: int | None
    """The coin's value where the viewer may know it (its own bet; all at the end)."""
    x: float = 0
    y: float = 0


@dataclass
class SeatMark:
    """A player's name beside its two houses: where it is written (`x`, `y`, the middle
    of its line), which way (`anchor`: SVG's text-anchor, away from the ring), what (`label`:
    the name, cut if long) and the box it may take at most (`box`: left, top, right, bottom)."""

    seat: int
    x: float
    y: float
    anchor: str
    label: str
    name: str
    box: tuple[float, float, float, float]

    @property
    def cut(self) -> bool:
        return self.label != self.name


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
    ruling: str | None = None
    """Which of the viewer's characters rules its hand (what its page's help is about)."""
    radius: float = _RING_LEAST
    """The ring's radius; its centre is (0, 0)."""
    seat_marks: list[SeatMark] = field(default_factory=list)
    view_box: str = ""
    """The SVG's viewBox: everything drawn, the longest name included, with a margin."""
    bounds: tuple[float, float, float, float] = (0, 0, 0, 0)
    """The viewBox as left, top, right, bottom."""
    name_size: int = NAME_SIZE
    house: tuple[float, float, int, int] = (-HOUSE_WIDTH / 2, -HOUSE_HEIGHT / 2, HOUSE_WIDTH, HOUSE_HEIGHT)
    """A house's box about its middle: x, y, width, height."""


def board(state: engine.State, viewer: engine.Viewer, seen: Sequence[Event], names: Sequence[str]) -> Board | None:
    """The ring `viewer` sees (`seen`: the events it may see; `names`: the seats'),
    placed for drawing; None for a ruleset without houses."""
    ring = engine.ring(state, viewer, ((event.kind, event.data) for event in seen))
    if ring is None:
        return None
    drawn = Board(
        houses=[House(house.number, house.seat, house.living, house.character, house.chest) for house in ring.houses],
        bets=[BetShown(bet.seat, bet.target, bet.coin) for bet in ring.bets],
        burgomaster=ring.burgomaster,
        sweeper=ring.sweeper,
        seats=state.seats,
        goal=ring.goal,
        goals=list(ring.goals),
        ruling=ring.ruling,
    )
    _place(drawn, names)
    return drawn


def _angle(place: float, slots: int) -> float:
    """The angle of `place` (a house's number and a half: its middle) clockwise from the top."""
    return 2 * math.pi * place / slots


@lru_cache(maxsize=16)
def ring_radius(slots: int) -> float:
    """The least radius on which `slots` upright houses stand apart by _HOUSE_GAP at least."""
    radius = float(_RING_LEAST)
    while True:
        spots = [
            (radius * math.sin(_angle(n + 0.5, slots)), -radius * math.cos(_angle(n + 0.5, slots)))
            for n in range(slots)
        ]
        if all(
            abs(x1 - x2) >= HOUSE_WIDTH + _HOUSE_GAP or abs(y1 - y2) >= HOUSE_HEIGHT + _HOUSE_GAP
            for first, (x1, y1) in enumerate(spots)
            for x2, y2 in spots[first + 1 :]
        ):
            return radius
        radius += 2


def _beside(
    angle: float, radius: float, width: float, houses: Sequence[tuple[float, float, float, float]]
) -> tuple[float, float, str, tuple[float, float, float, float]]:
    """Where a name `width` wide goes for the seat whose houses' middle is at `angle`: on
    the ray out from the centre through that middle, as near the ring as it may be while
    clear of every house by _NAME_CLEAR; written away from the ring (from its start on the
    right, to its end on the left), centred right at the top and the bottom. Its point
    (the middle of its line), anchor and box."""
    sine, cosine = math.sin(angle), -math.cos(angle)
    anchor = "middle" if abs(sine) < 0.05 else "start" if sine > 0 else "end"
    half = NAME_SIZE * 0.65  # half a line's height, the descenders included
    distance = radius
    while True:
        x, y = round(distance * sine, 1), round(distance * cosine, 1)
        if anchor == "start":
            box = (x, y - half, x + width, y + half)
        elif anchor == "end":
            box = (x - width, y - half, x, y + half)
        else:
            box = (x - width / 2, y - half, x + width / 2, y + half)
        if all(
            box[2] + _NAME_CLEAR <= house[0]
            or house[2] + _NAME_CLEAR <= box[0]
            or box[3] + _NAME_CLEAR <= house[1]
            or house[3] + _NAME_CLEAR <= box[1]
            for house in houses
        ):
            return x, y, anchor, box
        distance += 2


def _place(drawn: Board, names: Sequence[str]) -> None:
    """Put the houses on a ring, clockwise from the top, each player's two side by side,
    the names outside (beside the ring, written away from it; centred at the top and the
    bottom) and the bets inside, in front of their players; then frame it all."""
    slots = 2 * drawn.seats
    radius = drawn.radius = ring_radius(slots)
    for house in drawn.houses:
        angle = _angle(house.number + 0.5, slots)
        house.x = round(radius * math.sin(angle), 1)
        house.y = round(-radius * math.cos(angle), 1)
    boxes = [
        (house.x - HOUSE_WIDTH / 2, house.y - HOUSE_HEIGHT / 2, house.x + HOUSE_WIDTH / 2, house.y + HOUSE_HEIGHT / 2)
        for house in drawn.houses
    ]
    left, top = min(box[0] for box in boxes), min(box[1] for box in boxes)
    right, bottom = max(box[2] for box in boxes), max(box[3] for box in boxes)
    for seat in range(drawn.seats):
        angle = _angle(2 * seat + 1, slots)
        name = names[seat] if seat < len(names) else "?"
        label = on_ring(name)
        marks = (seat == drawn.burgomaster) + (seat == drawn.sweeper)
        width = text_width(label, NAME_SIZE) + marks * text_width(" \u2605", NAME_SIZE)
        mark = _beside(angle, radius, width, boxes)
        drawn.seat_marks.append(SeatMark(seat, mark[0], mark[1], mark[2], label, name, mark[3]))
        box = mark[3]
        left, top = min(left, box[0]), min(top, box[1])
        right, bottom = max(right, box[2]), max(bottom, box[3])
    for bet in drawn.bets:
        angle = _angle(2 * bet.seat + 1, slots)
        bet.x = round((radius - 56) * math.sin(angle), 1)
        bet.y = round(-(radius - 56) * math.cos(angle), 1)
    left, top, right, bottom = (
        math.floor(left - _MARGIN),
        math.floor(top - _MARGIN),
        math.ceil(right + _MARGIN),
        math.ceil(bottom + _MARGIN),
    )
    drawn.bounds = (left, top, right, bottom)
    drawn.view_box = f"{left} {top} {right - left} {bottom - top}"
