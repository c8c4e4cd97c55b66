"""The rulesets the engine knows, by id."""

from __future__ import annotations

from ..errors import SetupError
from ..outcome import Outcome
from .base import Advice, Capabilities, DealShape, HandPart, Ruleset
from .classic import RULESET as CLASSIC
from .lunapiena import RULESET as LUNAPIENA
from .lupusburg import GOALS_RULESET as LUPUSBURG_GOALS
from .lupusburg import RULESET as LUPUSBURG
from .tabula import RULESET as TABULA

RULESETS: dict[str, Ruleset] = {
    CLASSIC.id: CLASSIC,
    TABULA.id: TABULA,
    LUNAPIENA.id: LUNAPIENA,
    LUPUSBURG.id: LUPUSBURG,
    LUPUSBURG_GOALS.id: LUPUSBURG_GOALS,
}


def get(ruleset: str) -> Ruleset:
    try:
        return RULESETS[ruleset]
    except KeyError:
        raise SetupError("unknown_ruleset", "ruleset", ruleset) from None


__all__ = ["RULESETS", "Advice", "Capabilities", "DealShape", "HandPart", "Outcome", "Ruleset", "SetupError", "get"]
