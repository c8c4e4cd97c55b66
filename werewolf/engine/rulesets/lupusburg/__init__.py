"""Lupusburg, both editions: `lupusburg` (2010, coins drawn from a bag) and
`lupusburg-goals` (2009, secret goals, a coin stack and the Chimney Sweeper).
docs/rules.md, section "Lupusburg", gives the readings chosen for written play."""

from __future__ import annotations

from ...registry import register
from .rules import Lupusburg
from .state import LupusburgOptions, LupusburgState
from .table import BAG, GOALS, ROLES

RULESET = register(Lupusburg(BAG))
GOALS_RULESET = register(Lupusburg(GOALS))

__all__ = ["GOALS_RULESET", "RULESET", "ROLES", "Lupusburg", "LupusburgOptions", "LupusburgState"]
