"""Orders: what a seat writes on its notecard, and why one can be refused."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

OrderKind = Literal["sleep", "kill", "inquire", "protect", "shoot", "pair", "vote"]
ORDER_KINDS: tuple[OrderKind, ...] = ("sleep", "kill", "inquire", "protect", "shoot", "pair", "vote")


@dataclass(frozen=True, slots=True)
class Order:
    """A notecard.

    - `sleep`: no action (what a plain Villager writes at night);
    - `kill`: a wolf's preference list of victims, most wanted first, and in Dark City
      the two villagers' cards to `swap` (the list may then be empty);
    - `inquire`: the Seer's one name;
    - `protect`: the Herbalist's doorstep for the night (the Princeton wolfsbane);
    - `shoot`: the Vigilante's one shot of the game;
    - `pair`: Cupid's two Lovers, on the first night;
    - `vote`: a day vote for one seat, or no seat at all to withdraw a vote.
    """

    kind: OrderKind
    targets: tuple[int, ...] = ()
    swap: tuple[int, ...] = ()

    @property
    def target(self) -> int | None:
        return self.targets[0] if self.targets else None

    def to_json(self) -> dict[str, Any]:
        raw: dict[str, Any] = {"kind": self.kind, "targets": list(self.targets)}
        if self.swap:
            raw["swap"] = list(self.swap)
        return raw

    @classmethod
    def from_json(cls, raw: Mapping[str, Any] | Sequence[Any]) -> Order:
        """Read `{"kind": "kill", "targets": [3, 1]}` or the compact `["kill", 3, 1]`."""
        swap: Sequence[Any] = ()
        if isinstance(raw, Mapping):
            kind, targets, swap = raw["kind"], raw.get("targets", ()), raw.get("swap", ())
        else:
            kind, targets = raw[0], raw[1:]
        if kind not in ORDER_KINDS:
            raise ValueError(f"unknown order kind {kind!r}")
        return cls(kind, tuple(int(target) for target in targets), tuple(int(seat) for seat in swap))


@dataclass(frozen=True, slots=True)
class OrderError:
    """Why an order was refused: a code that templates turn into words, and the seat it
    is about, when there is one (the dead player named on a ballot, say)."""

    code: str
    target: int | None = None
