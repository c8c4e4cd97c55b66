"""The Lupus in Tabula family base (werewolf/engine/rulesets/tabula_family.py): both
editions derive from it, and the copies of their own state that its steps make keep
every field they do not move, so a field one edition adds is never dropped by the shared
day (the trap of a base that knows only the base's fields)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest

from werewolf.engine.rulesets import get
from werewolf.engine.rulesets.lunapiena import LunaState
from werewolf.engine.rulesets.tabula import TabulaState
from werewolf.engine.rulesets.tabula_family import TabulaFamily

MOVED = ("holder", "owl", "suspects", "lynched", "tokens")


def every_field_set(kind: type[Any]) -> Any:
    """A state of `kind` in which no field has its default."""
    values: dict[str, Any] = {
        "roles": ("wolf", "seer", "villager"),
        "pack": (0,),
        "set_aside": "villager",
        "welcome": 2,
        "lapide": 2,
        "owl": 1,
        "suspects": (1, 2),
        "lynched": 1,
        "changed": (2,),
        "spent": ("0:one_shot_kill",),
        "tokens": (("skull", "skull", 1, 2),),
    }
    return kind(**{item.name: values[item.name] for item in fields(kind)})


@pytest.mark.parametrize("ruleset", ["tabula", "lunapiena"])
def test_both_editions_derive_from_the_family(ruleset: str) -> None:
    assert isinstance(get(ruleset), TabulaFamily)


@pytest.mark.parametrize("kind", [TabulaState, LunaState])
def test_moved_keeps_every_field_it_does_not_move(kind: type[Any]) -> None:
    state = every_field_set(kind)
    assert state.moved(state.holder, state.owl, state.suspects, state.lynched, state.tokens) == state
    moved = state.moved(0, None, (), 2, ())
    assert (moved.holder, moved.owl, moved.suspects, moved.lynched, moved.tokens) == (0, None, (), 2, ())
    kept = [item.name for item in fields(kind) if item.name not in {"welcome", "lapide", *MOVED}]
    assert [getattr(moved, name) for name in kept] == [getattr(state, name) for name in kept]
    assert kind.from_json(moved.to_json()) == moved
