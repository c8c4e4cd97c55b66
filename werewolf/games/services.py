"""Everything that changes a game. Views, tasks and commands call these; nothing else
writes game rows.

`resolve_phase` is the only place a phase resolves. It claims the phase with a
conditional UPDATE inside one transaction, so a phase resolves exactly once whatever
races: two workers, a deadline and a majority at the same moment, a retried task, or a
worker that dies halfway (its transaction rolls back and the sweeper tries again).
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from random import Random
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from werewolf import engine
from werewolf.engine.bots import bot_card
from werewolf.engine.random import seating_rng

from . import acceptance, attendance, calendar, deadlines, holders, links, validators, vote_counts
from .models import Absence, AbsencePolicy, Event, Game, Order, Phase, Player, SeatHolding
from .outbox import HandOver, outbox
from .queue import after_commit
from .rows import due_phase, players_of
from .rows import insert as insert_rows

logger = logging.getLogger(__name__)


class ServiceError(Exception):
    """An action refused. `code` picks the message template; `params` fill it."""

    def __init__(self, code: str, /, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


class OrderRefused(ServiceError):
    def __init__(self, error: engine.OrderError) -> None:
        super().__init__(error.code, target=error.target)
        self.error = error


class CardsRefused(ServiceError):
    """Some of several cards were refused: `errors` by seat. None was handed in."""

    def __init__(self, errors: Mapping[int, OrderRefused]) -> None:
        super().__init__("cards_refused")
        self.errors = dict(errors)


@dataclass(frozen=True)
class Seating:
    name: str
    email: str = ""
    is_bot: bool = False


# Setting up ------------------------------------------------------------------------


def create_game(
    organiser: Any,
    *,
    name: str,
    seats: Sequence[Seating],
    options: Mapping[str, Any],
    ruleset: str = engine.listed()[0],
    timezone_name: str = "UTC",
    night_minutes: int = 1440,
    day_minutes: int = 1440,
    stage_minutes: Mapping[str, int] | None = None,
    early_resolution: bool = True,
    draw_seats: bool = True,
    deal_roles: bool = True,
    public_square: bool = False,
    expected_players: int | None = None,
    seed: int | None = None,
    is_demo: bool = False,
    language: str = "en",
) -> Game:
    """A game not yet started. Options are checked now (`engine.SetupError`), for
    `expected_players` when players will join by the link (else for the seats given)."""
    checked = engine.options(ruleset, options, expected_players or len(seats))
    with transaction.atomic():
        game = Game.objects.create(
            name=name,
            ruleset=ruleset,
            organiser=organiser,
            options=checked,
            seed=secrets.randbits(62) if seed is None else seed,
            timezone=timezone_name,
            night_minutes=night_minutes,
            day_minutes=day_minutes,
            stage_minutes=dict(stage_minutes or {}),
            early_resolution=early_resolution,
            draw_seats=draw_seats,
            deal_roles=deal_roles,
            public_square=public_square,
            language=language,
            chosen_options=dict(options),
            public_key=secrets.token_urlsafe(16),
            is_demo=is_demo,
            vote_count_hours=engine.capabilities(ruleset).vote_counts,  # the organiser may change it
        )
        Player.objects.bulk_create(
            Player(game=game, name=seat.name, email=seat.email, is_bot=seat.is_bot) for seat in seats
        )
    return game


def start_game(game: Game) -> Game:
    """Draw the seats, deal the roles, open the first phase and mail every player."""
    with transaction.atomic():
        game = _locked(game)
        if game.status != Game.Status.DRAFT:
            raise ServiceError("already_started")
        if game.signup_key or game.players.filter(pending=True).exists():
            # Starting closes the sign-up: whoever has not confirmed by mail is not seated.
            game.players.filter(pending=True).delete()
            game.signup_key = ""
            game.save(update_fields=["signup_key"])
        players = list(game.players.order_by("pk"))
        rules = engine.rulesets.get(game.ruleset)
        if not rules.min_players <= len(players) <= rules.max_players:
            raise ServiceError("player_count", least=rules.min_players, most=rules.max_players, count=len(players))
        try:
            # The defaults (how many wolves, which specials) fit the table as it is now:
            # with players joining by a link, it was not known when the game was made.
            game.options = engine.options(game.ruleset, game.chosen_options or game.options, len(players))
        except engine.SetupError as refused:
            raise ServiceError("options_do_not_fit", count=len(players), setup_code=refused.code) from refused
        if game.draw_seats:
            seating_rng(game.seed).shuffle(players)
        deal = None
        if not game.deal_roles:
            deal = _assigned_deal(game.ruleset, game.options, players)
            if deal is None:
                raise ServiceError("roles_not_assigned")
        for seat, player in enumerate(players):
            player.seat = seat
            player.save(update_fields=["seat"])
            links.issue(player)
        state, events = engine.setup(game.ruleset, game.options, len(players), game.seed, deal)
        now = timezone.now()
        SeatHolding.objects.bulk_create(
            SeatHolding(
                game=game,
                player=player,
                seat=player.occupied_seat,
                name=player.name,
                email=player.email,
                reason=SeatHolding.Reason.DEALT,
                since=now,
            )
            for player in players
        )
        _record(game, None, events)
        game.state = state.to_json()
        game.deal = engine.deal(state)
        game.status = Game.Status.RUNNING
        game.started_at = now
        game.save()
        _open_phase(game, state, now)
        _mail([outbox().queue_welcome(player) for player in players])
    return game


# Joining by a link -------------------------------------------------------------------


def open_signup(game: Game, limit: int | None = None) -> Game:
    """Open a game not yet started to sign-up by its join link, for at most `limit`
    players in all (None: as many as the ruleset takes)."""
    rules = engine.rulesets.get(game.ruleset)
    if limit is not None and not rules.min_players <= limit <= rules.max_players:
        raise ServiceError("signup_limit", least=rules.min_players, most=rules.max_players)
    with transaction.atomic():
        game = _locked(game)
        if game.status != Game.Status.DRAFT:
            raise ServiceError("already_started")
        game.signup_key = game.signup_key or secrets.token_urlsafe(16)
        game.signup_limit = limit
        game.save(update_fields=["signup_key", "signup_limit"])
    return game


def close_signup(game: Game) -> Game:
    """Close the sign-up: the join link stops working, and whoever has not confirmed by
    mail is dropped (those who have keep their seats)."""
    with transaction.atomic():
        game = _locked(game)
        game.signup_key = ""
        game.save(update_fields=["signup_key"])
        game.players.filter(pending=True).delete()
    return game


def signup_expiry() -> timedelta:
    """How long a sign-up waits for its confirmation before it is dropped (and its mailed
    link stops working): WEREWOLF_SIGNUP_HOURS."""
    return timedelta(hours=settings.WEREWOLF_SIGNUP_HOURS)


def sign_up(key: str, name: str, email: str) -> Player:
    """A person asks for a seat by the join link: kept as pending and mailed a link to
    confirm (the address must be theirs). A pending sign-up holds no seat: the table is
    full when the confirmed players fill it, and a sign-up not confirmed within
    `signup_expiry` is dropped. Asking again with the same address replaces one's own
    pending sign-up (a lost mail). Refused (`ServiceError`) when the sign-up is closed
    ("signup_closed"), the table is full ("signup_full"), the address already has a seat
    ("signup_address_taken") or the name is taken; `name` and `email` are checked by the
    form."""
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(signup_key=key, status=Game.Status.DRAFT).first()
        if not key or game is None:
            raise ServiceError("signup_closed")
        game.players.filter(pending=True, joined_at__lt=timezone.now() - signup_expiry()).delete()
        game.players.filter(pending=True, email__iexact=email).delete()
        players = list(game.players.all())
        limit = game.signup_limit or engine.rulesets.get(game.ruleset).max_players
        if sum(not player.pending for player in players) >= limit:
            raise ServiceError("signup_full")
        if any(player.email.casefold() == email.casefold() for player in players if player.email):
            raise ServiceError("signup_address_taken")
        if any(validators.notecard_key(player.name) == validators.notecard_key(name) for player in players):
            raise ServiceError("signup_name_taken", name=name)
        player = Player.objects.create(game=game, name=name, email=email, pending=True)
        _mail([outbox().queue_signup(player)])
    return player


def confirm_signup(player: Player) -> Player:
    """The person confirmed by the link mailed to them: the seat is theirs, if the
    confirmed players have not filled the table meanwhile ("signup_full"). Confirming
    twice changes nothing."""
    with transaction.atomic():
        game = _locked(player.game)
        found = Player.objects.filter(pk=player.pk, game=game).first()
        if found is None or game.status != Game.Status.DRAFT or (found.pending and not game.signup_key):
            raise ServiceError("signup_closed")
        if found.pending:
            limit = game.signup_limit or engine.rulesets.get(game.ruleset).max_players
            if game.players.filter(pending=False).count() >= limit:
                raise ServiceError("signup_full")
            found.pending = False
            found.save(update_fields=["pending"])
    return found


def remove_signup(game: Game, player_id: int | None) -> None:
    """The organiser removes a sign-up still waiting for its confirmation (its link then
    confirms nothing)."""
    with transaction.atomic():
        game = _locked(game)
        if game.status != Game.Status.DRAFT:
            raise ServiceError("already_started")
        if player_id is not None:
            game.players.filter(pk=player_id, pending=True).delete()


def drop_expired_signups(now: datetime | None = None) -> int:
    """Drop every sign-up that waited longer than `signup_expiry` (the beat runs it)."""
    now = now or timezone.now()
    _, dropped = Player.objects.filter(
        pending=True, game__status=Game.Status.DRAFT, joined_at__lt=now - signup_expiry()
    ).delete()
    return dropped.get(Player._meta.label, 0)


def assign_deal(game: Game, hands: Mapping[int, Mapping[str, Any]], mark: int | None) -> None:
    """The organiser's deal, by player id, instead of a random one: each player's hand,
    shaped as `engine.deal_shape` says (one role; a Lupusburg hand), and `mark`, the
    player id the deal names besides (the alpha wolf, None to draw it among the wolves;
    Lupusburg's first Burgomaster). The engine's rules check it (`engine.SetupError`, its
    value a seat numbered in the players' order of id): nothing is saved if refused."""
    with transaction.atomic():
        game = _locked(game)
        if game.status != Game.Status.DRAFT:
            raise ServiceError("already_started")
        players = list(game.players.filter(pending=False).order_by("pk"))
        given = [dict(hands.get(player.pk, {})) for player in players]
        marked = next((index for index, player in enumerate(players) if player.pk == mark), None)
        deal = engine.deal_from_hands(game.ruleset, game.options, given, marked)
        engine.setup(game.ruleset, game.options, len(players), game.seed, deal)  # checks the deal
        for player, hand in zip(players, given, strict=True):
            player.assigned_hand = hand
            player.assigned_mark = player.pk == mark
            player.save(update_fields=["assigned_hand", "assigned_mark"])


def update_draft(
    game: Game,
    *,
    name: str,
    seats: Sequence[Seating],
    options: Mapping[str, Any],
    ruleset: str | None = None,
    timezone_name: str = "UTC",
    night_minutes: int = 1440,
    day_minutes: int = 1440,
    stage_minutes: Mapping[str, int] | None = None,
    early_resolution: bool = True,
    draw_seats: bool = True,
    deal_roles: bool = True,
    public_square: bool = False,
    expected_players: int | None = None,
    language: str = "en",
) -> Game:
    """Change a game that has not started, as `create_game` set it up. The players are
    written again in the new order (the listed order is their order of creation); a
    hand the organiser dealt stays with the player of that name, unless the whole deal
    no longer keeps the rules of the game's new ruleset and numbers: then it is dealt again
    from nothing. A deal left incomplete (a new player, a part the new ruleset adds) is
    kept, to be completed."""
    ruleset = ruleset or game.ruleset
    checked = engine.options(ruleset, options, expected_players or len(seats))
    with transaction.atomic():
        game = _locked(game)
        game.ruleset = ruleset
        if game.status != Game.Status.DRAFT:
            raise ServiceError("already_started")
        dealt = {player.name.casefold(): player for player in game.players.filter(pending=False)}
        players = []
        for seat in seats:
            kept = dealt.get(seat.name.casefold())
            players.append(
                Player(
                    game=game,
                    name=seat.name,
                    email=seat.email,
                    is_bot=seat.is_bot,
                    assigned_hand=kept.assigned_hand if kept else {},
                    assigned_mark=kept.assigned_mark if kept else False,
                )
            )
        deal = _assigned_deal(ruleset, checked, players)
        if deal is not None:
            try:
                engine.setup(ruleset, checked, len(players), game.seed, deal)
            except engine.SetupError:
                for player in players:
                    player.assigned_hand, player.assigned_mark = {}, False
        game.name, game.options, game.timezone = name, checked, timezone_name
        game.chosen_options = dict(options)
        game.night_minutes, game.day_minutes = night_minutes, day_minutes
        game.stage_minutes = dict(stage_minutes or {})
        game.early_resolution, game.draw_seats, game.deal_roles = early_resolution, draw_seats, deal_roles
        game.public_square = public_square
        game.language = language
        game.save()
        game.players.filter(pending=False).delete()  # those still to confirm by mail stay
        Player.objects.bulk_create(players)
    return game


def _assigned_deal(ruleset: str, options: Mapping[str, Any], players: Sequence[Player]) -> dict[str, Any] | None:
    """The organiser's deal of the players in seat order, as `engine.setup` takes it
    (each hand, and the seat of the mark if the organiser named one); None while a hand
    is missing or incomplete for the ruleset (`deal_incomplete`). Whether it keeps the
    rules, `engine.setup` says."""
    mark = next((seat for seat, player in enumerate(players) if player.assigned_mark), None)
    try:
        return engine.deal_from_hands(ruleset, options, [player.assigned_hand or {} for player in players], mark)
    except engine.SetupError as refused:
        if refused.code == "deal_incomplete":
            return None
        raise


def _held(roles: tuple[str, ...]) -> str | list[str]:
    """What a seat holds, as an event writes it: its role, or a list where it holds more."""
    return roles[0] if len(roles) == 1 else list(roles)


def next_in_series(game: Game, organiser: Any) -> Game:
    """The next game of a series (a game that scores: Lupusburg): a draft with the same
    ruleset, options, timings and players as the finished `game`, numbered after it, its
    points adding up with the games before it. The organiser checks it, then starts it."""
    if not game.capabilities.scores:
        raise ServiceError("no_series")
    if game.status != Game.Status.FINISHED:
        raise ServiceError("series_game_not_over")
    first = game.series or game
    players = list(game.players.exclude(seat=None).order_by("seat"))
    seats = [Seating(player.name, player.email, player.is_bot) for player in players]
    following = create_game(
        organiser,
        name=game.name,
        seats=seats,
        options=game.chosen_options or game.options,
        ruleset=game.ruleset,
        timezone_name=game.timezone,
        night_minutes=game.night_minutes,
        day_minutes=game.day_minutes,
        stage_minutes=game.stage_minutes,
        early_resolution=game.early_resolution,
        draw_seats=game.draw_seats,
        deal_roles=game.deal_roles,
        public_square=game.public_square,
        language=game.language,
    )
    following.co_organisers.set(game.co_organisers.all())
    number = 1 + max([first.series_number, *Game.objects.filter(series=first).values_list("series_number", flat=True)])
    Game.objects.filter(pk=following.pk).update(
        series=first,
        series_number=number,
        days_off=game.days_off,
        absence_policy=game.absence_policy,
        absence_days=game.absence_days,
        vote_count_hours=game.vote_count_hours,
    )
    following.refresh_from_db()
    return following


def delete_draft(game: Game) -> None:
    """Delete a game that has not started (nobody has been mailed yet)."""
    with transaction.atomic():
        game = _locked(game)
        if game.status != Game.Status.DRAFT:
            raise ServiceError("already_started")
        game.delete()


# Orders ----------------------------------------------------------------------------


def submit_order(
    game: Game,
    seat: int,
    order: engine.Order,
    *,
    phase_id: int | None = None,
    source: str = Order.Source.WEB,
    entered_by: Any = None,
) -> Order:
    """Hand in a card for the open phase, replacing the seat's earlier one.

    `phase_id` is the phase the card was written for: a card for a phase that has
    already resolved is refused (`phase_closed`), never applied to the next one. A card
    that decides the phase (a majority, or the last card in with early resolution on)
    resolves it at once."""
    try:
        return submit_orders(game, {seat: order}, phase_id=phase_id, source=source, entered_by=entered_by)[0]
    except CardsRefused as refused:
        raise refused.errors[seat] from None


def submit_orders(
    game: Game,
    cards: Mapping[int, engine.Order],
    *,
    phase_id: int | None = None,
    source: str = Order.Source.WEB,
    entered_by: Any = None,
) -> list[Order]:
    """Hand in several seats' cards at once (the organiser typing in a pile of paper
    notecards): all of them or, if any is refused, none; the phase may resolve only
    after the last one is in."""
    with transaction.atomic():
        game = _locked(game)
        phase = game.current_phase() if game.status == Game.Status.RUNNING else None
        refused = acceptance.refusal(
            acceptance.Standing(
                game.status,
                phase.pk if phase is not None else None,
                phase.deadline if phase is not None else None,
                phase_id,
                timezone.now(),
                paused=game.paused_at is not None,
            )
        )
        if refused is not None:
            raise ServiceError(refused)
        assert phase is not None  # (the rules hold: the game runs and has its phase open)
        state = game.engine_state
        checked = {seat: acceptance.checked(state, seat, order) for seat, order in cards.items()}
        errors = {seat: OrderRefused(card) for seat, card in checked.items() if isinstance(card, engine.OrderError)}
        if errors:
            raise CardsRefused(errors)
        rows = []
        acts = phase.orders.filter(act__isnull=False).count()
        for seat, card in sorted(checked.items()):
            assert isinstance(card, engine.Order)
            instant = engine.acts_at_once(state, seat, card)
            if instant:
                checked_now = acceptance.checked(state, seat, card)  # an earlier act may have changed the step
                if isinstance(checked_now, engine.OrderError):
                    raise CardsRefused({seat: OrderRefused(checked_now)})
            row = Order.objects.create(
                phase=phase,
                seat=seat,
                payload=card.to_json(),
                source=source,
                entered_by=entered_by,
                act=acts if instant else None,
            )
            rows.append(row)
            if source == Order.Source.MODERATOR:
                _moderator_event(game, phase, "card_entered", seat=seat, order=card.to_json())
            if instant:
                state = _apply_act(game, phase, state, seat, card, acts)
                acts += 1
                if state.index != phase.index:
                    return rows  # the act closed the step (nobody left to bet)
        trigger = _early_trigger(game, state, phase)
    if trigger:
        resolve_phase(phase.pk, trigger)
    return rows


def _apply_act(
    game: Game, phase: Phase, state: engine.State, seat: int, card: engine.Order, number: int
) -> engine.State:
    """Apply an instant card at once, under the game's lock: its events are recorded on
    the phase, seen by everyone they concern at once. An act that leaves the step with
    nobody to ask closes the phase and opens the next, as a resolution would."""
    new_state, events = engine.act(state, seat, card, number)
    _record(game, phase, events)
    game.state = new_state.to_json()
    now = timezone.now()
    if new_state.index != phase.index:
        Phase.objects.filter(pk=phase.pk).update(
            status=Phase.Status.RESOLVED, resolved_at=now, resolution=Phase.Resolution.ALL_IN
        )
        if new_state.over:
            game.status = Game.Status.FINISHED
            game.finished_at = now
        game.save(update_fields=["state", "status", "finished_at"])
        if not new_state.over:
            stand_in(game, new_state, _open_phase(game, new_state, now, closing=phase))
        _mail([outbox().queue_phase_mails(phase)])
        logger.info(
            "closed phase %s of game %s by its last act",
            phase.index,
            game.pk,
            extra={"game": game.pk, "phase": phase.pk, "index": phase.index, "resolution": Phase.Resolution.ALL_IN},
        )
    else:
        game.save(update_fields=["state"])
    return new_state


def _early_trigger(game: Game, state: engine.State, phase: Phase) -> str | None:
    return early_trigger(game.early_resolution, state, phase)


def early_trigger(early_resolution: bool, state: engine.State, phase: Phase) -> str | None:
    """Whether the phase's cards already end it: a step whose stage may be decided by its
    cards (a classic day's majority), or every card in with early resolution on. The
    cards are read only where either could be so."""
    if not early_resolution and not engine.phase(state).stage.decisive:
        return None
    orders = phase.current_orders()
    if engine.decisive(state, orders):
        return Phase.Resolution.MAJORITY
    if early_resolution and engine.all_in(state, orders):
        return Phase.Resolution.ALL_IN
    return None


# Resolution ------------------------------------------------------------------------


def resolve_phase(phase_id: int, resolution: str, read: Phase | None = None) -> bool:
    """Resolve the phase once. Returns False when it was already resolved or claimed.

    Every service that changes a running game locks the game's row first, so a card, an
    organiser's act and a resolution of the same game never interleave; the conditional
    UPDATE then claims the phase itself. `read` is the phase's row if the caller read it
    already (`resolve_if_due`)."""
    with transaction.atomic():
        # (Read before the lock: what a resolution reads of the phase's row never changes
        # but its status and deadline, which the claim below decides.)
        phase = read if read is not None else Phase.objects.filter(pk=phase_id).order_by().first()
        if phase is None:
            return False
        game = Game.objects.select_for_update().get(pk=phase.game_id)  # as _locked does
        if game.paused_at is not None:
            return False  # a paused game resolves nothing: its deadline moves on when it resumes
        claim = Phase.objects.filter(pk=phase_id, status=Phase.Status.OPEN)
        if resolution == Phase.Resolution.DEADLINE:  # (the deadline as it stands now: a resume may have moved it)
            claim = claim.filter(deadline__lte=timezone.now())
        claimed = claim.update(status=Phase.Status.RESOLVING)
        if not claimed:
            return False
        phase.game = game  # (the row just locked: not read again for the mails)
        state = game.engine_state
        if state.index != phase.index or game.status != Game.Status.RUNNING:
            raise ServiceError("phase_out_of_step", phase=phase_id)
        cards = phase.cards()  # read once: the counted ones, and who handed any in (attendance)
        vote_counts.post_final(game, phase, state, cards)  # (an open vote's last count, if the game posts them)
        new_state, events = engine.resolve(state, Phase.counted(cards))
        now = timezone.now()
        if resolution == Phase.Resolution.MODERATOR:
            _moderator_event(game, phase, "resolved_by_organiser")
        _record(game, phase, events)
        phase.status = Phase.Status.RESOLVED
        phase.resolved_at = now
        phase.resolution = resolution
        phase.save(update_fields=["status", "resolved_at", "resolution"])
        game.state = new_state.to_json()
        if new_state.over:
            game.status = Game.Status.FINISHED
            game.finished_at = now
        game.save(update_fields=["state", "status", "finished_at"])
        players = players_of(game)  # read once: for the bots' cards, the missed cards and the mails
        following = None if new_state.over else _open_phase(game, new_state, now, players, closing=phase)
        # Missed cards counted once, here: prods, the organiser's note, a standby's take-over.
        handed = {seat for seat, _, _ in cards}
        missed = attendance.tally(game, phase, state, resolution, handed, players).mails if following else []
        # (After the tally: a seat that changes hands starts from nought.)
        if following is not None and stand_in(game, new_state, following):
            players = players_of(game)  # the seats that changed hands read their mails
        _mail([outbox().queue_phase_mails(phase, players=players, following=following, fresh=True), missed])
    logger.info(
        "resolved phase %s of game %s (%s)",
        phase.index,
        game.pk,
        resolution,
        extra={"game": game.pk, "phase": phase.pk, "index": phase.index, "resolution": resolution},
    )
    return True


def resolve_if_due(phase_id: int) -> bool:
    """Resolve the phase if its deadline has passed (it may have been extended since
    the task was scheduled)."""
    # (The row read to know it is due is the row the resolution reads: one query, not two.)
    due = due_phase(phase_id, timezone.now())
    return due is not None and resolve_phase(phase_id, Phase.Resolution.DEADLINE, read=due)


def resolve_if_ready(phase_id: int) -> bool:
    """Resolve the phase if its cards already decide it (bots that handed in at once)."""
    phase = Phase.objects.select_related("game").filter(pk=phase_id, status=Phase.Status.OPEN).first()
    if phase is None:
        return False
    trigger = _early_trigger(phase.game, phase.game.engine_state, phase)
    return resolve_phase(phase_id, trigger) if trigger else False


def fan_out_due_phases(now: datetime | None = None) -> int:
    """The beat's sweep: hand every open phase past its deadline to the workers, one task
    each, so that a storm of deadlines is resolved by all the workers at once rather than
    by the one that runs the sweep. A phase is claimed by whichever task gets it first;
    the others find it resolved. If the broker takes nothing, the sweep resolves the
    phases itself, as the net it has always been. The number handed out (or resolved).

    A phase handed out is not handed out again for WEREWOLF_HAND_OUT_AGAIN_SECONDS: in a
    storm that outlasts the sweep's interval, each sweep handed every phase still waiting
    in the queue out once more, and the workers then spent their time finding those
    phases resolved. After that long, one that is still open (its task lost with a
    broker that restarted empty) is handed out again.

    When many are due at once, a task takes several (`hand_out`): Celery's own work for
    a task (the message written and taken, the task traced and acknowledged) is paid
    once for them, not once a game."""
    now = now or timezone.now()
    if getattr(settings, "WEREWOLF_INLINE_TASKS", False):
        return sweep_due_phases(now)
    again = now - timedelta(seconds=settings.WEREWOLF_HAND_OUT_AGAIN_SECONDS)
    with transaction.atomic():
        due = list(
            Phase.objects.select_for_update(skip_locked=True)
            .filter(status=Phase.Status.OPEN, deadline__lte=now)
            .exclude(game_id__in=_paused_games())
            # never handed out; or for an earlier deadline (since extended); or long ago
            .filter(Q(handed_at=None) | Q(handed_at__lt=F("deadline")) | Q(handed_at__lte=again))
            .values_list("pk", flat=True)
        )
        if not due:
            return 0
        Phase.objects.filter(pk__in=due).update(handed_at=now)
    from werewolf.celery import app

    handed = 0
    for batch in hand_out(due):
        try:
            if len(batch) == 1:
                app.send_task("tasks.phases.resolve_due_phase", args=batch)
            else:
                app.send_task("tasks.phases.resolve_due_phases", args=[batch])
            handed += len(batch)
            continue
        except Exception:  # the broker is down: resolve here
            logger.exception("could not hand phases %s to the workers: resolving them here", batch)
        for pk in batch:
            try:
                handed += resolve_phase(pk, Phase.Resolution.DEADLINE)
            except Exception:
                logger.exception("could not resolve phase %s", pk)
                with contextlib.suppress(Exception):  # neither handed out nor resolved: the next sweep tries again
                    Phase.objects.filter(pk=pk, handed_at=now).update(handed_at=None)
    return handed


HAND_OUT_BATCH = 8
"""At most this many due phases to one task of the sweep's ..."""
HAND_OUT_TASKS = 32
"""... and no fewer tasks than this for a storm (one a phase when fewer are due): the
workers, however many, all get their share, and a task's phases are resolved within a
fraction of a second of each other (a twelve-seat game is some 50 ms of a worker)."""


def hand_out(due: list[int]) -> list[list[int]]:
    """The due phases in the batches the sweep hands out, one task each (see above)."""
    size = max(1, min(HAND_OUT_BATCH, len(due) // HAND_OUT_TASKS))
    return [due[start : start + size] for start in range(0, len(due), size)]


def resolve_each_if_due(phase_ids: Sequence[int]) -> int:
    """`resolve_if_due` for each of a batch the sweep handed out, in turn; one that fails
    is logged and the others go on (it is still open, and handed out again later, as a
    phase whose own task failed is). The number resolved here."""
    resolved = 0
    for pk in phase_ids:
        try:
            resolved += resolve_if_due(pk)
        except Exception:
            logger.exception("could not resolve phase %s", pk)
    return resolved


def sweep_due_phases(now: datetime | None = None) -> int:
    """Resolve every open phase past its deadline; the number resolved here."""
    now = now or timezone.now()
    resolved = 0
    due = Phase.objects.filter(status=Phase.Status.OPEN, deadline__lte=now).exclude(game_id__in=_paused_games())
    for pk in list(due.values_list("pk", flat=True)):
        try:
            resolved += resolve_phase(pk, Phase.Resolution.DEADLINE)
        except Exception:  # one broken game must not hold up the others
            logger.exception("could not resolve phase %s", pk)
    return resolved


REMINDER_LEAD_MOST = timedelta(hours=2)
REMINDER_LEAD_LEAST = timedelta(minutes=2)


def reminder_lead(phase: Phase) -> timedelta:
    """How long before its deadline a phase reminds the seats whose card is not in: a
    twelfth of the phase, between two minutes and two hours (a day: two hours before; a
    ten-minute phase: two minutes)."""
    length = phase.deadline - phase.opened_at
    return min(REMINDER_LEAD_MOST, max(REMINDER_LEAD_LEAST, length / 12))


def send_reminders(now: datetime | None = None) -> int:
    """Remind, once, every seat asked for a card in an open phase whose reminder time
    has come and whose card is not in (by mail, to players with an address). The
    beat runs it with the sweeper; the number of reminders queued.

    A phase is looked at once: the first sweep past its reminder time marks it
    (`reminded_at`, in the transaction that queues its reminders, so two sweeps never
    both do it), and later sweeps read neither its game nor its cards again. Only the
    phases whose time has come have their game read."""
    now = now or timezone.now()
    window = (
        Phase.objects.filter(
            status=Phase.Status.OPEN, reminded_at=None, deadline__gt=now, deadline__lte=now + REMINDER_LEAD_MOST
        )
        .exclude(game_id__in=_paused_games())
        .only("pk", "opened_at", "deadline")
    )
    due = [phase.pk for phase in window if now >= phase.deadline - reminder_lead(phase)]
    queued: list[list[int]] = []
    for phase in Phase.objects.filter(pk__in=due).select_related("game").order_by("pk"):
        try:
            with transaction.atomic():
                if not Phase.objects.filter(pk=phase.pk, reminded_at=None).update(reminded_at=now):
                    continue  # another sweep took it
                spec = engine.phase(phase.game.engine_state)
                handed = set(phase.orders.values_list("seat", flat=True))
                waiting = [seat for seat in spec.slots if seat not in handed]
                players = phase.game.players.filter(seat__in=waiting, is_bot=False).exclude(email="")
                queued.append(outbox().queue_reminders(phase, list(players)))
                # The organiser's late list: which seats have no card in, once a phase.
                queued.append(outbox().queue_late_list(phase, list(phase.game.players.filter(seat__in=waiting))))
        except Exception:  # one broken game must not hold up the others
            logger.exception("could not remind the seats of phase %s", phase.pk)
    _mail(queued)
    return sum(len(batch) for batch in queued)


def _open_phase(
    game: Game, state: engine.State, now: datetime, players: list[Player] | None = None, closing: Phase | None = None
) -> Phase:
    """Open the state's step. Its deadline is the stage's length on, moved by the game's
    calendar (`deadlines.settle`); if an absence moved it, everyone is told among the
    news of the step that closed (`closing`), whose mails carry it."""
    spec = engine.phase(state)
    minutes = game.minutes_for(spec.name, spec.kind)
    placed = deadlines.settle(game, state, now + timedelta(minutes=minutes))
    phase = Phase(
        game=game,
        index=state.index,
        kind=spec.kind,
        number=spec.number,
        step=spec.step,
        stage=spec.name,
        opened_at=now,
        deadline=placed.deadline,
    )
    insert_rows([phase], returning=True)
    if placed.by_absence:
        _record(game, closing or phase, [deadlines.moved_event(game, placed.deadline)])
    if players is None:
        bots = set(game.players.filter(is_bot=True).values_list("seat", flat=True))
    else:
        bots = {player.seat for player in players if player.is_bot}
    if bots:
        rng = Random(f"{game.seed}/bots/{state.index}")
        Order.objects.bulk_create(
            Order(phase=phase, seat=seat, payload=bot_card(slot, seat, rng).to_json(), source=Order.Source.BOT)
            for seat, slot in sorted(spec.slots.items())
            if seat in bots
        )
        after_commit("tasks.phases.resolve_ready_phase", phase.pk)
    _schedule(phase)
    return phase


def stand_in(game: Game, state: engine.State, phase: Phase) -> bool:
    """The `standby` absence policy, as `phase` opens (under the game's lock, in the
    transaction that opened it): each seat whose stand-in's absence is over (the phase
    opened on a later day) or withdrawn goes back to its player; then each living seat
    whose player is away on the day of the phase's deadline goes to the next confirmed
    standby for the absence, as a substitution. An absence no standby was waiting for
    tells the organiser, once. Each step is recorded on the absence, so a second run
    does nothing. True if a seat changed hands.

    A game whose seats never changed hands has no seat a standby holds (standing in is
    a hand-over, recorded with it), so where the policy calls no standby either, the
    seats' holders record (read once per game instance: the phase's mails name their
    events from it) answers without asking for absences."""
    if game.absence_policy != AbsencePolicy.STANDBY and not holders.of(game).handovers():
        return False
    changed = _stand_in(game, state, phase)
    if changed:
        holders.forget(game)  # (the mails name their events by the holders as they are now)
    return changed


def _stand_in(game: Game, state: engine.State, phase: Phase) -> bool:
    changed = False
    zone = deadlines.zone_of(game)
    holding = Absence.objects.filter(game=game, stood_in_at__isnull=False, handed_back_at=None)
    opened = calendar.local(phase.opened_at, zone).date()
    for absence in holding:
        if absence.withdrawn_at is not None or absence.end < opened:
            changed |= _hand_back(absence)
    if game.absence_policy != AbsencePolicy.STANDBY:
        return changed
    day = calendar.local(phase.deadline, zone).date()
    living = [seat for seat in range(state.seats) if state.alive[seat]]
    held = set(holding.values_list("player", flat=True))
    due = (
        Absence.objects.filter(game=game, withdrawn_at=None, stood_in_at=None, start__lte=day, end__gte=day)
        .filter(player__seat__in=living, player__is_bot=False)
        .exclude(player__in=held)
        .select_related("player")
        .order_by("player__seat", "pk")
    )
    waiting = attendance.standbys_waiting(game)
    unfilled: list[Player] = []
    now = timezone.now()
    for absence in due:
        player = absence.player
        if player.pk in held:
            continue  # (two absences of one seat on the same day: the first takes it)
        others = {
            validators.notecard_key(name) for name in game.players.exclude(pk=player.pk).values_list("name", flat=True)
        }
        chosen = next((one for one in waiting if validators.notecard_key(one.name) not in others), None)
        if chosen is None:
            if absence.unfilled_at is None:
                absence.unfilled_at = now
                absence.save(update_fields=["unfilled_at"])
                unfilled.append(player)
            continue
        waiting.remove(chosen)
        held.add(player.pk)
        absence.away_name, absence.away_email = player.name, player.email
        absence.standby, absence.stood_in_at = chosen, now
        absence.save(update_fields=["away_name", "away_email", "standby", "stood_in_at"])
        substitute_player(
            player, name=chosen.name, email=chosen.email, reason=SeatHolding.Reason.STOOD_IN, absence=absence
        )
        chosen.seated_at, chosen.player = now, player
        chosen.save(update_fields=["seated_at", "player"])
        changed = True
    _mail([outbox().queue_away_unfilled(phase, unfilled)])
    return changed


def _hand_back(absence: Absence) -> bool:
    """Give the seat its player back after a standby stood in for `absence` (under the
    game's lock): a substitution again, a new link mailed to the player, and the
    standby's own absences withdrawn. The standby leaves the list (they have seen this
    seat's secrets, so they may not play another) and is thanked by mail."""
    now = timezone.now()
    if not Absence.objects.filter(pk=absence.pk, handed_back_at=None).update(handed_back_at=now):
        return False
    # The standby's own absences, declared while they held the seat, leave with them.
    standbys_own = Absence.objects.filter(
        player=absence.player_id, withdrawn_at=None, created_at__gt=absence.stood_in_at
    )
    standbys_own.exclude(pk=absence.pk).update(withdrawn_at=now)
    substitute_player(
        absence.player,
        name=absence.away_name,
        email=absence.away_email,
        reason=SeatHolding.Reason.BACK,
        absence=absence,
    )
    if absence.standby is not None:
        _mail([outbox().queue_stand_in_over(absence.standby, f"stand-in-over:{absence.pk}")])
    return True


def hand_back(absence: Absence) -> bool:
    """The seat of a withdrawn absence back to its player at once, if a standby holds it."""
    with transaction.atomic():
        _locked(absence.game)
        found = Absence.objects.filter(pk=absence.pk, stood_in_at__isnull=False, handed_back_at=None).first()
        return found is not None and _hand_back(found)


def _paused_games() -> Any:
    """The ids of the paused games, as a subquery: their phases wait, whatever their deadline."""
    return Game.objects.filter(paused_at__isnull=False).values("pk")


def _schedule(phase: Phase) -> None:
    """An ETA task for a near deadline; the sweeper owns the rest."""
    if (phase.deadline - timezone.now()).total_seconds() <= settings.WEREWOLF_ETA_HORIZON_SECONDS:
        after_commit("tasks.phases.resolve_due_phase", phase.pk, eta=phase.deadline)


def _record(game: Game, phase: Phase | None, events: Iterable[engine.Event]) -> None:
    insert_rows(
        [
            Event(game=game, phase=phase, kind=event.kind, data=dict(event.data), audience=event.audience.to_json())
            for event in events
        ]
    )


def _moderator_event(game: Game, phase: Phase | None, kind: str, **data: Any) -> None:
    _record(game, phase, [engine.Event(kind, data, engine.Audience.moderator())])


# The organiser's tools --------------------------------------------------------------


def extend_deadline(game: Game, minutes: int, phase_index: int | None = None) -> Phase:
    """Push the open phase's deadline back. Given the index of the phase the organiser
    was looking at, refuse if that phase has closed meanwhile, rather than extend the next."""
    with transaction.atomic():
        game = _locked(game)
        phase = _open_phase_of(game, phase_index)
        if game.paused_at is not None:
            raise ServiceError("game_paused")
        placed = deadlines.settle(
            game, game.engine_state, max(phase.deadline, timezone.now()) + timedelta(minutes=minutes)
        )
        phase.deadline = placed.deadline
        phase.save(update_fields=["deadline"])
        # The new deadline as the game's clock reads it, so the log says it in words.
        local = phase.deadline.astimezone(ZoneInfo(game.timezone)).replace(tzinfo=None)
        _record(
            game,
            phase,
            [
                engine.Event(
                    "deadline_extended",
                    {
                        "minutes": minutes,
                        "deadline": phase.deadline.isoformat(),
                        "local": local.isoformat(timespec="minutes"),
                        "zone": game.timezone,
                    },
                    engine.Audience.public(),
                )
            ],
        )
        if placed.by_absence:
            _record(game, phase, [deadlines.moved_event(game, placed.deadline)])
        _schedule(phase)
        # Every player is told: a deadline they were reminded of has moved.
        players = list(game.players.exclude(seat=None).filter(is_bot=False).exclude(email=""))
        queued = [outbox().queue_deadline_moved(phase, players)]
        _mail(queued)
    return phase


def resolve_now(game: Game, phase_index: int | None = None) -> bool:
    """Resolve the open phase at once. Given the index of the phase the organiser was
    looking at, refuse if that phase has closed meanwhile (a majority, the deadline, a
    second click), rather than cut the next phase short."""
    game.refresh_from_db()
    phase = _open_phase_of(game, phase_index)
    if game.paused_at is not None:
        raise ServiceError("game_paused")
    if resolve_phase(phase.pk, Phase.Resolution.MODERATOR):
        return True
    if phase_index is not None:
        raise ServiceError("phase_moved_on")
    return False


def substitute_player(
    player: Player,
    *,
    name: str,
    email: str,
    reason: str | None = None,
    new_person: bool = False,
    absence: Absence | None = None,
) -> Player:
    """Put a new person in the seat: same seat and role, the old link revoked. For good
    (`new_person`: the organiser's substitution of someone else, a standby seated), the
    absences the one leaving declared go with them: they must move no deadline nor call
    a standby for the newcomer. (A standby standing in for an absence, and the seat's
    hand-back, keep them: the player's days away are still the player's.)

    `reason` (a `SeatHolding.Reason`) says why: by default the organiser's substitution,
    or a correction where the name is the same one's. In a game that has started, the
    seat's holders record gains the new person and the reason, in the same transaction as
    the change; and the person who takes the seat and the one who leaves it are each
    mailed what it means for them (`absence`: the one a stand-in or a return is for)."""
    with transaction.atomic():
        game = _locked(player.game)
        player = Player.objects.select_for_update().get(pk=player.pk)
        if new_person:
            player.absences.filter(withdrawn_at=None, stood_in_at=None).update(withdrawn_at=timezone.now())
        if reason is None:
            same = validators.notecard_key(name) == validators.notecard_key(player.name)
            reason = SeatHolding.Reason.CORRECTED if same else SeatHolding.Reason.SUBSTITUTED
        handed = HandOver(
            SeatHolding.Reason(reason), player.name, player.email, player.mail_stopped, player.missed_cards, absence
        )
        old_name = player.name
        player.name, player.email = name, email
        # A new person, or the same one at a fixed address: past bounces are forgotten.
        player.bounced_at, player.bounce_reason, player.bounces, player.mail_stopped = None, "", 0, False
        player.missed_cards = 0  # (and a new person has missed no card)
        player.save(
            update_fields=["name", "email", "bounced_at", "bounce_reason", "bounces", "mail_stopped", "missed_cards"]
        )
        links.issue(player)
        phase = game.current_phase()
        if game.state is not None and player.seat is not None:
            SeatHolding.objects.create(
                game=game,
                player=player,
                seat=player.seat,
                name=name,
                email=email,
                reason=reason,
                phase=phase,
                since=timezone.now(),
            )
        _record(
            player.game,
            phase,
            [
                engine.Event(
                    "player_substituted",
                    {"seat": player.seat, "old_name": old_name, "new_name": name},
                    engine.Audience.public(),
                )
            ],
        )
        if player.game.is_running:
            _mail([outbox().queue_hand_over(player, handed)])
    return player


def resume_mail(player: Player) -> None:
    """The organiser says the address of a seat whose mail bounced works again: mail to
    it goes out once more (the mails held meanwhile can be sent again one by one)."""
    Player.objects.filter(pk=player.pk).update(mail_stopped=False, bounces=0)


def set_large_print(player: Player, on: bool) -> None:
    """A seat's choice of large print and high contrast on its pages."""
    Player.objects.filter(pk=player.pk).update(large_print=on)


def keep_replay_private(game: Game, private: bool) -> None:
    """The organiser's choice: the replay for the game's organisers only, or for its
    players and the public too once it is over (`access.may_replay`)."""
    Game.objects.filter(pk=game.pk).update(replay_private=private)


def mail_link_again(player: Player) -> None:
    """Mail a player their seat and link once more (the first mail went astray)."""
    if not (player.game.is_running and player.email and not player.is_bot):
        raise ServiceError("no_address")
    with transaction.atomic():
        _mail([outbox().queue_welcome(player, secrets.token_hex(4))])


def send_mail_again(game: Game, dispatch_id: int | None) -> None:
    """The organiser sends again a mail of this game that failed or may not have gone
    out: the same message with the same Message-ID (a copy already there is dropped by
    most mail clients)."""
    from .models import Dispatch

    with transaction.atomic():
        dispatch = None
        if dispatch_id is not None:
            dispatch = Dispatch.objects.filter(pk=dispatch_id, player__game=game).first()
        if dispatch is None or not outbox().send_again(dispatch):
            raise ServiceError("mail_not_failed")
        _mail([[dispatch.pk]])


def end_game(game: Game) -> Game:
    """Stop a running game: no winner, every role revealed."""
    with transaction.atomic():
        game = _locked(game)
        if game.status != Game.Status.RUNNING:
            raise ServiceError("game_not_running")
        phase = game.current_phase()
        if phase is not None:
            Phase.objects.filter(pk=phase.pk, status=Phase.Status.OPEN).update(
                status=Phase.Status.RESOLVED, resolved_at=timezone.now(), resolution=Phase.Resolution.ENDED
            )
        state = game.engine_state
        roles = [_held(engine.roles_of(state, seat)) for seat in range(state.seats)]
        _record(game, phase, [engine.Event("game_ended", {"roles": roles}, engine.Audience.public())])
        game.status = Game.Status.ENDED
        game.finished_at = timezone.now()
        game.save(update_fields=["status", "finished_at"])
        if phase is not None:
            phase.refresh_from_db()
            _mail([outbox().queue_phase_mails(phase)])
    return game


def _mail(batches: Iterable[list[int]]) -> None:
    """Send the queued mails once the transaction that queued them commits; if that
    task is lost, the beat's mail sweep sends them."""
    ids = [pk for batch in batches for pk in batch]
    if ids:
        after_commit("tasks.mail.deliver", ids)


def _locked(game: Game) -> Game:
    """The game's row, locked until the transaction ends: every writer of a running game
    takes this lock first, so they never interleave."""
    return Game.objects.select_for_update().get(pk=game.pk)


def _open_phase_of(game: Game, index: int | None = None) -> Phase:
    phase = game.current_phase() if game.is_running else None
    if phase is None:
        raise ServiceError("game_not_running")
    if index is not None and phase.index != index:
        raise ServiceError("phase_moved_on")
    return phase


# Demo ------------------------------------------------------------------------------


def start_demo(
    organiser: Any,
    *,
    name: str,
    you: str,
    bot_names: Sequence[str],
    night_minutes: int,
    day_minutes: int,
    early_resolution: bool = False,
) -> Player:
    """A game whose other seats are bots; returns the human player. Without early
    resolution each phase runs to its deadline (a majority still ends a day), so the
    demo keeps the pace the home page promises instead of ending in seconds."""
    seats = [Seating(you)] + [Seating(bot, is_bot=True) for bot in bot_names]
    game = create_game(
        organiser,
        name=name,
        seats=seats,
        options={"wolves": 2, "seers": 1},
        night_minutes=night_minutes,
        day_minutes=day_minutes,
        early_resolution=early_resolution,
        is_demo=True,
    )
    start_game(game)
    return game.players.get(is_bot=False)
