"""Every event Lupus in Tabula emits has words: for each viewer in its audience, for the
moderator and, when public, for anyone with the public link. The events come from every
Tabula scenario of the rules catalogue and from whole bot games at several table sizes,
so a kind added to the ruleset without a template fails here."""

from __future__ import annotations

import json
from pathlib import Path
from random import Random
from typing import Any

import pytest
from django.template.loader import select_template

from tests.engine.test_scenarios import options_of
from werewolf import engine
from werewolf.engine.rulesets import tabula
from werewolf.engine.simulate import bot_orders
from werewolf.games.templatetags.werewolf import own, render_event

CATALOGUE = Path(__file__).resolve().parents[2] / "fixtures" / "scenarios" / "tabula"
NAMES = [f"Player{seat:02d}" for seat in range(tabula.MAX_PLAYERS)]
BOT_GAMES = [
    (7, {}),
    (8, {"first_night": "normal"}),
    (13, {}),
    (16, {"reveal_dead": True}),
    (21, {"first_night": "normal", "missing_wolves": "random"}),
    (24, {}),
]


def scenario_events() -> list[tuple[str, int, engine.Event]]:
    """(where, players, event) for every event of every Tabula scenario, played through."""
    found = []
    for path in sorted(CATALOGUE.glob("*.json")):
        scenario = json.loads(path.read_text())
        if "setup_error" in scenario:
            continue
        deal = {key: scenario[key] for key in ("roles", "alpha") if key in scenario} or None
        players = scenario["players"]
        state, events = engine.setup("tabula", options_of(scenario), players, scenario["seed"], deal)
        for phase in scenario["phases"]:
            orders = {int(seat): engine.Order.from_json(order) for seat, order in phase["orders"].items()}
            state, more = engine.resolve(state, orders)
            events += more
        found += [(path.stem, players, event) for event in events]
    return found


def bot_events() -> list[tuple[str, int, engine.Event]]:
    found = []
    for players, options in BOT_GAMES:
        for seed in range(6):
            rng = Random(seed)
            state, events = engine.setup("tabula", options, players, seed)
            while not state.over:
                state, more = engine.resolve(state, bot_orders(state, rng))
                events += more
            found += [(f"bots {players} {seed}", players, event) for event in events]
    return found


def viewers(event: engine.Event, players: int) -> list[engine.Viewer]:
    audience = event.audience
    if audience.scope == "public":
        return [engine.PUBLIC, engine.MODERATOR, 0, players - 1]
    if audience.scope == "moderator":
        return [engine.MODERATOR]
    return [engine.MODERATOR, *sorted(audience.seats)]


def check(text: str, where: str) -> None:
    assert text.strip(), where
    assert "{{" not in text and "{%" not in text and "}}" not in text, f"{where}: {text}"
    assert "?" not in text.replace("?”", ""), f"{where}: a seat the names do not hold: {text}"


EVENTS = scenario_events() + bot_events()
KINDS = sorted({event.kind for _, _, event in EVENTS})


def test_the_games_produce_every_tabula_kind() -> None:
    """The collection reaches every kind the rules notes name, so none goes unworded."""
    expected = {
        "alpha_passed",
        "ballot_revealed",
        "dawn_no_death",
        "game_over",
        "game_set_up",
        "killed",
        "lynched",
        "masons_met",
        "medium_saw",
        "mythomaniac_became",
        "owl_chose",
        "pack_chose",
        "pack_formed",
        "role_dealt",
        "role_set_aside",
        "ruling_frail",
        "ruling_immune",
        "ruling_owl",
        "ruling_protected",
        "seer_saw",
        "seers_met",
        "suspects_named",
        "welcome_passed",
    }
    assert expected <= set(KINDS), expected - set(KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_every_event_reads_for_everyone_who_may_see_it(kind: str) -> None:
    seen: set[str] = set()
    for where, players, event in EVENTS:
        if event.kind != kind:
            continue
        key = json.dumps([event.to_json(), players], sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        for viewer in viewers(event, players):
            for autoescape in (True, False):
                text = str(render_event(event, NAMES[:players], viewer, autoescape=autoescape, ruleset="tabula"))
                check(text, f"{where}: {kind} for {viewer}")


def test_a_night_death_does_not_say_who_killed() -> None:
    event = engine.Event("killed", {"seat": 1, "role": None}, engine.Audience.public())
    text = str(render_event(event, NAMES, engine.PUBLIC, ruleset="tabula"))
    assert text == "Dawn: Player01 was found dead."
    classic = str(render_event(event, NAMES, engine.PUBLIC, ruleset="classic"))
    assert "werewolves" in classic


def test_suspects_name_the_owl_man_s_choice() -> None:
    data = {"suspects": [3, 5], "owl": 3, "votes": [[0, 5], [1, 5], [2, 3]], "tally": [[5, 2], [3, 1]], "from": 0}
    text = str(render_event(engine.Event("suspects_named", data, engine.Audience.public()), NAMES, 0, ruleset="tabula"))
    assert "Player00 → Player05; Player01 → Player05; Player02 → Player03" in text
    assert "Player03, named by the Owl-man whatever the votes (1 vote)" in text
    assert "Player05, with the most votes of the others (2 votes)" in text
    data = {"suspects": [], "owl": None, "votes": [], "tally": [], "from": 0}
    text = str(render_event(engine.Event("suspects_named", data, engine.Audience.public()), NAMES, 0, ruleset="tabula"))
    assert "nobody voted" in text and "nobody is lynched today" in text


def test_the_ballots_are_listed_as_the_event_gives_them() -> None:
    data = {"ballots": [[0, 4], [1, 3]], "tally": [[4, 1], [3, 1]], "lynched": 4, "tie": True, "from": 2}
    text = str(
        render_event(
            engine.Event("ballot_revealed", data, engine.Audience.public()), NAMES, engine.PUBLIC, ruleset="tabula"
        )
    )
    assert "Player00 → Player04; Player01 → Player03" in text
    assert "Player04: 1, Player03: 1" in text and "broken clockwise from Player02" in text


def test_the_mythomaniac_hears_what_he_became() -> None:
    for role, words in (("wolf", "you are a werewolf now"), ("seer", "you are a Seer now"), (None, "you stay human")):
        data = {"seat": 2, "target": 4, "role": role}
        event = engine.Event("mythomaniac_became", data, engine.Audience.of(2))
        assert words in str(render_event(event, NAMES, 2, ruleset="tabula"))


def words(template: str, **context: Any) -> str:
    """The words of `template` as a Tabula game reads them (its family's, then its
    lineage's, then the shared one: `own`)."""
    return " ".join(select_template(own("tabula", template)).render(context).split())


@pytest.mark.parametrize("role", sorted(tabula.ROLES))
def test_every_role_has_a_name_and_help(role: str) -> None:
    name = words("includes/role.html", role=role)
    assert name and name != "unknown"
    game = {"ruleset": "tabula", "options": {}}
    help_text = words("includes/role_help.html", role=role, game=game)
    assert help_text
    if role not in ("villager",):
        assert help_text != words("includes/role_help.html", role="villager", game=game), role


@pytest.mark.parametrize("card", tabula.CARDS, ids=[card.kind for card in tabula.CARDS])
def test_every_card_has_words_help_and_an_example(card: engine.Card) -> None:
    slot = engine.Slot(card, ((1, 2),))
    game = {"ruleset": "tabula", "options": {}}
    help_text = words("includes/slot_help.html", slot=slot, game=game)
    assert help_text and "SLEEP, like most" not in help_text
    example = words("emails/card_example.txt", slot=slot, game=game)
    assert example.startswith(card.word), example
    label = words("includes/notecard_words.html", word="field", kind=card.kind, field="targets", ruleset="tabula")
    assert label and label != "Name", card.kind
    written = words("includes/card.html", order=engine.Order(card.kind, (1,)), names=NAMES)
    assert written == f"{card.word} Player01"
    if card.may_be_empty:
        blank = words("includes/card.html", order=engine.Order(card.kind), names=NAMES)
        assert blank == f"NO {card.word}"


def test_the_accusation_help_says_the_ghosts_vote_too() -> None:
    slot = engine.Slot(tabula.ACCUSE, ((1, 2),))
    text = words("includes/slot_help.html", slot=slot, game={"ruleset": "tabula", "options": {}})
    assert "the dead too" in text


def test_the_circle_learns_the_groups_from_private_events_only() -> None:
    """The seats whose roles a viewer's own events tell it, as Tabula declares its events:
    the pack, the Freemasons, the two Seers it belongs to; never a seat only narrowed down
    (the Seer's target), nor from an event told to everyone."""
    from werewolf.games.selectors import known_from

    seen = [
        engine.Event("pack_formed", {"pack": [1, 4]}, engine.Audience.of(1, 4)),
        engine.Event("masons_met", {"masons": [2, 6]}, engine.Audience.of(2, 6)),
        engine.Event("seers_met", {"seers": [3, 7]}, engine.Audience.of(3, 7)),
        engine.Event("mythomaniac_became", {"seat": 7, "target": 3, "role": "seer"}, engine.Audience.of(7)),
        engine.Event("alpha_passed", {"alpha": 4, "pack": [4, 9]}, engine.Audience.of(4, 9)),
        engine.Event("seer_saw", {"seat": 3, "target": 5, "wolf": True}, engine.Audience.of(3)),
        engine.Event("pack_known", {"seat": 8, "pack": [1, 4]}, engine.Audience.of(8)),
    ]

    def known(viewer: int) -> set[int]:
        return known_from("tabula", viewer, [event for event in seen if event.visible_to(viewer)])

    assert [known(seat) for seat in (1, 2, 3, 4, 5, 7, 8)] == [{1, 4}, {2, 6}, {3, 7}, {1, 4, 9}, set(), {3, 7}, set()]
    public = [engine.Event("masons_met", {"masons": [2, 6]}, engine.Audience.public())]
    assert known_from("tabula", 2, public) == set()
    assert known_from("tabula", engine.PUBLIC, seen) == set()
    assert (
        known_from("tabula", 1, [engine.Event("suspects_named", {"suspects": [1, 2]}, engine.Audience.of(1))]) == set()
    )
