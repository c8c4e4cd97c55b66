"""Games, seats, phases, orders and events.

Orders and events are append-only: an order is changed by handing in a newer one, and
nothing about a resolved phase is ever rewritten. The engine's state is kept as JSON on
the game; the rows here are what the pages, mails and exports read.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from werewolf import engine


class AbsencePolicy(models.TextChoices):
    """What a player's declared absence does to the game's deadlines."""

    NOTHING = "nothing", _("nothing: a missing card is a missing card")
    MOVE = "move", _("deadlines inside it move past it")
    STANDBY = "standby", _("a standby plays the seat meanwhile")


class VoteCounts(models.IntegerChoices):
    """How often a game posts a vote count in the square during an open vote, in hours
    from the step's opening (games.vote_counts); on, a last count as the vote closes."""

    OFF = 0, _("no vote counts")
    SIX = 6, _("every 6 hours, and as the vote closes")
    TWELVE = 12, _("every 12 hours, and as the vote closes")
    DAY = 24, _("every 24 hours, and as the vote closes")


class Game(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Not started")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")
        ENDED = "ended", _("Ended by the organiser")

    name = models.CharField(_("name"), max_length=120)
    ruleset = models.CharField(_("ruleset"), max_length=32, default="classic")
    organiser = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="organised_games")
    co_organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="co_organised_games", verbose_name=_("co-organisers")
    )  # accounts the organiser invited to run this game (access.py says what they may do)
    options = models.JSONField(_("options"), default=dict)
    seed = models.BigIntegerField()
    state = models.JSONField(null=True, blank=True, editable=False)
    deal = models.JSONField(null=True, blank=True, editable=False)  # engine.deal at the start: any game replays
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    timezone = models.CharField(_("time zone"), max_length=64, default="UTC")
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES, default="en")
    """What the players read: their pages, their mails, the game's printed documents."""
    night_minutes = models.PositiveIntegerField(_("night length (minutes)"), default=1440)
    day_minutes = models.PositiveIntegerField(_("day length (minutes)"), default=1440)
    # {stage name: minutes} for a ruleset whose day (or night) has several stages, such as
    # Tabula's accusation and ballot; a stage not named here lasts a night or a day.
    stage_minutes = models.JSONField(_("length of each stage (minutes)"), default=dict, blank=True)
    early_resolution = models.BooleanField(_("resolve early when every card is in"), default=True)
    draw_seats = models.BooleanField(_("draw the seats at random"), default=True)
    deal_roles = models.BooleanField(_("deal the roles at random"), default=True)
    public_square = models.BooleanField(_("the town square on the public page"), default=False)
    chosen_options = models.JSONField(default=dict, blank=True)  # as the organiser chose them, defaults left out
    signup_key = models.CharField(max_length=32, blank=True, db_index=True)  # "": sign-up closed
    signup_limit = models.PositiveSmallIntegerField(null=True, blank=True)
    public_key = models.CharField(max_length=32, unique=True)
    is_demo = models.BooleanField(default=False)
    series = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )  # the first game of a series played one after another (Lupusburg's running totals)
    series_number = models.PositiveSmallIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # When the players' mail addresses were removed from the game's record (the organiser
    # asked, or WEREWOLF_KEEP_ADDRESSES_DAYS passed since it ended): games.retention.
    addresses_removed_at = models.DateTimeField(null=True, blank=True)
    # Whether the replay (games/replay.py) stays the organisers' once the game is over;
    # otherwise its players and the public may walk through it then.
    replay_private = models.BooleanField(_("keep the replay private"), default=False)
    # The game's calendar (werewolf/games/calendar.py, deadlines.py, pauses.py, absences.py):
    # when the organiser paused it (None: running on), the days that take no deadline
    # ({"weekdays": [5, 6], "dates": ["2026-12-25"]}, in the game's time zone), what a
    # player's declared absence does, and how many days absences may move deadlines per
    # player and game.
    paused_at = models.DateTimeField(null=True, blank=True, db_index=True)
    days_off = models.JSONField(_("days without a deadline"), default=dict, blank=True)
    absence_policy = models.CharField(
        _("what an absence does"), max_length=8, choices=AbsencePolicy.choices, default=AbsencePolicy.NOTHING
    )
    absence_days = models.PositiveSmallIntegerField(_("days an absence may move deadlines, per player"), default=3)
    # Vote counts posted in the square during an open vote (games.vote_counts): every so
    # many hours from the step's opening, and once as the vote closes; 0: none.
    vote_count_hours = models.PositiveSmallIntegerField(
        _("vote counts in the square"), choices=VoteCounts.choices, default=VoteCounts.OFF
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name

    @property
    def engine_state(self) -> engine.State:
        """The state as the engine reads it, parsed once for the JSON it was read from: a
        page asks for it a dozen times (its seats, the phase's card, the talk's channels).
        The engine's state is immutable; a new `state` assigned is parsed afresh."""
        if self.state is None:
            raise ValueError(f"game {self.pk} has not started: it has no state")
        parsed = self.__dict__.get("_engine_state")
        if parsed is None or parsed[0] is not self.state:
            parsed = self.__dict__["_engine_state"] = (self.state, engine.State.from_json(self.state))
        return parsed[1]

    @property
    def is_running(self) -> bool:
        return self.status == self.Status.RUNNING

    @property
    def capabilities(self) -> engine.rulesets.Capabilities:
        """What its ruleset has that pages, mails and documents show: a board of houses,
        scores, a paper pack, its words' folder (`engine.capabilities`)."""
        return engine.capabilities(self.ruleset)

    @cached_property
    def dealt_roles(self) -> frozenset[str]:
        """The roles this game's table holds (its ruleset's deck for its options and its
        players): a page's words speak of these only, never of a role it was not dealt."""
        players = self.engine_state.seats if self.state is not None else self.players.filter(pending=False).count()
        try:
            return frozenset(engine.deck(self.ruleset, self.options, players))
        except engine.SetupError:  # a draft whose table does not fit its options yet
            return frozenset()

    def minutes_for(self, stage: str, kind: str) -> int:
        """How long a phase of this stage lasts: its own length, or a night's or a day's."""
        minutes = (self.stage_minutes or {}).get(stage)
        if minutes:
            return int(minutes)
        return self.night_minutes if kind == "night" else self.day_minutes

    def current_phase(self) -> Phase | None:
        # (By index: the model's ordering would join the game's row to sort by it.)
        return self.phases.filter(status=Phase.Status.OPEN).order_by("index").first()


class Player(models.Model):
    """A seat and the person in it. Substitution changes the person, never the seat."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="players")
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    name = models.CharField(_("name"), max_length=60)
    email = models.EmailField(_("email"), blank=True)
    is_bot = models.BooleanField(default=False)
    # The organiser's own deal, before the start: what this player was dealt, shaped as
    # the ruleset's `engine.deal_shape` says ({"role": "wolf"}; a Lupusburg hand:
    # {"characters": [...], "chest": 0, "goal": ...}), and whether the deal names them
    # besides (the alpha wolf, the first Burgomaster). Empty: not dealt yet.
    assigned_hand = models.JSONField(default=dict, blank=True)
    assigned_mark = models.BooleanField(default=False)
    large_print = models.BooleanField(_("large print, high contrast"), default=False)
    pending = models.BooleanField(default=False)  # signed up by the join link, not yet confirmed by mail
    talk_mail = models.CharField(
        _("talk by mail"),
        max_length=8,
        default="hourly",
        choices=[("each", _("each post")), ("hourly", _("hourly")), ("daily", _("daily")), ("never", _("never"))],
    )
    talk_mailed_upto = models.PositiveBigIntegerField(default=0)  # the newest post a digest has carried
    talk_mailed_at = models.DateTimeField(null=True, blank=True)
    # Mail that came back (werewolf/mail/bounces.py): the last bounce and why, how many
    # came back in a row, and whether mail to the address is stopped (a hard bounce, or
    # BOUNCES_TO_STOP soft ones) until the organiser fixes the address or resumes it.
    bounced_at = models.DateTimeField(null=True, blank=True)
    bounce_reason = models.CharField(max_length=300, blank=True)
    bounces = models.PositiveSmallIntegerField(default=0)
    mail_stopped = models.BooleanField(default=False)
    # Cards the seat missed in a row (games.attendance): counted as each phase resolves.
    missed_cards = models.PositiveSmallIntegerField(default=0)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["seat", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="one_player_per_seat"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def occupied_seat(self) -> int:
        """`seat`, for a player known to have one: anyone with a link (links are issued
        when the game starts) or in a started game's circle. Only a sign-up not yet
        seated, in a game not started, has none."""
        if self.seat is None:
            raise ValueError(f"player {self.pk} has no seat")
        return self.seat


class SeatLink(models.Model):
    """A player's private link. Only a hash of its secret is stored; the secret itself
    is derived from `nonce` and the site's secret key, so mails can repeat the link.

    A seat changes hands with a new link; who held the seat with each is the holders
    record's to say (`SeatHolding`), which is how a reply to a mail of a link since
    revoked is known and answered (werewolf/mail/held.py)."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="links")
    nonce = models.CharField(max_length=32, unique=True)
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)


class Phase(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        RESOLVING = "resolving", _("Resolving")
        RESOLVED = "resolved", _("Resolved")

    class Resolution(models.TextChoices):
        DEADLINE = "deadline", _("deadline")
        ALL_IN = "all_in", _("every card in")
        MAJORITY = "majority", _("majority reached")
        MODERATOR = "moderator", _("organiser")
        ENDED = "ended", _("game ended")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="phases")
    index = models.PositiveIntegerField()
    kind = models.CharField(max_length=16)
    number = models.PositiveIntegerField()
    step = models.PositiveSmallIntegerField(default=1)  # the vote of the day, in "Thing" games
    stage = models.CharField(max_length=32, blank=True)  # the named step (engine.PhaseSpec.name)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    opened_at = models.DateTimeField()
    deadline = models.DateTimeField(db_index=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolution = models.CharField(max_length=16, choices=Resolution.choices, blank=True)
    # When the seats whose card was not in were reminded (once a phase; see send_reminders).
    reminded_at = models.DateTimeField(null=True, blank=True)
    # When the beat's sweep last handed the phase, past its deadline, to the workers: it
    # is not handed again until WEREWOLF_HAND_OUT_AGAIN_SECONDS later (services.fan_out_due_phases).
    handed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["game", "index"]
        constraints = [models.UniqueConstraint(fields=["game", "index"], name="one_phase_per_index")]
        indexes = [models.Index(fields=["status", "deadline"], name="due_phases")]

    def __str__(self) -> str:
        return f"{self.game} {self.kind} {self.number}"

    def current_orders(self) -> dict[int, engine.Order]:
        """The card that counts for each seat at the deadline: the newest one handed in
        (instant cards, already applied, are not counted again; see `acts`)."""
        return Phase.counted(self.orders.filter(act=None).order_by("pk").values_list("seat", "payload", "act"))

    def cards(self) -> list[tuple[int, Any, int | None]]:
        """Every card of the phase as (seat, payload, act), oldest first: what a reader
        that asks several things of them reads once (who has a card in, the counted
        ones: `counted`)."""
        from . import rows  # (it reads these models)

        return rows.cards(self)

    @staticmethod
    def counted(rows: Iterable[tuple[int, Any, int | None]]) -> dict[int, engine.Order]:
        """`current_orders` from the phase's cards as `cards` reads them."""
        cards: dict[int, engine.Order] = {}
        for seat, payload, act in rows:
            if act is None:
                cards[seat] = engine.Order.from_json(payload)
        return cards

    def acts(self) -> list[tuple[int, engine.Order]]:
        """The instant cards applied in the phase, in the order they were applied."""
        rows = self.orders.exclude(act=None).order_by("act").values_list("seat", "payload")
        return [(seat, engine.Order.from_json(payload)) for seat, payload in rows]


class Order(models.Model):
    """A notecard handed in. The newest one of a seat in a phase is the one that counts."""

    class Source(models.TextChoices):
        WEB = "web", _("web form")
        MODERATOR = "moderator", _("entered by the organiser")
        BOT = "bot", _("bot")
        MAIL = "mail", _("mail")

    # Indexed by `one_act_per_number`, which begins with it; `entered_by` only where set
    # (`orders_entered_by`): a card goes in with two index entries fewer.
    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="orders", db_index=False)
    seat = models.PositiveSmallIntegerField()
    payload = models.JSONField()
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.WEB)
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, db_index=False
    )
    submitted_at = models.DateTimeField(auto_now_add=True)
    act = models.PositiveSmallIntegerField(null=True, blank=True)
    """For an instant card (a Lupusburg bet): its number among the phase's acts, applied
    when handed in; such a card is done, and never counted again at the deadline."""

    class Meta:
        ordering = ["phase", "seat", "pk"]
        constraints = [models.UniqueConstraint(fields=["phase", "act"], name="one_act_per_number")]
        indexes = [
            models.Index(fields=["entered_by"], name="orders_entered_by", condition=models.Q(entered_by__isnull=False))
        ]

    @property
    def order(self) -> engine.Order:
        return engine.Order.from_json(self.payload)


ORGANISER_EVENTS = frozenset(
    {
        "card_entered",
        "deadline_extended",
        "resolved_by_organiser",
        "player_substituted",
        "game_ended",
        "game_paused",
        "game_resumed",
    }
)
"""Events the organiser's acts produce, beside those the engine produces."""
SERVER_EVENTS = frozenset({"mail_bounced", "deadline_moved_away"})
"""Events the server itself records (about mail; a deadline an absence moved), beside the
engine's and the organiser's."""


class Event(models.Model):
    """Something that happened, with who may know it (see `werewolf.engine.events`)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events")
    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, null=True, blank=True, related_name="events")
    kind = models.CharField(max_length=40)
    data = models.JSONField(default=dict)
    audience = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    # Not columns: what the selectors write on the events of a page's log (selectors.log),
    # and the replay's story on a hand-over's event: the holding it began (games.holders);
    # the names of the cards' writers it tells (`writers_then`: games.holders.Holders.writers).
    private: bool
    names_then: list[str]
    writers_then: list[str] | None
    holding: Any

    class Meta:
        ordering = ["game", "pk"]

    @property
    def engine_event(self) -> engine.Event:
        return engine.Event(self.kind, self.data, engine.Audience.from_json(self.audience))

    def visible_to(self, viewer: engine.Viewer) -> bool:
        return self.engine_event.visible_to(viewer)


class Post(models.Model):
    """Something said in one of a game's channels (werewolf/engine/talk.py: the square,
    the den, the ghosts' corner...). A post the organiser hides is kept, marked."""

    class Source(models.TextChoices):
        WEB = "web", _("web")
        MAIL = "mail", _("mail")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="posts", db_index=False)  # posts_by_channel
    channel = models.CharField(max_length=16)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)  # None: the moderator
    author = models.CharField(max_length=60)  # the name when posted (a substitute keeps the seat)
    text = models.TextField()
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.WEB)
    phase = models.ForeignKey(Phase, on_delete=models.SET_NULL, null=True, blank=True, related_name="posts")
    created_at = models.DateTimeField(auto_now_add=True)
    hidden_at = models.DateTimeField(null=True, blank=True)
    # A post the server itself makes (seat None), once: its key, unique, so that no race,
    # repeated beat tick or retry makes it twice (a vote count: "votecount:<phase>:<slot>",
    # games.vote_counts). None: said by a person.
    key = models.CharField(max_length=40, null=True, blank=True, unique=True)

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["game", "channel", "id"], name="posts_by_channel")]

    def __str__(self) -> str:
        return f"{self.game} {self.channel} #{self.pk}"


DISPATCH_DUE = models.Q(status__in=["pending", "retrying"])
"""The mails waiting to be sent (a first time or again): the sweep takes its batches and
/readyz counts its backlog with this, and the due index holds these rows only, so that a
mail taken, sent or given up leaves it and its marks write nothing there."""

DISPATCH_FAILED = models.Q(status__in=["failed", "uncertain"])
"""The mails given up or in doubt, which /readyz counts: an index of their own, as few as
they are, instead of an index over every mail's status."""


class Dispatch(models.Model):
    """One mail to one player (or, without a player, to an organiser's account: an address
    to confirm, a password reset, an invitation): the outbox row (see docs/architecture.md,
    "Mail").

        The row is committed, with the rendered message and a Message-ID made from `key`,
        before anything talks to the mail server; it is marked sent after the server took
        the message. `key` makes each mail once: a welcome per link, the results of a phase
        per seat, an answer per inbound message. A sender takes a batch of rows at once
        (`claimed`: nothing sent yet, so a dead sender's are simply due again) and marks
        each `sending` just before handing it over. A failed send is retried with back-off
        and never holds up another message; a row left `sending` by a worker that died is
        never sent again by the sweep (it becomes `uncertain`, for the organiser to judge)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting to be sent")
        CLAIMED = "claimed", _("taken by a sender")
        SENDING = "sending", _("being sent")
        SENT = "sent", _("sent")
        RETRYING = "retrying", _("failed, will try again")
        FAILED = "failed", _("failed, gave up")
        UNCERTAIN = "uncertain", _("may not have been sent")
        BOUNCED = "bounced", _("came back undelivered")

    class Kind(models.TextChoices):
        WELCOME = "welcome", _("seat and link")
        PHASE = "phase", _("phase results")
        INBOUND_REPLY = "inbound_reply", _("answer to a mailed card")
        SIGNUP = "signup", _("sign-up to confirm")
        REMINDER = "reminder", _("reminder: card not in")
        TALK = "talk", _("talk digest")
        ACCOUNT = "account", _("organiser's account")
        PROD = "prod", _("prod: cards missed")
        ORGANISER = "organiser", _("to the organiser: late cards, missed cards")

    player = models.ForeignKey(Player, on_delete=models.CASCADE, null=True, blank=True, related_name="dispatches")
    key = models.CharField(max_length=80)  # unique: the constraint `dispatch_key` below
    kind = models.CharField(max_length=16, choices=Kind.choices)
    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, null=True, blank=True, related_name="dispatches")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    message_id = models.CharField(max_length=255)
    recipient = models.CharField(max_length=400)
    subject = models.TextField(blank=True)
    body_text = models.TextField(blank=True)
    body_html = models.TextField(blank=True)
    headers = models.JSONField(default=dict, blank=True)
    # Files sent with the mail, as [{"filename", "content", "mimetype"}] (text): the
    # deadline as an iCalendar event.
    attachments = models.JSONField(default=list, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    claimed_by = models.CharField(max_length=16, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    # The id a mail provider gave the message (django-anymail), for its tracking webhook.
    provider_id = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["pk"]
        # Every index below is written again each time a mail is marked (taken, being sent,
        # sent: its status is in them, so no mark is a HOT update), so each is declared for
        # a query that reads it, and holds only the rows that query asks for.
        constraints = [
            # One mail per key, and `_queue`'s lookups of keys already queued. (A unique
            # constraint, not `unique=True`: on PostgreSQL that adds a second index on the
            # key for LIKE, which no query makes.)
            models.UniqueConstraint(fields=["key"], name="dispatch_key"),
        ]
        indexes = [
            # The sweep's batches, oldest due first, and /readyz's backlog count.
            models.Index(fields=["next_attempt_at"], name="dispatch_due", condition=DISPATCH_DUE),
            # The rows a dead worker may have left taken or `sending` (few, whatever was
            # sent), and a sender's own taken rows.
            models.Index(
                fields=["claimed_at"], name="dispatch_claimed", condition=models.Q(status__in=["claimed", "sending"])
            ),
            # /readyz's count of the mails given up or in doubt.
            models.Index(fields=["status"], name="dispatch_failed", condition=DISPATCH_FAILED),
            # The provider's tracking webhook finds a mail by the id the provider gave it:
            # only mails a provider's API sent have one.
            models.Index(fields=["provider_id"], name="dispatch_provider", condition=~models.Q(provider_id="")),
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.status})"


class InboundMessage(models.Model):
    """A mail that reached the server, kept whatever became of it.

    `status` says what it did: `applied` (a card handed in), `refused` (read but not
    taken; `code` says why and the player was told), `duplicate` (a Message-ID already
    handled), `unmatched` (no valid reference: forged, mangled or for nobody) or `failed`
    (the server broke while reading it; the raw mail is here to try again)."""

    class Status(models.TextChoices):
        RECEIVED = "received", _("received")
        APPLIED = "applied", _("card handed in")
        REFUSED = "refused", _("refused")
        DUPLICATE = "duplicate", _("duplicate")
        UNMATCHED = "unmatched", _("unmatched")
        BOUNCE = "bounce", _("mail that came back")
        COMMAND = "command", _("answered (HELP or STATUS)")
        POSTED = "posted", _("posted in the town square")
        FAILED = "failed", _("failed")

    class Answer(models.TextChoices):
        SENT = "sent", _("answered")
        HELD = "held", _("answer held back")

    received_at = models.DateTimeField(auto_now_add=True)
    raw = models.BinaryField()
    size = models.PositiveIntegerField()
    truncated = models.BooleanField(default=False)
    message_id = models.CharField(max_length=255, blank=True, db_index=True)
    sender = models.CharField(max_length=320, blank=True)
    subject = models.CharField(max_length=255, blank=True)
    recipients = models.TextField(blank=True)
    # Where a fetched message came from (an IMAP mailbox: host, user, folder, UIDVALIDITY
    # and UID), so that fetching it again after a crash never reads it twice.
    source = models.CharField(max_length=300, blank=True, db_index=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RECEIVED)
    code = models.CharField(max_length=40, blank=True)
    card = models.TextField(blank=True)
    game = models.ForeignKey(Game, on_delete=models.SET_NULL, null=True, blank=True, related_name="inbound")
    player = models.ForeignKey(Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="inbound")
    phase = models.ForeignKey(Phase, on_delete=models.SET_NULL, null=True, blank=True, related_name="inbound")
    order = models.ForeignKey(Order, on_delete=models.SET_NULL, null=True, blank=True, related_name="inbound")
    # Whom the server answered, and whether it did: a seat whose mail keeps being refused
    # gets a few answers an hour at most (WEREWOLF_REFUSALS_ANSWERED_PER_HOUR), so that no
    # loop forms with a robot; the rest are kept, shown, and `held`.
    answer = models.CharField(max_length=8, choices=Answer.choices, blank=True)
    answered = models.ForeignKey(Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # Who wrote it, as the game knew them when it arrived: the seat's player then, or the
    # person who held the seat before (a seat changes hands; `player` is the seat).
    author = models.CharField(max_length=60, blank=True)
    # What became of its absence lines (AWAY, NOT AWAY), beside its card: the absence's
    # code (`away_declared`, `away_withdrawn`) or the refusal's; empty if it had none.
    away = models.CharField(max_length=40, blank=True)

    class Meta:
        ordering = ["-received_at", "-pk"]
        indexes = [models.Index(fields=["answered", "received_at"], name="answers_by_player")]

    def __str__(self) -> str:
        return f"{self.received_at:%Y-%m-%d %H:%M} {self.sender} ({self.status})"


class PrintJob(models.Model):
    """A printed document asked for, kept by the hash of its content: the same deck asked
    again (by anyone) is served from here. A large one renders in a worker, a sheet at a
    time, and `done`/`total` say how far it got (werewolf/printing/jobs.py)."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("waiting for a worker")
        RENDERING = "rendering", _("being printed")
        DONE = "done", _("ready")
        FAILED = "failed", _("failed")

    key = models.CharField(max_length=64, unique=True)  # sha256 of the document's HTML
    kind = models.CharField(max_length=16)
    params = models.JSONField(default=dict)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    pdf = models.BinaryField(null=True, blank=True)
    error = models.TextField(blank=True)
    filename = models.CharField(max_length=120)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.kind} {self.key[:12]} ({self.status})"

    @property
    def document(self) -> bytes:
        """The PDF, of a job that is done."""
        if self.pdf is None:
            raise ValueError(f"print job {self.key[:12]} has no document ({self.status})")
        return bytes(self.pdf)


class Character(models.Model):
    """A character an organiser built from the engine's ability blocks
    (werewolf/engine/characters.py), saved to use in any game that takes such characters
    (Luna Piena). `definition` is the engine's JSON; a game copies the definitions it uses
    into its options when it is set up, so changing one later never changes a game."""

    organiser = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="characters")
    name = models.CharField(_("name"), max_length=40)
    definition = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["organiser", "name"], name="one_character_of_a_name")]

    def __str__(self) -> str:
        return self.name

    @property
    def engine_character(self) -> engine.characters.Character:
        return engine.characters.parse(self.definition)


class SeatPolicy(models.Model):
    """A game's missed-cards policy and its standby list (games.attendance, games.standbys).
    A game without a row has the defaults (`attendance.policy_of`)."""

    class AtLimit(models.TextChoices):
        ASK = "ask", _("ask me to decide")
        STANDBY = "standby", _("give the seat to the next standby")
        KEEP = "keep", _("nothing: the seat stays on its default card")

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="seat_policy")
    prod_after = models.PositiveSmallIntegerField(_("prod a player after this many missed cards in a row"), default=2)
    act_after = models.PositiveSmallIntegerField(_("act after this many missed cards in a row"), default=3)
    at_limit = models.CharField(_("then"), max_length=8, choices=AtLimit.choices, default=AtLimit.ASK)
    standby_limit = models.PositiveSmallIntegerField(_("at most this many standbys"), default=5)


class Standby(models.Model):
    """A person on a game's standby list, by the join link: seated (in sign-up order, or by
    the organiser) when a seat needs a new player. Until then they learn nothing secret:
    no seat, no role, no link to a seat."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="standbys")
    name = models.CharField(_("name"), max_length=60)
    email = models.EmailField(_("email"))
    pending = models.BooleanField(default=True)  # not yet confirmed by mail
    joined_at = models.DateTimeField(auto_now_add=True)
    seated_at = models.DateTimeField(null=True, blank=True)
    player = models.ForeignKey(Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")

    class Meta:
        ordering = ["joined_at", "pk"]

    def __str__(self) -> str:
        return self.name


class Absence(models.Model):
    """Days a player said they are away (werewolf/games/absences.py), from `start` to `end`
    inclusive, in the game's time zone. Seen by the player and the organisers only.
    `moved_days` counts the days this absence moved deadlines (the game's
    `absence_days` caps their sum per player); a withdrawn absence keeps its count.

    With the `standby` policy, the seat's hand-over and hand-back are recorded here, so
    neither happens twice: `standby` stood in from `stood_in_at` (the seat's player was
    then `away_name`, `away_email`, given the seat back at `handed_back_at`), or no
    standby was waiting and the organiser was told at `unfilled_at`."""

    class Source(models.TextChoices):
        WEB = "web", _("web")
        MAIL = "mail", _("mail")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="absences")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="absences")
    start = models.DateField()
    end = models.DateField()
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.WEB)
    moved_days = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    standby = models.ForeignKey(Standby, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    away_name = models.CharField(max_length=60, blank=True)
    away_email = models.EmailField(blank=True)
    stood_in_at = models.DateTimeField(null=True, blank=True)
    handed_back_at = models.DateTimeField(null=True, blank=True)
    unfilled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["start", "pk"]

    @property
    def stood_in(self) -> bool:
        """A standby holds the seat for this absence now."""
        return self.stood_in_at is not None and self.handed_back_at is None

    def __str__(self) -> str:
        return f"{self.player} {self.start}..{self.end}"


class SeatHolding(models.Model):
    """Who held a seat from when, and why: one row each time a seat's person changes
    (werewolf/games/holders.py reads them). The dealt player's row is written when the
    game starts; each hand-over's (a standby standing in for an absence, the player
    back, the organiser's substitution, a standby taking over after missed cards) in
    the transaction that hands the seat over, never later, and never rewritten. A row
    holds until the seat's next one begins.

    `since` is the moment the person took the seat: a card or an event belongs to the
    holder of its seat at its own moment. `phase` is the step open then (None: the deal,
    before the first), as a label for what reads it. `email` is the address the person
    had in the seat, for the doors that answer mail; it goes with the game's other
    addresses (games.retention). The reason is the organiser's and the replay's to
    tell: an absence is secret from the table while the game runs."""

    class Reason(models.TextChoices):
        DEALT = "dealt", _("dealt the seat at the start")
        STOOD_IN = "stood_in", _("a standby standing in while the player is away")
        BACK = "back", _("the player back after an absence")
        SUBSTITUTED = "substituted", _("the organiser's substitution")
        TOOK_OVER = "took_over", _("a standby taking over after cards missed in a row")
        CORRECTED = "corrected", _("the same player: the organiser corrected the name or address")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="holdings", db_index=False)  # by_seat
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="holdings")
    seat = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=60)
    email = models.EmailField(blank=True)
    reason = models.CharField(max_length=16, choices=Reason.choices)
    phase = models.ForeignKey(Phase, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    since = models.DateTimeField()

    class Meta:
        ordering = ["game", "seat", "since", "pk"]
        indexes = [models.Index(fields=["game", "seat", "since"], name="holdings_by_seat")]

    def __str__(self) -> str:
        return f"{self.game} seat {self.seat + 1}: {self.name} ({self.reason})"
