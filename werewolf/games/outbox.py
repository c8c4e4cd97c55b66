"""What the games side asks of an outbox, and the one it was given.

The mail side sits above the games: it renders the games' rows and takes their mail in,
and the writes (`services`, `talk`, the admin's "send again") queue mail through it. So
that the arrow goes one way, the games side never imports the mail side: it declares here
what it calls (`Outbox`), and the mail app registers its outbox when Django starts
(`werewolf.mail.apps.MailConfig.ready`), as a contrib app registers itself with another
(`admin.site.register`). `outbox()` is the registered one.

Every `queue_*` call writes `Dispatch` rows and returns their ids. It is made inside the
transaction that causes the mail, so the rows commit with the news or not at all; the
caller hands the ids to the mail task once that transaction commits (`services._mail`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from .models import Absence, Dispatch, Game, Phase, Player, Post, SeatHolding, Standby

if TYPE_CHECKING:
    from .attendance import Policy


class Default(enum.Enum):
    """A value a caller left out, for the outbox to read from the database."""

    READ = "read"


READ: Final = Default.READ


@dataclass(frozen=True)
class HandOver:
    """A seat that has just changed hands, as the mails tell it: why (`reason`), and the
    person who left it (their name and address as they were, whether mail to them had
    stopped, the missed cards in a row they left at), and the absence a stand-in or a
    return is for. The one who took it is the seat's `Player` now."""

    reason: SeatHolding.Reason
    """Why the seat changed hands (the seat holders' record's reasons), which says what
    each person it concerns is told."""
    name: str
    email: str
    mail_stopped: bool = False
    missed: int = 0
    absence: Absence | None = None


class Outbox(Protocol):
    """The mails the games side queues, each once per key whatever is called again."""

    def queue_welcome(self, player: Player, request: str = "") -> list[int]:
        """The player's seat and link; `request` names a repeat the organiser asked for."""

    def queue_hand_over(self, player: Player, handed: HandOver) -> list[int]:
        """Tell the person now in `player`'s seat, and the one who left it (`handed`),
        what the hand-over means for each, each mail standing alone."""

    def queue_signup(self, player: Player) -> list[int]:
        """The link that confirms a sign-up by the join link."""

    def queue_phase_mails(
        self,
        phase: Phase,
        *,
        players: list[Player] | None = None,
        following: Phase | None | Default = READ,
        fresh: bool = False,
    ) -> list[int]:
        """What the phase's resolution showed each player with an address. The resolution
        passes what it has at hand: the game's `players`, the phase it opened
        (`following`, None if the game is over), and `fresh` (no mail of this phase can
        exist yet)."""

    def queue_reminders(self, phase: Phase, players: list[Player]) -> list[int]:
        """A reminder to each of `players` that their card for `phase` is not in."""

    def queue_deadline_moved(self, phase: Phase, players: list[Player], reason: str = "organiser") -> list[int]:
        """The open phase's new deadline, to each of `players`; `reason` says why it moved
        ("organiser", "absence": a player is away, "resumed": the game was paused and the
        deadline moved on by the pause, "resumed_further": by the pause and then off the
        game's calendar, "resumed_unmoved": a pause of no time, the deadline as it was)."""

    def queue_paused(self, game: Game, phase: Phase | None, players: list[Player]) -> list[int]:
        """The organiser paused the game (since `game.paused_at`): to each of `players`."""

    def queue_talk_digest(self, player: Player, posts: list[Post], upto: int) -> list[int]:
        """What was said in the places `player` reads, up to the post `upto`."""

    def queue_prods(self, phase: Phase, players: list[Player], policy: Policy) -> list[int]:
        """A prod to each of `players`, whose missed cards reached the policy's first mark."""

    def queue_attendance(
        self, phase: Phase, prodded: list[Player], at_limit: list[Player], policy: Policy, standbys: int
    ) -> list[int]:
        """Tell the organiser which seats were prodded and which reached the limit."""

    def queue_late_list(self, phase: Phase, players: list[Player]) -> list[int]:
        """The organiser's late list: the seats with no card in at the reminder time."""

    def queue_away_unfilled(self, phase: Phase, players: list[Player]) -> list[int]:
        """Tell the organiser no standby was waiting to play these absent players' seats."""

    def queue_stand_in_over(self, standby: Standby, key: str) -> list[int]:
        """Tell a standby the seat they played for an absent player is back with them."""

    def queue_standby_signup(self, standby: Standby) -> list[int]:
        """The link that confirms a standby (their own page)."""

    def send_again(self, dispatch: Dispatch) -> bool:
        """Make a mail that failed or may not have gone out due again, with its
        Message-ID; False if it is neither."""


_registered: Outbox | None = None


def register(outbox: Outbox) -> Outbox:
    """Give the games side its outbox (the mail app does, when Django starts). A later
    registration replaces an earlier one."""
    global _registered
    _registered = outbox
    return outbox


def outbox() -> Outbox:
    """The registered outbox."""
    if _registered is None:
        raise ImproperlyConfigured("No outbox is registered: add 'werewolf.mail' to INSTALLED_APPS.")
    return _registered


@checks.register()
def check_outbox(app_configs: Any, **kwargs: Any) -> list[checks.Error]:
    """The games queue mail in every write that makes news; without an outbox each of
    them would fail."""
    if _registered is not None:
        return []
    return [
        checks.Error(
            "No outbox is registered: the games cannot queue their mail.",
            hint="Add 'werewolf.mail' to INSTALLED_APPS.",
            id="werewolf.E002",
        )
    ]
