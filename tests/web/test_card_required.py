"""A card that must name something offers no empty choice (issue 38: the Werewolf's claw
offered one, which the server then refused): each of its selects a card taken always
fills is required and opens on a disabled "choose ..."; a select that may be left empty
(a card taken as SLEEP, a vote for nobody, an optional field) keeps its empty choice.
Every card of every ruleset in the registry, judged by the engine's own check."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

from django.utils import translation

from werewolf import engine
from werewolf.games.forms import NotecardForm, card_selects, written_card

NAMES = [f"Name {seat}" for seat in range(8)]
CHOICES = (0, 1, 2)
SELECT = re.compile(r"<select name=\"(?P<name>[^\"]+)\"(?P<attrs>[^>]*)>(?P<options>.*?)</select>", re.S)
OPTION = re.compile(r"<option value=\"(?P<value>[^\"]*)\"(?P<attrs>[^>]*)>(?P<label>[^<]*)</option>")


class Referee:
    """The engine's check asks a ruleset how many houses or coins there are, and why a
    value is refused: enough of each for cards naming `CHOICES`."""

    def bound(self, state: Any, field: engine.Field) -> int:
        return len(NAMES)

    def refusal(self, state: Any, seat: int, field: engine.Field, value: int) -> str:
        return "not_a_choice"


def taken(slot: engine.Slot, values: dict[str, int | None]) -> bool:
    """Whether the engine's check takes the card the form's selects write from `values`."""
    order = written_card(slot.card, card_selects(slot), values)
    checked = engine.check(slot, order, Referee(), SimpleNamespace(seats=len(NAMES)), 0)
    return not isinstance(checked, engine.OrderError)


def every_card() -> list[tuple[str, engine.Slot]]:
    """Each card of each ruleset the registry holds, offering `CHOICES` in every field."""
    return [
        (name, engine.Slot(card, tuple(CHOICES for _ in card.fields)))
        for name, rules in engine.rulesets.RULESETS.items()
        for card in rules.cards
    ]


def test_every_select_a_card_must_fill_is_required_and_offers_no_empty_choice() -> None:
    required_seen = []
    for ruleset, slot in every_card():
        with translation.override("en"):
            form = NotecardForm(None, slot=slot, names=NAMES, seat=0, submit="hand_in", ruleset=ruleset)
            html = form.as_div()
        selects = {match["name"]: match for match in SELECT.finditer(html)}
        names = [name for _, names in card_selects(slot) for name in names]
        assert sorted(selects) == sorted(names), (ruleset, slot.kind)
        full = {name: CHOICES[index % len(CHOICES)] for index, name in enumerate(names)}
        for name in names:
            select = selects[name]
            required = " required" in select["attrs"]
            empties = [option for option in OPTION.finditer(select["options"]) if option["value"] == ""]
            assert len(empties) == 1, (ruleset, slot.kind, name)
            empty = empties[0]
            # Left empty (the others filled as a first choice each, or all empty), is the card ever taken?
            alone = {**full, name: None}
            may_be_empty = taken(slot, dict.fromkeys(names)) or taken(slot, alone)
            if may_be_empty:
                assert not required and "disabled" not in empty["attrs"], (ruleset, slot.kind, name)
                continue
            assert required, (ruleset, slot.kind, name)
            required_seen.append((ruleset, slot.kind, name))
            assert "disabled" in empty["attrs"] and empty["label"].startswith("Choose"), (ruleset, slot.kind, name)
            assert form.fields[name].widget.attrs.get("required") is True
    assert ("lupusburg", "claw", "target") in required_seen


def test_a_must_name_cards_prompt_names_what_it_asks_for_in_each_language() -> None:
    claw = next(slot for ruleset, slot in every_card() if slot.kind == "claw")
    for language, prompt in (("en", "Choose a house…"), ("it", "Scegli una casa…")):
        with translation.override(language):
            html = NotecardForm(None, slot=claw, names=NAMES, seat=0, submit="hand_in", ruleset="lupusburg").as_div()
        assert f'<option value="" selected disabled>{prompt}</option>' in html, language
