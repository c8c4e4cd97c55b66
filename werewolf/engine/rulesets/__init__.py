"""The rulesets the engine knows, by id: importing this package imports each ruleset,
which registers itself (`werewolf.engine.registry`)."""

from __future__ import annotations

from ..errors import SetupError
from ..outcome import Outcome
from ..registry import RULESETS, get
from .base import Advice, BetSeen, Capabilities, DealShape, EventKinds, HandPart, HouseSeen, Ring, Ruleset
from .classic import RULESET as CLASSIC
from .lunapiena import RULESET as LUNAPIENA
from .lupusburg import GOALS_RULESET as LUPUSBURG_GOALS
from .lupusburg import RULESET as LUPUSBURG
from .mafia import RULESET as MAFIA
from .tabula import RULESET as TABULA

assert set(RULESETS) >= {ruleset.id for ruleset in (CLASSIC, TABULA, LUNAPIENA, LUPUSBURG, LUPUSBURG_GOALS, MAFIA)}


__all__ = [
    "RULESETS",
    "Advice",
    "BetSeen",
    "Capabilities",
    "EventKinds",
    "DealShape",
    "HandPart",
    "HouseSeen",
    "Outcome",
    "Ring",
    "Ruleset",
    "SetupError",
    "get",
]
