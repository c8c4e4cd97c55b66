"""The ring of houses leaves room for every name: read from the page as a browser gets it,
each name's box (measured in the widest common sans-serif face, as the browser here draws
it) lies inside the drawing; no name runs over a house or another name, and the house
labels stand upright. tests/e2e/test_browser.py checks the same in Chromium."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import replace
from functools import lru_cache
from html import unescape

import pytest
from django.test import Client

from werewolf import engine
from werewolf.games import houses, links, services

pytestmark = pytest.mark.django_db

LONG_NAMES = [
    "Benedikt",
    "Esmeralda",
    "Konstantin",
    "Maximiliane",
    "Bartholomew-Alexander",
    "Wilhelmina",
    "Žofie",
    "Jo",
]

NAME = re.compile(
    r'<text x="(?P<x>[-\d.]+)" y="(?P<y>[-\d.]+)" text-anchor="(?P<anchor>\w+)" dominant-baseline="\w+" '
    r'font-size="(?P<size>[\d.]+)" font-weight="(?P<weight>\w+)"[^>]*>(?P<text>.*?)</text>'
)


@lru_cache(maxsize=2)
def _face(bold: bool):
    """DejaVu Sans (bold), the face Chromium draws the page in here, if fontconfig finds it."""
    from fontTools.ttLib import TTFont

    if shutil.which("fc-match") is None:
        return None
    found = subprocess.run(
        ["fc-match", "-f", "%{file}", "DejaVu Sans:bold" if bold else "DejaVu Sans"], capture_output=True, text=True
    ).stdout.strip()
    if "DejaVuSans" not in found:
        return None
    face = TTFont(found)
    return face.getBestCmap(), face["hmtx"], face["head"].unitsPerEm


def measured(text: str, size: float, bold: bool) -> float:
    """`text`'s width at `size`, in DejaVu Sans, else as the ring estimates it."""
    face = _face(bold)
    if face is None:
        return houses.text_width(text, size)
    cmap, metrics, units = face
    return sum(metrics[cmap[ord(char)]][0] if ord(char) in cmap else units for char in text) * size / units


def _ring(html: str) -> tuple[tuple[float, float, float, float], list[dict]]:
    svg = re.search(r'<svg viewBox="([^"]+)"[^>]*class="ring"', html)
    assert svg is not None
    left, top, width, height = (float(value) for value in svg.group(1).split())
    drawing = html[svg.start() : html.index("</svg>", svg.start())]
    names = [match.groupdict() for match in NAME.finditer(drawing)]
    return (left, top, left + width, top + height), names


def _box(name: dict) -> tuple[float, float, float, float]:
    text = unescape(re.sub(r"<title>.*?</title>", "", name["text"]))
    size, x, y = float(name["size"]), float(name["x"]), float(name["y"])
    width = measured(text, size, name["weight"] == "bold")
    start = {"start": x, "end": x - width, "middle": x - width / 2}[name["anchor"]]
    return start, y - 0.6 * size, start + width, y + 0.6 * size


@pytest.mark.parametrize("players", [4, 5, 8])
def test_the_drawing_leaves_room_for_the_longest_name(organiser, organiser_client: Client, players: int) -> None:
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in LONG_NAMES[:players]]
    game = services.start_game(
        services.create_game(organiser, name="Burg", seats=seats, options={}, ruleset="lupusburg", seed=players)
    )
    pages = {
        "seat": Client().get(links.url_for(game.players.get(seat=0), absolute=False)),
        "dashboard": organiser_client.get(f"/games/{game.pk}/"),
        "public": Client().get(f"/g/{game.public_key}/"),
    }
    for where, response in pages.items():
        html = response.content.decode()
        frame, names = _ring(html)
        assert len(names) == players, (where, names)
        for name in names:
            box = _box(name)
            inside = frame[0] <= box[0] and frame[1] <= box[1] and box[2] <= frame[2] and box[3] <= frame[3]
            assert inside, (where, name["text"], box, frame)
        drawing = html[html.index('class="ring"') : html.index("</svg>")]
        assert "rotate(" not in drawing, where  # the houses and their labels stand upright


@pytest.mark.parametrize("players", range(4, 9))
def test_names_houses_and_the_frame_keep_apart_at_every_table(players: int) -> None:
    names = [(name + "-") * 5 for name in LONG_NAMES[:players]]  # cut on the ring, all of them
    state, _ = engine.setup("lupusburg-goals", {}, players, seed=players)
    rules = state.rules
    for burgomaster, sweeper in ((0, None), (players - 1, 0)):
        drawn = houses.board(
            state.evolve(rules=replace(rules, burgomaster=burgomaster, sweeper=sweeper)),
            engine.MODERATOR,
            [],
            names,
        )
        assert drawn is not None
        boxes = [
            (house.x - w / 2, house.y - h / 2, house.x + w / 2, house.y + h / 2)
            for house in drawn.houses
            for w, h in [(houses.HOUSE_WIDTH, houses.HOUSE_HEIGHT)]
        ]
        marks = [mark.box for mark in drawn.seat_marks]
        left, top, right, bottom = drawn.bounds
        for box in boxes + marks:
            assert left <= box[0] and top <= box[1] and box[2] <= right and box[3] <= bottom, (box, drawn.bounds)
        for number, box in enumerate(boxes + marks):
            for other in (boxes + marks)[number + 1 :]:
                apart = box[2] <= other[0] or other[2] <= box[0] or box[3] <= other[1] or other[3] <= box[1]
                assert apart, (players, box, other)
        for mark in drawn.seat_marks:
            assert len(mark.label) <= houses.NAME_ON_RING and mark.cut
            assert mark.label.endswith("…") and names[mark.seat].startswith(mark.label[:-1])


@pytest.mark.parametrize("text", ["Benedikt", "Maximiliane ★", "WWWWMMMM", "Žofie Ørsted", "illi", "Anne-Sophie ⌂"])
def test_a_name_is_never_wider_than_the_ring_reckons(text: str) -> None:
    assert measured(text, 15, bold=True) <= houses.text_width(text, 15)
