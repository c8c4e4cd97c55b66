"""Standbys: people who signed up by a game's join link to take a seat when one needs a
new player, and the seating of one.

A standby asks by the join link (before the start, beside the players; once the game
runs, while the organiser keeps the standby list open), confirms by the link mailed to
them, and waits. Until seated a standby learns nothing secret: no seat, no role, no seat
link, no mail but the confirmation; their own page says where they are in the line.
Seating one (`seat`) is the organiser's substitution (`services.substitute_player`):
the seat, its role and its private history stay, the old link is revoked, the table is
told the seat changed hands, and the standby is mailed the seat's link. The
missed-cards policy seats the next standby, in sign-up order (`take_over`).
"""

from __future__ import annotations

import logging
import secrets

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from . import attendance, services, validators
from .models import Absence, Game, Player, SeatHolding, Standby
from .outbox import outbox

logger = logging.getLogger(__name__)

OPEN = (Game.Status.DRAFT, Game.Status.RUNNING)
"""The games whose join link may take standbys."""


def sign_up(key: str, name: str, email: str) -> Standby:
    """A person asks to stand by, by the join link: kept as pending and mailed a link to
    confirm. Refused as a player's sign-up is (`signup_closed`, `signup_address_taken`,
    `signup_name_taken`), and when the game has as many standbys waiting as its policy
    takes (`standby_full`). Asking again with the same address replaces one's own
    pending request."""
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(signup_key=key, status__in=OPEN).first()
        if not key or game is None:
            raise services.ServiceError("signup_closed")
        waiting = game.standbys.filter(seated_at=None)
        waiting.filter(pending=True, joined_at__lt=timezone.now() - services.signup_expiry()).delete()
        waiting.filter(pending=True, email__iexact=email).delete()
        if waiting.count() >= attendance.policy_of(game).standby_limit:
            raise services.ServiceError("standby_full")
        people = [(player.name, player.email) for player in game.players.all()]
        people += [(standby.name, standby.email) for standby in waiting]
        if any(address and address.casefold() == email.casefold() for _, address in people):
            raise services.ServiceError("signup_address_taken")
        if any(validators.notecard_key(known) == validators.notecard_key(name) for known, _ in people):
            raise services.ServiceError("signup_name_taken", name=name)
        standby = Standby.objects.create(game=game, name=name, email=email)
        services._mail([outbox().queue_standby_signup(standby)])
    return standby


def confirm(standby: Standby) -> Standby:
    """The standby confirmed by the link mailed to them: they are in the line. Too late
    (`signup_expiry` passed) or the list closed meanwhile: `signup_closed`. Twice:
    nothing changes."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=standby.game_id)
        found = game.standbys.filter(pk=standby.pk).first()
        if found is None:
            raise services.ServiceError("signup_closed")
        if found.pending:
            late = found.joined_at < timezone.now() - services.signup_expiry()
            if late or game.status not in OPEN or not game.signup_key:
                raise services.ServiceError("signup_closed")
            found.pending = False
            found.save(update_fields=["pending"])
    return found


def leave(standby: Standby) -> None:
    """The standby takes themself off the line (not once seated)."""
    Standby.objects.filter(pk=standby.pk, seated_at=None).delete()


def remove(game: Game, standby_id: int | None) -> None:
    """The organiser takes a standby off the line."""
    if standby_id is not None:
        game.standbys.filter(pk=standby_id, seated_at=None).delete()


def open_list(game: Game) -> Game:
    """Open a running game's join link to standbys (a game not started opens its sign-up
    for players and standbys alike: `services.open_signup`)."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        if game.status != Game.Status.RUNNING:
            raise services.ServiceError("game_not_running")
        game.signup_key = game.signup_key or secrets.token_urlsafe(16)
        game.save(update_fields=["signup_key"])
    return game


def close_list(game: Game) -> Game:
    """Close the join link to standbys: those not confirmed are dropped, the line stays."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        game.signup_key = ""
        game.save(update_fields=["signup_key"])
        game.standbys.filter(pending=True).delete()
    return game


def seat(player: Player, standby: Standby | None = None, reason: str = SeatHolding.Reason.SUBSTITUTED) -> Standby:
    """Seat a standby in `player`'s seat (the next one in the line unless named): the
    organiser's substitution, with the standby as the new person (`reason`: why, for
    the seat's holders record; the missed-cards policy's take-over says so).
    `no_standby` if the line is empty; `signup_name_taken` if a player took the
    standby's name meanwhile."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=player.game_id)
        if game.status != Game.Status.RUNNING:
            raise services.ServiceError("game_not_running")
        waiting = attendance.standbys_waiting(game)
        chosen = waiting[0] if standby is None and waiting else standby
        if chosen is None or all(chosen.pk != other.pk for other in waiting):
            raise services.ServiceError("no_standby")
        others = game.players.exclude(pk=player.pk).values_list("name", flat=True)
        if any(validators.notecard_key(name) == validators.notecard_key(chosen.name) for name in others):
            raise services.ServiceError("signup_name_taken", name=chosen.name)
        services.substitute_player(player, name=chosen.name, email=chosen.email, reason=reason, new_person=True)
        chosen.seated_at, chosen.player = timezone.now(), player
        chosen.save(update_fields=["seated_at", "player"])
    return chosen


def take_over(player_id: int, missed: int) -> Standby | None:
    """The policy's take-over, run after the resolution that brought the seat to its
    limit commits: the next standby takes the seat if it is still at that count (a
    second run, or a substitution meanwhile, finds it changed and does nothing)."""
    player = Player.objects.select_related("game").filter(pk=player_id).first()
    if player is None:
        return None
    with transaction.atomic():
        Game.objects.select_for_update().get(pk=player.game_id)
        if not Player.objects.filter(pk=player_id, missed_cards=missed).exists():
            return None
        try:
            return seat(player, reason=SeatHolding.Reason.TOOK_OVER)
        except services.ServiceError as refused:
            logger.warning("seat %s kept its player: %s", player.seat, refused.code, extra={"game": player.game_id})
            return None


def sweep_take_overs() -> int:
    """The beat's net under `take_over`: every seat of a running game whose policy seats
    standbys, at or past its limit, while a standby waits, is taken over now (the task
    after its resolution was lost, or a standby signed up since). The number seated."""
    due = Player.objects.filter(
        game__status=Game.Status.RUNNING,
        game__seat_policy__at_limit=attendance.AtLimit.STANDBY,
        game__seat_policy__act_after__gt=0,
        missed_cards__gte=F("game__seat_policy__act_after"),
        is_bot=False,
        game__standbys__pending=False,
        game__standbys__seated_at=None,
    ).distinct()
    seated = 0
    for pk, missed in list(due.order_by("game", "seat").values_list("pk", "missed_cards")):
        seated += take_over(pk, missed) is not None
    return seated


_SALT = "werewolf.standby"


def page_url(standby: Standby) -> str:
    """The standby's own page (signed, so it can't be made up): the confirmation, then
    their place in the line."""
    token = signing.dumps(standby.pk, salt=_SALT, compress=False)
    return settings.SITE_URL + reverse("games:standby", args=[token])


def for_token(token: str) -> Standby | None:
    """The standby a page link names; None if forged, mangled, or gone."""
    try:
        pk = signing.loads(token, salt=_SALT)
    except signing.BadSignature:
        return None
    return Standby.objects.select_related("game").filter(pk=pk).first() if isinstance(pk, int) else None


def handed_back(standby: Standby) -> bool:
    """Whether the standby played an absent player's seat that is back with its player
    (the `standby` absence policy: `services.stand_in`)."""
    return (
        standby.seated_at is not None and Absence.objects.filter(standby=standby, handed_back_at__isnull=False).exists()
    )


def place_in_line(standby: Standby) -> int:
    """1 for the next standby to be seated, and so on; 0 if not (or no longer) waiting."""
    if standby.pending or standby.seated_at is not None:
        return 0
    waiting = [other.pk for other in attendance.standbys_waiting(standby.game)]
    return waiting.index(standby.pk) + 1 if standby.pk in waiting else 0
