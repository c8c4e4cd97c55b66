"""What every ruleset provides, and the option parsing they share."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, Protocol, TypeVar

from ..events import Event
from ..orders import Order, OrderError
from ..state import PhaseSpec, State


class SetupError(ValueError):
    """A game that cannot be set up as asked. `code` names the problem for templates;
    `option` names the option at fault, when one is."""

    def __init__(self, code: str, option: str | None = None, value: Any = None) -> None:
        super().__init__(f"{code}: {option}={value!r}" if option else code)
        self.code = code
        self.option = option
        self.value = value


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: the winning side and the seats on it, dead ones included."""

    winner: str
    winners: tuple[int, ...]


class Ruleset(Protocol):
    id: str
    min_players: int
    max_players: int

    def options(self, raw: Mapping[str, Any], players: int) -> Mapping[str, Any]: ...

    def setup(
        self,
        options: Mapping[str, Any],
        players: int,
        seed: int,
        roles: Sequence[str] | None = None,
        alpha: int | None = None,
    ) -> tuple[State, list[Event]]: ...

    def phase(self, state: State) -> PhaseSpec: ...

    def validate(self, state: State, seat: int, order: Order) -> Order | OrderError: ...

    def resolve(self, state: State, orders: Mapping[int, Order], rng: Random) -> tuple[State, list[Event]]: ...

    def outcome(self, state: State) -> Outcome | None: ...

    def decisive(self, state: State, orders: Mapping[int, Order]) -> bool: ...

    def bot_orders(self, state: State, rng: Random) -> dict[int, Order]: ...


T = TypeVar("T")


def parse_options(cls: type[T], raw: Mapping[str, Any], defaults: Mapping[str, Any]) -> T:
    """Build the options dataclass `cls` from `raw` (strings or native values).

    Unknown names and values outside a field's `choices` metadata raise `SetupError`.
    `defaults` fills what `raw` leaves out before the dataclass's own defaults.
    """
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for name, value in {**defaults, **raw}.items():
        if name not in fields:
            raise SetupError("unknown_option", name, value)
        values[name] = _coerce(fields[name], value)
    try:
        return cls(**values)
    except TypeError as error:
        raise SetupError("missing_option", str(error)) from error


def _coerce(field: dataclasses.Field[Any], value: Any) -> Any:
    kind = field.type if isinstance(field.type, str) else getattr(field.type, "__name__", "")
    choices = field.metadata.get("choices")
    try:
        if kind == "bool":
            value = _boolean(value)
        elif kind == "int":
            if isinstance(value, bool):
                raise ValueError(value)
            value = int(value)
        else:
            value = str(value)
    except ValueError as error:
        raise SetupError("bad_option_value", field.name, value) from error
    if choices is not None and value not in choices:
        raise SetupError("bad_option_value", field.name, value)
    return value


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(value)
