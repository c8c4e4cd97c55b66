"""Characters built from ability blocks.

A character is a definition: its side, how the Seer sees it, whether it counts with the
wolves when parity is judged, whether it hunts with the pack, and a few ability blocks
(inspect, inspect exact, protect, kill, one-shot kill, revive, mark, pass a token, know a
group, immune to the wolves, frail, sole winner...). The built-in characters of Luna
Piena are definitions like any an organiser saves, so the engine runs only blocks: the
night's steps, the cards asked, the bots, the mail grammar and the printed cards all come
from a definition. `refusal` says why a definition cannot be run (a combination of
blocks with no meaning), as a code the templates turn into words.

A definition is plain JSON, so it travels in a game's options and the game replays from
its options alone:

    {"name": "inquisitor", "side": "village",
     "blocks": [{"kind": "one_shot_kill", "token": "torch"}]}
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from .errors import SetupError
from .table import Role

VILLAGE = "village"
WOLVES = "wolves"
ALONE = "alone"
SIDES = (VILLAGE, WOLVES, ALONE)

INSPECT = "inspect"
INSPECT_EXACT = "inspect_exact"
SEANCE = "seance"
PROTECT = "protect"
KILL = "kill"
ONE_SHOT_KILL = "one_shot_kill"
REVIVE = "revive"
MARK = "mark"
PASS_TOKEN = "pass_token"
KNOW_GROUP = "know_group"
IMMUNE = "immune"
FRAIL = "frail"
SOLE_WINNER = "sole_winner"

ACTS: Mapping[str, str] = {
    INSPECT: "inquire",
    INSPECT_EXACT: "read",
    PROTECT: "protect",
    KILL: "shoot",
    ONE_SHOT_KILL: "shoot",
    REVIVE: "raise",
    MARK: "owl",
    PASS_TOKEN: "give",
}
"""The blocks that write a card at night, and the card each writes."""
TRAITS = (SEANCE, KNOW_GROUP, IMMUNE, FRAIL, SOLE_WINNER)
"""The blocks that need no card: they act on their own."""
BLOCKS = (*ACTS, *TRAITS)

AMONG = ("others", "anyone", "ghosts", "pack")
"""Whom an acting block's card may name: the other living players, any living player
(oneself included), the ghosts, or the other living wolves of the pack."""
EFFECTS = ("portrait", "skull")
"""What a passed token does: the Portrait takes its giver's place the first time the
wolves kill the giver; the Skull is public, moves on clockwise after each lynching, and
its holder dies with its giver."""

NAME = re.compile(r"^[^\W\d_](?:[\w'’ -]{0,38}[^\W_])?$")
"""A character's name: the built-in ones are lowercase ids ("fortune_teller"); an
organiser's is what the players read ("Hunter of Ghosts", "Zoë"), up to 40 letters,
digits, spaces, hyphens and apostrophes, or a built-in id to replace that character."""
GROUP = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


@dataclass(frozen=True, slots=True)
class Block:
    """One ability.

    - `kind`: one of `BLOCKS`;
    - `from_night`, `last_night`: the nights it acts (0: no last night);
    - `among`: whom its card may name (`AMONG`); `token`: the token a one-use block
      spends or gives (a one-use block with no token acts once all the same);
    - `once`: it acts once a game (one-shot kills and revivals always do);
    - `group`: what `know_group` knows ("pack": the wolves, who do not learn back; any
      other name: everyone holding a character with the same group);
    - `effect`: what a passed token does (`EFFECTS`); `first`: a one-shot kill that
      strikes before the wolves' victim; `deadly_from`: a mark whose choice dies at dawn
      at tables of this many players and more (0: never); `times`: how many times an
      immunity holds (0: always)."""

    kind: str
    from_night: int = 1
    last_night: int = 0
    among: str = "others"
    token: str = ""
    once: bool = False
    group: str = ""
    effect: str = ""
    first: bool = False
    deadly_from: int = 0
    times: int = 0

    @property
    def card(self) -> str | None:
        """The card kind it writes at night (None: it writes none)."""
        return ACTS.get(self.kind)

    @property
    def one_use(self) -> bool:
        return self.once or self.kind in (ONE_SHOT_KILL, REVIVE)

    def acts_on(self, night: int) -> bool:
        return night >= self.from_night and (not self.last_night or night <= self.last_night)

    def to_json(self) -> dict[str, Any]:
        default = _DEFAULT_BLOCK
        raw: dict[str, Any] = {"kind": self.kind}
        for item in fields(self):
            value = getattr(self, item.name)
            if item.name != "kind" and value != getattr(default, item.name):
                raw[item.name] = value
        return raw


_DEFAULT_BLOCK = Block("")
_BLOCK_TYPES = {item.name: type(getattr(_DEFAULT_BLOCK, item.name)) for item in fields(Block)}


@dataclass(frozen=True, slots=True)
class Character:
    """A character: its `name` (lowercase, the key a deck lists), `side` (`SIDES`),
    what the Seer sees (`seen_as_wolf`), whether it counts with the wolves at the end
    (`counts_as_wolf`), whether it hunts with the pack (`pack`: it meets the wolves and
    writes the kill list), and its `blocks`. `repeat`: the deck may hold it more than
    once (Villagers, Freemasons)."""

    name: str
    side: str
    blocks: tuple[Block, ...] = ()
    seen_as_wolf: bool = False
    counts_as_wolf: bool = False
    pack: bool = False
    repeat: bool = False

    def block(self, kind: str) -> Block | None:
        return next((block for block in self.blocks if block.kind == kind), None)

    @property
    def act(self) -> Block | None:
        """Its block that writes a night card, beside the pack's list."""
        return next((block for block in self.blocks if block.card is not None), None)

    @property
    def winning_side(self) -> str:
        """The side it wins with: a character alone wins as itself."""
        return self.name if self.side == ALONE else self.side

    def row(self) -> Role:
        """The character as a row of the role table (engine/table.py)."""
        act = self.act
        immune = self.block(IMMUNE)
        card = "kill" if self.pack else act.card if act else None
        return Role(
            self.name,
            self.winning_side,
            seen_as_wolf=self.seen_as_wolf,
            medium_sees_wolf=self.seen_as_wolf,
            counts_as_wolf=self.counts_as_wolf,
            pack=self.pack,
            prey=not self.pack,
            pack_can_kill=immune is None or immune.times > 0,
            night=card,
            from_night=1 if self.pack or act is None else act.from_night,
            last_night=0 if self.pack or act is None else act.last_night,
            called_at="pack" if self.pack else "",
        )

    def to_json(self) -> dict[str, Any]:
        raw: dict[str, Any] = {"name": self.name, "side": self.side}
        for flag in ("seen_as_wolf", "counts_as_wolf", "pack", "repeat"):
            if getattr(self, flag):
                raw[flag] = True
        raw["blocks"] = [block.to_json() for block in self.blocks]
        return raw


class DefinitionError(ValueError):
    """A definition the engine cannot run: `code` names the reason, `detail` the part
    at fault (a block's kind, a field's name)."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(code, detail)
        self.code = code
        self.detail = detail


def parse(raw: Mapping[str, Any]) -> Character:
    """A character from its JSON definition, checked (`DefinitionError`)."""
    if not isinstance(raw, Mapping):
        raise DefinitionError("not_a_definition")
    known = {"name", "side", "seen_as_wolf", "counts_as_wolf", "pack", "repeat", "blocks"}
    for key in raw:
        if key not in known:
            raise DefinitionError("unknown_field", str(key))
    name = raw.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise DefinitionError("bad_name", str(name))
    flags = {}
    for flag in ("seen_as_wolf", "counts_as_wolf", "pack", "repeat"):
        value = raw.get(flag, False)
        if not isinstance(value, bool):
            raise DefinitionError("bad_value", flag)
        flags[flag] = value
    blocks_raw = raw.get("blocks", [])
    if not isinstance(blocks_raw, list):
        raise DefinitionError("bad_value", "blocks")
    character = Character(name, str(raw.get("side", "")), tuple(_block(item) for item in blocks_raw), **flags)
    problem = refusal(character)
    if problem is not None:
        raise DefinitionError(*problem)
    return character


def _block(raw: Any) -> Block:
    if not isinstance(raw, Mapping) or raw.get("kind") not in BLOCKS:
        raise DefinitionError("unknown_block", str(raw.get("kind") if isinstance(raw, Mapping) else raw))
    values: dict[str, Any] = {}
    for key, value in raw.items():
        wanted = _BLOCK_TYPES.get(str(key))
        if wanted is None:
            raise DefinitionError("unknown_field", str(key))
        if type(value) is not wanted:  # exact: a bool is no int here
            raise DefinitionError("bad_value", str(key))
        values[str(key)] = value
    return Block(**values)


def refusal(character: Character) -> tuple[str, str] | None:
    """Why the engine cannot run `character` (a code and the part at fault), or None."""
    if character.side not in SIDES:
        return ("bad_side", character.side)
    kinds = [block.kind for block in character.blocks]
    for kind in kinds:
        if kinds.count(kind) > 1:
            return ("repeated_block", kind)
    acting = [block for block in character.blocks if block.card is not None]
    if character.pack:
        if character.side != WOLVES or not character.counts_as_wolf:
            return ("pack_not_wolf", "pack")
        if any(block.kind != ONE_SHOT_KILL or block.among != "pack" for block in acting):
            return ("two_night_cards", acting[0].kind)
    elif len(acting) > 1:
        return ("two_night_cards", acting[1].kind)
    for block in character.blocks:
        problem = _block_refusal(character, block)
        if problem is not None:
            return (problem, block.kind)
    sole = character.block(SOLE_WINNER) is not None
    if sole and character.side != ALONE:
        return ("sole_winner_not_alone", SOLE_WINNER)
    if character.side == ALONE and not sole:
        return ("alone_never_wins", "side")
    return None


def _block_refusal(character: Character, block: Block) -> str | None:
    if block.from_night < 1 or block.last_night < 0 or block.deadly_from < 0 or block.times < 0:
        return "bad_night"
    if block.last_night and block.last_night < block.from_night:
        return "bad_night"
    if block.among not in AMONG:
        return "bad_among"
    if block.card is None and block != Block(
        block.kind, block.from_night, block.last_night, group=block.group, times=block.times
    ):
        return "trait_takes_no_card"
    kind = block.kind
    if block.among == "ghosts" and kind != REVIVE:
        return "bad_among"
    if kind == REVIVE and block.among != "ghosts":
        return "bad_among"
    if block.among == "pack" and not (kind == ONE_SHOT_KILL and character.pack):
        return "bad_among"
    if kind == PASS_TOKEN and (block.effect not in EFFECTS or not block.token):
        return "token_without_effect"
    if kind != PASS_TOKEN and block.effect:
        return "token_without_effect"
    if block.first and kind != ONE_SHOT_KILL:
        return "bad_value"
    if block.deadly_from and kind != MARK:
        return "bad_value"
    if kind == KNOW_GROUP and (not block.group or not GROUP.match(block.group)):
        return "group_without_name"
    if kind != KNOW_GROUP and block.group:
        return "bad_value"
    if kind == KNOW_GROUP and block.group == "pack" and character.pack:
        return "knows_own_pack"
    if block.times and kind != IMMUNE:
        return "bad_value"
    if kind == IMMUNE and character.pack:
        return "immune_pack"
    return None


def catalogue(definitions: Iterable[Mapping[str, Any]]) -> dict[str, Character]:
    """Characters by name from their definitions, each checked; a name given twice is
    refused."""
    cast: dict[str, Character] = {}
    for raw in definitions:
        character = parse(raw)
        if character.name in cast:
            raise DefinitionError("repeated_name", character.name)
        cast[character.name] = character
    return cast


def from_option(value: Any) -> dict[str, Character]:
    """The characters a game's `characters` option defines (a list of definitions, or
    its JSON text), each checked: `SetupError("bad_definition", code, detail)`."""
    import json

    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else []
        except ValueError as error:
            raise SetupError("bad_definition", "characters", "not_json") from error
    if not isinstance(value, list):
        raise SetupError("bad_definition", "characters", "not_a_list")
    try:
        return catalogue(value)
    except DefinitionError as error:
        raise SetupError("bad_definition", error.code, error.detail) from error
