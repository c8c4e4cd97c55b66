"""The simple rulesets' base (werewolf/engine/rulesets/simple.py): classic derives from it,
and a second, one-role ruleset written only here (a faction that kills together, a
Detective, a Doctor, the town's open vote: the shape of a minimal Mafia) plays whole games
through the engine's public calls with nothing but its cast, cards, options, deck, summary
and two night steps of its own. It is registered only while a test runs."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from random import Random
from typing import Any, ClassVar

import pytest

from werewolf import engine
from werewolf.engine import abilities, registry
from werewolf.engine.events import Audience
from werewolf.engine.night import DEATHS, JUDGE, Night, Pipeline
from werewolf.engine.options import as_json, parse_options
from werewolf.engine.rulesets import get
from werewolf.engine.rulesets.base import Capabilities
from werewolf.engine.rulesets.simple import INQUIRE, KILL, PROTECT, SHOOT, VOTE, SimpleFamily
from werewolf.engine.simulate import PEOPLE, STRATEGIES, simulate
from werewolf.engine.state import State
from werewolf.engine.table import Role, table

ID = "test-simple"
GOON, COP, MEDIC, TOWNIE, VIGILANTE, BLOCKER = "goon", "cop", "medic", "townie", "vigilante", "blocker"
TOWN, FACTION = "town", "faction"
ROLES = table(
    (
        Role(GOON, FACTION, seen_as_wolf=True, counts_as_wolf=True, pack=True, prey=False, night="kill"),
        Role(COP, TOWN, night="inquire"),
        Role(MEDIC, TOWN, night="protect"),
        Role(TOWNIE, TOWN),
        Role(VIGILANTE, TOWN, night="shoot"),
        Role(BLOCKER, TOWN, night="block"),
    )
)


@dataclass(frozen=True, slots=True)
class TownState:
    VERSION: ClassVar[int] = 1

    roles: tuple[str, ...]
    pack: tuple[int, ...] = ()
    spent: tuple[int, ...] = ()
    unmet: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "roles": list(self.roles),
            "pack": list(self.pack),
            "spent": list(self.spent),
            "unmet": list(self.unmet),
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> TownState:
        return cls(tuple(raw["roles"]), tuple(raw["pack"]), tuple(raw["spent"]), tuple(raw["unmet"]))


@dataclass(frozen=True, slots=True)
class TownOptions:
    goons: int = 2
    start: str = "night"
    day_deadline: str = "plurality"
    tie: str = "none"
    reveal_dead: bool = True
    powers: bool = False


def _cop(night: Night) -> None:
    for seat, card in night.written("inquire"):
        target = card.targets[0]
        guilty = ROLES[night.state.rules.roles[target]].seen_as_wolf
        night.tell("cop_saw", {"seat": seat, "target": target, "guilty": guilty}, Audience.of(seat))


def _medic(night: Night) -> None:
    """The Medic's patient survives the faction's kill."""
    for _, card in night.written("protect"):
        if card.targets == (night.notes["victim"],):
            night.notes["victim"] = None


class Town(SimpleFamily):
    """The test's ruleset: the base, its cast and what is its own, nothing more."""

    id = ID
    capabilities = Capabilities(family=ID)
    min_players = 5
    max_players = 15
    roles = ROLES
    cards = (KILL, INQUIRE, PROTECT, SHOOT, abilities.BLOCK, VOTE)
    state_type = TownState
    options_type = TownOptions
    SIDES = (TOWN, FACTION)
    MEET_AT_NIGHTFALL = False

    def __init__(self) -> None:
        self.night_steps = Pipeline(
            (
                ("block", abilities.roleblock),
                ("faction", self.choose_victim),
                ("cop", _cop),
                ("medic", _medic),
                ("vigilante", self.shoot_once),
                ("faction_kill", self.kill_victim),
                (DEATHS, None),
                (JUDGE, None),
            )
        )

    def options(self, raw: Mapping[str, Any], players: int) -> dict[str, Any]:
        return as_json(parse_options(TownOptions, raw, {}))

    def deck(self, options: Mapping[str, Any], players: int) -> tuple[str, ...]:
        goons: int = options["goons"]
        powers = (COP, MEDIC) + (VIGILANTE, BLOCKER) * bool(options["powers"])
        return (GOON,) * goons + powers + (TOWNIE,) * (players - goons - len(powers))

    def set_up_summary(self, options: Mapping[str, Any], players: int) -> dict[str, Any]:
        return {"players": players, "goons": options["goons"]}


TOWN_RULES = Town()
DEAL = {"roles": [GOON, COP, MEDIC, TOWNIE, TOWNIE, GOON, TOWNIE], "alpha": 5}
"""Seven seats: goons at 0 and 5 (5 leads), the Cop at 1, the Medic at 2."""


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The test's ruleset is known to the engine only while a test runs."""
    monkeypatch.setitem(registry.RULESETS, ID, TOWN_RULES)
    yield


def play(state: State, **cards: Any) -> tuple[State, list[engine.Event]]:
    """Resolve the open step with cards given as `s<seat>=(kind, targets...)`."""
    orders = {int(key[1:]): engine.Order(kind, tuple(targets)) for key, (kind, *targets) in cards.items()}
    return engine.resolve(state, orders)


def kinds(events: list[engine.Event]) -> list[str]:
    return [event.kind for event in events]


def start(**options: Any) -> tuple[State, list[engine.Event]]:
    return engine.setup(ID, options, 7, 1, deal=DEAL)


def test_classic_derives_from_the_base() -> None:
    assert isinstance(get("classic"), SimpleFamily)


def test_the_deal_tells_each_seat_its_role_and_the_faction_its_members_at_once() -> None:
    state, events = start(start="day")
    assert state.phase == "day" and state.rules.pack == (5, 0)
    assert events[0].kind == "game_set_up" and events[0].data == {"players": 7, "goons": 2}
    formed = next(event for event in events if event.kind == "pack_formed")
    assert formed.data == {"pack": [5, 0]} and formed.audience.seats == frozenset({0, 5})
    assert state.rules.unmet == ()
    assert engine.deal(state) == DEAL


def test_a_deal_that_is_not_the_deck_is_refused() -> None:
    with pytest.raises(engine.SetupError) as error:
        engine.setup(ID, {}, 7, 1, deal={"roles": [GOON] * 3 + [TOWNIE] * 4})
    assert error.value.code == "bad_roles"


def test_the_night_asks_each_power_its_card_and_the_faction_its_list() -> None:
    state, _ = start()
    slots = engine.phase(state).slots
    assert slots[0].card is KILL and slots[0].options == ((1, 2, 3, 4, 6),)
    assert slots[1].card is INQUIRE and 1 not in slots[1].options[0]
    assert slots[2].card is PROTECT and 2 in slots[2].options[0]
    assert slots[3].card.kind == "sleep"
    refused = engine.validate(state, 0, engine.Order("kill", (5,)))
    assert isinstance(refused, engine.OrderError) and refused.code == "target_wolf"


def test_the_faction_kills_together_and_the_cop_learns() -> None:
    state, _ = start()
    state, events = play(state, s0=("kill", 3), s5=("kill", 3), s1=("inquire", 0), s2=("protect", 4))
    assert not state.alive[3] and state.phase == "day" and state.number == 1
    chose = next(event for event in events if event.kind == "pack_chose")
    assert chose.data == {"victim": 3, "how": "consensus", "decided_by": None}
    saw = next(event for event in events if event.kind == "cop_saw")
    assert saw.data == {"seat": 1, "target": 0, "guilty": True} and saw.audience.seats == frozenset({1})
    assert next(event for event in events if event.kind == "killed").data == {"seat": 3, "role": TOWNIE}


def test_the_leaders_list_decides_and_the_medic_saves() -> None:
    state, _ = start()
    state, events = play(state, s0=("kill", 4), s5=("kill", 2), s2=("protect", 2))
    assert all(state.alive) and "dawn_no_death" in kinds(events)
    chose = next(event for event in events if event.kind == "pack_chose")
    assert chose.data == {"victim": 2, "how": "rank", "decided_by": 5}


def test_a_strict_majority_ends_the_day_at_once() -> None:
    state, _ = start(start="day")
    cards = {seat: engine.Order("vote", (5,)) for seat in (1, 2, 3, 4)}
    assert engine.decisive(state, cards)
    assert not engine.decisive(state, dict(list(cards.items())[:3]))
    state, events = engine.resolve(state, cards)
    ended = next(event for event in events if event.kind == "day_ended")
    assert ended.data["lynched"] == 5 and ended.data["how"] == "majority"
    assert state.phase == "night" and state.number == 1
    passed = next(event for event in events if event.kind == "alpha_passed")
    assert passed.data == {"alpha": 0, "pack": [0]}


@pytest.mark.parametrize(
    ("options", "lynched", "how"),
    [
        ({"day_deadline": "plurality"}, 4, "plurality"),
        ({"day_deadline": "no-lynch"}, None, "no_majority"),
    ],
)
def test_the_deadline_takes_the_plurality_or_nobody(options: dict[str, Any], lynched: int | None, how: str) -> None:
    state, _ = start(start="day", **options)
    state, events = play(state, s0=("vote", 4), s1=("vote", 4), s2=("vote", 0))
    ended = next(event for event in events if event.kind == "day_ended")
    assert (ended.data["lynched"], ended.data["how"]) == (lynched, how)


def test_a_tie_at_the_deadline_eliminates_nobody_or_one_drawn() -> None:
    state, _ = start(start="day")
    _, events = play(state, s0=("vote", 4), s1=("vote", 0))
    assert next(event for event in events if event.kind == "day_ended").data["how"] == "tie"
    state, _ = start(start="day", tie="random")
    state, events = play(state, s0=("vote", 4), s1=("vote", 0))
    ended = next(event for event in events if event.kind == "day_ended")
    assert ended.data["how"] == "tie_drawn" and ended.data["lynched"] in (0, 4)


def test_the_town_wins_when_the_last_goon_falls_and_the_faction_at_parity() -> None:
    state, _ = start(start="day", day_deadline="plurality")
    state, _ = play(state, s1=("vote", 5))
    state, _ = play(state, s0=("kill", 6))
    state, events = play(state, s1=("vote", 0))
    assert state.over and engine.outcome(state) == engine.rulesets.Outcome(TOWN, (1, 2, 3, 4, 6))
    assert "game_over" in kinds(events)
    state, _ = start()
    state, _ = play(state, s0=("kill", 1))
    state, _ = play(state, s0=("vote", 2), s5=("vote", 2))
    state, events = play(state, s0=("kill", 3))
    assert state.over and state.winner == FACTION
    assert engine.outcome(state) == engine.rulesets.Outcome(FACTION, (0, 5))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_bots_play_it_to_the_end(strategy: str) -> None:
    raw = {"powers": True, **({"start": "day"} if strategy == PEOPLE else {})}
    result = simulate(ID, 9, raw, 30, 4, strategy=strategy)
    assert sum(result.wins.values()) == 30 and set(result.wins) <= {TOWN, FACTION}


def test_a_game_survives_json_and_replays_from_its_seed() -> None:
    def game(seed: int) -> list[dict[str, Any]]:
        from werewolf.engine.simulate import bot_orders

        state, _ = engine.setup(ID, {}, 9, seed)
        trail = [state.to_json()]
        rng = Random(seed)
        while not state.over:
            state, events = engine.resolve(state, bot_orders(state, rng))
            assert engine.State.from_json(state.to_json()) == state
            trail.append(state.to_json())
        return trail

    assert game(5) == game(5)


POWERS = {"roles": [GOON, COP, MEDIC, VIGILANTE, BLOCKER, GOON, TOWNIE], "alpha": 5}
"""The same table with a Vigilante at 3 and a Roleblocker at 4 in place of two Townies."""


def powers() -> State:
    return engine.setup(ID, {"powers": True}, 7, 1, deal=POWERS)[0]


def test_a_roleblock_voids_its_targets_card_and_the_target_is_told() -> None:
    state, events = play(powers(), s4=("block", 1), s1=("inquire", 0), s0=("kill", 6), s5=("kill", 6))
    assert "cop_saw" not in kinds(events)
    told = next(event for event in events if event.kind == "roleblocked")
    assert told.data == {"seat": 1} and told.audience.seats == frozenset({1})
    ruling = next(event for event in events if event.kind == "ruling_roleblocked")
    assert ruling.data == {"seat": 1, "by": [4], "card": "inquire"}
    assert not state.alive[6], "the rest of the night plays as written"


def test_a_roleblocked_medic_saves_nobody() -> None:
    state, _ = play(powers(), s4=("block", 2), s2=("protect", 6), s0=("kill", 6), s5=("kill", 6))
    assert not state.alive[6]


def test_a_roleblocked_faction_member_s_list_does_not_count() -> None:
    state, events = play(powers(), s4=("block", 5), s0=("kill", 6), s5=("kill", 1))
    chose = next(event for event in events if event.kind == "pack_chose")
    assert chose.data == {"victim": 6, "how": "consensus", "decided_by": None}
    assert not state.alive[6] and state.alive[1]


def test_a_player_who_slept_learns_nothing_of_a_roleblock() -> None:
    _, events = play(powers(), s4=("block", 6), s0=("kill", 1), s5=("kill", 1))
    assert "roleblocked" not in kinds(events) and "ruling_roleblocked" not in kinds(events)


def test_roleblocks_act_together_so_two_blockers_both_block() -> None:
    state = powers()
    cards = {
        3: engine.Order("block", (4,)),
        4: engine.Order("block", (3,)),
        1: engine.Order("inquire", (0,)),
        2: engine.Order("block", (1,)),
    }
    night = Night(state, cards, Random(0), [])
    abilities.roleblock(night)
    assert sorted(night.cards) == [2, 3, 4] and [seat for seat, _ in night.written("block")] == [2, 3, 4]


def test_the_vigilante_shoots_once_and_kills_whoever_it_names() -> None:
    state, events = play(powers(), s3=("shoot", 6))
    assert not state.alive[6]
    assert next(event for event in events if event.kind == "vigilante_fired").data == {"target": 6, "hit": True}
    assert next(event for event in events if event.kind == "shot").data == {"seat": 6, "role": TOWNIE}
    state, _ = play(state)
    assert engine.phase(state).slots[3].card.kind == "sleep", "the shot is spent"
