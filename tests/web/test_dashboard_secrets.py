"""The organiser's dashboard may be projected in a classroom: whatever it shows unfolded
as it loads tells no secret. Every secret is inside a closed <details> (the log, the
Lupusburg board, the mail received, the private talk); during a secret ballot, who voted
for whom shows nowhere until the ballot is revealed."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from werewolf import engine
from werewolf.games import services
from werewolf.games.models import Game

from .play import NAMES, text_of

pytestmark = pytest.mark.django_db(transaction=True)


def unfolded(html: str) -> str:
    """What the dashboard's main part shows before anything is unfolded, less what
    changes from one load to the next (the form's token, the time left)."""
    main = html[html.index("<main") : html.index("</main>")]
    main = re.sub(r"<details\b.*?</details>", "", main, flags=re.S)
    main = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", main)
    return re.sub(r"(<time class=\"countdown\"[^>]*>).*?</time>", r"\1</time>", main)


def _first_choice(slot: engine.Slot, last: bool = False) -> engine.Order:
    values = [
        (field.name, choices[-1:] if last else choices[:1])
        for field, choices in slot.pairs()
        if choices and not field.optional
    ]
    if not values:
        return engine.Order("sleep") if slot.card.blank else engine.Order(slot.kind)
    main = next((chosen for name, chosen in values if name == engine.TARGETS), ())
    return engine.Order(slot.kind, main, tuple((name, chosen) for name, chosen in values if name != engine.TARGETS))


def _to_ballot(game: Game) -> None:
    for _ in range(40):
        game.refresh_from_db()
        phase = game.current_phase()
        assert phase is not None, "the game ended before a ballot"
        if phase.stage == "ballot":
            return
        spec = engine.phase(game.engine_state)
        services.submit_orders(
            game, {seat: _first_choice(slot) for seat, slot in spec.slots.items()}, phase_id=phase.pk
        )
        game.refresh_from_db()
        if game.current_phase() and game.current_phase().pk == phase.pk:
            services.resolve_now(game)
    raise AssertionError("no ballot")


@pytest.mark.parametrize(("ruleset", "players"), [("tabula", 8), ("lunapiena", 8), ("lupusburg", 5)])
def test_a_secret_ballot_shows_nobodys_vote_on_the_dashboard(
    organiser, organiser_client: Client, ruleset: str, players: int
) -> None:
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:players]]
    game = services.start_game(services.create_game(organiser, name="Ballot", seats=seats, options={}, ruleset=ruleset))
    _to_ballot(game)
    phase = game.current_phase()
    slots = engine.phase(game.engine_state).slots
    slots = {seat: slot for seat, slot in slots.items() if seat != max(slots)}  # one left out: the ballot stays open
    assert len({choice for slot in slots.values() for choice in slot.options[0]}) == 2  # two suspects
    services.submit_orders(game, {seat: _first_choice(slot) for seat, slot in slots.items()}, phase_id=phase.pk)
    url = f"/games/{game.pk}/"
    before = organiser_client.get(url).content.decode()
    # Every ballot changed to the other suspect: what shows unfolded is the same.
    services.submit_orders(
        game, {seat: _first_choice(slot, last=True) for seat, slot in slots.items()}, phase_id=phase.pk
    )
    after = organiser_client.get(url).content.decode()
    assert unfolded(before) == unfolded(after)
    assert "<details open" not in after
    game.refresh_from_db()
    assert game.current_phase().pk == phase.pk  # still secret: not yet revealed


def test_what_the_pack_says_in_its_den_is_folded_on_the_dashboard(organiser, organiser_client: Client) -> None:
    """A post in the den names a wolf: the dashboard shows the town square open and
    every private channel (the den, a group's, the ghosts') folded, closed."""
    from werewolf.games import talk

    from .play import pack_of, started_game

    game = started_game(organiser, "Den")
    wolf = min(pack_of(game))
    talk.post(game, wolf, "den", "Let us eat the baker tonight")
    talk.post(game, None, "square", "Good evening, village")
    html = organiser_client.get(f"/games/{game.pk}/").content.decode()
    shown = text_of(unfolded(html))
    assert "Let us eat the baker tonight" not in shown
    assert "Good evening, village" in shown  # the square is public
    assert "Let us eat the baker tonight" in text_of(html)  # a click away
    assert "<details open" not in html
