"""Bots that play like people: each seat plays from what it has been told, nothing more.

A seat's `Memory` is built only from the events its seat may see (`Event.visible_to`),
through the lessons its ruleset teaches (`Ruleset.lessons`: what an event kind tells a
seat who sees it); its cards are then chosen from its own slot and that memory alone,
never from the state. A wolf never names a packmate; an inquirer votes for a wolf it
found and never for a player it cleared, and looks at someone it knows nothing of;
everyone else votes among the players they do not trust, the least trusted first (a
Lupusburg bettor bets on its top suspect); a protector never guards a known wolf. A
card whose aim the ruleset does not declare is chosen as the uniform bots choose it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from random import Random
from typing import Any, Literal

from .bots import bot_card
from .cards import SLEEP, Slot
from .events import Event
from .orders import Order

Aim = Literal["hostile", "probe", "friendly"]
"""What a card does to the player it names: harms them (a vote, a kill, a bet on the
culprit), learns about them (an inquiry) or helps them (a protection)."""

AIMS: Mapping[str, Aim] = {
    "vote": "hostile",
    "ballot": "hostile",
    "accuse": "hostile",
    "kill": "hostile",
    "shoot": "hostile",
    "bet": "hostile",
    "inquire": "probe",
    "read": "probe",
    "protect": "friendly",
}
"""The aims of the card kinds the rulesets share, by kind: `Ruleset.aims`'s default."""


@dataclass(slots=True)
class Memory:
    """What one seat knows: `pack`, the wolves it hunts with (itself among them) when it
    is one; `wolves`, players it knows are wolves; `cleared`, players it knows are not;
    `trust`, how much of a player it has seen to be innocent (Lupusburg: each of their
    characters shown or gone), the least trusted being its top suspects.

    What the bots that talk (engine/talkers.py) read besides: `role`, its own role;
    `roles`, the roles it has seen revealed (a dead player's card); `dead`, the players
    it knows are dead; `votes`, each day's public ballots in order, as (voter, named);
    `counts`, how many of each role the table was dealt, as the setup announced it;
    `results`, its own inquiries in order, as (player, werewolf or not); `stance`,
    how it plays when it is neither the pack's nor the village's ("": one or the
    other; "ally": it wins with the pack without knowing it, as the Possessed;
    "alone": it wins alone, as the Werehamster), as its ruleset's lessons tell it;
    `inquiring`, the role whose results the square takes as inquiries (the Seer's),
    the one a liar claims, as the setup announces it; `chosen`, the pack's victims in
    order (a wolf's memory: one still alive was spared, say the Werehamster);
    `houses`, the player who owns each house, where players hold houses (Lupusburg),
    so that a card naming houses names that player's; `characters`, for each house
    whose character the seat has seen (its own, those shown to it), whether it is a
    wolf's; `exposed`, the players who have seen the seat's own wolf's character (a
    Burgomaster shown the Werewolf): they know it; `foes`, how many players the setup
    announced on the pack's side, where its `counts` do not say it under "wolf" (Mafia's
    goons and Godfathers; 0: read "wolf"); `defence`, a role with no result to give that
    its holder claims in its own defence and a liar may fake where the setup deals no
    inquiring role (Mafia's Doctor; "": none); `deadly`, the kind of card whose choice
    dies unless it is a wolf (Tabula's and Luna Piena's Owl above 20 players; "": none);
    `copies`, how many more holders of the inquiring role the game may make than the
    setup dealt (Tabula's Mythomaniac, who may take the Seer's role); `copied_from`, the
    first day such a holder may claim (a claim made before it holds a dealt place);
    `loners`, players it knows win alone (the Werehamster a Fortune-teller read): no
    wolves, but the village's foes as surely as the wolves are; `alone`, how many
    such players the setup announced, whom an inquiry of the inquiring role kills
    (the Werehamster; 0: none)."""

    seat: int
    pack: set[int] = field(default_factory=set)
    wolves: set[int] = field(default_factory=set)
    cleared: set[int] = field(default_factory=set)
    trust: Counter[int] = field(default_factory=Counter)
    role: str | None = None
    roles: dict[int, str] = field(default_factory=dict)
    dead: set[int] = field(default_factory=set)
    votes: list[tuple[int, int]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    results: list[tuple[int, bool]] = field(default_factory=list)
    stance: str = ""
    inquiring: str = ""
    chosen: list[int] = field(default_factory=list)
    houses: dict[int, int] = field(default_factory=dict)
    characters: dict[int, bool] = field(default_factory=dict)
    exposed: set[int] = field(default_factory=set)
    foes: int = 0
    defence: str = ""
    deadly: str = ""
    copies: int = 0
    copied_from: int = 0
    loners: set[int] = field(default_factory=set)
    alone: int = 0


ALLY = "ally"
ALONE = "alone"
"""A `Memory.stance`: on the pack's side without knowing the pack; on no side but its own."""


Lesson = Callable[[Memory, Mapping[str, Any]], None]
"""What an event of one kind tells a seat who sees it."""


def _pack(memory: Memory, data: Mapping[str, Any]) -> None:
    pack = set(data["pack"])
    memory.pack |= pack
    memory.wolves |= pack


def _seen(key: str) -> Lesson:
    def lesson(memory: Memory, data: Mapping[str, Any]) -> None:
        found(memory, data[key], bool(data["werewolf"]))

    return lesson


def inquired(key: str) -> Lesson:
    """The lesson of an answer to one's own inquiry (the Seer's, the Medium's) naming
    the player under `key`: also kept in order, for the seat to claim."""

    def lesson(memory: Memory, data: Mapping[str, Any]) -> None:
        found(memory, data[key], bool(data["werewolf"]))
        memory.results.append((data[key], bool(data["werewolf"])))

    return lesson


def _dealt(memory: Memory, data: Mapping[str, Any]) -> None:
    if data["seat"] == memory.seat:
        memory.role = data["role"]


def _ballots(memory: Memory, data: Mapping[str, Any]) -> None:
    memory.votes.extend((voter, named) for voter, named in data.get("ballots", ()) if named is not None)


def died(seen_as_wolf: Callable[[str], bool], prey: bool = False) -> Lesson:
    """The lesson of a public death: the player is dead and, when its card is shown,
    its role is known, and whether it was a wolf (`seen_as_wolf`, the ruleset's table;
    a card that shows only that, Dark City's, gives its "werewolf"). A death only the
    pack deals to players outside it (`prey`: killed at night) clears its player even
    when the card stays hidden."""

    def lesson(memory: Memory, data: Mapping[str, Any]) -> None:
        seat = data["seat"]
        memory.dead.add(seat)
        role = data.get("role")
        if role is not None:
            memory.roles[seat] = role
            found(memory, seat, seen_as_wolf(role))
        elif data.get("werewolf") is not None:
            found(memory, seat, bool(data["werewolf"]))
        elif prey and seat not in memory.wolves:
            memory.cleared.add(seat)

    return lesson


def _trusted(key: str) -> Lesson:
    def lesson(memory: Memory, data: Mapping[str, Any]) -> None:
        memory.cleared |= set(data[key])

    return lesson


def _chose(memory: Memory, data: Mapping[str, Any]) -> None:
    if data.get("victim") is not None:
        memory.chosen.append(data["victim"])


def _converted(memory: Memory, data: Mapping[str, Any]) -> None:
    if memory.pack:
        memory.pack.add(data["seat"])
        memory.wolves.add(data["seat"])


def found(memory: Memory, seat: int, wolf: bool) -> None:
    """The seat learnt whether `seat` is a wolf."""
    if wolf:
        memory.wolves.add(seat)
        memory.cleared.discard(seat)
    else:
        memory.cleared.add(seat)


LESSONS: Mapping[str, Lesson] = {
    "pack_formed": _pack,
    "alpha_passed": _pack,
    "converted": _converted,
    "pack_chose": _chose,
    "seer_saw": inquired("target"),
    "role_dealt": _dealt,
    "day_ended": _ballots,
    "tested": _seen("seat"),
    "masons_met": _trusted("masons"),
    "seers_met": _trusted("seers"),
}
"""The lessons of the event kinds the rulesets share: `Ruleset.lessons`'s default."""


def remember(memories: Mapping[int, Memory], events: Iterable[Event], lessons: Mapping[str, Lesson]) -> None:
    """Teach each seat of `memories` what it may see of `events`."""
    for event in events:
        lesson = lessons.get(event.kind)
        if lesson is None:
            continue
        audience = event.audience
        if audience.scope == "public":
            seats: Iterable[int] = memories
        elif audience.scope == "seats":
            seats = audience.seats
        else:
            continue
        for seat in seats:
            memory = memories.get(seat)
            if memory is not None:
                lesson(memory, event.data)


def pool(aim: Aim | None, choices: tuple[int, ...], memory: Memory) -> tuple[int, ...]:
    """The choices a seat with `memory` picks among for a card of `aim`: every choice
    when no rule narrows them, or when the rule would leave none."""
    seat = memory.seat
    if aim == "hostile":
        if memory.pack:
            narrowed = [choice for choice in choices if choice not in memory.pack]
        else:
            narrowed = [choice for choice in choices if choice in memory.wolves and choice != seat]
            if not narrowed:
                open_ = [choice for choice in choices if choice not in memory.cleared and choice != seat]
                least = min((memory.trust[choice] for choice in open_), default=0)
                narrowed = [choice for choice in open_ if memory.trust[choice] == least]
    elif aim == "probe":
        known = memory.wolves | memory.cleared | memory.pack
        narrowed = [choice for choice in choices if choice not in known and choice != seat]
    elif aim == "friendly":
        narrowed = [choice for choice in choices if choice not in memory.wolves or choice in memory.pack]
    else:
        return choices
    return tuple(narrowed) or choices


def people_card(slot: Slot, memory: Memory, aims: Mapping[str, Aim], rng: Random) -> Order:
    """The card a seat that remembers `memory` writes for `slot`: the uniform bot's card
    (`bot_card`) from the choices its aim leaves it in the main field, when that field
    names seats."""
    card = slot.card
    if card is SLEEP or not card.fields or card.fields[0].refers != "seat":
        return bot_card(slot, memory.seat, rng)
    choices = slot.options[0]
    narrowed = pool(aims.get(card.kind), choices, memory)
    if narrowed is not choices:
        slot = Slot(card, (narrowed, *slot.options[1:]))
    return bot_card(slot, memory.seat, rng)


def people_cards(
    slots: Mapping[int, Slot], memories: Mapping[int, Memory], aims: Mapping[str, Aim], rng: Random
) -> dict[int, Order]:
    """`people_card` for every seat `slots` asks."""
    return {seat: people_card(slot, memories[seat], aims, rng) for seat, slot in slots.items()}
