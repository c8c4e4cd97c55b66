"""Who held each seat, when, and why: the one reader of a game's `SeatHolding` rows.

A seat's person changes (a standby stands in for an absence and the player comes back,
the organiser substitutes someone, a standby takes over after missed cards); the
`Player` row holds today's person only. Whatever tells the past (the replay's chapters,
the record, the export, a log's names, a mail about an earlier phase) asks here who
held the seat at that moment, and never works a past name out from today's tables.

Everything is read in one query per game (`of`), and kept on the game instance: a page
or a document asks many times. Reads only: the rows are written where the seats change
hands (`services.start_game`, `services.substitute_player`)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from . import rows
from .models import Event, Game, Order, Phase, SeatHolding

Reason = SeatHolding.Reason

EARLIEST = datetime.min.replace(tzinfo=UTC)
"""Before any moment: where a holding's start is not known (see `of`)."""


class Left(StrEnum):
    """How a person's time in a seat ended, as the holders record tells it (`Holders.left`)."""

    HOLDS = "holds"
    """It has not: they hold the seat still (maybe at an address or name corrected since)."""
    AWAY = "away"
    """A standby stands in while they are away: the seat comes back to them."""
    STAND_IN_OVER = "stand_in_over"
    """They stood in for the seat's player, who has it back."""
    REPLACED = "replaced"
    """Someone else holds the seat for good."""


@dataclass(frozen=True)
class Holding:
    """One person's time in a seat: from `since` (in the step numbered `from_index`;
    None: from the deal) until `until` (in the step `until_index`; None: holds it now).
    `email` is the person's address in the seat (a secret: the organiser's, and the mail
    doors'; "" once removed)."""

    seat: int
    name: str
    email: str
    reason: str
    since: datetime | None
    from_index: int | None
    player_id: int
    until: datetime | None = None
    until_index: int | None = None

    @property
    def dealt(self) -> bool:
        return self.reason == Reason.DEALT

    def get_reason_display(self) -> str:
        return str(Reason(self.reason).label) if self.reason in Reason.values else self.reason


class Holders:
    """A game's seats and their holders over time, each seat's in order."""

    def __init__(self, seats: Sequence[Sequence[Holding]], game_id: int | None = None) -> None:
        self._seats = [list(held) for held in seats]
        self._game_id = game_id  # (for the cards of `writers`; None: no cards read)
        self._written: dict[int, dict[int, list[tuple[datetime, str]]]] | None = None
        # Each seat's hand-over moments after its first holder, for `at` (bisect).
        self._starts = [[holding.since or EARLIEST for holding in held[1:]] for held in self._seats]
        # Every hand-over's moment, whichever seat: the names change only at these.
        self._changes = sorted(moment for starts in self._starts for moment in starts)
        self._names: dict[int, list[str]] = {}

    @property
    def seats(self) -> int:
        return len(self._seats)

    def of_seat(self, seat: int) -> list[Holding]:
        """The holders of `seat`, the dealt player first."""
        return list(self._seats[seat])

    def handovers(self) -> list[Holding]:
        """Every hand-over of the game (each holder but the dealt ones), in order."""
        found = [holding for held in self._seats for holding in held[1:]]
        return sorted(found, key=lambda holding: (holding.since or EARLIEST, holding.seat))

    def dealt(self, seat: int) -> Holding:
        """The player dealt `seat` at the start."""
        return self._seats[seat][0]

    def now(self, seat: int) -> Holding:
        """Who holds `seat` now."""
        return self._seats[seat][-1]

    def at(self, seat: int, when: datetime | None) -> Holding:
        """Who held `seat` at the moment `when` (a card's, an event's; None: now). A
        moment before the first hand-over is the dealt player's."""
        held = self._seats[seat]
        if when is None:
            return held[-1]
        return held[bisect_right(self._starts[seat], when)]

    def during(self, seat: int, phase: Phase) -> Holding:
        """Who held `seat` during `phase`: who answered for it when the phase closed (the
        one holding it now, if it is open). A seat handed over as a step opens is the
        new holder's for that step; a card written before a hand-over in the middle of
        a step is its writer's (`at` its moment)."""
        return self.at(seat, closed_at(phase))

    def names_at(self, when: datetime | None) -> list[str]:
        """Every seat's name at the moment `when` (None: now), by seat."""
        epoch = len(self._changes) if when is None else bisect_right(self._changes, when)
        if epoch not in self._names:
            self._names[epoch] = [self.at(seat, when).name for seat in range(self.seats)]
        return self._names[epoch]

    def names_after(self, count: int) -> list[str]:
        """Every seat's name once the game's first `count` hand-overs happened."""
        key = -1 - count  # (beside `names_at`'s epochs, which count the same hand-overs by time)
        if key not in self._names:
            named = self.names_dealt()
            for holding in self.handovers()[:count]:
                named[holding.seat] = holding.name
            self._names[key] = named
        return self._names[key]

    def tell(self, events: Sequence[Event], before: int = 0) -> None:
        """Give each of `events` (a viewer's, in the order they were recorded) the names
        the seats had when it happened (`names_then`), the names of the writers of the
        cards it tells (`writers_then`: `writers`) and, to an event that told a hand-over
        (`player_substituted`), the holding it began (`holding`; None on the others).
        By their order, not their clocks: each hand-over's event was recorded in its
        transaction, the k-th of the game's told the k-th hand-over. Hand-overs are
        public, so every viewer's events tell them all. `before`: how many hand-overs the
        game's events told before the first of `events` (none, from the start)."""
        changes = self.handovers()
        done = before
        for event in events:
            event.holding = None
            if event.kind == "player_substituted" and done < len(changes):
                told = (event.data.get("seat"), event.data.get("new_name"))
                if (changes[done].seat, changes[done].name) == told:
                    event.holding = changes[done]
                    done += 1
            event.names_then = self.names_after(done)
        self.writers(events)

    def writers(self, events: Sequence[Event], names: Sequence[str] | None = None) -> None:
        """Give each of `events` the names its seats had as the writers of their cards
        (`writers_then`, by seat): the names it tells (`names`, else its `names_then`),
        but a seat whose card in the event's step, handed in before the event, was
        written by someone who has left the seat since is named by that writer (who held
        it `at` the card's moment). An event that tells what a card did (a day's votes, the
        list that chose the pack's victim, the Seer's inquiry) names its writer by these;
        whom a card or a step touched, by the names (the seat's holder then).

        The cards are read once, and only those of the steps in which a seat changed
        hands (`from_index`): elsewhere a seat's cards are all its holder's then."""
        written = self._cards()
        given = None if names is None else list(names)
        for event in events:
            told: list[str] | None = getattr(event, "names_then", None) if given is None else given
            event.writers_then = told  # (the same list where no writer has left)
            cards = written.get(event.phase_id) if event.phase_id is not None else None
            if not cards or told is None:
                continue
            when = getattr(event, "created_at", None)
            named = told
            for seat, made in cards.items():
                wrote = [name for moment, name in made if when is None or moment <= when]
                if wrote and seat < len(told) and told[seat] != wrote[-1]:
                    if named is told:
                        named = list(told)
                    named[seat] = wrote[-1]
            event.writers_then = named

    def _cards(self) -> dict[int, dict[int, list[tuple[datetime, str]]]]:
        """By step (its id) and seat, in the order handed in, each card's moment and
        writer, of each seat handed over in a step while it was open (the steps its
        hand-overs began in): one query, none for a game whose seats never changed hands."""
        if self._written is None:
            handed: dict[int, set[int]] = {}
            for holding in self.handovers():
                if holding.from_index is not None:
                    handed.setdefault(holding.from_index, set()).add(holding.seat)
            self._written = {}
            if handed and self._game_id is not None:
                rows = (
                    Order.objects.filter(phase__game_id=self._game_id, phase__index__in=handed, act=None)
                    .order_by("pk")
                    .values_list("phase_id", "phase__index", "seat", "submitted_at")
                )
                for phase_id, index, seat, moment in rows:
                    if seat in handed[index]:
                        by_seat = self._written.setdefault(phase_id, {})
                        by_seat.setdefault(seat, []).append((moment, self.at(seat, moment).name))
        return self._written

    def names_during(self, phase: Phase | None) -> list[str]:
        """Every seat's name as `phase` closed (`during`); None: as dealt."""
        if phase is None:
            return self.names_dealt()
        return self.names_at(closed_at(phase))

    def names_dealt(self) -> list[str]:
        return [held[0].name for held in self._seats]

    def names_now(self) -> list[str]:
        return self.names_at(None)

    def by_address(self, email: str, seat: int | None = None) -> list[Holding]:
        """Every holding of an address (compared as mail compares it: case aside), in
        order: the seats a mail from it may be about, now or before (`seat`: that seat's
        only)."""
        wanted = email.strip().casefold()
        if not wanted:
            return []
        seats = self._seats if seat is None else self._seats[seat : seat + 1]
        found = [holding for held in seats for holding in held if holding.email.casefold() == wanted]
        return sorted(found, key=lambda holding: (holding.since or EARLIEST, holding.seat))

    def left(self, holding: Holding) -> Left:
        """How the time in the seat of `holding`'s person ended, if it did. The same
        person goes on through a correction of their name or address, and after a standby
        stood in for them once they are back. The next holder who is someone else tells
        the rest: a standby standing in, while the player is not back yet (`AWAY`: the
        seat comes back to them, whoever holds it meanwhile); the player back, after
        `holding`'s person stood in for them (`STAND_IN_OVER`); anyone else (`REPLACED`:
        for good)."""
        held = self._seats[holding.seat]
        at = start = held.index(holding)
        while start > 0 and held[start].reason == Reason.CORRECTED:
            start -= 1  # (whom the corrections were of: how the person came to the seat)
        while True:
            taker = next(
                (number for number in range(at + 1, len(held)) if held[number].reason != Reason.CORRECTED), None
            )
            if taker is None:
                return Left.HOLDS
            if held[taker].reason == Reason.STOOD_IN:
                back = next(
                    (number for number in range(taker + 1, len(held)) if held[number].reason == Reason.BACK), None
                )
                if back is None:
                    return Left.AWAY
                at = back  # (theirs again)
                continue
            if held[start].reason == Reason.STOOD_IN and held[taker].reason == Reason.BACK:
                return Left.STAND_IN_OVER
            return Left.REPLACED


def closed_at(phase: Phase) -> datetime | None:
    """The moment a step closed (None: still open). A seat handed over as the next step
    opened, in the same transaction, is handed over after it."""
    return phase.resolved_at if phase.status == Phase.Status.RESOLVED else None


def of(game: Game) -> Holders:
    """The game's holders, read once per game instance. A seat with no row (a game
    stored before the rows were kept and not carried over) is its player's now, as dealt."""
    reads: dict[Any, Any] = game.__dict__.setdefault("_selector_reads", {})
    if "holders" not in reads:
        reads["holders"] = _read(game)
    return reads["holders"]  # type: ignore[no-any-return]


def afresh(game: Game) -> Holders:
    """The game's holders read now, and not kept on the instance: for a write that reads
    them in the middle of a transaction whose later steps may hand seats over and read
    them again with `of` (the resolution, whose vote count names the seats before the next
    step's hand-overs)."""
    return _read(game)


def forget(game: Game) -> None:
    """Drop the holders this game instance read (`of`): seats changed hands since, and the
    next `of` reads them again."""
    game.__dict__.get("_selector_reads", {}).pop("holders", None)


def read_already(game: Game) -> Holders | None:
    """The game's holders if this game instance has read them (`of`), else None."""
    found = game.__dict__.get("_selector_reads", {}).get("holders")
    return found if isinstance(found, Holders) else None


def _read(game: Game) -> Holders:
    by_seat: dict[int, list[Holding]] = {}
    for seat, name, email, reason, since, index, player_id in rows.holdings(game):
        by_seat.setdefault(seat, []).append(Holding(seat, name, email, reason, since, index, player_id))
    seats = game.engine_state.seats if game.state is not None else len(by_seat)
    if any(seat not in by_seat for seat in range(seats)):
        for player in game.players.exclude(seat=None).filter(seat__lt=seats):
            by_seat.setdefault(
                player.occupied_seat,
                [Holding(player.occupied_seat, player.name, player.email, Reason.DEALT, None, None, player.pk)],
            )
    held: list[list[Holding]] = []
    for seat in range(seats):
        chain = by_seat.get(seat, [])
        held.append(
            [
                replace(holding, until=following.since, until_index=following.from_index)
                for holding, following in zip(chain, chain[1:], strict=False)
            ]
            + chain[-1:]
        )
    return Holders(held, game.pk)
