"""Vote counts in the square, as a forum's moderator posts them by hand: during an open
vote whose cards are public already (a classic day, a Tabula or Luna Piena accusation),
who votes whom, who has not voted, and how many votes a majority needs, as the ruleset
counts it (`engine.majority`). The organiser chooses the interval (`Game.vote_count_hours`);
a count is posted at each interval counted from the step's opening and once more as the
vote closes (the final count, which the day's result tells too). Never at night, never a
secret or revealed ballot: only what every seat may read already.

A count is a post of nobody's seat in the square, worded in the game's language by
templates/talk/vote_count.txt, with a key the database keeps unique
("votecount:<phase>:<slot>"; the final one's slot is "final"), so a count is posted once
whatever races, repeated beat ticks or retries. Names are the seats' holders' at the
moment of the count (`holders`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import timezone, translation

from werewolf import engine
from werewolf.engine import talk

from . import holders, selectors
from .models import Game, Phase, Post
from .templatetags.werewolf import ballot_card

FINAL = "final"
"""The slot of the count posted as the vote closes."""


@dataclass(frozen=True)
class VoteCount:
    """A vote counted for the square: each player named (or a card handed in instead of a
    vote, NO ELIMINATION, by its word), with the names of those voting for them (the most
    named first), the seats asked who name nobody, and how many votes
    a majority needs (None: no number of votes settles this vote early)."""

    number: int
    rows: list[tuple[str, list[str]]]
    silent: list[str]
    needed: int | None
    final: bool = False


def count_of(
    game: Game, state: engine.State, cards: Iterable[tuple[int, Any, int | None]], when: datetime, *, final: bool
) -> VoteCount | None:
    """The count of the open step of `state` from its cards (as `Phase.cards` reads
    them), with the names of the seats' holders at `when`; None when the step's cards are
    not public while it is open, or name houses rather than players (Lupusburg)."""
    spec = engine.phase(state)
    if state.over or not spec.public_orders or game.capabilities.houses:
        return None
    tally = selectors.ballots(Phase.counted(cards), False, len(spec.slots), selectors.instead_of(spec))
    names = holders.afresh(game).names_at(when)  # (the resolution hands seats over after this)
    voted = {seat for _, seats in tally.rows for seat in seats}

    def named(target: int | engine.Card) -> str:
        """A player by name, a card taken instead of a vote in the players' words."""
        if isinstance(target, int):
            return names[target]
        with translation.override(game.language):
            return str(ballot_card(target, game))

    return VoteCount(
        number=spec.number,
        rows=[(named(target), [names[seat] for seat in seats]) for target, seats in tally.rows],
        silent=[names[seat] for seat in sorted(spec.slots) if seat not in voted],
        needed=engine.majority(state),
        final=final,
    )


def text_of(game: Game, count: VoteCount) -> str:
    """The count's words, in the game's language."""
    with translation.override(game.language):
        return render_to_string("talk/vote_count.txt", {"count": count}).strip()


def key_of(phase: Phase, slot: int | str) -> str:
    return f"votecount:{phase.pk}:{slot}"


def post_final(game: Game, phase: Phase, state: engine.State, cards: Iterable[tuple[int, Any, int | None]]) -> bool:
    """The final count of `phase`, closing now in `state` (the state it closes in, with
    `cards`), if the game posts counts: called by the resolution, under the game's lock.
    Whether it was posted."""
    if not game.vote_count_hours:
        return False
    return _post(game, phase, state, cards, FINAL)


def post_due(now: datetime | None = None) -> int:
    """The beat's look: post the count each open vote is due (its latest interval since
    the step opened, when that falls before its deadline), once. A game paused posts
    nothing; an interval passed meanwhile is not posted late. The number posted."""
    now = now or timezone.now()
    open_steps = Phase.objects.filter(
        status=Phase.Status.OPEN,
        deadline__gt=now,
        game__status=Game.Status.RUNNING,
        game__paused_at=None,
        game__vote_count_hours__gt=0,
    ).values_list("pk", "opened_at", "deadline", "game__vote_count_hours")
    due: dict[str, tuple[int, int]] = {}
    for pk, opened_at, deadline, hours in open_steps:
        every = timedelta(hours=hours)
        slot = (now - opened_at) // every
        if slot >= 1 and opened_at + slot * every < deadline:  # (the deadline's own count is the final one)
            due[f"votecount:{pk}:{slot}"] = (pk, slot)
    if not due:
        return 0
    posted_already = set(Post.objects.filter(key__in=due).values_list("key", flat=True))
    return sum(_post_open(pk, slot) for key, (pk, slot) in due.items() if key not in posted_already)


def _post_open(pk: int, slot: int) -> bool:
    """Post the count of the open step `pk` for `slot`, if its cards are public."""
    phase = Phase.objects.select_related("game").filter(pk=pk, status=Phase.Status.OPEN).first()
    if phase is None or not _counted(phase.game, phase):
        return False  # (read without the lock: a night, a secret ballot, never counted)
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=phase.game_id)  # a card or the resolution waits
        phase.refresh_from_db(fields=["status"])
        if not _counted(game, phase) or game.paused_at is not None or game.status != Game.Status.RUNNING:
            return False
        return _post(game, phase, game.engine_state, phase.cards(), slot)


def _counted(game: Game, phase: Phase) -> bool:
    """Whether `phase` is the game's open step and its cards are public while it is open."""
    if game.state is None or phase.status != Phase.Status.OPEN:
        return False
    state = game.engine_state
    return state.index == phase.index and not state.over and engine.phase(state).public_orders


def _post(
    game: Game, phase: Phase, state: engine.State, cards: Iterable[tuple[int, Any, int | None]], slot: int | str
) -> bool:
    """Post the count of `phase` for `slot` in the square, unless it is posted already."""
    now = timezone.now()
    count = count_of(game, state, cards, now, final=slot == FINAL)
    if count is None or not any(channel.name == talk.SQUARE for channel in talk.channels(state)):
        return False
    text = text_of(game, count)
    post = Post(game=game, channel=talk.SQUARE, seat=None, author="", text=text, phase=phase, key=key_of(phase, slot))
    try:
        with transaction.atomic():  # (a savepoint: the resolution that calls this goes on)
            post.save(force_insert=True)
    except IntegrityError:
        return False  # posted already, by a tick or a worker that got there first
    return True
