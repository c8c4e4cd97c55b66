"""What the web side asks of a ruleset by name (issue 30): its capabilities, and the order
in which lists offer the rulesets."""

from __future__ import annotations

from werewolf import engine
from werewolf.engine import rulesets


def test_every_ruleset_is_listed_once_by_its_familys_rank_then_by_id() -> None:
    listed = engine.listed()
    assert sorted(listed) == sorted(rulesets.RULESETS)
    ranks = [(engine.capabilities(ruleset).rank, ruleset) for ruleset in listed]
    assert ranks == sorted(ranks)


def test_the_editions_of_a_family_share_its_capabilities_and_stand_together() -> None:
    listed = engine.listed()
    families = [engine.capabilities(ruleset).family for ruleset in listed]
    for family in set(families):
        places = [number for number, one in enumerate(families) if one == family]
        assert places == list(range(places[0], places[-1] + 1)), family


def test_a_typical_table_is_one_the_ruleset_can_seat() -> None:
    for ruleset in engine.listed():
        rules = rulesets.get(ruleset)
        typical = rules.capabilities.typical_table or rules.min_players
        assert rules.min_players <= typical <= rules.max_players, ruleset
