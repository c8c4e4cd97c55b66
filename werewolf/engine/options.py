"""Game options: each ruleset declares them as a dataclass; this reads them.

A field's type is `bool`, `int`, `str` or `tuple[str, ...]` (a list, such as the chosen
special characters); `choices` metadata bounds a value (or each item of a list). A field
made by `option` also carries how a form offers it: its label, its help and its choices'
labels, as message ids the web side translates (the engine shows no words itself).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
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


def gettext_noop(message: str) -> str:
    """Mark `message` for the translation catalogue (Django's makemessages finds this
    name) and return it as it is: the web side translates it when it shows it."""
    return message


def option(
    default: Any = dataclasses.MISSING,
    *,
    label: str,
    help: str = "",
    choices: Mapping[str, str] | None = None,
    least: int | None = None,
    suggested: Mapping[str, int] | None = None,
    for_the_table: str = "",
    for_the_table_help: str = "",
) -> Any:
    """A field of an options dataclass with what a form needs to offer it: `label` and
    `help`, and `choices` as {value: label}. `for_the_table` (the words of a form's "the
    rulebook's choice" box) marks an option the ruleset fills in for the table's count
    when the organiser leaves it out; `suggested` gives the least players the rulebook
    suggests for each choice of a list."""
    metadata: dict[str, Any] = {"label": label, "help": help}
    if choices is not None:
        metadata["choices"] = tuple(choices)
        metadata["labels"] = tuple(choices.values())
    if least is not None:
        metadata["least"] = least
    if suggested is not None:
        metadata["suggested"] = dict(suggested)
    if for_the_table:
        metadata["for_the_table"] = True
        metadata["table_label"] = for_the_table
        metadata["table_help"] = for_the_table_help
    if default is dataclasses.MISSING:
        return field(metadata=metadata)
    if isinstance(default, (list, tuple)):
        return field(default=tuple(default), metadata=metadata)
    return field(default=default, metadata=metadata)


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option as a form may offer it, read from the options dataclass: `kind` is
    "bool", "int", "choice" (one of `choices`), "choices" (a list of them), "text" or
    "characters" (the organiser's own characters to tick); `default` is what a game takes
    when the option is left out, or None where the ruleset fills it in for the table (the
    wolves of a classic game, the specials Lupus in Tabula suggests for its count), which
    a form may offer as a box (`table_label`, `table_help`) or as an empty field; `least`
    bounds an "int"; `suggested` gives the least players suggested for each choice.
    `label`, `help`, `labels` (one per choice) and the table's words are message ids."""

    name: str
    kind: str
    choices: tuple[str, ...] = ()
    default: Any = None
    least: int | None = None
    label: str = ""
    help: str = ""
    labels: tuple[str, ...] = ()
    suggested: Mapping[str, int] = field(default_factory=dict)
    table_label: str = ""
    table_help: str = ""

    @property
    def for_the_table(self) -> bool:
        """Whether the ruleset fills this option in for the table when it is left out."""
        return self.default is None


def describe(cls: type[Any]) -> tuple[OptionSpec, ...]:
    """Each field of the options dataclass `cls` as an `OptionSpec`, in its order."""
    specs = []
    for item in dataclasses.fields(cls):
        kind = item.type if isinstance(item.type, str) else getattr(item.type, "__name__", "")
        meta = item.metadata
        choices = tuple(meta.get("choices", ()))
        if kind.startswith("tuple"):
            shape = "choices"
        elif kind in ("bool", "int"):
            shape = kind
        else:
            shape = "choice" if choices else "text"
        default = item.default
        if meta.get("for_the_table") or default is dataclasses.MISSING:
            default = None
        specs.append(
            OptionSpec(
                item.name,
                shape,
                choices,
                default,
                meta.get("least"),
                label=meta.get("label", ""),
                help=meta.get("help", ""),
                labels=tuple(meta.get("labels", ())),
                suggested=dict(meta.get("suggested", {})),
                table_label=meta.get("table_label", ""),
                table_help=meta.get("table_help", ""),
            )
        )
    return tuple(specs)


def as_json(options: Any) -> dict[str, Any]:
    """An options dataclass as JSON values (lists for tuples)."""
    return {
        name: list(value) if isinstance(value, tuple) else value for name, value in dataclasses.asdict(options).items()
    }


def _coerce(item: dataclasses.Field[Any], value: Any) -> Any:
    kind = item.type if isinstance(item.type, str) else getattr(item.type, "__name__", "")
    choices = item.metadata.get("choices")
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
        raise SetupError("bad_option_value", item.name, value) from error
    if choices is not None and value not in choices:
        raise SetupError("bad_option_value", item.name, value)
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
