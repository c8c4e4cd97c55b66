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


def test_a_ruleset_without_houses_shows_no_ring() -> None:
    state, _ = engine.setup("classic", {}, 7, seed=1)
    assert engine.ring(state, 0, ()) is None


def test_a_seat_sees_its_own_houses_what_was_shown_to_it_and_everything_at_the_end() -> None:
    state, _ = engine.setup("lupusburg", {}, 5, seed=3)
    everything = engine.ring(state, engine.MODERATOR, ())
    assert everything is not None and all(house.character for house in everything.houses)
    mine = engine.ring(state, 1, ())
    assert mine is not None
    assert {house.number for house in mine.houses if house.character} == {2, 3}
    assert [house.character for house in mine.houses if house.seat == 1] == list(engine.roles_of(state, 1))
    assert mine.ruling in engine.roles_of(state, 1)
    shown = engine.ring(state, 1, [("character_shown", {"house": 6, "role": everything.houses[6].character})])
    assert shown is not None and shown.houses[6].character == everything.houses[6].character
    assert engine.ring(state, engine.PUBLIC, ()).ruling is None  # type: ignore[union-attr]


def test_a_paper_pack_and_score_parts_are_what_the_capabilities_promise() -> None:
    for ruleset in engine.listed():
        capabilities = engine.capabilities(ruleset)
        assert bool(engine.paper_pack(ruleset, 6 if capabilities.houses else 9)) == capabilities.paper_pack, ruleset
        assert bool(engine.score_parts(ruleset)) == capabilities.scores, ruleset
    assert engine.score_parts("lupusburg-goals") == (*engine.score_parts("lupusburg"), "goal")
    pieces = [kind for kind, _value in engine.paper_pack("lupusburg", 5)]
    assert pieces.count("seal") == 5 and pieces.count("house") == 5 and "sweeper" not in pieces


def test_the_options_a_form_may_offer_are_those_the_ruleset_reads_with_their_defaults() -> None:
    for ruleset in engine.listed():
        rules = rulesets.get(ruleset)
        players = rules.capabilities.typical_table or rules.min_players
        filled = engine.options(ruleset, {}, players)
        specs = engine.option_specs(ruleset)
        apart = {spec.name for spec in rules.extra_options}  # read beside the dataclass
        assert apart <= {"characters", "cards"}, ruleset
        assert {spec.name for spec in specs} - apart == set(filled) - apart, ruleset
        for spec in specs:
            if spec.default is not None and spec.name not in apart:
                assert filled[spec.name] == spec.default, (ruleset, spec.name)
            if spec.kind == "choice":
                assert filled[spec.name] in spec.choices, (ruleset, spec.name)


def test_an_option_the_ruleset_fills_for_the_table_has_no_default_of_its_own() -> None:
    classic = {spec.name: spec for spec in engine.option_specs("classic")}
    assert classic["wolves"].default is None and classic["wolves"].least == 1
    assert classic["seers"].default == 1 and classic["seers"].least == 0
    tabula = {spec.name: spec for spec in engine.option_specs("tabula")}
    assert tabula["specials"].kind == "choices" and tabula["specials"].default is None


def test_each_option_carries_the_words_a_form_offers_it_with() -> None:
    """Every option of every ruleset has a label, and each choice its label, as message ids
    (the catalogue holds their Italian); an option filled in for the table by a box says
    what the box means."""
    for ruleset in engine.listed():
        for spec in engine.option_specs(ruleset):
            assert spec.label, (ruleset, spec.name)
            assert len(spec.labels) == len(spec.choices), (ruleset, spec.name)
            assert not spec.table_label or spec.for_the_table, (ruleset, spec.name)
            assert set(spec.suggested) <= set(spec.choices), (ruleset, spec.name)
        for timing in engine.capabilities(ruleset).timings:
            assert timing.label and timing.steps, (ruleset, timing.name)
