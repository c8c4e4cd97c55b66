"""Talk: which channels a game has now, who reads each and who may write in it.

A channel is a group's place to talk: the town square (everyone), the pack's den (the
wolves), the ghosts' corner (the dead) and whatever private group a ruleset has (the
Lovers, the Freemasons' lodge). Who belongs to which comes from the game's state and the
ruleset's table, never from the views: a ruleset may define `channels(state)` itself,
usually by calling `standard` with its own groups and hours.

`refusal` says why a seat may not write in a channel, as a code the templates word; a
channel the seat cannot read is "no_channel", whether it exists or not, so that a refusal
never tells a seat that a group it is not in exists.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from . import registry
from .state import State

SQUARE = "square"
DEN = "den"
GHOSTS = "ghosts"
MAX_POST = 2000
"""The longest post, in characters: a few paragraphs."""


@dataclass(frozen=True, slots=True)
class Channel:
    """A place to talk. `readers` see every post; `writers` may post now (a subset of
    the readers); `closed` names why a living reader who is not a writer may not (a
    code: "den_closed"...); a dead one is told "dead"."""

    name: str
    readers: frozenset[int]
    writers: frozenset[int]
    closed: str = ""


def channels(state: State) -> tuple[Channel, ...]:
    """The game's channels now, from the ruleset (or the standard three)."""
    return registry.get(state.ruleset).channels(state)


def standard(
    state: State,
    *,
    groups: Mapping[str, Sequence[int]] | None = None,
    den_open: bool = True,
    pack: Sequence[int] | None = None,
) -> tuple[Channel, ...]:
    """The square (all read, the living write), the den (every seat holding a pack role
    reads, the living ones write while `den_open`), each of `groups` (its members read,
    the living ones write) and the ghosts' corner (the dead read and write; nothing there
    reaches the living). A group with fewer than two members has no channel. `pack`:
    the den's members, where the ruleset's role table alone cannot say (characters an
    organiser built)."""
    rules = registry.get(state.ruleset)
    seats = range(state.seats)
    living = frozenset(seat for seat in seats if state.alive[seat])
    everyone = frozenset(seats)
    den = frozenset(
        pack
        if pack is not None
        else (seat for seat in seats if any(rules.roles[role].pack for role in rules.roles_of(state, seat) if role))
    )
    # Once the game is over, everyone may talk in the square, the dead too.
    found = [Channel(SQUARE, everyone, everyone if state.over else living)]
    if len(den) > 1:
        found.append(Channel(DEN, den, den & living if den_open else frozenset(), "den_closed"))
    for name, members in (groups or {}).items():
        group = frozenset(members)
        if len(group) > 1:
            found.append(Channel(name, group, group & living))
    dead = everyone - living
    if dead:
        found.append(Channel(GHOSTS, dead, dead))
    return tuple(found)


def readable(state: State, seat: int) -> tuple[Channel, ...]:
    """The channels `seat` reads."""
    return tuple(channel for channel in channels(state) if seat in channel.readers)


def refusal(state: State, seat: int | None, name: str, text: str) -> str | None:
    """Why `seat` may not post `text` in channel `name` now (None: it may). The
    moderator (`seat` None) may post in every channel that exists."""
    found = next((channel for channel in channels(state) if channel.name == name), None)
    if found is None or (seat is not None and seat not in found.readers):
        return "no_channel"
    if not text.strip():
        return "post_empty"
    if len(text) > MAX_POST:
        return "post_too_long"
    if seat is not None and seat not in found.writers:
        return "dead" if not state.alive[seat] else found.closed or "no_channel"
    return None
