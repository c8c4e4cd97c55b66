"""Lupusburg, the gaps left by test_lupusburg_web.py: the score table in the last mail
(and a winning Werewolf's bonus in a goals-edition series), the ring of houses as the SVG
draws it for each seat, the length of the short day steps, and whole games played by
mailed cards alone with every mail swept for another seat's secrets."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from datetime import timedelta
from random import Random
from typing import Any

import pytest
from django.core import mail
from django.test import Client

from tests.conftest import in_pass
from werewolf import engine
from werewolf.engine.bots import bot_card
from werewolf.games import selectors, services
from werewolf.games.models import Game, InboundMessage, Phase
from werewolf.games.templatetags.werewolf import render_event, role

from ..mail.test_tabula_mail import Sweep, close, reply
from .play import card_summary, counterfactual_page, create_game, seat_paths
from .test_lupusburg_web import _play_out, lupusburg_rows

pytestmark = pytest.mark.django_db(transaction=True)

SVG = "{http://www.w3.org/2000/svg}"


def _game(client: Client, ruleset: str, players: int, seed: int, **options: Any) -> Game:
    """A Lupusburg game set up on the organiser's form, its seed fixed, started."""
    game = create_game(client, players=players, ruleset=ruleset, **options)
    Game.objects.filter(pk=game.pk).update(seed=seed)
    assert client.post(f"/games/{game.pk}/", {"action": "start"}).status_code == 302
    game.refresh_from_db()
    return game


def _first_choices(game: Game) -> dict[int, engine.Order]:
    """Each asked seat's card with the first choice of each field it must fill (as
    `_to_bets` hands them in), the Burgomaster's privilege naming the first character
    he may name and showing back his first living character."""
    state = game.engine_state
    cards = {}
    for seat, slot in engine.phase(state).slots.items():
        if slot.kind == "privilege" and slot.options[0]:
            back = state.rules.alive_houses(seat)[:1]
            cards[seat] = engine.Order("privilege", slot.options[0][:1], (("back", back),) if back else ())
            continue
        values = tuple((field.name, choices[:1]) for field, choices in slot.pairs() if choices and not field.optional)
        main = next((value for name, value in values if name == engine.TARGETS), ())
        more = tuple((name, value) for name, value in values if name != engine.TARGETS)
        cards[seat] = engine.Order(slot.kind, main, more) if values else engine.Order("sleep")
    return cards


def _advance(game: Game, until: str, seen: list[Phase] | None = None) -> Phase:
    """Hand in the first choices, step after step, until a step named `until` opens;
    `seen` collects the phases passed."""
    for _ in range(60):
        game.refresh_from_db()
        phase = game.current_phase()
        assert phase is not None, "the game ended first"
        if seen is not None and (not seen or seen[-1].pk != phase.pk):
            seen.append(phase)
        if phase.stage == until:
            return phase
        services.submit_orders(game, _first_choices(game), phase_id=phase.pk)
        game.refresh_from_db()
        if game.current_phase() and game.current_phase().pk == phase.pk:
            services.resolve_now(game)
    raise AssertionError(f"no {until} step")


# 2. and 6. The score table in the last mail; the goals edition's series bonus.


def _last_mail(game: Game, email: str) -> Any:
    return [message for message in mail.outbox if any(email in to for to in message.to)][-1]


def _score_lines(game: Game) -> dict[int, str]:
    """Each seat's line of templates/emails/score_table.txt, from the game's end."""
    over = game.events.get(kind="game_over").data
    names = selectors.names(game)
    goals = game.ruleset == "lupusburg-goals"
    lines = {}
    for seat, total in enumerate(over["scores"]):
        parts = over["points"][seat] if "points" in over else {}
        sources = ["characters", "chest", "bet", *(["goal"] if goals else [])]
        points = " + ".join(str(parts.get(source, 0)) for source in sources)
        winner = " (winner)" if seat in over["winners"] else ""
        lines[seat] = f"{names[seat]}: {points} = {total}{winner}"
    return lines


@pytest.mark.parametrize(
    ("ruleset", "players", "seed", "winner"),
    [("lupusburg", 5, 4, "score"), ("lupusburg-goals", 4, 2, "score"), ("lupusburg-goals", 4, 1, "werewolf")],
)
def test_the_last_mail_holds_the_score_table(
    organiser_client: Client, ruleset: str, players: int, seed: int, winner: str
) -> None:
    game = _game(organiser_client, ruleset, players, seed)
    _play_out(game, seed)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    over = game.events.get(kind="game_over").data
    assert over["winner"] == winner  # the seed reaches this ending
    goal = " + goal" if ruleset == "lupusburg-goals" else ""
    heading = f"The score (living characters + chest + bet{goal}):"
    lines = _score_lines(game)
    names = selectors.names(game)
    wolf = game.engine_state.rules.seat_of("werewolf")
    if winner == "werewolf":  # the Werewolf alone scores, the table's size
        assert over["scores"][wolf] == players and sum(over["scores"]) == players
        assert lines[wolf].endswith(f"= {players} (winner)")
    else:
        assert over["scores"][wolf] == 0 and any(part for row in over["points"] for part in row.values())
    for player in game.players.all():
        last = _last_mail(game, player.email)
        body = last.body
        assert "The game is over" in body and heading in body
        table = body[body.index(heading) :].splitlines()[1 : 1 + players]
        assert table == [f"  {lines[seat]}" for seat in range(players)], table  # in seat order, every player
        html = next(content for content, kind in last.alternatives if kind == "text/html")
        assert "score-table" in html
        for seat, total in enumerate(over["scores"]):
            row = rf'<th scope="row">{names[seat]}[^<]*</th>(?:<td>\d+</td>)*<td>{total}</td></tr>'
            assert re.search(row, html), (names[seat], total)


def test_a_goals_series_adds_up_the_winning_werewolfs_bonus(organiser_client: Client) -> None:
    """The goals edition's rulebook (2009) too: games in a row add up, a winning Werewolf
    scoring as many points as there are players. The running totals are on the page and
    in the last mail of the second game."""
    first = _game(organiser_client, "lupusburg-goals", 4, 1)
    _play_out(first, 1)
    first.refresh_from_db()
    wolf = first.engine_state.rules.seat_of("werewolf")
    wolf_email = first.players.get(seat=wolf).email
    over = first.events.get(kind="game_over").data
    assert over["winner"] == "werewolf" and over["scores"] == [4 if seat == wolf else 0 for seat in range(4)]
    assert organiser_client.post(f"/games/{first.pk}/", {"action": "next_in_series"}).status_code == 302
    second = Game.objects.exclude(pk=first.pk).get()
    Game.objects.filter(pk=second.pk).update(seed=2)
    organiser_client.post(f"/games/{second.pk}/", {"action": "start"})
    second.refresh_from_db()
    _play_out(second, 2)
    second.refresh_from_db()
    totals: dict[str, int] = {}
    for game in (first, second):
        scores = game.events.get(kind="game_over").data["scores"]
        for player in game.players.all():
            totals[player.email] = totals.get(player.email, 0) + scores[player.seat]
    scores = second.events.get(kind="game_over").data["scores"]
    series = {second.players.get(seat=row["seat"]).email: row["series"] for row in lupusburg_rows(second)}
    assert series == totals
    assert series[wolf_email] == 4 + scores[second.players.get(email=wolf_email).seat]  # the bonus counts
    for player in second.players.all():
        body = _last_mail(second, player.email).body
        line = next(line for line in body.splitlines() if line.startswith(f"  {player.name}: "))
        assert f" = {scores[player.seat]} (series: {totals[player.email]})" in line, line


# 3. The ring of houses, as the SVG draws it.


def ring(html: str) -> ET.Element:
    found = re.search(r"<svg\b.*?</svg>", html, re.S)
    assert found is not None, "no ring of houses"
    return ET.fromstring(found.group(0))


def _translate(element: ET.Element) -> tuple[float, float]:
    found = re.match(r"translate\(([-\d.]+) ([-\d.]+)\)", element.get("transform", ""))
    assert found is not None
    return float(found.group(1)), float(found.group(2))


def _bearing(x: float, y: float, centre: tuple[float, float]) -> float:
    return math.atan2(x - centre[0], centre[1] - y)


def check_ring(game: Game, viewer: engine.Viewer, svg: ET.Element) -> None:
    """The viewer's own houses with their characters and chest (and the characters shown
    to it, and the chests it looked under), other living houses blank, the gone ones face
    down, each bet in front of its bettor with its coin for the bettor alone, the
    Burgomaster's (and the Chimney Sweeper's) seat marked; nothing else."""
    state = game.engine_state
    rules = state.rules
    names = selectors.names(game)
    events = [event for event in game.events.all() if event.visible_to(viewer)]
    shown = {event.data["house"]: event.data["role"] for event in events if event.kind == "character_shown"}
    looked = {event.data["house"]: event.data["chest"] for event in events if event.kind == "house_seen"}
    circle = svg.find(f"{SVG}circle")
    centre = (float(circle.get("cx")), float(circle.get("cy")))
    groups = svg.findall(f"{SVG}g")
    houses = [group for group in groups if group.find(f"{SVG}rect") is not None]
    coins = [group for group in groups if group.find(f"{SVG}circle") is not None]
    assert len(houses) == 2 * state.seats and len(houses) + len(coins) == len(groups)
    for number, group in enumerate(houses):
        owner = rules.owner(number)
        own = owner == viewer
        house, *chest = group.findall(f"{SVG}rect")
        classes = house.get("class").split()
        assert ("house-own" in classes) == own
        assert ("house-gone" in classes) == (not rules.living[number])
        assert house.get("fill") == ("#444" if not rules.living[number] else "#ffe8a3" if own else "#f5f0e6")
        texts = group.findall(f"{SVG}text")
        assert texts[0].text == str(1 + number % 2)  # its number, under its owner's name
        known = rules.characters[number] if own else shown.get(number)
        drawn = [text.text for text in texts[1:] if "house-character" in text.get("class", "")]
        assert drawn == ([role(known, "lupusburg")] if known else []), (viewer, number)
        assert len(texts) == 1 + len(drawn)
        knows_chest = (rules.chests[owner] == number) if own else looked.get(number, False)
        assert len(chest) == int(knows_chest), (viewer, number)
    marks = svg.findall(f"{SVG}text")
    assert [mark.text for mark in marks] == [
        names[seat] + (" ★" if seat == rules.burgomaster else "") + (" ⌂" if seat == rules.sweeper else "")
        for seat in range(state.seats)
    ]
    assert [mark.get("font-weight") for mark in marks] == [
        "bold" if seat == viewer else "normal" for seat in range(state.seats)
    ]
    assert len(coins) == len(rules.bets)
    for group, (bettor, _, coin) in zip(coins, rules.bets, strict=True):
        x, y = _translate(group)
        mark = marks[bettor]
        towards = _bearing(float(mark.get("x")), float(mark.get("y")), centre)
        assert abs(_bearing(x, y, centre) - towards) < 0.02  # in front of its bettor...
        assert 0 < math.dist((x, y), centre) < float(circle.get("r"))  # ...inside the ring
        assert group.find(f"{SVG}text").text == (str(coin) if bettor == viewer else "?")


@pytest.mark.parametrize(("ruleset", "players", "seed"), [("lupusburg", 5, 40), ("lupusburg-goals", 6, 44)])
def test_the_ring_of_houses_draws_what_each_seat_may_know(
    organiser_client: Client, ruleset: str, players: int, seed: int
) -> None:
    game = _game(organiser_client, ruleset, players, seed)
    passed: list[Phase] = []
    phase = _advance(game, "bets", passed)
    assert {"night", "privilege"} <= {step.stage for step in passed}
    for bettor in sorted(engine.phase(game.engine_state).slots)[:2]:
        game.refresh_from_db()
        services.submit_order(game, bettor, engine.Order("bet", ((bettor + 1) % players,)), phase_id=phase.pk)
    game.refresh_from_db()
    rules = game.engine_state.rules
    assert len(rules.bets) == 2 and not all(rules.living)  # two bets, a house gone
    kinds = set(game.events.values_list("kind", flat=True))
    assert {"character_shown", "house_seen"} <= kinds  # a character shown, a house looked under
    paths = seat_paths(game)
    client = Client()
    for viewer in range(players):
        html = client.get(paths[viewer]).content.decode()
        check_ring(game, viewer, ring(html))
        if ruleset == "lupusburg-goals":  # the goal is the seat's own, and beside the ring
            assert rules.goals[viewer] not in ET.tostring(ring(html), encoding="unicode")
        # Were every secret of the others different, the ring would be drawn the same.
        actual, imagined = counterfactual_page(client, game, viewer, paths[viewer])
        assert ET.tostring(ring(actual)) == ET.tostring(ring(imagined)), viewer
    check_ring(game, engine.PUBLIC, ring(client.get(f"/g/{game.public_key}/").content.decode()))
    # The organiser's dashboard draws every character and every chest.
    svg = ring(organiser_client.get(f"/games/{game.pk}/").content.decode())
    houses = [group for group in svg.findall(f"{SVG}g") if group.find(f"{SVG}rect") is not None]
    for number, group in enumerate(houses):
        drawn = [text.text for text in group.findall(f"{SVG}text") if "house-character" in text.get("class", "")]
        assert drawn == [role(rules.characters[number], "lupusburg")]
        assert len(group.findall(f"{SVG}rect")) == 1 + (rules.chests[number // 2] == number)


# 5. The length of the short day steps.


@pytest.mark.parametrize(("step_minutes", "expected"), [(7, 7), (None, 40)])
def test_the_short_day_steps_last_the_steps_length(
    organiser_client: Client, step_minutes: int | None, expected: int
) -> None:
    """The placing, the goals, the privilege, the show, the Chimney Sweeper and the bets
    last the step's length (empty: a third of a day, at least ten minutes); nights a
    night, the accusation and the ballot a day."""
    options = {"lupusburg_placement": "card", "night_minutes": 60, "day_minutes": 120}
    if step_minutes:
        options["lupusburg_step_minutes"] = step_minutes
    game = _game(organiser_client, "lupusburg-goals", 6, 44, **options)
    assert game.stage_minutes["bets"] == game.stage_minutes["privilege"] == expected
    passed: list[Phase] = []
    _advance(game, "ballot", passed)
    lengths = {step.stage: step.deadline - step.opened_at for step in passed}
    assert {"placement", "night", "goals", "privilege", "sweeper", "sweep", "bets", "accusation"} <= set(lengths)
    for stage, length in lengths.items():
        minutes = 60 if stage == "night" else 120 if stage in ("accusation", "ballot") else expected
        assert length == timedelta(minutes=minutes), stage


# 7. Whole games by mailed cards alone.


class LupusburgSweep(Sweep):
    """The Tabula mail sweep, its events and cards worded as a Lupusburg game words
    them (houses, characters)."""

    def _render(self, event: Any, reader: Any, autoescape: bool) -> str:
        key = (event.pk, reader, autoescape)
        text = self.rendered.get(key)
        if text is None:
            rendered = render_event(event, self.names, reader, autoescape=autoescape, ruleset=self.game.ruleset)
            text = self.rendered[key] = str(rendered)
        return text

    def _card(self, order: engine.Order) -> str:
        key = (order.kind, order.targets, order.more)
        words = self.cards.get(key)
        if words is None:
            words = self.cards[key] = card_summary(order, self.names, self.game.ruleset)
        return words


def play_by_mail(game: Game, seed: int) -> LupusburgSweep:
    """Every card of every step a reply to the seat's newest mail, in the card's words;
    each seat's mails swept after every step, and before the last secret card of one."""
    rng = Random(seed)
    sweep = LupusburgSweep(game)
    names, ruleset = sweep.names, game.ruleset
    sweep.check()
    steps = 0
    while (phase := game.current_phase()) is not None:
        steps += 1
        assert steps < 150, "the game does not end"
        spec = engine.phase(game.engine_state)
        for seat in spec.slots:  # each seat asked is asked by its newest mail
            assert "reply to this mail with your card" in sweep.last(seat), (phase.stage, seat)
        seats = sorted(spec.slots)
        for number, seat in enumerate(seats, start=1):
            game.refresh_from_db()
            current = game.current_phase()
            if current is None or current.pk != phase.pk:
                break  # the last bet closed the step
            slot = engine.phase(game.engine_state).asks(seat)
            if slot is None:
                continue
            if number == len(seats) and not spec.public_orders:
                sweep.check()  # the answers so far, while the cards are secret
            words = card_summary(bot_card(slot, seat, rng), names, ruleset)
            if rng.random() < 0.3:
                words = words.lower()
            kept = reply(game, sweep, seat, words, rng)
            assert kept.status == InboundMessage.Status.APPLIED, (phase.stage, seat, words, kept.code)
        close(game, phase)
        game.refresh_from_db()
        sweep.check()
    assert game.status == Game.Status.FINISHED
    return sweep


@pytest.mark.parametrize(
    ("ruleset", "players", "seed", "placement"),
    [in_pass("sqlite", "lupusburg-goals", 4, 61, "card"), in_pass("postgresql", "lupusburg", 8, 62, "random")],
)
def test_a_whole_lupusburg_game_by_mailed_cards_keeps_every_secret(
    organiser: Any, ruleset: str, players: int, seed: int, placement: str
) -> None:
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:players]]
    game = services.start_game(
        services.create_game(
            organiser, name="By mail", seats=seats, ruleset=ruleset, options={"placement": placement}, seed=seed
        )
    )
    sweep = play_by_mail(game, seed)
    from werewolf.games.models import Order

    orders = Order.objects.filter(phase__game=game)
    assert orders.exists() and set(orders.values_list("source", flat=True)) == {Order.Source.MAIL}
    stages = set(game.phases.values_list("stage", flat=True))
    assert {"night", "bets", "accusation"} <= stages and ("placement" in stages) == (placement == "card")
    assert game.events.filter(kind="bet_placed").exists()
    over = game.events.get(kind="game_over").data
    # The sweep is no blind one: each seat's hand and coin, mailed to that seat, is among
    # the secrets every other seat's mails were checked against.
    secrets = sweep.secrets()
    private = game.events.filter(kind__in=("characters_dealt", "coin_kept"))
    assert {event.kind for event in private} == {"characters_dealt", "coin_kept"}
    said = [(event.data["seat"], sweep._render(event, event.data["seat"], False)) for event in private]
    for owner, text in said:
        assert text in sweep.everything(owner), text
        told = {seat for seat, same in said if same == text}  # two bets' coins may read alike
        for other in range(players):
            assert (text in secrets[other]) == (other not in told), (text, other)
    for player in sweep.players:
        mailbox = [message for message in mail.outbox if any(player.email in to for to in message.to)]
        assert sweep.checked[player.seat] == len(mailbox)  # every mail of the seat swept
        last = [message.body for message in mailbox if "The game is over" in message.body]
        assert len(last) == 1 and "The score" in last[0], player.name
        assert f"{player.name}: " in last[0] and f"= {over['scores'][player.seat]}" in last[0]


NAMES = ["Alba", "Brio", "Cato", "Dara", "Ezio", "Fenna", "Gusto", "Hilde"]
