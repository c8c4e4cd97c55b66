"""Lupus in Tabula, Luna Piena edition (`lunapiena`): characters made of ability blocks."""

from .rules import RULESET, LunaPiena, LunaState, cast_of

__all__ = ["RULESET", "LunaPiena", "LunaState", "cast_of"]
