"""The engine's one exception: a game that cannot be set up as asked."""

from __future__ import annotations

from typing import Any


class SetupError(ValueError):
    """A game that cannot be set up as asked. `code` names the problem for templates;
    `option` names the option at fault, when one is."""

    def __init__(self, code: str, option: str | None = None, value: Any = None) -> None:
        super().__init__(f"{code}: {option}={value!r}" if option else code)
        self.code = code
        self.option = option
        self.value = value
