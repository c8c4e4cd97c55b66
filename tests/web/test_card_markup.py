"""A card form's selects are written by the project's own templates (`forms.CardSelect`,
games/widgets/card_field.html), cheaper than Django's and crispy's, which test each
field for every kind of widget and include a template for each option (issue 11: a
third of what a seat's page cost). The markup a player's browser and assistive
technology read is the same as theirs: labels, ids, options, the selected value,
errors and their ids, for every card of every ruleset."""

from __future__ import annotations

import re

import pytest
from django import forms
from django.http import QueryDict
from django.template import engines

from tests.web.play import ruleset_of
from werewolf.games.forms import CardSelect, NotecardForm, SeatField

from .test_card_form_reading import slots_met

NAMES = [f"Name {seat} & <{seat}>" for seat in range(12)]
CRISPY = engines["django"].from_string("{% load crispy_forms_tags %}{% crispy form %}")


def rendered(form: NotecardForm, *, stock: bool) -> str:
    """The form as its page shows it; `stock`: by Django's select and crispy's field, the
    prompt of a required select (forms.NotecardForm) disabled as ours writes it, which
    Django's select cannot say of one option."""
    if stock:
        form.helper.field_template = None
        for field in form.fields.values():
            if isinstance(field, SeatField):
                field.widget = forms.Select(attrs=field.widget.attrs, choices=field.choices)
    html = CRISPY.render({"form": form})
    if stock:
        html = re.sub(r'(<select [^>]*\brequired\b[^>]*>\s*<option value=""(?: selected)?)', r"\1 disabled", html)
    html = html.replace("cardselect form-select", "select form-select")  # crispy names the widget's class
    return re.sub(r"\s+", " ", re.sub(r">\s+<", "><", html)).replace("> ", ">").replace(" <", "<").strip()


def forms_of(slot, data: QueryDict | None) -> tuple[NotecardForm, NotecardForm]:
    return tuple(  # type: ignore[return-value]
        NotecardForm(
            data, slot=slot, names=NAMES, seat=0, initial={"phase": 3}, submit="hand_in", ruleset=ruleset_of(slot)
        )
        for _ in range(2)
    )


@pytest.mark.parametrize("slot", slots_met(), ids=lambda slot: f"{slot.kind}")
def test_a_card_form_reads_as_djangos_and_crispys_would_write_it(slot) -> None:
    # Unbound (what a page shows first), bound with a choice, and bound with values
    # the form refuses (its errors and their ids).
    for data in (None, QueryDict("phase=3"), QueryDict("phase=3&target=x&target_1=x&target_2=1&swap_1=-1")):
        ours, stock = forms_of(slot, data)
        if data is not None:
            ours.is_valid(), stock.is_valid()
        assert rendered(ours, stock=False) == rendered(stock, stock=True)


def test_a_refused_cards_selects_point_at_the_refusal() -> None:
    slot = next(slot for slot in slots_met() if slot.card.fields)
    form = forms_of(slot, None)[0]
    form.refused("card-error")
    html = rendered(form, stock=False)
    assert 'aria-invalid="true"' in html and 'aria-describedby="card-error"' in html


def test_the_card_select_is_djangos_select() -> None:
    assert issubclass(CardSelect, forms.Select) and SeatField.widget is CardSelect
