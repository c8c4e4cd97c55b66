"""The state of a game between two resolutions, and the phase it asks orders for."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from .orders import OrderKind

PhaseKind = Literal["night", "day", "over"]


@dataclass(frozen=True, slots=True)
class State:
    """Everything the rules need to go on, and nothing a template needs to say it.

    `roles[seat]` is the seat's role, `alive[seat]` whether it lives, `revealed[seat]`
    whether its role is public. `phase` and `number` name the phase that is open now
    ("night" 1, "day" 1, ...); `index` counts resolved phases. `pack` is the wolves in
    order of succession, the alpha first; `spent` the seats that have used a
    once-a-game power; `lovers` the two seats Cupid paired; `unmet` the wolves who have
    not met the pack yet (every wolf before the first night of a day-first game, a "Thing"
    convert until the next nightfall); `step` counts the votes of the open day ("Thing"
    days hold several) and `innocents` the tests of the open day that found no werewolf;
    `winner` is set when the game is over.
    """

    ruleset: str
    options: Mapping[str, Any]
    seed: int
    roles: tuple[str, ...]
    alive: tuple[bool, ...]
    revealed: tuple[bool, ...]
    phase: PhaseKind
    number: int
    index: int = 0
    pack: tuple[int, ...] = ()
    spent: tuple[int, ...] = ()
    lovers: tuple[int, ...] = ()
    unmet: tuple[int, ...] = ()
    step: int = 1
    innocents: int = 0
    winner: str | None = None

    @property
    def seats(self) -> int:
        return len(self.roles)

    @property
    def over(self) -> bool:
        return self.winner is not None

    def living(self) -> list[int]:
        return [seat for seat, is_alive in enumerate(self.alive) if is_alive]

    def with_death(self, seat: int, *, reveal: bool) -> State:
        alive = list(self.alive)
        alive[seat] = False
        revealed = self.revealed
        if reveal:
            revealed = tuple(True if i == seat else shown for i, shown in enumerate(revealed))
        return replace(self, alive=tuple(alive), revealed=revealed)

    def to_json(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "options": dict(self.options),
            "seed": self.seed,
            "roles": list(self.roles),
            "alive": list(self.alive),
            "revealed": list(self.revealed),
            "phase": self.phase,
            "number": self.number,
            "index": self.index,
            "pack": list(self.pack),
            "spent": list(self.spent),
            "lovers": list(self.lovers),
            "unmet": list(self.unmet),
            "step": self.step,
            "innocents": self.innocents,
            "winner": self.winner,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> State:
        return cls(
            ruleset=raw["ruleset"],
            options=dict(raw["options"]),
            seed=int(raw["seed"]),
            roles=tuple(raw["roles"]),
            alive=tuple(bool(x) for x in raw["alive"]),
            revealed=tuple(bool(x) for x in raw["revealed"]),
            phase=raw["phase"],
            number=int(raw["number"]),
            index=int(raw.get("index", 0)),
            pack=tuple(int(x) for x in raw.get("pack", ())),
            spent=tuple(int(x) for x in raw.get("spent", ())),
            lovers=tuple(int(x) for x in raw.get("lovers", ())),
            unmet=tuple(int(x) for x in raw.get("unmet", ())),
            step=int(raw.get("step", 1)),
            innocents=int(raw.get("innocents", 0)),
            winner=raw.get("winner"),
        )


@dataclass(frozen=True, slots=True)
class Slot:
    """The order a phase asks of one seat: its kind and the seats it may name.

    `ranked` slots take a preference list (one or more distinct names, best first);
    `swap` slots may also name two of the `choices` whose cards change hands (Dark City).
    """

    kind: OrderKind
    choices: tuple[int, ...] = ()
    ranked: bool = False
    swap: bool = False


@dataclass(frozen=True, slots=True)
class PhaseSpec:
    """What the open phase asks for. `public_orders` says whether the orders given so far
    may be shown to everyone (a day's running tally) or to nobody but their writer.
    `step` numbers the votes within one day (only "Thing" days have more than one)."""

    kind: PhaseKind
    number: int
    slots: Mapping[int, Slot]
    public_orders: bool = False
    step: int = 1

    def asks(self, seat: int) -> Slot | None:
        return self.slots.get(seat)
