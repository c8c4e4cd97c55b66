"""Game options: each ruleset declares them as a dataclass; this reads them.

A field's type is `bool`, `int`, `str` or `tuple[str, ...]` (a list, such as the chosen
special characters); `choices` metadata bounds a value (or each item of a list).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from .errors import SetupError

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


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option as a form may offer it, read from the options dataclass: `kind` is
    "bool", "int", "choice" (one of `choices`), "choices" (a list of them) or "text";
    `default` is what a game takes when the option is left out, or None where the ruleset
    fills it in for the table (`for_the_table` metadata: the wolves of a classic game, the
    specials Lupus in Tabula suggests for its count); `least` bounds an "int"."""

    name: str
    kind: str
    choices: tuple[str, ...] = ()
    default: Any = None
    least: int | None = None


def describe(cls: type[Any]) -> tuple[OptionSpec, ...]:
    """Each field of the options dataclass `cls` as an `OptionSpec`, in its order."""
    specs = []
    for field in dataclasses.fields(cls):
        kind = field.type if isinstance(field.type, str) else getattr(field.type, "__name__", "")
        choices = tuple(field.metadata.get("choices", ()))
        if kind.startswith("tuple"):
            shape = "choices"
        elif kind in ("bool", "int"):
            shape = kind
        else:
            shape = "choice" if choices else "text"
        default = field.default
        if field.metadata.get("for_the_table") or default is dataclasses.MISSING:
            default = None
        specs.append(OptionSpec(field.name, shape, choices, default, field.metadata.get("least")))
    return tuple(specs)


def as_json(options: Any) -> dict[str, Any]:
    """An options dataclass as JSON values (lists for tuples)."""
    return {
        name: list(value) if isinstance(value, tuple) else value for name, value in dataclasses.asdict(options).items()
    }


def _coerce(field: dataclasses.Field[Any], value: Any) -> Any:
    kind = field.type if isinstance(field.type, str) else getattr(field.type, "__name__", "")
    choices = field.metadata.get("choices")
    try:
        if kind.startswith("tuple"):
            items = value.split(",") if isinstance(value, str) else list(value)
            value = tuple(str(item).strip() for item in items if str(item).strip())
            if choices is not None and any(item not in choices for item in value):
                raise ValueError(value)
            if len(set(value)) != len(value):
                raise ValueError(value)
            return value
        if kind == "bool":
            value = _boolean(value)
        elif kind == "int":
            if isinstance(value, bool):
                raise ValueError(value)
            value = int(value)
        else:
            value = str(value)
    except (ValueError, TypeError) as error:
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
