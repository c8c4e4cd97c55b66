"""Mail from a person whose seat was handed on: who they are to the seat now.

A seat changes hands with a new link (`services.substitute_player`), and the mails of
the old link carry references the server no longer takes. A reply to one of them still
comes from someone the game knows: the player a standby stands in for while they are
away (the seat is theirs again after the absence), the person replaced for good, or
the standby whose stand-in is over. Each is answered, at the address they held the seat
with, in words that say who holds the seat (for now, or for good) and what to do; the
game is not changed, and the answer says nothing of what happened in the seat since
(what the standby did or learnt is the seat's, not theirs). A sender the seat never had
is told nothing.

Who wrote is the seat's holders record's to say (werewolf/games/holders.py): the address
the sender held the seat with, and how their time in it ended.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from werewolf.games import absences, holders
from werewolf.games.models import SeatLink

AWAY = "seat_away"
"""A standby holds the seat while its player is away: the seat comes back to them."""
REPLACED = "seat_replaced"
"""Someone else holds the seat for good."""
STAND_IN_OVER = "stand_in_over"
"""The writer stood in for the seat's player, who has it back."""

MOVED = "revoked_reference"
"""The writer holds the seat still, at another address now (or with a newer link): the
answer goes to the seat's registered address, as every answer to a seat does."""

CODES = (AWAY, REPLACED, STAND_IN_OVER)
"""The codes answered at the writer's own address rather than the seat's."""

_CODE = {
    holders.Left.HOLDS: MOVED,
    holders.Left.AWAY: AWAY,
    holders.Left.STAND_IN_OVER: STAND_IN_OVER,
    holders.Left.REPLACED: REPLACED,
}


@dataclass(frozen=True)
class Former:
    """A person who held a seat before, writing from the address they held it with:
    `code` says how the seat left them, `until` the last day of the absence a standby
    plays the seat for (`AWAY` only)."""

    name: str
    email: str
    code: str
    until: date | None = None


def former(link: SeatLink, sender: str) -> Former | None:
    """Who `sender` was to the seat of `link`, a link since revoked: their latest time in
    the seat at that address, and how it ended; None if they never held it (a stranger
    with a copy of an old mail)."""
    sender = sender.strip().casefold()
    seat = link.player
    if not sender or seat.seat is None:
        return None
    held = holders.of(seat.game)
    if seat.seat >= held.seats:
        return None
    theirs = held.by_address(sender, seat.seat)
    if not theirs:
        return None
    code = _CODE[held.left(theirs[-1])]
    if code == MOVED:  # an older mail of their own (before a stand-in, or a corrected address)
        return Former(held.now(seat.seat).name, sender, MOVED)
    if code == AWAY:
        away = absences.stood_in_for(seat)
        return Former(theirs[-1].name, sender, AWAY, away.end if away is not None else None)
    return Former(theirs[-1].name, sender, code)
