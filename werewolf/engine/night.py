"""The night as an ordered pipeline of named steps.

Each step reads the night's cards and writes intents (a kill, a protection) or tells a
seat what it learnt; the `DEATHS` step alone applies the deaths, with what they trigger
(a Lover's broken heart), each once; the `JUDGE` step judges the end of the game once;
steps after it run only while the game goes on (Dark City's swap, the Mythomaniac).
A ruleset's night is a tuple of (name, step) pairs, called in that order, never a bus
of handlers with priorities.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any, Protocol

from .events import Audience, Event
from .orders import Order
from .state import State

DEATHS = "deaths"
JUDGE = "judge"

Death = tuple[int, str]
"""A seat and the cause it dies of ("killed", "shot", "heartbroken"...)."""


class Mourning(Protocol):
    """What a ruleset does with deaths; the same hooks serve the day's lynching."""

    def mourned(self, state: State, deaths: Sequence[Death]) -> list[Death]:
        """The deaths of one moment in order, each with what it triggers; every seat
        once, and only a living one."""
        ...

    def bury(self, state: State, deaths: Sequence[Death], events: list[Event]) -> State:
        """Apply and announce those deaths."""
        ...

    def judge(self, state: State, events: list[Event]) -> State:
        """End the game if someone has won."""
        ...


@dataclass(slots=True)
class Night:
    """One night being resolved: the state, the counted cards, the night's random
    source, the events so far, the kill intents in the order they apply, the seats
    protected, and `notes` one step leaves for a later one (the pack's victim)."""

    state: State
    cards: Mapping[int, Order]
    rng: Random
    events: list[Event]
    kills: list[Death] = field(default_factory=list)
    protected: set[int] = field(default_factory=set)
    notes: dict[str, Any] = field(default_factory=dict)
    by_kind: dict[str, list[tuple[int, Order]]] | None = None

    def written(self, kind: str) -> list[tuple[int, Order]]:
        """The cards of `kind`, in seat order (sorted by kind once a night)."""
        if self.by_kind is None:
            self.by_kind = {}
            for seat, card in sorted(self.cards.items()):
                self.by_kind.setdefault(card.kind, []).append((seat, card))
        return self.by_kind.get(kind, [])

    def tell(self, kind: str, data: Mapping[str, Any], audience: Audience) -> None:
        self.events.append(Event(kind, data, audience))


NightStep = Callable[[Night], None]


@dataclass(frozen=True, slots=True)
class Pipeline:
    """A ruleset's night: named steps in call order, `DEATHS` and `JUDGE` once each."""

    steps: tuple[tuple[str, NightStep | None], ...]

    def __post_init__(self) -> None:
        names = [name for name, _ in self.steps]
        if names.count(DEATHS) != 1 or names.count(JUDGE) != 1 or names.index(DEATHS) > names.index(JUDGE):
            raise ValueError("a night has one DEATHS step, then one JUDGE step")
        if len(set(names)) != len(names):
            raise ValueError("night steps are named once each")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.steps)

    def run(self, night: Night, rules: Mourning) -> State:
        judged = False
        for name, step in self.steps:
            if name == DEATHS:
                deaths = rules.mourned(night.state, [death for death in night.kills if death[0] not in night.protected])
                if not deaths:
                    night.tell("dawn_no_death", {}, Audience.public())
                night.state = rules.bury(night.state, deaths, night.events)
            elif name == JUDGE:
                night.state = rules.judge(night.state, night.events)
                judged = True
            elif judged and night.state.over:
                break
            elif step is not None:
                step(night)
        return night.state
