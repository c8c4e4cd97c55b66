"""Orders: what a seat writes on its notecard, and why one can be refused.

An order is a card kind and the values written in its fields, each field a tuple of
numbers whose meaning the card's schema gives (a seat, a house, a character, a token;
see `cards.py`). The main field is `targets`; the others are named (`swap` on a Dark
City wolf's card). Which kinds exist is each ruleset's business, not this module's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TARGETS = "targets"


@dataclass(frozen=True, slots=True)
class Order:
    """A notecard: `kind` ("sleep", "kill", "vote", ...), the main field's values in
    `targets` (a wolf's list is ranked, most wanted first) and the other fields in
    `more`, as (name, values) pairs in the schema's order."""

    kind: str
    targets: tuple[int, ...] = ()
    more: tuple[tuple[str, tuple[int, ...]], ...] = ()

    @property
    def target(self) -> int | None:
        return self.targets[0] if self.targets else None

    def field(self, name: str) -> tuple[int, ...]:
        """The values written in field `name` (none when it was left blank)."""
        if name == TARGETS:
            return self.targets
        for field, values in self.more:
            if field == name:
                return values
        return ()

    @property
    def fields(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """Every field written, the main one first."""
        return ((TARGETS, self.targets), *self.more)

    def to_json(self) -> dict[str, Any]:
        raw: dict[str, Any] = {"kind": self.kind, TARGETS: list(self.targets)}
        for name, values in self.more:
            raw[name] = list(values)
        return raw

    @classmethod
    def from_json(cls, raw: Mapping[str, Any] | Sequence[Any]) -> Order:
        """Read `{"kind": "kill", "targets": [3, 1], "swap": [4, 5]}` or the compact
        `["kill", 3, 1]`. Any key beside `kind` and `targets` is a named field."""
        if isinstance(raw, Mapping):
            kind = raw["kind"]
            targets = raw.get(TARGETS, ())
            more = tuple(
                (str(name), tuple(int(value) for value in values))
                for name, values in raw.items()
                if name not in ("kind", TARGETS) and values
            )
        else:
            kind, targets, more = raw[0], raw[1:], ()
        if not isinstance(kind, str) or not kind:
            raise ValueError(f"bad order kind {kind!r}")
        return cls(kind, tuple(int(target) for target in targets), more)


@dataclass(frozen=True, slots=True)
class OrderError:
    """Why an order was refused: a code that templates turn into words, and the value
    it is about, when there is one (the dead player named on a ballot, say)."""

    code: str
    target: int | None = None
