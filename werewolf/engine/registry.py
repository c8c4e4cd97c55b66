"""The rulesets by id: a leaf of the engine, which any module may import. Each ruleset
registers itself when its module is imported (`register`, as python-chess's variants
do); `werewolf.engine.rulesets` imports them all, and the engine's package imports that,
so every ruleset is here before anything asks. The state reads its ruleset's part
through `get` without importing any ruleset itself."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from .errors import SetupError

if TYPE_CHECKING:
    from .rulesets.base import Ruleset

R = TypeVar("R", bound="Ruleset")

RULESETS: dict[str, Ruleset] = {}
"""Every ruleset the engine knows, by id, in the order they were registered."""


def register(ruleset: R) -> R:
    """Make `ruleset` known by its id; returns it, to be kept under its module's name."""
    RULESETS[ruleset.id] = ruleset
    return ruleset


def get(ruleset: str) -> Ruleset:
    try:
        return RULESETS[ruleset]
    except KeyError:
        raise SetupError("unknown_ruleset", "ruleset", ruleset) from None
