"""The rules engine: pure Python, no Django, deterministic for a seed.

The contract (see docs/architecture.md):

- `setup(ruleset, options, players, seed)` -> `(State, [Event])`
- `phase(state)` -> `PhaseSpec`: the open phase and the order it asks of each seat
- `validate(state, seat, order)` -> `Order | OrderError`
- `resolve(state, orders, rng=None)` -> `(State, [Event])`
- `outcome(state)` -> `Outcome | None`

State, orders and events serialize to JSON and back without loss.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from random import Random
from typing import Any

from . import rulesets
from .events import MODERATOR, PUBLIC, Audience, Event, Viewer
from .orders import Order, OrderError
from .random import phase_rng
from .rulesets import Outcome, SetupError
from .state import PhaseSpec, Slot, State


def options(ruleset: str, raw: Mapping[str, Any], players: int) -> dict[str, Any]:
    """Check `raw` options for a table of `players` and fill in the defaults."""
    return dict(rulesets.get(ruleset).options(raw, players))


def setup(
    ruleset: str,
    raw_options: Mapping[str, Any],
    players: int,
    seed: int,
    roles: Sequence[str] | None = None,
    alpha: int | None = None,
) -> tuple[State, list[Event]]:
    rules = rulesets.get(ruleset)
    return rules.setup(rules.options(raw_options, players), players, seed, roles, alpha)


def phase(state: State) -> PhaseSpec:
    return rulesets.get(state.ruleset).phase(state)


def validate(state: State, seat: int, order: Order) -> Order | OrderError:
    return rulesets.get(state.ruleset).validate(state, seat, order)


def resolve(state: State, orders: Mapping[int, Order], rng: Random | None = None) -> tuple[State, list[Event]]:
    """Resolve the open phase. Without `rng`, the phase's own seeded source is used, so
    that a game replays from its setup and orders alone."""
    if rng is None:
        rng = phase_rng(state.seed, state.index)
    return rulesets.get(state.ruleset).resolve(state, orders, rng)


def outcome(state: State) -> Outcome | None:
    return rulesets.get(state.ruleset).outcome(state)


def all_in(state: State, orders: Mapping[int, Order]) -> bool:
    """Whether every seat the open phase asks has handed in an order."""
    spec = phase(state)
    return bool(spec.slots) and all(seat in orders for seat in spec.slots)


def decisive(state: State, orders: Mapping[int, Order]) -> bool:
    """Whether the orders already decide the phase before its deadline (in classic, a
    day vote that reached a strict majority): the ruleset says."""
    return rulesets.get(state.ruleset).decisive(state, orders)


__all__ = [
    "MODERATOR",
    "PUBLIC",
    "Audience",
    "Event",
    "Order",
    "OrderError",
    "Outcome",
    "PhaseSpec",
    "SetupError",
    "Slot",
    "State",
    "Viewer",
    "all_in",
    "decisive",
    "options",
    "outcome",
    "phase",
    "resolve",
    "setup",
    "validate",
]
