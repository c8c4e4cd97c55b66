"""Events: what happened, as data, with the audience allowed to know it.

Events never carry prose. Words come from templates, one per event kind, so every
event can be rendered in any language the project ships.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

PUBLIC: Literal["public"] = "public"
MODERATOR: Literal["moderator"] = "moderator"

Viewer = int | Literal["public", "moderator"]
"""Who looks: a seat number, anyone with the public link, or the moderator."""


@dataclass(frozen=True, slots=True)
class Audience:
    """Who may know an event: everyone, the moderator only, or a set of seats.

    The moderator is in every audience.
    """

    scope: Literal["public", "moderator", "seats"]
    seats: frozenset[int] = field(default_factory=frozenset)

    @classmethod
    def public(cls) -> Audience:
        return _PUBLIC

    @classmethod
    def moderator(cls) -> Audience:
        return _MODERATOR

    @classmethod
    def of(cls, *seats: int) -> Audience:
        return cls("seats", frozenset(seats))

    def admits(self, viewer: Viewer) -> bool:
        if viewer == MODERATOR or self.scope == PUBLIC:
            return True
        if self.scope == "seats":
            return viewer in self.seats
        return False

    def to_json(self) -> str | list[int]:
        if self.scope == "seats":
            return sorted(self.seats)
        return self.scope

    @classmethod
    def from_json(cls, raw: str | list[int]) -> Audience:
        if raw == PUBLIC:
            return _PUBLIC
        if raw == MODERATOR:
            return _MODERATOR
        if isinstance(raw, list):
            return cls("seats", frozenset(int(seat) for seat in raw))
        raise ValueError(f"unknown audience {raw!r}")


_PUBLIC = Audience(PUBLIC)
_MODERATOR = Audience(MODERATOR)


@dataclass(frozen=True, slots=True)
class Event:
    """One consequence of a setup or a resolution.

    `data` holds only JSON values (ints, strings, booleans, None, lists and dicts with
    string keys), so an event survives a trip through the database unchanged.
    """

    kind: str
    data: Mapping[str, Any]
    audience: Audience

    def visible_to(self, viewer: Viewer) -> bool:
        return self.audience.admits(viewer)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "data": dict(self.data), "audience": self.audience.to_json()}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Event:
        return cls(raw["kind"], dict(raw["data"]), Audience.from_json(raw["audience"]))


ENGINE_EVENTS: Mapping[str, tuple[str, ...]] = {"card_discarded": (), "card_missing": ()}
"""The kinds of event the engine itself writes in any ruleset's game (a card set aside
for the moderator, a seat that handed in none), as a ruleset declares its own
(`Ruleset.events`): they tell no role."""
