"""A player's absences: declared and withdrawn on their page (`views_calendar`) or by
mail (`AWAY 24 December to 27 December`, `ASSENTE dal 24 dicembre al 27 dicembre`;
werewolf/mail/inbound.py), seen by the player and the game's organisers only.

What an absence does is the game's `absence_policy`:

- `nothing` (the default): nothing; a card not handed in is a card not handed in.
- `move`: a deadline whose day falls inside the absence of a living seat moves past it,
  to the day after at the same hour, charged to that player, up to the game's
  `absence_days` per player and game (so nobody holds a game hostage). Declaring an
  absence moves the open step's deadline at once if it falls inside it; a step that
  opens later is placed the same way (`deadlines.settle`). Everyone is told the new
  deadline, never whose absence moved it. A withdrawn absence moves nothing more; what
  it already moved stays moved, and stays charged.
- `standby`: a standby plays the seat meanwhile. When a step opens whose deadline falls
  on a day a living seat's player is away, the next confirmed standby takes the seat for
  the absence, as the organiser's substitution does (`services.stand_in`); the first step
  that opens on a day after the absence, or the absence withdrawn, gives the seat back to
  its player the same way, with a new link. The standby then leaves the list: they have
  seen this seat's secrets, so they may not play another. No standby waiting: the seat
  plays on its default card and the organiser is told, once. An absence declared while a
  step is open leaves that step's card to its player. While a standby holds the seat the
  player's absences are off the seat's page (the standby neither sees nor withdraws
  them; those the standby declares there are theirs, withdrawn when the seat goes back);
  the organiser withdraws one on the calendar page when the player is back early.

A line that cannot be taken (unreadable, in the past, ending before it starts, too long,
too far ahead) is refused with its code (`dates.DateError`), nothing changed.
"""

from __future__ import annotations

from datetime import date, datetime

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from . import calendar, dates, deadlines
from .models import Absence, AbsencePolicy, Game, Player
from .outbox import outbox
from .services import ServiceError, _locked, _mail, _record, _schedule, hand_back


def today(game: Game) -> date:
    """Today on the game's clock."""
    return calendar.local(timezone.now(), deadlines.zone_of(game)).date()


def upcoming(player: Player) -> list[Absence]:
    """The player's absences not withdrawn and not over, soonest first."""
    return list(_seat_absences(player).order_by("start", "pk"))


def _seat_absences(player: Player) -> QuerySet[Absence]:
    """The absences the seat's page deals with: not withdrawn, not over, and the person's
    now in the seat. While a standby holds it for an absence, those are the ones declared
    since (the absent player's are theirs, neither seen nor withdrawn by the standby)."""
    found = player.absences.filter(withdrawn_at=None, end__gte=today(player.game))
    held = stood_in_for(player)
    return found if held is None else found.filter(created_at__gt=held.stood_in_at)


def stood_in_for(player: Player) -> Absence | None:
    """The absence a standby holds the seat for now (None: the seat's player holds it)."""
    return player.absences.filter(stood_in_at__isnull=False, handed_back_at=None).order_by("-stood_in_at").first()


def of_game(game: Game) -> list[Absence]:
    """Every absence of the game not withdrawn and not over (or whose seat a standby
    still holds), for its organisers."""
    found = _of_game(game).select_related("player", "standby")
    return list(found.order_by("start", "pk"))


def _of_game(game: Game) -> QuerySet[Absence]:
    held = Q(stood_in_at__isnull=False, handed_back_at=None)
    return game.absences.filter(withdrawn_at=None).filter(Q(end__gte=today(game)) | held)


def absent_seats(game: Game, when: datetime) -> set[int]:
    """The seats whose absence (not withdrawn) covers `when`'s day on the game's clock:
    what the `standby` policy asks (a standby plays these seats meanwhile). Secret: the
    organiser's and each seat's own, never the table's."""
    day = calendar.local(when, deadlines.zone_of(game)).date()
    rows = game.absences.filter(withdrawn_at=None, start__lte=day, end__gte=day)
    return {seat for seat in rows.values_list("player__seat", flat=True) if seat is not None}


def apply_line(player: Player, text: str, source: str = Absence.Source.MAIL) -> tuple[str, list[Absence]]:
    """Do what an absence line says for the player: ("declared", [the absence]) or
    ("withdrawn", [the absences withdrawn]); `dates.DateError` or `ServiceError` if it
    cannot be done."""
    request = dates.read(text, today(player.game))
    if request.word == dates.AWAY:
        assert request.span is not None
        return "declared", [declare(player, request.span, source)]
    return "withdrawn", withdraw(player, request.span)


def declare(player: Player, span: dates.Span, source: str = Absence.Source.WEB) -> Absence:
    """Record the player's absence (checked again: `dates.DateError`), and move the open
    step's deadline past it if the game's policy says so."""
    with transaction.atomic():
        game = _locked(player.game)
        if not game.is_running:
            raise ServiceError("game_not_running")
        dates.check(span, today(game))
        player = Player.objects.get(pk=player.pk, game=game)
        absence = Absence.objects.create(game=game, player=player, start=span.start, end=span.end, source=source)
        if game.absence_policy == AbsencePolicy.MOVE and game.paused_at is None:
            _move_open_deadline(game)
    return absence


def withdraw(player: Player, span: dates.Span | None = None, absence_id: int | None = None) -> list[Absence]:
    """Withdraw the player's absences that meet `span` (every one not over, without one),
    or the one numbered `absence_id`. What they already moved stays moved."""
    with transaction.atomic():
        game = _locked(player.game)
        found = _seat_absences(player).filter(game=game)
        if absence_id is not None:
            found = found.filter(pk=absence_id)
        if span is not None:
            found = found.filter(Q(start__lte=span.end) & Q(end__gte=span.start))
        withdrawn = list(found)
        if not withdrawn:
            raise ServiceError("no_absence")
        Absence.objects.filter(pk__in=[absence.pk for absence in withdrawn]).update(withdrawn_at=timezone.now())
    return withdrawn


def withdraw_for_player(game: Game, absence_id: int) -> Absence:
    """The organiser withdraws an absence (the player is back early, and a standby may
    hold their seat, link and all): a seat a standby holds for it goes back to its
    player at once. `no_absence` if it is not one of the game's, or over."""
    with transaction.atomic():
        game = _locked(game)
        found = _of_game(game).filter(pk=absence_id).first()
        if found is None:
            raise ServiceError("no_absence")
        found.withdrawn_at = timezone.now()
        found.save(update_fields=["withdrawn_at"])
        hand_back(found)
    return found


def _move_open_deadline(game: Game) -> None:
    """Under the game's lock: the open step's deadline placed again by the calendar; if an
    absence moved it, recorded, scheduled, and everyone mailed the new deadline."""
    phase = game.current_phase()
    if phase is None:
        return
    placed = deadlines.settle(game, game.engine_state, phase.deadline)
    if not placed.by_absence or placed.deadline == phase.deadline:
        return
    phase.deadline = placed.deadline
    phase.save(update_fields=["deadline"])
    _record(game, phase, [deadlines.moved_event(game, placed.deadline)])
    _schedule(phase)
    players = list(game.players.exclude(seat=None).filter(is_bot=False).exclude(email=""))
    _mail([outbox().queue_deadline_moved(phase, players, reason="absence")])
