"""The rulesets the engine knows, by id."""

from __future__ import annotations

from .base import Outcome, Ruleset, SetupError
from .classic import RULESET as CLASSIC

RULESETS: dict[str, Ruleset] = {CLASSIC.id: CLASSIC}


def get(ruleset: str) -> Ruleset:
    try:
        return RULESETS[ruleset]
    except KeyError:
        raise SetupError("unknown_ruleset", "ruleset", ruleset) from None


__all__ = ["RULESETS", "Outcome", "Ruleset", "SetupError", "get"]
