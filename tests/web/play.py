"""Helpers that play games through the web as players and an organiser would."""

from __future__ import annotations

import re
from html import unescape
from random import Random
from typing import Any

from django.conf import settings
from django.core import mail
from django.test import Client
from django.utils import translation

from werewolf import engine
from werewolf.engine.simulate import bot_orders
from werewolf.games import links, selectors, services
from werewolf.games.forms import NotecardForm
from werewolf.games.models import Event, Game, InboundMessage, Order, Phase, Player
from werewolf.games.templatetags.werewolf import render_event, role

NAMES = [
    "Alba", "Brio", "Cato", "Dara", "Ezio", "Fenna", "Gusto", "Hilde", "Ivo",
    "Jolanda", "Kurt", "Lidia", "Marzio", "Nives", "Orsola", "Pietro", "Quirina", "Rocco",
    "Selma", "Tullio", "Ughetta", "Vasco", "Wanda", "Zeno",
]  # fmt: skip
"""Up to 24 players (Tabula's largest table); no name is part of another."""
LINK = re.compile(r"http://testserver(/p/[a-z2-7]{32}/)")


GAME_FORM = {
    "name": "Village of tests",
    "seers": 1,
    "night_minutes": 60,
    "day_minutes": 120,
    "timezone": "Europe/Rome",
    "early_resolution": "on",
    "day_deadline": "no-lynch",
    "tie": "none",
    "start": "night",
    "first_night": "normal",
    "missing_wolves": "nobody",
    "seating": "draw",
    "dealing": "deal",
    "reveal_dead": "on",
}
"""The game form as an organiser leaves it, less the players."""


def print_form(**fields: Any) -> dict[str, Any]:
    """The print page's form as it opens (every option at its initial value, a ticked box
    "on"), changed by `fields`: what a browser posts."""
    from werewolf.games.forms import PrintDeckForm

    form = PrintDeckForm()
    data: dict[str, Any] = {}
    for name, field in form.fields.items():
        value = form.get_initial_for_field(field, name)
        if value not in (None, False, "", [], ()):
            data[name] = "on" if value is True else value
    return {**data, **fields}


def create_game(client: Client, players: int = 7, **options: Any) -> Game:
    players_text = "\n".join(f"{name} <{name.lower()}@example.org>" for name in NAMES[:players])
    response = client.post("/games/new/", {**GAME_FORM, "players": players_text, **options})
    assert response.status_code == 302, response.content.decode()[:3000]
    return Game.objects.get(pk=int(response["Location"].strip("/").split("/")[-1]))


def started_game(organiser: Any, name: str, players: int = 7, seed: int = 11, **options: Any) -> Game:
    """A running game made through the services, every player with an address."""
    from werewolf.games import services

    seats = [services.Seating(player, f"{player.lower()}@example.org") for player in NAMES[:players]]
    game = services.create_game(
        organiser, name=name, seats=seats, options={"wolves": 2, "seers": 1, **options}, seed=seed
    )
    return services.start_game(game)


def snapshot(game: Game) -> tuple[Any, ...]:
    """What a refused input must leave unchanged: cards, events, state, phases."""
    from werewolf.games.models import Event

    game.refresh_from_db()
    return (
        Order.objects.filter(phase__game=game).count(),
        Event.objects.filter(game=game).count(),
        game.state,
        list(Phase.objects.filter(game=game).values_list("status", "deadline")),
    )


def seat_paths(game: Game) -> dict[int, str]:
    """Each seat's private page, as read from the mails the players got."""
    paths: dict[int, str] = {}
    for player in game.players.all():
        for message in mail.outbox:
            if any(player.email in to for to in message.to):
                found = LINK.search(message.body)
                if found:
                    paths[player.seat] = found.group(1)
    return paths


def seat_roles(game: Game) -> list[str]:
    """Each seat's role now (`engine.roles_of`: classic seats hold one)."""
    state = game.engine_state
    return [engine.roles_of(state, seat)[0] for seat in range(state.seats)]


def pack_of(game: Game) -> list[int]:
    """The werewolves' seats in order of succession: the alpha dealt first, then
    clockwise."""
    seats = seat_roles(game)
    alpha = game.deal["alpha"]
    wolves = [seat for seat, role in enumerate(seats) if role == "wolf"]
    return sorted(wolves, key=lambda seat: (seat - alpha) % len(seats))


def card_form(game: Game, seat: int, rng: Random) -> dict[str, Any] | None:
    """A bot's card for the seat, as the POST of its notecard form (see
    `NotecardForm`: `target` for a field of one name, `target_1`, `target_2`... for the
    names of a list, `swap_1`, `swap_2` for a Dark City wolf's swap)."""
    phase = game.current_phase()
    state = game.engine_state
    slot = engine.phase(state).asks(seat)
    if phase is None or slot is None:
        return None
    form: dict[str, Any] = {"phase": phase.pk}
    for field, options in slot.pairs():
        choices = [choice for choice in options if choice != seat]
        base = "target" if field.name == engine.TARGETS else field.name
        if field.name != engine.TARGETS and rng.random() >= 0.7:
            continue
        if field.most == 1:
            if choices:
                form[base] = rng.choice(choices)
            continue
        count = max(field.least, 2) if field.most is None else field.most
        if len(choices) < count:
            count = len(choices) if field.most is None else 0
        form.update({f"{base}_{number}": target for number, target in enumerate(rng.sample(choices, count), start=1)})
    return form


_AS_SENT: dict[int, tuple[Any, str]] = {}
"""Each sent mail as a string, by the message object's id (a mail never changes once
sent; the message is kept beside its text so that its id is not reused)."""


def mails_for(player: Player) -> str:
    """Everything in the mails a player got: headers, text, HTML and attachments."""
    texts = []
    for message in mail.outbox:
        if _to(message, player):
            kept = _AS_SENT.get(id(message))
            if kept is None or kept[0] is not message:
                # As sent (headers, text, HTML, encoded parts), and each attachment decoded.
                attached = [str(item[1]) for item in message.attachments if isinstance(item, tuple)]
                kept = _AS_SENT[id(message)] = (message, "\n".join([message.message().as_string(), *attached]))
            texts.append(kept[1])
    return "\n".join(texts)


def mails_to_no_seat() -> list[str]:
    """Every mail written to someone who held no seat when it was written: the person who
    left a seat (replaced, or away while a standby plays it), a standby, the organiser.
    None of them may tell what the public may not know. (As sent: headers, text, HTML.)"""
    from werewolf.games.models import Dispatch

    seatless = set(Dispatch.objects.filter(player=None).values_list("message_id", flat=True))
    return [
        message.message().as_string() for message in mail.outbox if message.extra_headers.get("Message-ID") in seatless
    ]


def _to(message: Any, player: Player) -> bool:
    return any(player.email in to for to in message.to)


def reply_address(player: Player) -> str:
    """The Reply-To of the newest mail the player got that asks for a card."""
    for message in reversed(mail.outbox):
        if _to(message, player) and message.reply_to:
            return message.reply_to[0]
    raise AssertionError(f"{player.name} got no mail to reply to")


def mail_card(game: Game, seat: int, form: dict[str, Any], rng: Random) -> Any:
    """Hand in the card of a notecard form by replying to the seat's newest mail, the
    way a mail client quotes it, and return the kept inbound message."""
    from werewolf.mail import inbound

    return inbound.receive(reply_card(game, seat, form, rng))


def reply_card(game: Game, seat: int, form: dict[str, Any], rng: Random) -> bytes:
    """The raw reply to the seat's newest mail that carries the card of a notecard form,
    quoting the mail as a client does."""
    player = game.players.get(seat=seat)
    names = selectors.names(game)
    slot = engine.phase(game.engine_state).asks(seat)
    assert slot is not None
    notecard = NotecardForm(form, slot=slot, names=names, seat=seat, submit="hand_in", ruleset=game.ruleset)
    assert notecard.is_valid(), notecard.errors
    card = card_summary(notecard.order(), names, game.ruleset)
    if rng.random() < 0.5:
        card = card.lower()
    quoted = "\n".join("> " + line for line in mails_for(player).splitlines()[-20:])
    body = f"{card}\n\nThanks!\n\nOn Mon, 1 Jan 2029 at 10:00, Werewolf moderator wrote:\n{quoted}\n"
    raw = (
        f"From: {player.name} <{player.email}>\r\nTo: {reply_address(player)}\r\n"
        f"Subject: Re: your card\r\nMessage-ID: <{rng.getrandbits(64):x}@example.org>\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n\r\n" + body.replace("\n", "\r\n")
    ).encode()
    return raw


def secrets_hidden_from(game: Game, viewer: engine.Viewer) -> set[str]:
    """Texts that would tell the viewer something its audience rules exclude: every
    event it may not see, rendered as its audience sees it, less any text the viewer
    sees anyway; the private links of other seats; and other seats' secret cards."""
    names = selectors.names(game)
    visible, hidden = set(), set()
    for event in game.events.all():
        reader = sorted(event.engine_event.audience.seats)[0] if event.engine_event.audience.seats else engine.MODERATOR
        for autoescape in (True, False):
            text = _rendered(event, names, reader, autoescape, game.ruleset)
            text_as_seen = _rendered(event, names, viewer, autoescape, game.ruleset)
            if event.visible_to(viewer):
                visible.update({text, text_as_seen})
            else:
                hidden.add(text)
    secrets = hidden - visible
    phases = game.phases.count()
    from werewolf.games.models import SeatLink

    others = SeatLink.objects.filter(player__game=game).exclude(player__seat=None)
    if isinstance(viewer, int):
        others = others.exclude(player__seat=viewer)
    for link in others:
        secrets.update(_link_secrets(link.nonce, phases))
    phase = game.current_phase()
    if phase is not None and not engine.phase(game.engine_state).public_orders:
        # Whatever the viewer wrote itself, in any phase, it knows: another seat's card
        # that happens to read the same is no secret from it.
        own_words = (
            [
                card_summary(row.order, names, game.ruleset)
                for row in Order.objects.filter(phase__game=game, seat=viewer)
            ]
            # and what it mailed, taken or refused (a refusal echoes the card it read)
            + list(InboundMessage.objects.filter(game=game, player__seat=viewer).values_list("card", flat=True))
            if isinstance(viewer, int)
            else []
        )

        counted = phase.current_orders()
        for seat in range(len(names)):
            card = counted.get(seat)
            if seat != viewer and card is not None and card.kind != "sleep":
                words = card_summary(card, names, game.ruleset)
                if not any(words in own for own in own_words):
                    secrets.add(words)
    return {secret for secret in secrets if secret.strip()}


_RENDERED: dict[tuple[Any, ...], str] = {}
"""Events in words, by event, names, reader and escaping: an event never changes, so a
whole game's sweeps render each one once per reader instead of once per sweep."""


def _rendered(event: Any, names: list[str], reader: engine.Viewer, autoescape: bool, ruleset: str | None = None) -> str:
    # The id with the moment it was written: an id comes again in a later test (or
    # after a rollback), never with the same moment.
    key = (event.pk, event.created_at, event.kind, tuple(names), reader, autoescape, ruleset)
    text = _RENDERED.get(key)
    if text is None:
        if len(_RENDERED) > 200_000:
            _RENDERED.clear()
        text = _RENDERED[key] = str(render_event(event, names, reader, autoescape=autoescape, ruleset=ruleset))
    return text


_LINK_SECRETS: dict[tuple[str, int], frozenset[str]] = {}


def _link_secrets(nonce: str, phases: int) -> frozenset[str]:
    """A seat link's token and the mail references of its phases (HMACs: kept)."""
    key = (nonce, phases)
    if key not in _LINK_SECRETS:
        _LINK_SECRETS[key] = frozenset(
            {links.token_for(nonce), *(links._reference_mac(nonce, index) for index in range(phases + 1))}
        )
    return _LINK_SECRETS[key]


def card_summary(card: engine.Order, names: list[str], ruleset: str | None = None) -> str:
    """A card in words, as pages and mails write it (`card_text`)."""
    from django.template import Context, Template

    text = Template("{% load werewolf %}{% card_text order %}").render(
        Context({"order": card, "names": names, "ruleset": ruleset}, autoescape=False)
    )
    return " ".join(text.split())


def text_of(html: str) -> str:
    """Page text with tags removed and whitespace folded, as a reader sees it."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def ruleset_of(slot: engine.Slot) -> str:
    """The ruleset whose cards include `slot`'s (the first, where several share it;
    classic for a card no ruleset lists, SLEEP or one a test made up)."""
    return next((name for name, rules in engine.rulesets.RULESETS.items() if slot.card in rules.cards), "classic")


def foreign_roles(game: Game) -> re.Pattern[str]:
    """The names of the roles other rulesets have and this game does not (issue 30: a page
    or mail speaks only of its own game's roles), as whole words in the game's language:
    "Owl" is Luna Piena's, but not inside Tabula's "Owl-man"."""
    held = set(engine.rulesets.get(game.ruleset).roles) | set(game.dealt_roles)
    with translation.override(game.language):
        own = {role(one, game.ruleset) for one in held}
        others = {
            role(one, ruleset)
            for ruleset, rules in engine.rulesets.RULESETS.items()
            for one in rules.roles
            if one not in held
        }
    # The site's own name ("Werewolf") is on every page and mail: it names the site, not a role.
    words = sorted(others - own - {settings.SITE_NAME}, key=len, reverse=True)
    alternatives = "|".join(map(re.escape, words))
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])")


def open_phase(game: Game) -> Phase | None:
    game.refresh_from_db()
    return game.current_phase()


CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')


def known_roles(game: Game, viewer: engine.Viewer) -> set[int]:
    """Seats whose role the viewer knows, or may have narrowed down, from what it saw: as
    the game's ruleset declares its events (`engine.event_kinds`: the fields of each that
    name seats whose role its audience learns), and every seat at the end."""
    state = game.engine_state
    tells = engine.event_kinds(game.ruleset)
    known = {seat for seat, shown in enumerate(state.revealed) if shown}
    if isinstance(viewer, int):
        known.add(viewer)
    for event in game.events.all():
        if not event.visible_to(viewer):
            continue
        if event.kind in selectors.OUTCOME_KINDS:
            known.update(range(state.seats))
        for field in tells.get(event.kind, ()):
            value = event.data.get(field)
            if isinstance(value, int) and not isinstance(value, bool):
                known.add(value)
            elif isinstance(value, list):
                known.update(seat for seat in value if isinstance(seat, int))
    return known


def _lupusburg_imagined(game: Game, viewer: engine.Viewer, rules: dict[str, Any]) -> dict[str, Any]:
    """Lupusburg's secrets made different for `viewer`: the characters under the houses
    it cannot know rotated among those houses, the other seats' chests under their other
    house, the other seats' goals rotated, other bettors' coins changed, the bag
    reversed. Nothing changes once the game is over (everything is face up then)."""
    if game.engine_state.over:
        return rules
    seats = len(rules["chests"])
    others = [seat for seat in range(seats) if seat != viewer]
    shown = set()
    for event in game.events.all():
        if event.visible_to(viewer) and isinstance(event.data.get("house"), int) and event.data.get("role"):
            shown.add(event.data["house"])
    hidden = [house for seat in others for house in (2 * seat, 2 * seat + 1) if house not in shown]
    characters = list(rules["characters"])
    moved = [characters[house] for house in hidden[1:] + hidden[:1]]
    for house, character in zip(hidden, moved, strict=True):
        characters[house] = character
    chests = list(rules["chests"])
    for seat in others:
        chests[seat] = chests[seat] ^ 1
    goals = list(rules["goals"])
    if goals and len(others) > 1:
        turned = [goals[seat] for seat in others[1:] + others[:1]]
        for seat, goal in zip(others, turned, strict=True):
            goals[seat] = goal
    bets = [[a, b, coin if a == viewer else coin + 1] for a, b, coin in rules["bets"]]
    return {
        **rules,
        "characters": characters,
        "chests": chests,
        "goals": goals,
        "bets": bets,
        "coins": list(reversed(rules["coins"])),
    }


def counterfactual_page(client: Client, game: Game, viewer: engine.Viewer, path: str) -> tuple[str, str]:
    """The viewer's page as it is, and as it would be if every secret the viewer may
    not know were different: the roles of the seats it cannot know rotated among
    themselves, and every event it may not see gone. The two must be the same."""
    from django.core.cache import caches
    from django.db import transaction

    poll = path + "version.json"
    actual = CSRF.sub("", client.get(path).content.decode()) + CSRF.sub("", client.get(poll).content.decode())
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        raw = dict(game.state)
        rules = dict(raw["rules"])  # the ruleset's own part of the state
        if "characters" in rules:
            raw["rules"] = _lupusburg_imagined(game, viewer, rules)
            roles = []
        else:
            roles = list(rules["roles"])
        known = known_roles(game, viewer)
        unknown = [seat for seat in range(len(roles)) if seat not in known]
        rotated = [roles[seat] for seat in unknown[1:] + unknown[:1]]
        for seat, role in zip(unknown, rotated, strict=False):
            roles[seat] = role
        if "characters" not in rules:
            table = engine.cast(game.ruleset, game.options)
            wolves = [seat for seat, role in enumerate(roles) if table[role].pack]
            rules["roles"] = roles
            rules["pack"] = [seat for seat in rules["pack"] if seat in wolves] + [
                seat for seat in wolves if seat not in rules["pack"]
            ]
            raw["rules"] = rules
        game.state = raw
        game.save(update_fields=["state"])
        # Every event the viewer may not see gone, and the visible ones written again
        # with new database ids: nothing may count the hidden ones (not even by ids).
        visible = [event for event in game.events.order_by("pk") if event.visible_to(viewer)]
        game.events.all().delete()
        for event in visible:
            event.pk = None
        Event.objects.bulk_create(visible)  # in order, so new ids keep it (pages show no times)
        # Other seats' cards: only the one that counts, as if never changed.
        phase = game.current_phase()
        if phase is not None:
            for seat in set(phase.orders.values_list("seat", flat=True)) - {viewer}:
                latest = phase.orders.filter(seat=seat).order_by("-pk").first()
                phase.orders.filter(seat=seat).exclude(pk=latest.pk).delete()
        # The imagined page rendered afresh, none of it from the parts kept of the actual
        # one (selectors.shared_version, shared_log): else the parts could not differ.
        caches["template_fragments"].clear()
        imagined = CSRF.sub("", client.get(path).content.decode())
        imagined += CSRF.sub("", client.get(poll).content.decode())  # (a page without a poll: its 404 page)
        transaction.set_rollback(True)
    # The rolled-back ids are handed out again (SQLite): nothing imagined may be kept.
    caches["template_fragments"].clear()
    return actual, imagined


def story_sweep(game: Game, organiser: Client, steps: int | None = 2) -> None:
    """The story sweep (issue 42), beside the secrecy sweep: every door that tells the
    past names, for every card, the person the seats' holders record names (the one
    holding the seat when the card was written), and tells each hand-over with its
    reason. The export's writers and seats, the replay's cards table and hand-overs
    (its last `steps` steps; None: every step), the public log, the dashboard's mail
    received (each mail under its writer), the mails (each phase mail to the seat's holder
    when it was queued, each newcomer told whose seat they take, and every mail sent since
    the last sweep telling its steps' events by the record's names: `_mails_tell_the_record`),
    and, once the game is over, the record PDF (read back with pypdf): its roles as dealt,
    and each card the replay shows."""
    import io

    from pypdf import PdfReader

    from werewolf.games import holders, replay

    game = Game.objects.get(pk=game.pk)
    held = holders.of(game)
    chapters = replay.story(game, [event for event in selectors.visible_events(game, engine.MODERATOR)])
    # What the record says: each card's writer is its seat's holder at its moment.
    writers: dict[int, list[tuple[int, str]]] = {}
    for phase_index, seat, submitted_at in (
        Order.objects.filter(phase__game=game).order_by("pk").values_list("phase__index", "seat", "submitted_at")
    ):
        writers.setdefault(phase_index, []).append((seat, held.at(seat, submitted_at).name))
    exported = organiser.get(f"/games/{game.pk}/export.json").json()
    assert [row["name"] for row in exported["players"]] == held.names_now(), "the export's players"
    assert [(row["seat"], row["name"], row["reason"]) for row in exported["holders"]] == [
        (holding.seat, holding.name, holding.reason) for seat in range(held.seats) for holding in held.of_seat(seat)
    ], "the export's holders"
    for phase in exported["phases"]:
        counted = {}
        for seat, name in writers.get(phase["index"], []):
            if str(seat) in phase["orders"]:
                counted[str(seat)] = name  # (the newest: the one that counted)
        assert phase.get("by", {}) == counted, f"the export's writers of phase {phase['index']}"
    wanted = range(len(chapters)) if steps is None else range(max(0, len(chapters) - steps), len(chapters))
    shown: list[tuple[str, str]] = []
    for number in wanted:
        chapter = chapters[number]
        html = organiser.get(f"/g/{game.public_key}/replay/?step={number}").content.decode()
        table = re.search(r'<table class="table table-sm replay-cards">(.*?)</table>', html, re.S)
        rows = [
            [text_of(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table.group(1) if table else "", re.S)
        ]
        rows = [cells for cells in rows if cells]
        expected = [name for _, name in writers.get(chapter.phase.index, [])] if chapter.phase else []
        assert [cells[0] for cells in rows] == expected, f"the replay's writers at step {number}"
        shown += [(cells[0], cells[1]) for cells in rows if cells[3].startswith("yes") or "ended the game" in cells[3]]
        told = text_of(html)
        for holding in chapter.handovers:
            with translation.override(game.language):
                why = holding.get_reason_display()
            assert f"Why: {why}." in told, f"the replay's hand-over of seat {holding.seat + 1} at step {number}"
    told_handovers = sum(len(chapter.handovers) for chapter in chapters)
    assert told_handovers == len(held.handovers()), "every hand-over told once"
    # The public log tells each hand-over by the names of the record, and no reason.
    public = text_of(organiser.get(f"/g/{game.public_key}/").content.decode())
    for seat in range(held.seats):
        chain = held.of_seat(seat)
        for before, after in zip(chain, chain[1:], strict=False):
            told = f"{after.name} takes over seat {seat + 1} from {before.name}."
            if game.language == "en":
                assert told in public, f"the public log does not say {told!r}"
    assert "Why:" not in public, "the public log tells why a seat changed hands"
    # The dashboard's "Mail received": each mail under the person who wrote it, the one the
    # record names for its address when it came (not whoever holds that seat today).
    from werewolf.games.models import InboundMessage

    dashboard = text_of(organiser.get(f"/games/{game.pk}/").content.decode())
    for message in InboundMessage.objects.filter(game=game).exclude(sender=""):
        wrote = [
            holding
            for holding in held.by_address(message.sender)
            if holding.since is None or holding.since <= message.received_at
        ]
        if wrote:
            assert message.author == wrote[-1].name, f"mail {message.pk} is kept under {message.author!r}"
            assert wrote[-1].name in dashboard, f"the dashboard's mail list leaves out {wrote[-1].name}"
    # The mails: each seat's phase mail went to the person holding the seat when it was
    # queued, and each newcomer's hand-over mail names the one whose seat they take.
    from werewolf.games.models import Dispatch

    for row in Dispatch.objects.filter(player__game=game, kind=Dispatch.Kind.PHASE).select_related("player"):
        holder = held.at(row.player.seat, row.created_at)
        assert holder.email and holder.email in row.recipient, f"phase mail {row.pk} went to {row.recipient!r}"
    for seat in range(held.seats):
        chain = held.of_seat(seat)
        for before, after in zip(chain, chain[1:], strict=False):
            newcomer = after.reason in ("stood_in", "substituted", "took_over") and after.name != before.name
            if newcomer and after.email and game.language == "en":
                told = [
                    row.body_text
                    for row in Dispatch.objects.filter(player__game=game, recipient__contains=after.email)
                    if f"from {before.name}" in row.body_text or f"for {before.name}" in row.body_text
                ]
                assert told, f"no mail tells {after.name} whose seat {seat + 1} they take ({before.name}'s)"
    _mails_tell_the_record(game, held)
    if game.status not in (Game.Status.FINISHED, Game.Status.ENDED):
        return
    pdf = organiser.get(f"/games/{game.pk}/print/record.pdf")
    assert pdf["Content-Type"] == "application/pdf"
    text = " ".join(" ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(pdf.content)).pages)
    head = text[: text.index("Setup")]
    for seat, name in enumerate(held.names_dealt()):
        assert f"{name} " in head, f"the record's roles as dealt name {name} for seat {seat + 1}"
    for name in {holding.name for holding in held.handovers()} - set(held.names_dealt()):
        assert f"{name} " not in head, f"the record's roles as dealt name {name}, who was not dealt a seat"
    for writer, written in shown:
        assert f"{writer} {written}" in text, f"the record does not say {writer} wrote {written}"


_MAILS_TOLD: dict[int, tuple[list[Any], int]] = {}
"""By game, the outbox whose mails the story sweep read and how many it read: each sweep
reads the mails sent since the last (a test's outbox is a new list: it starts over)."""


def _mails_tell_the_record(game: Game, held: Any) -> None:
    """The story in every mail sent to a seat since the game's last sweep: under each
    step's heading (a phase mail's step, the story so far of a hand-over's mail), each line
    tells one of the step's events the seat may see, in the words the seat's log gives it
    from the seats' holders record (each seat named by its holder then, a card by its
    writer); a phase mail tells every event of its step the seat could see when it was
    queued; and no line names a person for a step in which they held no seat (but a
    hand-over's, which names the one who leaves)."""
    from django.template import Context, Template
    from django.utils import timezone

    from werewolf.games.models import Dispatch
    from werewolf.games.templatetags.werewolf import render_event

    read = _MAILS_TOLD.get(game.pk)
    start = read[1] if read is not None and read[0] is mail.outbox else 0
    sent = {message.extra_headers.get("Message-ID"): message for message in mail.outbox[start:]}
    _MAILS_TOLD[game.pk] = (mail.outbox, len(mail.outbox))
    rows = list(
        Dispatch.objects.filter(
            player__game=game, player__seat__isnull=False, message_id__in=[key for key in sent if key]
        )
        .select_related("player")
        .order_by("pk")
    )
    if not rows:
        return
    events = selectors.visible_events(game, engine.MODERATOR)
    selectors.log(game, engine.MODERATOR, events)  # each event's names then and its cards' writers
    phases = {phase.pk: phase for phase in game.phases.order_by("index")}
    with translation.override(game.language):
        setup = str(translation.gettext("Setup"))
        said = Template("{% load werewolf %}{% phase_name phase %}")
        headings = {pk: said.render(Context({"phase": phase})).strip() for pk, phase in phases.items()}
    steps: dict[str, list[Phase | None]] = {}
    for pk, heading in headings.items():
        steps.setdefault(heading, []).append(phases[pk])
    steps.setdefault(setup, []).append(None)
    people = {holding.name for seat in range(held.seats) for holding in held.of_seat(seat)}
    named = re.compile(r"(?<!\w)(" + "|".join(map(re.escape, sorted(people, key=len, reverse=True))) + r")(?!\w)")
    now = timezone.now()

    def held_during(person: str, phase: Phase | None) -> bool:
        """Whether `person` held a seat at some moment of `phase` (None: at the deal)."""
        for seat in range(held.seats):
            for holding in held.of_seat(seat):
                if holding.name != person:
                    continue
                if phase is None:
                    if holding.dealt:
                        return True
                    continue
                closed = phase.resolved_at or now
                if (holding.since is None or holding.since <= closed) and (
                    holding.until is None or holding.until >= phase.opened_at
                ):
                    return True
        return False

    # Each step's cards, by seat, as the record has them: the moment of the one that counted.
    cards: dict[int, dict[int, Any]] = {}
    for phase_id, seat, moment in (
        Order.objects.filter(phase__game=game, act=None).order_by("pk").values_list("phase_id", "seat", "submitted_at")
    ):
        cards.setdefault(phase_id, {})[seat] = moment
    words: dict[int, dict[str, list[tuple[str, Any]]]] = {}  # by seat and heading: (words, moment)

    def told_to(seat: int) -> dict[str, list[tuple[str, Any]]]:
        if seat not in words:
            found: dict[str, list[tuple[str, Any]]] = {}
            with translation.override(game.language):
                for event in events:
                    if event.visible_to(seat):
                        text = render_event(
                            event,
                            event.names_then,
                            seat,
                            autoescape=False,
                            ruleset=game.ruleset,
                            writers=event.writers_then,
                        )
                        heading = headings[event.phase_id] if event.phase_id in headings else setup
                        found.setdefault(heading, []).append((str(text), event.created_at))
                        # A step's votes name each voter as the one who held the seat when
                        # the card was written (not as the log works it out: as the record has it).
                        for ballot in event.data.get("ballots", event.data.get("votes", [])):
                            voter = ballot[0] if isinstance(ballot, list) and ballot else None
                            moment = cards.get(event.phase_id, {}).get(voter)
                            if isinstance(voter, int) and moment is not None:
                                writer = held.at(voter, moment).name
                                assert f"{writer} → " in text, (f"{event.kind} does not name {writer}'s vote", text)
            words[seat] = found
        return words[seat]

    for row in rows:
        seat = row.player.occupied_seat
        body = sent[row.message_id].body
        expected = told_to(seat)
        sections: dict[str, list[str]] = {}
        heading = None
        for line in body.splitlines():
            if line.endswith(":") and line[:-1] in steps:
                heading = line[:-1]
                sections.setdefault(heading, [])
            elif heading is not None and line.startswith("- "):
                sections[heading].append(line[2:])
            else:
                heading = None
        for heading, lines in sections.items():
            known = {text for text, _ in expected.get(heading, [])}
            for line in lines:
                if line in ("Nothing you can see happened.",):
                    continue
                # (a line of a seat's story may end with who saw it: "(only you)")
                assert line in known or line.rsplit(" (", 1)[0] in known, (
                    f"mail {row.pk} ({row.kind}, to seat {seat + 1}) tells under {heading!r}: {line!r}; "
                    f"the record's words: {sorted(known)}"
                )
                if game.language != "en" or " takes over seat " in line:
                    continue  # (a hand-over names the one who leaves)
                for person in set(named.findall(line)):
                    assert any(held_during(person, phase) for phase in steps[heading]), (
                        f"mail {row.pk} names {person} under {heading!r}, a step in which they held no seat: {line!r}"
                    )
        if row.kind == Dispatch.Kind.PHASE and row.phase_id in headings:
            heading = headings[row.phase_id]
            wanted = [text for text, moment in expected.get(heading, []) if moment <= row.created_at]
            missing = [text for text in wanted if text not in sections.get(heading, [])]
            assert not missing, f"phase mail {row.pk} to seat {seat + 1} leaves out {missing}"


def played_by_bots(organiser: Any, ruleset: str, *, rounds: int = 10) -> Game:
    """A game of eight seats of `ruleset`, its first `rounds` phases played by the engine's
    bots and resolved (each ruleset's events, for the tests that read their words)."""
    rng = Random(ruleset)
    seats = [services.Seating(name) for name in NAMES[:8]]
    game = services.start_game(
        services.create_game(organiser, name=ruleset, seats=seats, options={}, ruleset=ruleset, seed=9)
    )
    for _ in range(rounds):
        game = Game.objects.get(pk=game.pk)
        if not game.is_running:
            break
        services.submit_orders(game, bot_orders(game.engine_state, rng))
        game = Game.objects.get(pk=game.pk)
        if game.is_running:  # (the last card in may have ended the phase, and the game)
            services.resolve_now(game)
    return Game.objects.get(pk=game.pk)
