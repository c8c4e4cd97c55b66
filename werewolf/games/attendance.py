"""Missed cards: a game's policy, the count kept for each seat, and what the count sets off.

A seat **missed** a card in a phase when the phase asked it for one (its slot in the
phase's step, `engine.phase(state).slots`, the state before the phase resolved) and the
phase resolved at its deadline with no card of the seat in it: no card handed in by any
door (the web, a mail, the organiser typing in its paper notecard; an instant card
counts too). Bots never miss. Who a phase asks rests on public facts in every ruleset
(every living seat writes a card at night; a day asks by who lives, who is suspected, who
holds the Burgomaster's privilege), so neither a count nor the moment a seat changes
hands tells anything of a role. A card of the seat's own in a phase sets its count back
to nought, whatever ended the phase. A phase ended before its deadline (every card in, a
majority, the organiser's "resolve now", a game ended) counts no seat as missing: its
deadline never came. (A step closed by its last instant card, a Lupusburg bet, moves no
count at all: every seat it asked acted.)

The count is kept on the seat's player (`Player.missed_cards`) and moved once, by the
resolution that claimed the phase, under the game's lock (`services.resolve_phase`).
When it reaches the policy's `prod_after`, the player is mailed a prod; when it reaches
`act_after`, the policy's `at_limit` applies: the organiser is asked to decide, the seat
goes to the next standby (`games.standbys`, after the resolution commits, in a task that
does nothing twice), or nothing happens (the seat stays on its default card). The
organiser is told of both in one mail per phase. A seat that changes hands starts
from nought.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import F

from werewolf import engine

from .models import Game, Phase, Player, SeatPolicy, Standby
from .outbox import outbox
from .queue import after_commit

AtLimit = SeatPolicy.AtLimit

TAKE_OVER_TASK = "tasks.standbys.take_over"
"""The task that seats the next standby in a seat that reached its limit."""


@dataclass(frozen=True)
class Policy:
    """What missed cards set off: a prod after `prod_after` in a row, `at_limit` after
    `act_after` (nought: never), and how many standbys the game takes."""

    prod_after: int = 2
    act_after: int = 3
    at_limit: str = AtLimit.ASK
    standby_limit: int = 5


DEFAULT = Policy()


def policy_of(game: Game) -> Policy:
    """The game's policy: as the organiser set it, or the defaults. (Read with the game
    where it was: `links.player_for` reads its columns with the game's row, `policy_id`
    NULL where the game has none.)"""
    joined = vars(game)
    if "policy_id" in joined:
        if joined["policy_id"] is None:
            return DEFAULT
        return Policy(
            joined["policy_prod_after"],
            joined["policy_act_after"],
            joined["policy_at_limit"],
            joined["policy_standby_limit"],
        )
    try:
        row = game.seat_policy
    except SeatPolicy.DoesNotExist:
        return DEFAULT
    return Policy(row.prod_after, row.act_after, row.at_limit, row.standby_limit)


def missed(asked: Iterable[int], handed: Iterable[int], resolution: str) -> tuple[set[int], set[int]]:
    """The seats that missed their card in a phase, and the seats whose own card was in,
    given the seats it `asked`, those with a card `handed` in, and how it resolved."""
    asked, handed = set(asked), set(handed)
    kept = asked & handed
    if resolution != Phase.Resolution.DEADLINE:
        return set(), kept
    return asked - handed, kept


def reached(count: int, threshold: int) -> bool:
    """Whether a count just moved to the threshold (nought: never). A count moves by one
    a phase, so each threshold is reached once in a run of missed cards."""
    return threshold > 0 and count == threshold


@dataclass(frozen=True)
class Verdict:
    """What a resolution's count set off: the players prodded, those at the limit, and
    the mails queued (their ids, for `services._mail`)."""

    prodded: list[Player]
    at_limit: list[Player]
    mails: list[int]


def tally(
    game: Game, phase: Phase, state: engine.State, resolution: str, handed: set[int], everyone: list[Player]
) -> Verdict:
    """Count the phase's missed cards, under the game's lock, in the transaction that
    resolved it (`state`: the game's state before it resolved; `handed`: the seats with
    a card in the phase, which the resolution read with the cards it counted;
    `everyone`: the game's players, which the resolution read under the lock, their
    counts as they stand). Queues the prods and the organiser's note, and the standbys'
    take-over where the policy says so.

    The counts are read from `everyone` rather than asked again (every writer of a count
    holds the game's lock), so a phase whose seats all handed in, none of them behind,
    costs no statement; the loaded players are given their new counts."""
    spec = engine.phase(state)
    missing, kept = missed(spec.slots, handed, resolution)
    behind = [player for player in everyone if player.seat in kept and player.missed_cards]
    if behind:
        Player.objects.filter(pk__in=[player.pk for player in behind]).update(missed_cards=0)
        for player in behind:
            player.missed_cards = 0
    if not missing:
        return Verdict([], [], [])
    policy = policy_of(game)
    players = sorted(
        (player for player in everyone if player.seat in missing and not player.is_bot),
        key=lambda player: player.occupied_seat,
    )
    Player.objects.filter(pk__in=[player.pk for player in players]).update(missed_cards=F("missed_cards") + 1)
    for player in players:  # (as just written: the rows are under the game's lock)
        player.missed_cards += 1
    prodded = [player for player in players if reached(player.missed_cards, policy.prod_after)]
    at_limit = [player for player in players if reached(player.missed_cards, policy.act_after)]
    seated = standbys_waiting(game)[: len(at_limit)] if at_limit and policy.at_limit == AtLimit.STANDBY else []
    mails = outbox().queue_prods(phase, [player for player in prodded if player.email], policy)
    if prodded or at_limit:
        mails += outbox().queue_attendance(phase, prodded, at_limit, policy, len(seated))
    for player in at_limit[: len(seated)]:
        after_commit(TAKE_OVER_TASK, player.pk, player.missed_cards)
    return Verdict(prodded, at_limit, mails)


def standbys_waiting(game: Game) -> list[Standby]:
    """The game's confirmed standbys not yet seated, in sign-up order: the next one first."""
    return list(game.standbys.filter(pending=False, seated_at=None).order_by("joined_at", "pk"))


def late_seats(phase: Phase, state: engine.State) -> list[Player]:
    """The seats the open phase asks for a card and has none from yet, in seat order:
    what the organiser's late list names (never what any card says)."""
    handed = set(phase.orders.order_by().values_list("seat", flat=True).distinct())
    waiting = [seat for seat in engine.phase(state).slots if seat not in handed]
    return list(phase.game.players.filter(seat__in=waiting).order_by("seat"))
