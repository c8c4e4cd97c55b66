"""A card POST by a seat's link reads its form's values without building the form
(`forms.posted_card`, issue 11): whatever it takes, it reads exactly as `NotecardForm`
does, for every card of every ruleset, and anything the form would refuse or read
otherwise it leaves to the form (None), never refusing anything itself."""

from __future__ import annotations

from random import Random

import pytest
from django.http import QueryDict

from tests.web.play import ruleset_of
from werewolf import engine
from werewolf.engine import rulesets
from werewolf.engine.bots import bot_card
from werewolf.engine.simulate import bot_orders
from werewolf.games.forms import NotecardForm, card_selects, posted_card

ODD_VALUES = ["", "0", "007", " 1", "1 ", "x", "-1", "1.5", "٣", "²", "9999999999", "123456789", "\x00", "1\n"]
ODD_PHASES = ["", " 12 ", "12", "abc", "12x", "-12", "１２", "\t12"]


def slots_met(seed: int = 7) -> list[engine.Slot]:
    """Every distinct slot bots meet in a few games of every ruleset, with some options."""
    found: dict[engine.Slot, None] = {}
    setups = [(name, {}) for name in rulesets.RULESETS]
    setups += [("classic", {"cupid": True, "vigilante": True, "thing": True, "seers": 1, "day_deadline": "plurality"})]
    for name, options in setups:
        for players in (7, 9, 12):
            try:
                state, _ = engine.setup(name, options, players, seed)
            except rulesets.SetupError:
                continue
            rng = Random(seed)
            while not state.over and state.index < 40:
                for slot in engine.phase(state).slots.values():
                    found.setdefault(slot, None)
                state, _ = engine.resolve(state, bot_orders(state, rng))
    return list(found)


def form_for(slot: engine.Slot, data: QueryDict) -> NotecardForm:
    return NotecardForm(
        data, slot=slot, names=[f"Name {n}" for n in range(40)], seat=0, submit="hand_in", ruleset=ruleset_of(slot)
    )


def posted(values: dict[str, str]) -> QueryDict:
    data = QueryDict(mutable=True)
    for name, value in values.items():
        data[name] = value
    return data


def check_alike(slot: engine.Slot, data: QueryDict) -> tuple[int, engine.Order] | None:
    read = posted_card(slot, data)
    form = form_for(slot, data)
    if read is not None:
        assert form.is_valid(), (slot, dict(data), form.errors)
        assert (form.cleaned_data["phase"], form.order()) == read, (slot, dict(data))
    return read


@pytest.mark.parametrize("seed", [3, 7])
def test_a_posted_card_is_read_as_the_form_reads_it(seed: int) -> None:
    slots = slots_met(seed)
    kinds = {slot.kind for slot in slots}
    assert {"kill", "vote", "sleep"} <= kinds or len(kinds) > 5, kinds  # a good spread of cards
    rng = Random(seed)
    for slot in slots:
        names = [name for _, selects in card_selects(slot) for name in selects]
        # The card a player writes with the form (as the page shows a card counted), and
        # values picked at random: read, and read as the form reads it.
        for _ in range(4):
            card = bot_card(slot, 0, rng)
            shown = {name: str(value) for name, value in NotecardForm.initial_for(12, card, slot).items()}
            assert check_alike(slot, posted(shown)) is not None, (slot, shown)
            values = {"phase": "12"}
            for name in names:
                values[name] = rng.choice(["", str(rng.choice(slot.choices or (0,))), str(rng.randrange(40))])
            assert check_alike(slot, posted(values)) is not None, (slot, values)
        # Anything odd: read alike, or left to the form.
        for name in names:
            for odd in ODD_VALUES:
                check_alike(slot, posted({"phase": "12", **dict.fromkeys(names, "1"), name: odd}))
        for odd in ODD_PHASES:
            read = check_alike(slot, posted({"phase": odd, **dict.fromkeys(names, "")}))
            assert (read is None) == (odd.strip() not in ("12",)), odd
        check_alike(slot, posted({}))  # nothing sent: the phase is missing, left to the form
        assert check_alike(slot, posted({"phase": "12"})) is not None  # every select left empty


def test_a_value_sent_twice_is_the_last_one_as_for_the_form() -> None:
    slot = next(slot for slot in slots_met() if slot.kind == "vote")
    data = QueryDict("phase=5&target=1&target=2")
    assert check_alike(slot, data) == (5, engine.Order("vote", (2,)))


ODD_BODIES = [
    b"",
    b"phase=12&target=3",
    b"phase=12&target=3&target=4",  # a repeated field: the last one counts, as request.POST.get says
    b"phase=1%32&target=%33&x=%zz&y=%",
    b"phase=+12+&target=3+",
    b"a=1;b=2&phase=12",
    b"&&phase=12&&=&target",
    b"phase=12&target=\xe9\xff",  # not UTF-8: read as Latin-1, as Django does
    "phase=12&target=٣&name=Zoë".encode(),
    b"phase=12&" + b"&".join(b"f%d=1" % number for number in range(1200)),  # too many fields
]


@pytest.mark.parametrize("body", ODD_BODIES, ids=range(len(ODD_BODIES)))
@pytest.mark.parametrize(
    "content_type",
    [
        "application/x-www-form-urlencoded",
        "application/x-www-form-urlencoded; charset=latin-1",
        "multipart/form-data; boundary=x",
        "text/plain",
    ],
)
def test_a_posted_form_is_read_as_request_post_reads_it(body: bytes, content_type: str) -> None:
    """`middleware.form_of` reads a seat's urlencoded post without building Django's QueryDict:
    every field as `request.POST.get` gives it, whatever the body; anything it does not
    read so (another content type or charset, too many fields) is `request.POST` itself."""
    from django.test import RequestFactory

    from werewolf.games.middleware import form_of

    def request():
        return RequestFactory().generic("POST", "/p/x/", body, content_type=content_type)

    def reading(read) -> tuple[dict[str, str] | None, type[Exception] | None]:
        try:
            return dict(read().items()), None  # a QueryDict's items: each field's last value
        except Exception as refusal:  # (too many fields, a charset Django refuses, a broken multipart)
            return None, type(refusal)

    assert reading(lambda: form_of(request())) == reading(lambda: request().POST)
