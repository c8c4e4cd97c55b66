"""Reading games for one viewer. A secret reaches a page, mail or export only through
events filtered here by the engine's audience rules; from the state, a viewer is shown
only its own seat and what the engine has made public (a revealed card)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django.utils import translation

from werewolf import engine

from . import holders, houses, links, rooms, rows, scores
from .models import ORGANISER_EVENTS, SERVER_EVENTS, Dispatch, Event, Game, Order, Phase, Player


@dataclass
class PhaseLog:
    phase: Phase | None
    events: list[Event] = field(default_factory=list)
    shared: str = ""
    """What the group's words are a function of (`shared_log`), to render them once for
    every reader who sees the same group (includes/event_log.html)."""


T = TypeVar("T")

Role = str | tuple[str, ...]
"""What a seat holds, as the `role` filter shows it: one role, or several."""


@dataclass
class CircleSeat:
    seat: int
    name: str
    alive: bool
    role: Role | None
    is_viewer: bool


def role_shown(state: engine.State, seat: int) -> Role:
    """What the seat holds (`engine.roles_of`): its role, or all it holds where that is
    more than one (Lupusburg's two characters). For the seat itself, or where its
    audience rules allow."""
    roles = engine.roles_of(state, seat)
    return roles[0] if len(roles) == 1 else roles


def _once(instance: Game | Phase, key: Any, read: Callable[[], T]) -> T:
    """What `read` finds, read once per game or phase instance: a page asks for the same
    thing several times (who has a card in, the seat's own card, the tally: for what it
    shows and again for its version). A view that writes builds its page, if any, from
    instances read after the write (a POST redirects)."""
    reads: dict[Any, Any] = instance.__dict__.setdefault("_selector_reads", {})
    if key not in reads:
        reads[key] = read()
    return reads[key]  # type: ignore[no-any-return]


def seated(game: Game) -> list[Player]:
    """The seated players, by seat."""
    return _once(game, "seated", lambda: rows.seated(game))


def names(game: Game) -> list[str]:
    return [player.name for player in seated(game)]


def phases(game: Game) -> list[Phase]:
    """The game's phases, by index, read once per game instance: a page's log groups its
    events by them, and the open one is among them (`open_phase`)."""
    return _once(game, "phases", lambda: rows.phases(game))


def open_phase(game: Game) -> Phase | None:
    """The phase open now, if the game runs (`Game.current_phase`, from `phases`: a page
    reads them all for its log, and a game has a few dozen at most)."""
    if not game.is_running:
        return None
    return next((phase for phase in phases(game) if phase.status == Phase.Status.OPEN), None)


def visible_events(game: Game, viewer: engine.Viewer) -> list[Event]:
    return [event for event in rows.events(game) if event.visible_to(viewer)]


def log(game: Game, viewer: engine.Viewer, seen: list[Event]) -> list[PhaseLog]:
    """The events the viewer may see (`seen`), grouped by the phase that produced them;
    those the public may not see are marked `private` for a seat's own page. Each event
    carries the names the seats had when it happened (`names_then`) and its phase, so
    rendering the log costs no query per event."""
    groups: list[PhaseLog] = []
    by_pk = {phase.pk: phase for phase in phases(game)}
    _names_then(game, seen)
    for event in seen:
        event.private = isinstance(viewer, int) and not event.visible_to(engine.PUBLIC)
        phase = by_pk.get(event.phase_id) if event.phase_id else None
        if phase is not None:
            event.phase = phase
        if not groups or groups[-1].phase != phase:
            groups.append(PhaseLog(phase))
        groups[-1].events.append(event)
    held = holders.read_already(game)  # the replay's and the record's reads have the names now
    shared_log(game, viewer, groups, held.names_now() if held is not None else names(game))
    return groups


def shared_log(game: Game, viewer: engine.Viewer, groups: list[PhaseLog], seated: list[str]) -> None:
    """Give each group the key its words are rendered once under: the game, the group's
    events (an event never changes; a new one in the phase makes another group), the
    seats' names now (from which `names_then` follows), the language, and the reader. A
    group of public events only reads alike for every seat and the public (an event's
    words for them differ only where the event is private: tests/web/test_shared_pages.py),
    so its reader is "all"; a group holding an event only some seats know, or read by the
    moderator (whose words say more), is its reader's own."""
    language = translation.get_language()
    names_now = "\x1f".join(seated)
    for group in groups:
        reader: Any = "all"
        if viewer == engine.MODERATOR or any(event.private for event in group.events):
            reader = viewer
        events = ",".join(str(event.pk) for event in group.events)
        group.shared = f"{game.pk}|{language}|{reader}|{events}|{names_now}"


def _names_then(game: Game, seen: list[Event]) -> None:
    """Give each event the names the seats had when it happened, as the seats' holders
    record has them (`holders.Holders.tell`: a hand-over's event also gets the holding
    it began): a hand-over renames its seat from then on, never what came before.
    Hand-overs are public (`player_substituted`), so every viewer's events tell them
    all: where they tell none, the names were today's all along, and the record is not
    read (unless the caller read it already). Events of one span between hand-overs
    share one list."""
    held = holders.read_already(game)
    if held is None and not any(event.kind == "player_substituted" for event in seen):
        current = names(game)
        for event in seen:
            event.names_then, event.holding = current, None
        return
    (held or holders.of(game)).tell(seen)


def name_events(game: Game, events: list[Event]) -> None:
    """Give `events`, some of the game's in the order they were recorded (one step's, for
    its mails), the names the log gives them (`_names_then`): their names then and their
    cards' writers, as the seats' holders record has them. The hand-overs told before the
    first of them are counted, in a query, where the game's seats ever changed hands."""
    held = holders.of(game)
    if not events or not held.handovers():
        current = held.names_now()
        for event in events:
            event.names_then, event.writers_then, event.holding = current, current, None
        return
    before = game.events.filter(kind="player_substituted", pk__lt=events[0].pk).count()
    held.tell(events, before)


def private_events(seen: list[Event]) -> list[Event]:
    """Of the events a seat may see, those the public may not: what only it knows."""
    return [event for event in seen if not event.visible_to(engine.PUBLIC)]


def circle(game: Game, viewer: engine.Viewer, seen: list[Event]) -> list[CircleSeat]:
    """The seats in clockwise order, with the roles the viewer may see: its own, those
    made public (revealed on death, or everyone's at the end), and those of the groups
    its own events made it a member of (the pack, the Freemasons, the Seers: `known_from`)."""
    if game.state is None:
        return []
    state = game.engine_state
    show_all = viewer == engine.MODERATOR or game.status == Game.Status.ENDED
    known = known_from(game.ruleset, viewer, seen)
    seats = []
    for player in seated(game):
        seat = player.occupied_seat
        shown = show_all or state.revealed[seat] or viewer == seat or seat in known
        seats.append(
            CircleSeat(seat, player.name, state.alive[seat], role_shown(state, seat) if shown else None, viewer == seat)
        )
    return seats


def circle_shared(game: Game, seats: list[CircleSeat]) -> str:
    """What the places of a seat's circle but its own are a function of, to render them
    once for every page that shows them alike (the `circle_places` tag): the game (the
    words of its roles), the language, and each seat as the viewer is shown it (`circle`:
    its name, whether it lives, the role shown if any), the viewer's own with no role
    (its own place, which says "you" and names its own role, is written for it). Two
    seats with the same key see each other's places alike: the villagers of a game share
    one, each wolf of a pack its own. A circle changes when a seat dies, a role is shown
    or a name changes, not when a card goes in or a post is made, each of which asks
    every open page of the game for itself again."""
    shown = [[place.seat, place.name, place.alive, None if place.is_viewer else place.role] for place in seats]
    return json.dumps([game.pk, translation.get_language(), shown])


def circle_seat(shared: str, seats: list[CircleSeat]) -> str:
    """What a seat's whole circle is a function of (its places but its own,
    `circle_shared`, and its own: which it is, and the role it is shown there), to keep
    it for the seat's next pages at the same circle: each open page asks again for every
    card handed in."""
    own = [[place.seat, place.role] for place in seats if place.is_viewer]
    return json.dumps([shared, own])


def known_from(ruleset: str, viewer: engine.Viewer, seen: list[Event]) -> set[int]:
    """The seats whose roles the viewer was told by its own events: the groups it was
    told it belongs to (the pack, the Freemasons, the two Seers, the Mafia), read from
    what the game's ruleset declares of its events (`engine.event_kinds`: the fields
    that name seats whose role the audience learns). A list of seats that holds the
    viewer is a group it knows from the inside; a seat named alone (the Seer's target)
    is only narrowed down (a wolf or not), so the circle shows no role for it. Only
    events shown to a few seats count: the same kind told to everyone would show none."""
    if not isinstance(viewer, int):
        return set()
    tells = engine.event_kinds(ruleset)
    known: set[int] = set()
    for event in seen:
        fields = tells.get(event.kind, ())
        if not fields or event.visible_to(engine.PUBLIC):
            continue
        for name in fields:
            value = event.data.get(name)
            if isinstance(value, list) and viewer in value:
                known.update(seat for seat in value if isinstance(seat, int) and not isinstance(seat, bool))
    return known


def unasked(state: engine.State, seat: int) -> str:
    """Why the open step asks `seat` for no card, as the ruleset words it ("ghost_ballot",
    "suspect_ballot" in a Tabula ballot; "not_asked" for any other reason), or "" when
    it asks for one. It rests on public facts only (who is dead, who is suspected), so
    any page or mail of the seat may say it (includes/unasked.html)."""
    if state.over or engine.phase(state).asks(seat) is not None:
        return ""
    refused = engine.validate(state, seat, engine.Order("sleep"))
    return refused.code if isinstance(refused, engine.OrderError) else ""


def cards_in(phase: Phase | None) -> dict[int, bool]:
    """Which asked seats have handed in a card: safe to show in notecard play, since
    every living player writes one."""
    if phase is None:
        return {}
    return handed_of(phase.game.engine_state, {seat for seat, _, _ in cards(phase)})


def cards(phase: Phase) -> list[tuple[int, Any, int | None]]:
    """Every card of the phase as (seat, payload, act), oldest first, read once per phase
    instance: a page asks who has a card in, the seat's own card and the public tally
    (each for what it shows and again for its version), and each is a reading of these
    rows (a phase holds a few cards a seat), so the page asks the database once."""
    return _once(phase, "cards", phase.cards)


def handed_of(state: engine.State, handed: set[int]) -> dict[int, bool]:
    """`cards_in`, given the seats with a card in the open phase (`handed`)."""
    return {seat: seat in handed for seat in engine.phase(state).slots}


def card_of(phase: Phase | None, seat: int) -> engine.Order | None:
    newest = newest_card(phase, seat)
    return engine.Order.from_json(newest[1]) if newest else None


def newest_card(phase: Phase | None, seat: int) -> tuple[int, Any, int | None] | None:
    """The seat's newest card of the phase, as `cards` reads it (its `act` is set if it
    acted when it went in: a Lupusburg bet)."""
    if phase is None:
        return None
    return next((row for row in reversed(cards(phase)) if row[0] == seat), None)


def card_history(phase: Phase, seat: int) -> list[tuple[Order, str]]:
    """The seat's cards of `phase`, oldest first, each with who held the seat when it
    was written (the seats' holders record: a substitution in the middle of the phase
    leaves the cards before it to the one who left)."""
    rows = list(phase.orders.filter(seat=seat).order_by("pk"))
    held = holders.of(phase.game) if rows else None
    return [(row, held.at(seat, row.submitted_at).name if held and seat < held.seats else "") for row in rows]


@dataclass
class Ballots:
    """A day's running tally: each named seat with the seats voting for it, and each card
    handed in instead of a vote (`Slot.instead`: NO ELIMINATION) with its voters, which
    counts toward a majority as a player does (`engine.majority`)."""

    rows: list[tuple[int | engine.Card, list[int]]]
    """The most named first: a seat, or a card taken instead of a vote (its `word`)."""
    voters: int
    electorate: int
    houses: bool = False
    """Whether the rows name Lupusburg's houses (two votes a player) rather than seats."""


def running_tally(phase: Phase | None) -> Ballots | None:
    """The public tally of the open phase, when the engine says its orders are public
    while it is open (classic's day vote, Tabula's accusation): never a secret night's
    cards, nor a ballot's (`revealed` cards are shown only by the event that closes it)."""
    if phase is None:
        return None
    game = phase.game
    return tally_of(game.engine_state, game.capabilities.houses, lambda: Phase.counted(cards(phase)))


def tally_of(state: engine.State, houses: bool, counted: Callable[[], dict[int, engine.Order]]) -> Ballots | None:
    """`running_tally` of a game in `state` (`houses`: a Lupusburg game), the phase's
    counted cards read by `counted` only when its orders are public."""
    spec = engine.phase(state)
    if not spec.public_orders:
        return None
    if houses and spec.name != "accusation":
        return None  # the bets show as they are placed, each with its player
    return ballots(counted(), houses, len(spec.slots), instead_of(spec))


def instead_of(spec: engine.PhaseSpec) -> tuple[engine.Card, ...]:
    """The cards the step's slots take instead of their own (a day's NO ELIMINATION)."""
    found: dict[str, engine.Card] = {}
    for slot in spec.slots.values():
        found.update((card.kind, card) for card in slot.instead)
    return tuple(found.values())


def ballots(
    counted: dict[int, engine.Order], houses: bool, electorate: int, instead: tuple[engine.Card, ...] = ()
) -> Ballots:
    """The votes of `counted` cards (`houses`: each names two of Lupusburg's houses; a
    card of `instead`, handed in in place of a vote, counts as a candidate of its own),
    the most named first: a running tally, or a day's votes in its replay."""
    by_target: dict[int | engine.Card, list[int]] = {}
    cards = {card.kind: card for card in instead}
    voters = 0
    for seat, order in sorted(counted.items()):
        if order.kind in cards:
            by_target.setdefault(cards[order.kind], []).append(seat)
            voters += 1
            continue
        named = (*order.targets, *order.field("also")) if houses else order.targets[:1]
        for target in named:
            by_target.setdefault(target, []).append(seat)
        voters += bool(named)
    rows = sorted(by_target.items(), key=_most_named)
    return Ballots(rows, voters, electorate, houses)


def _most_named(row: tuple[int | engine.Card, list[int]]) -> tuple[int, int, int | str]:
    """The most named first; at equal votes, the players by seat, then the other cards."""
    target, voters = row
    if isinstance(target, int):
        return (-len(voters), 0, target)
    return (-len(voters), 1, target.kind)


def seat_card(player: Player) -> dict[str, Any]:
    """What handing a card in needs, and no more (a POST that only redirects costs this):
    the open phase, the state, the seat's slot and the seats' names."""
    game = player.game
    phase = open_phase(game)
    state = game.engine_state if game.state else None
    slot = engine.phase(state).asks(player.occupied_seat) if state is not None and phase is not None else None
    return {"phase": phase, "state": state, "slot": slot, "names": names(game)}


def seat_context(player: Player, card: dict[str, Any] | None = None) -> dict[str, Any]:
    """Everything a player's page shows: only what this seat may know (`card`: what
    `seat_card` read already)."""
    game = player.game
    seat = player.occupied_seat
    card = card or seat_card(player)
    phase, state, slot = card["phase"], card["state"], card["slot"]
    handed = cards_in(phase)
    seen = visible_events(game, seat)
    seats = circle(game, seat, seen)
    shared_circle = circle_shared(game, seats)
    return {
        **_table(game, state, seat, seen, card["names"]),
        "game": game,
        "player": player,
        "viewer": seat,
        "names": card["names"],
        "role": role_shown(state, seat) if state else None,
        "alive": state.alive[seat] if state else True,
        "phase": phase,
        "slot": slot,
        "my_card": card_of(phase, seat) if slot else None,
        "private": private_events(seen),
        "log": log(game, seat, seen),
        "circle": seats,
        "circle_shared": shared_circle,
        "circle_seat": circle_seat(shared_circle, seats),
        "tally": running_tally(phase),
        "cards_in": sum(handed.values()),
        "cards_asked": len(handed),
        "outcome": outcome_event(game, seen),
        "version": version(game, seat, seen),
        "shared": shared_version(game, phase, seen),
    }


def public_context(game: Game) -> dict[str, Any]:
    phase = open_phase(game)
    handed = cards_in(phase)
    seen = visible_events(game, engine.PUBLIC)
    seated = names(game)
    return {
        **_table(game, game.engine_state if game.state is not None else None, engine.PUBLIC, seen, seated),
        "game": game,
        "viewer": engine.PUBLIC,
        "names": seated,
        "phase": phase,
        "log": log(game, engine.PUBLIC, seen),
        "circle": circle(game, engine.PUBLIC, seen),
        "tally": running_tally(phase),
        "cards_in": sum(handed.values()),
        "cards_asked": len(handed),
        "outcome": outcome_event(game, seen),
        "version": version(game, engine.PUBLIC, seen),
    }


def _table(
    game: Game, state: engine.State | None, viewer: engine.Viewer, seen: list[Event], seated: list[str]
) -> dict[str, Any]:
    """What a page adds where the ruleset has it: the ring of houses as `viewer` may see it
    (and which of a seat's characters rules its hand), and the scores at the end."""
    if state is None or not (game.capabilities.houses or game.capabilities.scores):
        return {}
    added: dict[str, Any] = {"scores": scores.score_rows(outcome_event(game, seen), seated, game)}
    drawn = houses.board(state, viewer, seen, seated) if game.capabilities.houses else None
    if drawn is not None:
        added["board"] = drawn
        if drawn.ruling is not None:
            added["ruling"] = drawn.ruling
    return added


NEWS_ON_SCREEN = 6
"""How many of the latest public events the projector shows."""


def projector_context(game: Game, public: dict[str, Any]) -> dict[str, Any]:
    """What the projector adds to the public page: each seat's card in or not (never
    what: at night every living seat writes one, so this tells nothing of roles) and
    the newest public news."""
    handed = cards_in(public["phase"])
    news = [event for group in public["log"] for event in group.events]
    return {
        "seats": [(place, handed.get(place.seat)) for place in public["circle"]],
        "news": news[-NEWS_ON_SCREEN:],
    }


def dashboard_context(game: Game) -> dict[str, Any]:
    """The organiser's view: who has handed in a card, not what (that needs opening)."""
    phase = open_phase(game)
    handed = cards_in(phase)
    players = list(game.players.order_by("seat", "pk"))
    state = game.engine_state if game.state else None
    rows = [
        {
            "player": player,
            "alive": state.alive[player.seat] if state and player.seat is not None else True,
            "asked": player.seat in handed,
            "handed_in": player.seat is not None and handed.get(player.seat, False),
            "link": links.url_for(player) if player.seat is not None and not player.is_bot else None,
            "role": role_shown(state, player.seat) if state and player.seat is not None else None,
        }
        for player in players
    ]
    seated = names(game)
    seen = visible_events(game, engine.MODERATOR)
    return {
        **_table(game, state, engine.MODERATOR, seen, seated),
        "game": game,
        "viewer": engine.MODERATOR,
        "names": seated,
        "phase": phase,
        "rows": rows,
        "log": log(game, engine.MODERATOR, seen),
        "tally": running_tally(phase),
        "cards_in": sum(handed.values()),
        "cards_asked": len(handed),
        "outcome": outcome_event(game, seen),
        "version": version(game, engine.PUBLIC),  # what the dashboard polls
        "inbound": list(game.inbound.select_related("player")[:100]),
        "mail_problems": list(
            Dispatch.objects.filter(player__game=game)
            .exclude(status=Dispatch.Status.SENT)
            .select_related("player", "phase")
            .order_by("-pk")[:100]
        ),
    }


def version(game: Game, viewer: engine.Viewer, seen: list[Event] | None = None) -> str:
    """Changes whenever the viewer's page would show something new, and only then. It is
    a digest of what the page shows that can change, taken from what the viewer may see
    only: how many events it may see (never their database ids, which count everybody's),
    the open phase, its deadline, how many seats have a card in (shown to all), the public
    tally, and the viewer's own card. A hidden event or another seat's changed night card
    does not change it."""
    if seen is None:
        seen = visible_events(game, viewer)
    phase = open_phase(game)
    opened = None
    if phase is not None:
        own = card_of(phase, viewer) if isinstance(viewer, int) else None
        opened = OpenPhase(phase.index, phase.deadline, cards_in(phase), running_tally(phase), own)
    return version_of(game.status, len(seen), viewer, opened, rooms.digest(game, viewer))


def shared_version(game: Game, phase: Phase | None, seen: list[Event]) -> str:
    """What the parts of a seat's page that every seat shows alike (the phase, its
    deadline and its cards in: includes/phase_status.html) are a function of, to render
    them once per game version and language rather than once per reader: the game's
    version as the public sees it (`version_of`, but for the talk, which those parts do
    not show), its time zone and pause, which the deadline reads, and the language. From
    `seen`, a seat's events, which hold every public one."""
    public = sum(1 for event in seen if event.visible_to(engine.PUBLIC))
    opened = None
    if phase is not None:
        opened = OpenPhase(phase.index, phase.deadline, cards_in(phase), running_tally(phase), None)
    digest = version_of(game.status, public, engine.PUBLIC, opened, [])
    return f"{game.pk}|{digest}|{game.timezone}|{game.paused_at}|{translation.get_language()}"


@dataclass(frozen=True)
class OpenPhase:
    """What a page's version takes of the open phase."""

    index: int
    deadline: Any
    handed: dict[int, bool]
    tally: Ballots | None
    own: engine.Order | None
    """The viewer's own card, if the viewer is a seat."""


def version_of(status: str, seen: int, viewer: engine.Viewer, opened: OpenPhase | None, talked: list[Any]) -> str:
    """`version`, from what it read: the game's status, how many events the viewer may
    see, the open phase, and the talk it reads (`rooms.digest`). A seat's poll on
    PostgreSQL reads these in one statement (`polls.seat_version`)."""
    parts: list[Any] = [status, seen]
    if opened is not None:
        handed = opened.handed
        parts += [opened.index, opened.deadline.isoformat(), sum(handed.values()), len(handed)]
        parts.append(opened.tally.rows if opened.tally else None)
        if isinstance(viewer, int):
            parts.append(opened.own.to_json() if opened.own else None)
    parts.append(talked)  # the talk it reads, and no other channel's
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()
    return digest[:16]


def export(game: Game) -> dict[str, Any]:
    """The whole game for the organiser: setup, every phase's instant acts in order and
    counted cards, every event. It replays through the engine to the same events (see engine.replay): it
    carries the deal, who was dealt what at the start (`engine.deal`), whether dealt
    from the seed or by the organiser. Who held each seat, from which step and why, is
    the seats' holders record's (`holders`; no addresses), and each phase names the
    writer of each counted card (`by`): the seat's holder when it was written."""
    held = holders.of(game)
    phases = []
    for phase in game.phases.order_by("index"):
        applied = phase.acts()
        if phase.status != Phase.Status.RESOLVED and not applied:
            continue
        cards = phase.current_orders() if phase.status == Phase.Status.RESOLVED else {}
        exported_phase: dict[str, Any] = {
            "index": phase.index,
            "kind": phase.kind,
            "stage": phase.stage,
            "number": phase.number,
            "resolution": phase.resolution if phase.status == Phase.Status.RESOLVED else "",
            "orders": {str(seat): order.to_json() for seat, order in sorted(cards.items())},
        }
        if cards:
            written = dict(phase.orders.filter(act=None).order_by("pk").values_list("seat", "submitted_at"))
            exported_phase["by"] = {
                str(seat): held.at(seat, written.get(seat)).name for seat in sorted(cards) if seat < held.seats
            }
        if applied:
            exported_phase["acts"] = [{"seat": seat, "order": order.to_json()} for seat, order in applied]
        phases.append(exported_phase)
    exported: dict[str, Any] = {
        "format": "werewolf-game/1",
        "name": game.name,
        "ruleset": game.ruleset,
        "options": game.options,
        "seed": game.seed,
        "players": [{"seat": seat, "name": held.now(seat).name} for seat in range(held.seats)],
        "holders": [
            {
                "seat": holding.seat,
                "name": holding.name,
                "reason": holding.reason,
                "from_phase": holding.from_index,
                "since": holding.since.isoformat() if holding.since else None,
            }
            for seat in range(held.seats)
            for holding in held.of_seat(seat)
        ],
        "phases": phases,
        "events": [
            {
                "phase": event.phase.index if event.phase else None,
                "by": "organiser"
                if event.kind in ORGANISER_EVENTS
                else "server"
                if event.kind in SERVER_EVENTS
                else "engine",
                **event.engine_event.to_json(),
            }
            for event in game.events.select_related("phase").all()
        ],
    }
    if game.deal is not None:
        exported["deal"] = game.deal
    return exported


OUTCOME_KINDS = ("game_over", "game_ended")
"""The events that say how a game ended: public, both (every viewer's events hold them)."""


def outcome_event(game: Game, seen: list[Event] | None = None) -> Event | None:
    """The game's last outcome event: from `seen`, a viewer's events already read (a
    page's), else read."""
    if seen is not None:
        return next((event for event in reversed(seen) if event.kind in OUTCOME_KINDS), None)
    return game.events.filter(kind__in=OUTCOME_KINDS).order_by("-pk").first()
