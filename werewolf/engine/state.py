"""The state of a game between two resolutions, and the step it asks cards for.

The core (`State`) is what every ruleset has: the seats alive, which seats' cards are
public, the open phase ("night", "day" or "over"), its number, the step within it and
the winner. Everything else a ruleset needs lives in its own `rules` object (roles, the
pack, houses, coins...), which writes itself to JSON and reads itself back, with a
version number so that a game saved by one release loads in the next.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal, Protocol, TypeVar

from . import registry
from .cards import Slot

PhaseKind = Literal["setup", "night", "day", "over"]
Visibility = Literal["secret", "public", "revealed"]

R = TypeVar("R", bound="RulesetState")


class RulesetState(Protocol):
    """A ruleset's own part of the state: frozen, and a lossless JSON round trip."""

    VERSION: ClassVar[int]

    def to_json(self) -> dict[str, Any]: ...

    @classmethod
    def from_json(cls: type[R], raw: Mapping[str, Any]) -> R: ...


@dataclass(frozen=True, slots=True)
class State:
    """Everything the rules need to go on, and nothing a template needs to say it.

    `alive[seat]` whether the seat lives, `revealed[seat]` whether its card is public.
    `phase` and `number` name the phase open now ("night" 1, "day" 1...), `step` the
    step within it (a Tabula day's accusation is 1, its ballot 2); `index` counts
    resolved steps. `winner` is set when the game is over. `rules` is the ruleset's own
    state."""

    ruleset: str
    options: Mapping[str, Any]
    seed: int
    alive: tuple[bool, ...]
    revealed: tuple[bool, ...]
    phase: PhaseKind
    number: int
    rules: Any
    step: int = 1
    index: int = 0
    winner: str | None = None

    @property
    def seats(self) -> int:
        return len(self.alive)

    @property
    def over(self) -> bool:
        return self.winner is not None

    def living(self) -> list[int]:
        return [seat for seat, is_alive in enumerate(self.alive) if is_alive]

    def with_death(self, seat: int, *, reveal: bool) -> State:
        alive = (*self.alive[:seat], False, *self.alive[seat + 1 :])
        revealed = self.revealed
        if reveal:
            revealed = (*revealed[:seat], True, *revealed[seat + 1 :])
        return self.evolve(alive=alive, revealed=revealed)

    def with_rules(self, **changes: Any) -> State:
        """The state with fields of the ruleset's own part changed."""
        return self.evolve(rules=replace(self.rules, **changes))

    def evolve(self, **changes: Any) -> State:
        """The state with `changes`: `dataclasses.replace`, at a fraction of its cost
        (bot games make millions of states)."""
        fields = {
            "ruleset": self.ruleset,
            "options": self.options,
            "seed": self.seed,
            "alive": self.alive,
            "revealed": self.revealed,
            "phase": self.phase,
            "number": self.number,
            "rules": self.rules,
            "step": self.step,
            "index": self.index,
            "winner": self.winner,
        }
        fields.update(changes)
        return State(**fields)

    def to_json(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "options": dict(self.options),
            "seed": self.seed,
            "alive": list(self.alive),
            "revealed": list(self.revealed),
            "phase": self.phase,
            "number": self.number,
            "step": self.step,
            "index": self.index,
            "winner": self.winner,
            "rules": {"v": self.rules.VERSION, **self.rules.to_json()},
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> State:
        """Read a state back. A state saved before the ruleset's part had its own object
        (version 1: the ruleset's fields beside the core's) reads as well."""
        rules = registry.get(raw["ruleset"]).state_type.from_json(raw.get("rules", raw))
        return cls(
            ruleset=raw["ruleset"],
            options=dict(raw["options"]),
            seed=int(raw["seed"]),
            alive=tuple(bool(x) for x in raw["alive"]),
            revealed=tuple(bool(x) for x in raw["revealed"]),
            phase=raw["phase"],
            number=int(raw["number"]),
            rules=rules,
            step=int(raw.get("step", 1)),
            index=int(raw.get("index", 0)),
            winner=raw.get("winner"),
        )


@dataclass(frozen=True, slots=True)
class Stage:
    """A named step of a phase, as data: `name` ("night", "day", "accusation",
    "ballot"), the phase it belongs to, and whether its cards are `secret` (only their
    writer and the moderator see them), `public` while it is open (a running tally) or
    `revealed` together when it resolves (a secret ballot). `decisive`: the cards may
    settle it before its deadline (a strict majority)."""

    name: str
    phase: PhaseKind
    cards: Visibility = "secret"
    decisive: bool = False


OVER = Stage("over", "over")


@dataclass(frozen=True, slots=True)
class PhaseSpec:
    """What the open step asks for: its `stage`, the phase's number, the step's number
    within the phase, and the `Slot` of each seat it asks."""

    stage: Stage
    number: int
    slots: Mapping[int, Slot]
    step: int = 1

    @property
    def kind(self) -> PhaseKind:
        return self.stage.phase

    @property
    def name(self) -> str:
        return self.stage.name

    @property
    def public_orders(self) -> bool:
        """Whether the cards handed in so far may be shown to everyone now."""
        return self.stage.cards == "public"

    def asks(self, seat: int) -> Slot | None:
        return self.slots.get(seat)
