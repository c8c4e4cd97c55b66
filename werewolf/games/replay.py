"""A game's story, step by step, for its replay page and its printed record: every card
as it was written and by whom, the events of each step (the moderator's included: the
engine's rulings, the discarded and missing cards), the circle (or the ring of houses) as
the step left it, and each day's votes.

Everything is read in a few queries whatever the length of the game (the events, the
phases, every card of the game at once), and the states between the steps are rebuilt by
the engine from the setup and the cards (`engine.replay.walk`), as the export replays.
Who may see it is `access.replay_for`'s to say: the replay shows every secret."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from werewolf import engine
from werewolf.engine.replay import walk

from . import holders, houses, scores, selectors
from .models import SERVER_EVENTS, Event, Game, Order, Phase

logger = logging.getLogger(__name__)


@dataclass
class Written:
    """A card as it was handed in: its seat, the card, how it came (the web, a mail, the
    organiser, a bot), when, and whether it counted (the seat's newest, or an act); who
    held the seat when it was written (`by`) and the seats' names then (`names`, for
    the seats it names), from the seats' holders record."""

    seat: int
    order: engine.Order
    source: str
    submitted_at: Any
    act: int | None
    counted: bool = False
    by: str = ""
    names: list[str] = field(default_factory=list)

    def get_source_display(self) -> str:
        return str(Order.Source(self.source).label) if self.source in Order.Source.values else self.source


@dataclass
class Chapter:
    """One step of the story: the setup (`phase` None) or a phase, with its events in
    order, every card handed in (`written`, in order, each marked `counted` or not), the
    cards that counted at its end (`counted`, by seat) and its instant acts in order;
    the seats' names as it closed (`names`: the setup's are the dealt players') and
    the hand-overs its events told (`handovers`, each with its reason), from the seats'
    holders record (games.holders). Each event carries its names then (`names_then`)
    and a hand-over's event the holding it began (`holding`)."""

    phase: Phase | None
    events: list[Event] = field(default_factory=list)
    written: list[Written] = field(default_factory=list)
    counted: dict[int, engine.Order] = field(default_factory=dict)
    acts: list[tuple[int, engine.Order]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    handovers: list[holders.Holding] = field(default_factory=list)

    def counted_by(self) -> list[Written]:
        """The cards that counted at the end (not the acts), by seat, each with its writer."""
        newest = {card.seat: card for card in self.written if card.act is None and card.counted}
        return [newest[seat] for seat in sorted(newest)]

    def voter_names(self) -> list[str]:
        """The names as the step closed, each seat with a counted card named by who wrote
        it: a day's votes are their writers'."""
        named = list(self.names)
        for card in self.counted_by():
            if 0 <= card.seat < len(named):
                named[card.seat] = card.by
        return named


def story(game: Game, seen: Sequence[Event] | None = None) -> list[Chapter]:
    """The game's chapters: the setup, then every phase that has happened (resolved, or
    open with an instant act applied or an event recorded), by index. `seen`: the events
    to tell (the moderator's, by default: every one), with their names and phases given
    by `selectors.log`. One query for the phases and one for every card of the game."""
    if seen is None:
        seen = selectors.visible_events(game, engine.MODERATOR)
    events = list(seen)
    held = holders.of(game)  # (read first: the log names the events from it)
    selectors.log(game, engine.MODERATOR, events)  # names_then, holding and phase on each event
    phases = list(game.phases.order_by("index"))
    chapters: dict[int | None, Chapter] = {None: Chapter(None, names=held.names_dealt())}
    for phase in phases:
        chapters[phase.pk] = Chapter(phase, names=held.names_during(phase))
    for event in events:
        chapter = chapters.setdefault(event.phase_id, Chapter(None, names=held.names_dealt()))
        chapter.events.append(event)
        if event.holding is not None:
            chapter.handovers.append(event.holding)
    rows = Order.objects.filter(phase__game=game).order_by("pk")
    for phase_id, seat, payload, source, submitted_at, act in rows.values_list(
        "phase_id", "seat", "payload", "source", "submitted_at", "act"
    ):
        chapter = chapters[phase_id]
        card = Written(seat, engine.Order.from_json(payload), source, submitted_at, act)
        if 0 <= seat < held.seats:
            card.by, card.names = held.at(seat, submitted_at).name, held.names_at(submitted_at)
        chapter.written.append(card)
        if act is None:
            chapter.counted[seat] = card.order
    for chapter in chapters.values():
        acts = sorted((card for card in chapter.written if card.act is not None), key=lambda card: card.act or 0)
        chapter.acts = [(card.seat, card.order) for card in acts]
        newest = {card.seat: card for card in chapter.written if card.act is None}
        for card in chapter.written:
            card.counted = card.act is not None or newest.get(card.seat) is card
    return [chapters[None]] + [
        chapters[phase.pk]
        for phase in phases
        if phase.status == Phase.Status.RESOLVED or chapters[phase.pk].acts or chapters[phase.pk].events
    ]


@dataclass
class Step:
    """One step of the replay page: its chapter, its number among the steps, the state it
    left (None before the start), the circle and the ring as they stood then, and its
    votes (a day's step whose cards are not secret), each voter named as the writer of
    the card (`voters`, by seat)."""

    number: int
    chapter: Chapter
    state: engine.State | None
    circle: list[selectors.CircleSeat]
    board: houses.Board | None
    votes: selectors.Ballots | None
    names: list[str]
    voters: list[str] = field(default_factory=list)


def replay_context(game: Game, number: int | None) -> dict[str, Any]:
    """What the replay page shows of step `number` (the last step if None or out of
    range): the step, the list of every step's name to go to, and the outcome."""
    # The server's notes for the organiser (a bounced mail) are left out, not what it told
    # the table (a deadline an absence moved): the replay tells all the public log tells.
    every = selectors.visible_events(game, engine.MODERATOR)
    seen = [event for event in every if event.kind not in SERVER_EVENTS or event.visible_to(engine.PUBLIC)]
    chapters = story(game, seen)
    states = _states(game, chapters)
    last = len(chapters) - 1
    if number is None or not 0 <= number <= last:
        number = last
    chapter = chapters[number]
    names = chapter.names
    before, after = states[number] if states else (None, None)
    told = [event for earlier in chapters[: number + 1] for event in earlier.events]
    outcome = selectors.outcome_event(game, seen)
    return {
        "game": game,
        "viewer": engine.MODERATOR,
        "names": names,
        "steps": [step.phase for step in chapters],
        "step": Step(
            number,
            chapter,
            after,
            _circle(after, names),
            houses.board(after, engine.MODERATOR, told, names) if after is not None else None,
            _votes(game, before, chapter) if before is not None else None,
            names,
            chapter.voter_names(),
        ),
        "previous": number - 1 if number > 0 else None,
        "next": number + 1 if number < last else None,
        "outcome": outcome,
        # The game's score, at the last step of a ruleset that scores (this game's alone:
        # its series is the dashboard's).
        "scores": scores.score_rows(outcome, names) if game.capabilities.scores and number == last else [],
    }


def _states(game: Game, chapters: Sequence[Chapter]) -> list[tuple[engine.State, engine.State]]:
    """The state as each chapter opened and as it left it, rebuilt by the engine from the
    setup, the deal and the cards: none for a game not started, nor for one that does not
    replay to the state it holds."""
    if game.state is None:
        return []
    export = {
        "ruleset": game.ruleset,
        "options": game.options,
        "players": holders.of(game).names_dealt(),  # (the replay counts them)
        "seed": game.seed,
        "deal": game.deal,
        "phases": [
            {
                "index": chapter.phase.index,
                "resolution": chapter.phase.resolution if chapter.phase.status == Phase.Status.RESOLVED else "",
                "orders": {
                    str(seat): order.to_json()
                    for seat, order in chapter.counted.items()
                    if chapter.phase.status == Phase.Status.RESOLVED
                },
                "acts": [{"seat": seat, "order": order.to_json()} for seat, order in chapter.acts],
            }
            for chapter in chapters[1:]
            if chapter.phase is not None
        ],
    }
    try:
        states = [(step.before, step.after) for step in walk(export)]
    except (ValueError, KeyError, IndexError):  # a setup or an act the rules now refuse
        states = []
    if not states or len(states) != len(chapters) or states[-1][1].to_json() != game.engine_state.to_json():
        # Not the game as it was played (a game played by rules since changed): its steps
        # are still told, without a table that would be wrong.
        logger.warning("game %s does not replay to its state: the replay shows no table", game.pk)
        return []
    return states


def _circle(state: engine.State | None, names: Sequence[str]) -> list[selectors.CircleSeat]:
    """The seats clockwise, alive or dead, each with what it holds: the replay is a
    debrief, every role shown."""
    if state is None:
        return []
    return [
        selectors.CircleSeat(seat, names[seat], state.alive[seat], selectors.role_shown(state, seat), False)
        for seat in range(state.seats)
    ]


def _votes(game: Game, before: engine.State, chapter: Chapter) -> selectors.Ballots | None:
    """A day's votes, from the cards that counted: in a step of the day whose cards are
    not secret (shown while it is open, or revealed together when it closes), and that
    are not acted at once (a bet is no vote). A vote the organiser's end of the game cut
    short counted for nothing: its cards show, not as votes."""
    phase = chapter.phase
    if phase is None or phase.status != Phase.Status.RESOLVED or phase.resolution == Phase.Resolution.ENDED:
        return None
    spec = engine.phase(before)
    if spec.kind != "day" or spec.stage.cards == "secret":
        return None
    if any(slot.card.instant for slot in spec.slots.values()):
        return None
    return selectors.ballots(chapter.counted, game.capabilities.houses, len(spec.slots), selectors.instead_of(spec))
