"""Luna Piena's characters as definitions made of ability blocks, and its deck table.

Each built-in character is a definition exactly like one an organiser saves
(engine/characters.py): the established ones as the rulebooks of the family have
them, the others as the project's reading (docs/rules.md, "Luna Piena", says which is
which). An organiser's definition of the same name replaces ours in a game; the four
characters nobody has published rules for have no definition until the organiser
writes one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...characters import Character, catalogue

WOLF = "wolf"
VILLAGER = "villager"
SEER = "seer"
MEDIUM = "medium"
POSSESSED = "possessed"
BODYGUARD = "bodyguard"
OWL = "owl"
FREEMASON = "freemason"
WEREHAMSTER = "werehamster"
INQUISITOR = "inquisitor"
FORTUNE_TELLER = "fortune_teller"
UNDEAD = "undead"
LARA = "lara"
JEKYLL = "jekyll"
DORIAN = "dorian"
NECROMANCER = "necromancer"
WERECOW = "werecow"
HAMLET = "hamlet"

ESTABLISHED: tuple[dict[str, Any], ...] = (
    {"name": WOLF, "side": "wolves", "seen_as_wolf": True, "counts_as_wolf": True, "pack": True, "repeat": True},
    {"name": VILLAGER, "side": "village", "repeat": True},
    {"name": SEER, "side": "village", "blocks": [{"kind": "inspect"}]},
    {"name": MEDIUM, "side": "village", "blocks": [{"kind": "seance", "from_night": 2}]},
    {"name": POSSESSED, "side": "wolves"},
    {"name": BODYGUARD, "side": "village", "blocks": [{"kind": "protect", "from_night": 2}]},
    {"name": OWL, "side": "village", "blocks": [{"kind": "mark", "deadly_from": 21}]},
    {"name": FREEMASON, "side": "village", "repeat": True, "blocks": [{"kind": "know_group", "group": "lodge"}]},
    {
        "name": WEREHAMSTER,
        "side": "alone",
        "blocks": [{"kind": "immune"}, {"kind": "frail"}, {"kind": "sole_winner"}],
    },
)
"""What the rulebooks of the family establish (LUNAPIENA.md's first table)."""

OUR_READINGS: tuple[dict[str, Any], ...] = (
    {"name": INQUISITOR, "side": "village", "blocks": [{"kind": "one_shot_kill", "token": "torch"}]},
    {"name": FORTUNE_TELLER, "side": "village", "blocks": [{"kind": "inspect_exact"}]},
    {"name": UNDEAD, "side": "village", "blocks": [{"kind": "immune", "times": 1}]},
    {
        "name": LARA,
        "side": "wolves",
        "seen_as_wolf": True,
        "counts_as_wolf": True,
        "pack": True,
        "blocks": [{"kind": "one_shot_kill", "among": "pack"}],
    },
    {"name": JEKYLL, "side": "village", "blocks": [{"kind": "one_shot_kill", "token": "potion", "first": True}]},
    {
        "name": DORIAN,
        "side": "village",
        "blocks": [{"kind": "pass_token", "token": "portrait", "effect": "portrait", "last_night": 1}],
    },
    {"name": NECROMANCER, "side": "village", "blocks": [{"kind": "revive", "among": "ghosts", "token": "hand"}]},
    {"name": WERECOW, "side": "wolves", "seen_as_wolf": True, "blocks": [{"kind": "know_group", "group": "pack"}]},
    {
        "name": HAMLET,
        "side": "village",
        "blocks": [{"kind": "pass_token", "token": "skull", "effect": "skull", "last_night": 1}],
    },
)
"""The characters of the 2011 expansion, completed by the project's reading: each one
is a default the organiser may replace with a definition of their own."""

UNWRITTEN = ("candyman", "gossip", "sherlock", "victoria")
"""Caramellaio, Pettegola, Sherlock and Victoria Obscura: on the cards, with rules
nobody has published. They play only as the organiser defines them."""

BUILT_IN: Mapping[str, Character] = catalogue((*ESTABLISHED, *OUR_READINGS))
READINGS = tuple(raw["name"] for raw in OUR_READINGS)

BASE_WOLVES = 2
THIRD_WOLF_FROM = 16
FULL_DECK = 8
"""The smallest deck; seven players play it with one card set aside unseen."""
ADDED_TO_NINE: tuple[str, ...] = (MEDIUM, VILLAGER, BODYGUARD, VILLAGER, POSSESSED, INQUISITOR, VILLAGER)
"""From 9 to 15 players, added in this order to the eight cards until each has one."""
ADDED_TO_SIXTEEN: tuple[str, ...] = (
    MEDIUM,
    VILLAGER,
    BODYGUARD,
    POSSESSED,
    INQUISITOR,
    FREEMASON,
    FREEMASON,
    WEREHAMSTER,
    FORTUNE_TELLER,
    VILLAGER,
    OWL,
    FREEMASON,
    UNDEAD,
    VILLAGER,
)
"""From 16 players, added in this order to the nine cards (three wolves); at 24, one
Villager more than the rulebook's table (which counts 7 to 23 players, the box 8 to 24
with the moderator)."""


def base(players: int) -> list[str]:
    """The cards every table has but its Villagers: the wolves (three from 16 players)
    and the Seer."""
    wolves = BASE_WOLVES + (players >= THIRD_WOLF_FROM)
    return [WOLF] * wolves + [SEER]


BASE_VILLAGERS = 5


def additions(players: int) -> tuple[str, ...]:
    """The rulebook's cards added to the base for `players`, in its order."""
    left = max(players, FULL_DECK) - len(base(players)) - BASE_VILLAGERS
    table = ADDED_TO_SIXTEEN if players >= THIRD_WOLF_FROM else ADDED_TO_NINE
    return table[:left]


def deck(players: int, added: Sequence[str]) -> list[str]:
    """The table's cards: the wolves and the Seer, then `added`, then Villagers up to
    one card each (eight at a table of seven, one of them set aside). The rulebook's
    five Villagers are among those: a character the organiser adds at a small table
    takes a Villager's place, as a themed game does."""
    cards = base(players) + list(added)
    return cards + [VILLAGER] * (max(players, FULL_DECK) - len(cards))
