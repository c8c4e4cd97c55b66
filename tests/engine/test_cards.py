"""The contract's shared parts, checked on their own: card schemas (what a slot offers
is accepted), the night pipeline's shape, list options, the versioned state, instant acts."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any, ClassVar

import pytest

from werewolf import engine
from werewolf.engine import cards, rulesets
from werewolf.engine.night import DEATHS, JUDGE, Pipeline
from werewolf.engine.options import parse_options
from werewolf.engine.rulesets import classic
from werewolf.engine.simulate import bot_orders
from werewolf.engine.state import Stage
from werewolf.engine.table import table

VARIANTS = [
    {},
    {"dark_city": True},
    {"cupid": True, "vigilante": True, "wolfsbane": "doorstep"},
    {"thing": True, "start": "day"},
]


def offered(slot: engine.Slot) -> list[engine.Order]:
    """Cards made of what `slot` offers: every choice alone in each field it may stand
    in alone, and runs of choices for fields that take more."""
    made = []
    main = slot.choices[:1]
    for number, (spec, choices) in enumerate(slot.pairs()):
        least = max(spec.least, 1)
        runs = [choices[start : start + least] for start in range(len(choices) - least + 1)]
        if spec.most is None:
            runs.append(choices)
        for run in runs:
            values = tuple(run)
            if number == 0:
                made.append(engine.Order(slot.kind, values))
            else:
                made.append(engine.Order(slot.kind, main, ((spec.name, values),)))
    return made


@pytest.mark.parametrize("options", VARIANTS)
def test_every_option_a_slot_offers_is_accepted(options: dict[str, Any]) -> None:
    for seed in range(6):
        state, _ = engine.setup("classic", {"seers": 1, **options}, 9, seed)
        rng = Random(seed)
        while not state.over:
            for seat, slot in engine.phase(state).slots.items():
                for card in offered(slot):
                    checked = engine.validate(state, seat, card)
                    assert isinstance(checked, engine.Order), (state.phase, seat, card, checked)
            state, _ = engine.resolve(state, bot_orders(state, rng))


def test_a_ranked_list_is_refused_for_a_repeated_name_and_pruned_at_resolution() -> None:
    state, _ = engine.setup("classic", {"seers": 1}, 7, 1, {"roles": ROLES7, "alpha": 0})
    assert engine.validate(state, 0, engine.Order("kill", (2, 2))) == engine.OrderError("repeated_name", 2)
    assert engine.validate(state, 0, engine.Order("kill", (1,))) == engine.OrderError("target_wolf", 1)
    _, events = engine.resolve(state, {0: engine.Order("kill", (1, 3)), 1: engine.Order("kill", (3,))})
    assert any(event.kind == "killed" and event.data["seat"] == 3 for event in events)


ROLES7 = ["wolf", "wolf", "seer", "villager", "villager", "villager", "villager"]


def test_a_card_schema_rejects_fields_it_does_not_have() -> None:
    state, _ = engine.setup("classic", {"seers": 1}, 7, 1, {"roles": ROLES7, "alpha": 0})
    forged = engine.Order("kill", (3,), (("swap", (4, 5)),))
    assert engine.validate(state, 0, forged) == engine.OrderError("wrong_order")


def test_a_night_has_one_deaths_step_before_one_judge_step() -> None:
    with pytest.raises(ValueError):
        Pipeline((("a", None), (JUDGE, None), (DEATHS, None)))
    with pytest.raises(ValueError):
        Pipeline((("a", None), (DEATHS, None)))
    with pytest.raises(ValueError):
        Pipeline((("a", None), ("a", None), (DEATHS, None), (JUDGE, None)))
    assert Pipeline((("a", None), (DEATHS, None), (JUDGE, None))).names == ("a", DEATHS, JUDGE)


@dataclass(frozen=True)
class ListOptions:
    specials: tuple[str, ...] = field(default=(), metadata={"choices": ("medium", "bodyguard")})


def test_a_list_option_reads_from_a_list_or_from_text() -> None:
    assert parse_options(ListOptions, {"specials": "medium, bodyguard"}, {}).specials == ("medium", "bodyguard")
    assert parse_options(ListOptions, {"specials": ["bodyguard"]}, {}).specials == ("bodyguard",)
    assert parse_options(ListOptions, {"specials": ""}, {}).specials == ()
    for bad in ("medium, owl", "medium, medium"):
        with pytest.raises(engine.SetupError) as refused:
            parse_options(ListOptions, {"specials": bad}, {})
        assert refused.value.option == "specials"


def test_a_state_saved_before_the_rulesets_own_part_still_loads() -> None:
    state, _ = engine.setup("classic", {"seers": 1, "cupid": True}, 7, 3)
    flat = {key: value for key, value in state.to_json().items() if key != "rules"}
    flat.update({key: value for key, value in state.to_json()["rules"].items() if key != "v"})
    assert engine.State.from_json(json.loads(json.dumps(flat))) == state
    assert state.to_json()["rules"]["v"] == classic.ClassicState.VERSION


def test_roles_of_gives_what_a_seat_holds() -> None:
    state, _ = engine.setup("classic", {"seers": 1}, 7, 1, {"roles": ROLES7, "alpha": 0})
    assert [engine.roles_of(state, seat) for seat in (0, 2, 3)] == [("wolf",), ("seer",), ("villager",)]


def test_a_deal_sets_the_same_table_up_again() -> None:
    state, events = engine.setup("classic", {"seers": 1, "cupid": True}, 9, 5)
    again, replayed = engine.setup("classic", {"seers": 1, "cupid": True}, 9, 77, engine.deal(state))
    assert again.rules == state.rules
    assert [event.to_json() for event in replayed] == [event.to_json() for event in events]


# A toy ruleset with one instant card: the first to grab takes a coin drawn at random.

GRAB = engine.Card("grab", "GRAB", instant=True)
TURN = Stage("turn", "day", cards="public")


@dataclass(frozen=True)
class Purse:
    VERSION: ClassVar[int] = 1
    coins: tuple[int, ...] = (1, 2, 3, 4)
    taken: tuple[tuple[int, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"coins": list(self.coins), "taken": [list(pair) for pair in self.taken]}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Purse:
        return cls(tuple(raw["coins"]), tuple((seat, coin) for seat, coin in raw["taken"]))


class Grab:
    id = "grab"
    min_players = 2
    max_players = 4
    roles = table(())
    cards = (GRAB,)
    state_type = Purse

    def options(self, raw: Mapping[str, Any], players: int) -> dict[str, Any]:
        return {}

    def setup(self, options: Mapping[str, Any], players: int, seed: int, deal: Any = None) -> Any:
        state = engine.State("grab", {}, seed, (True,) * players, (False,) * players, "day", 1, Purse())
        return state, []

    def phase(self, state: engine.State) -> engine.PhaseSpec:
        waiting = {seat for seat, _ in state.rules.taken}
        slots = {seat: engine.Slot(GRAB) for seat in range(state.seats) if seat not in waiting}
        return engine.PhaseSpec(TURN, 1, slots)

    def act(self, state: engine.State, seat: int, card: engine.Order, rng: Random) -> Any:
        coin = rng.choice(state.rules.coins)
        coins = tuple(c for c in state.rules.coins if c != coin)
        state = state.with_rules(coins=coins, taken=(*state.rules.taken, (seat, coin)))
        return state, [engine.Event("grabbed", {"seat": seat}, engine.Audience.public())]

    def bound(self, state: engine.State, spec: cards.Field) -> int:
        return state.seats

    def unasked(self, state: engine.State, seat: int) -> str:
        return "not_asked"

    def refusal(self, state: engine.State, seat: int, spec: cards.Field, value: int) -> str:
        return "not_a_choice"

    def roles_of(self, state: engine.State, seat: int) -> tuple[str, ...]:
        return ()

    def mourned(self, state: engine.State, deaths: Sequence[Any]) -> list[Any]:
        return list(deaths)


def test_instant_acts_happen_in_order_of_arrival_and_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(rulesets.RULESETS, "grab", Grab())  # type: ignore[arg-type]

    def play(order: list[int]) -> tuple[tuple[int, int], ...]:
        state, _ = engine.setup("grab", {}, 3, 42)
        for number, seat in enumerate(order, start=1):
            state, _ = engine.act(state, seat, engine.Order("grab"), number)
        return state.rules.taken

    assert play([2, 0, 1]) == play([2, 0, 1])
    assert [seat for seat, _ in play([2, 0, 1])] == [2, 0, 1]
    state, _ = engine.setup("grab", {}, 3, 42)
    state, _ = engine.act(state, 0, engine.Order("grab"), 1)
    with pytest.raises(ValueError):
        engine.act(state, 0, engine.Order("grab"), 2)  # seat 0 is no longer asked


def test_classic_has_no_instant_card() -> None:
    state, _ = engine.setup("classic", {"seers": 1}, 7, 1, {"roles": ROLES7, "alpha": 0})
    with pytest.raises(ValueError):
        engine.act(state, 3, engine.Order("sleep"), 1)
    assert not any(card.instant for card in classic.CARDS)
