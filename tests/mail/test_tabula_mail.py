"""Lupus in Tabula played by mailed cards only: every card a reply to the seat's newest
mail, read with Tabula's words. After every step each seat's mails are checked for
another seat's secrets (roles, night results, ballots before they are revealed); each
mail asks for the step's card (the ghosts too in the accusation, not the suspects and
the ghosts in the ballot); a ghost's and a suspect's LYNCH are refused, clearly, and
change nothing. At 16 and 24 players the Werehamster and the Mythomaniac are dealt too,
and the cards of the night are steered so that the game reaches them.

The sweep is incremental (`Sweep`): each mail is read once and checked, in the mailbox
of the seat it went to, against the secrets of the moment it is first swept. That finds
every leak that checking every seat's whole mailbox at every step would: a mail shows no
secret that did not exist when it was sent, and a secret known when a mail is swept is
checked then. The secrets are worked out once per sweep, each event rendered once."""

from __future__ import annotations

from datetime import timedelta
from random import Random
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone

from werewolf import engine
from werewolf.engine.bots import bot_card
from werewolf.games import links, selectors, services
from werewolf.games.models import Game, InboundMessage, Order, Phase, SeatLink
from werewolf.games.templatetags.werewolf import render_event
from werewolf.mail import inbound

from ..web.play import card_summary, mails_for, reply_address, secrets_hidden_from, snapshot

pytestmark = pytest.mark.django_db(transaction=True)

NAMES = [
    "Alba",
    "Brio",
    "Cato",
    "Dara",
    "Ezio",
    "Fenna",
    "Gusto",
    "Hilde",
    "Ivo",
    "Jolanda",
    "Kuno",
    "Lorenza",
    "Marzio",
    "Nives",
    "Orsola",
    "Pietro",
    "Quirina",
    "Rocco",
    "Selma",
    "Tullio",
    "Ughetta",
    "Vasco",
    "Wanda",
    "Zeno",
]
"""Up to 24 players (Tabula's largest table); no name is part of another."""
SIXTEEN = 1
TWENTY_FOUR = 1
"""Seeds (of the deal and of the bots' cards) whose games reach the Werehamster and
the Mythomaniac as the tests below steer them (at 16 the Mythomaniac lives to the second
night and both Seers to the third, and the Werehamster wins; at 24 the Owl-man strikes)."""


def tabula_game(organiser: Any, players: int, seed: int, **options: Any) -> Game:
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:players]]
    game = services.create_game(
        organiser, name="Tabula by mail", seats=seats, ruleset="tabula", options=options, seed=seed
    )
    return services.start_game(game)


class Sweep:
    """Every seat's mails, each read once, and the secrets each seat may not see.

    `check` checks the mails each seat got since the last sweep against what
    `secrets_hidden_from` (tests/web/play.py) would return for it now: the same sets,
    worked out once for all seats, every event rendered once per reader."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.names = selectors.names(game)
        self.players = list(game.players.exclude(seat=None).order_by("seat"))
        self.read = 0  # messages of mail.outbox sorted into mailboxes so far
        self.mail: dict[int, list[Any]] = {player.seat: [] for player in self.players}
        self.texts: dict[int, list[str]] = {player.seat: [] for player in self.players}
        self.checked = dict.fromkeys(self.mail, 0)
        self.rendered: dict[tuple[int, Any, bool], str] = {}
        self.macs: dict[tuple[str, int], str] = {}
        self.cards: dict[Any, str] = {}

    def update(self) -> None:
        """Sort the mails sent since the last call into the mailboxes of the seats."""
        for message in mail.outbox[self.read :]:
            for player in self.players:
                if any(player.email in to for to in message.to):
                    self.mail[player.seat].append(message)
                    self.texts[player.seat].append(message.message().as_string())
        self.read = len(mail.outbox)

    def last(self, seat: int) -> str:
        """The text of the newest mail the seat got (`last_mail`)."""
        self.update()
        return self.mail[seat][-1].body

    def tail(self, seat: int, lines: int) -> list[str]:
        """The last lines of everything the seat got (`mails_for(...).splitlines()`)."""
        self.update()
        texts = self.texts[seat]
        start = len(texts)
        while start > 0 and sum(text.count("\n") for text in texts[start:]) < lines:
            start -= 1
        return "\n".join(texts[start:]).splitlines()[-lines:]

    def everything(self, seat: int) -> str:
        """All the seat's mails in one text (`mails_for`)."""
        self.update()
        return "\n".join(self.texts[seat])

    def _render(self, event: Any, reader: Any, autoescape: bool) -> str:
        key = (event.pk, reader, autoescape)
        text = self.rendered.get(key)
        if text is None:
            text = self.rendered[key] = str(
                render_event(event, self.names, reader, autoescape=autoescape, ruleset=self.game.ruleset)
            )
        return text

    def _card(self, order: engine.Order) -> str:
        key = (order.kind, order.targets, order.more)
        words = self.cards.get(key)
        if words is None:
            words = self.cards[key] = card_summary(order, self.names)
        return words

    def secrets(self) -> dict[int, set[str]]:
        """`secrets_hidden_from(game, seat)` for every seat, as it would answer now."""
        game = self.game
        game.refresh_from_db()
        events = list(game.events.all())
        shown: dict[int, tuple[str, ...]] = {}  # as its audience reads it
        for event in events:
            audience = event.engine_event.audience.seats
            reader = sorted(audience)[0] if audience else engine.MODERATOR
            shown[event.pk] = tuple(self._render(event, reader, autoescape) for autoescape in (True, False))
        phases = game.phases.count()
        tokens: dict[int, set[str]] = {player.seat: set() for player in self.players}
        for seat, nonce in (
            SeatLink.objects.filter(player__game=game).exclude(player__seat=None).values_list("player__seat", "nonce")
        ):
            tokens[seat].add(links.token_for(nonce))
            for index in range(phases + 1):
                mac = self.macs.get((nonce, index))
                if mac is None:
                    mac = self.macs[nonce, index] = links._reference_mac(nonce, index)
                tokens[seat].add(mac)
        cards: dict[int, str] = {}
        own: dict[int, list[str]] = {player.seat: [] for player in self.players}
        phase = game.current_phase()
        if phase is not None and not engine.phase(game.engine_state).public_orders:
            for row in Order.objects.filter(phase__game=game).order_by("pk"):
                own.setdefault(row.seat, []).append(self._card(row.order))
            # What a seat wrote itself is no secret from it, taken or refused: a refusal
            # echoes the card it read ("What your card said: LYNCH Brio").
            for seat, text in (
                InboundMessage.objects.filter(game=game).exclude(player=None).values_list("player__seat", "card")
            ):
                own.setdefault(seat, []).append(text)
            latest = {row.seat: row.order for row in phase.orders.order_by("pk")}  # `selectors.card_of`
            for seat, card in latest.items():
                if card.kind != "sleep":
                    cards[seat] = self._card(card)
        found: dict[int, set[str]] = {}
        for player in self.players:
            seat = player.seat
            visible: set[str] = set()
            hidden: set[str] = set()
            for event in events:
                if event.visible_to(seat):
                    visible.update(shown[event.pk])
                    visible.update(self._render(event, seat, autoescape) for autoescape in (True, False))
                else:
                    hidden.update(shown[event.pk])
            secrets = hidden - visible
            for other, theirs in tokens.items():
                if other != seat:
                    secrets |= theirs
            for other, words in cards.items():
                if other != seat and not any(words in mine for mine in own.get(seat, ())):
                    secrets.add(words)
            found[seat] = {secret for secret in secrets if secret.strip()}
        return found

    def check(self) -> None:
        """No seat's mails hold what its audience rules keep from it: each mail sent
        since the last sweep checked against the seat's secrets now."""
        self.update()
        secrets = self.secrets()
        for player in self.players:
            seat = player.seat
            new = self.texts[seat][self.checked[seat] :]
            self.checked[seat] = len(self.texts[seat])
            if not new:
                continue
            text = "\n".join(new)
            for secret in secrets[seat]:
                assert secret not in text, f"{player.name}'s mail shows {secret!r}"


def reply(game: Game, sweep: Sweep, seat: int, card: str, rng: Random, to: str | None = None) -> InboundMessage:
    """The card as the first line of a reply to the seat's newest mail that asks for one,
    the mail quoted below it as a mail client does."""
    player = game.players.get(seat=seat)
    quoted = "\n".join("> " + line for line in sweep.tail(seat, 15))
    body = f"{card}\n\nOn Monday the moderator wrote:\n{quoted}\n"
    raw = (
        f"From: {player.name} <{player.email}>\r\nTo: {to or reply_address(player)}\r\n"
        f"Subject: Re: your card\r\nMessage-ID: <{rng.getrandbits(64):x}@example.org>\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n\r\n" + body.replace("\n", "\r\n")
    ).encode()
    return inbound.receive(raw)


def check_asked(game: Game, sweep: Sweep) -> None:
    """The newest mail of each seat asks for the card the open step asks of it, with
    an example in the card's words, or says why nothing is asked."""
    game.refresh_from_db()
    phase = game.current_phase()
    if phase is None:
        return
    state = game.engine_state
    spec = engine.phase(state)
    for player in sweep.players:
        body = sweep.last(player.seat)
        slot = spec.asks(player.seat)
        if slot is None:
            assert "Nothing is asked of you in this phase" in body
            if phase.stage == "ballot" and not state.alive[player.seat]:
                assert "the dead have no ballot" in body
            elif phase.stage == "ballot":
                assert "you are a suspect" in body
            continue
        assert "reply to this mail with your card" in body, body
        example = {"vote": "VOTE Name (or NO VOTE)", "ballot": "LYNCH Name (or NO LYNCH)"}.get(slot.kind)
        if example is None and slot.card.fields:
            example = f"{slot.card.word} Name"
        if example:
            assert example in body, (slot.kind, body)
        if slot.kind == "vote":
            assert "the dead too" in body
            if not state.alive[player.seat]:
                assert "You are dead, but a ghost still votes in the accusation" in body


Aims = dict[tuple[int, str], str]
"""(night, role) to a role: that night, a seat holding the role names a living seat
holding the other (a wolf's list puts it first) instead of a bot's random card."""


def aimed(state: engine.State, seat: int, slot: engine.Slot, aims: Aims) -> engine.Order | None:
    roles = state.rules.roles
    wanted = aims.get((state.number, roles[seat])) if state.phase == "night" else None
    if wanted is None or not slot.card.fields:
        return None
    choices = [choice for choice in slot.options[0] if choice != seat and roles[choice] == wanted]
    if not choices:
        return None
    if slot.card.fields[0].most is None:  # a wolf's ranked list: a second name after it
        choices[1:] = [choice for choice in slot.options[0] if choice not in (seat, choices[0])][:1]
        return engine.Order(slot.card.kind, tuple(choices))
    return engine.Order(slot.card.kind, choices[:1])


def hand_in_by_mail(game: Game, sweep: Sweep, rng: Random, aims: Aims) -> None:
    """Every seat the open step asks replies with a bot's card (or the aimed one), in
    the step's words. Where the cards are secret, the mails are swept once more before
    the last card closes the step: the answers to the cards, while the cards are secret."""
    state = game.engine_state
    names = selectors.names(game)
    phase = game.current_phase()
    spec = engine.phase(state)
    slots = sorted(spec.slots.items())
    for number, (seat, slot) in enumerate(slots, start=1):
        current = game.current_phase()
        if current is None or current.pk != phase.pk:
            return
        if number == len(slots) and not spec.public_orders:
            sweep.check()
        order = aimed(state, seat, slot, aims) or bot_card(slot, seat, rng)
        card = card_summary(order, names)
        if rng.random() < 0.3:
            card = card.lower()
        kept = reply(game, sweep, seat, card, rng)
        assert kept.status == InboundMessage.Status.APPLIED, (seat, card, kept.code)


def close(game: Game, phase: Phase) -> None:
    if Phase.objects.get(pk=phase.pk).status == Phase.Status.OPEN:
        Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        assert services.sweep_due_phases() == 1
    assert Phase.objects.get(pk=phase.pk).status == Phase.Status.RESOLVED


def refused_lynch(game: Game, sweep: Sweep, seat: int, suspect: int, rng: Random, words: str) -> None:
    """A LYNCH from a seat the ballot asks nothing of: refused, told why, nothing changed."""
    before = snapshot(game)
    name = sweep.names[suspect]
    kept = reply(game, sweep, seat, f"LYNCH {name}", rng)
    assert kept.status == InboundMessage.Status.REFUSED, kept.code
    assert snapshot(game) == before
    answer = sweep.last(seat)
    assert "was not taken as a card, and nothing in the game was changed" in answer
    assert words in answer, answer


def play(game: Game, seed: int, aims: Aims | None = None, compare: bool = False) -> tuple[Sweep, dict[str, int]]:
    """The whole game by mail, every seat's mails swept after every step; returns the
    sweep and how many ghost and suspect LYNCH replies (refused) and changed ballots
    were tried: in every ballot, one ghost's (a different one each time, while there are
    new ones) and one suspect's. `compare` checks, at each ballot, that the sweep's
    secrets are those `secrets_hidden_from` finds."""
    rng = Random(seed)
    sweep = Sweep(game)
    tried = {"ghost": 0, "suspect": 0, "ballots": 0}
    sweep.check()
    check_asked(game, sweep)
    steps = 0
    while (phase := game.current_phase()) is not None:
        steps += 1
        assert steps < 80, "the game does not end"
        state = game.engine_state
        spec = engine.phase(state)
        if phase.stage == "ballot":
            suspects = list(state.rules.suspects)
            assert selectors.running_tally(phase) is None
            ghosts = [seat for seat in range(state.seats) if not state.alive[seat]]
            if ghosts:
                ghost = ghosts[tried["ghost"] % len(ghosts)]
                refused_lynch(game, sweep, ghost, suspects[tried["ghost"] % 2], rng, "The dead have no ballot")
                tried["ghost"] += 1
            suspect = suspects[tried["suspect"] % 2]
            refused_lynch(game, sweep, suspect, suspects[1] if suspect == suspects[0] else suspects[0], rng,
                          "A suspect has no ballot")  # fmt: skip
            tried["suspect"] += 1
            voters = sorted(spec.slots)
            if voters:
                # A ballot handed in and changed tells nobody else anything: not the
                # public poll, not another seat's, not the public tally.
                first, other = voters[0], voters[-1]
                reply(game, sweep, first, f"LYNCH {sweep.names[suspects[0]]}", rng)
                public = selectors.version(game, engine.PUBLIC)
                watching = selectors.version(game, other) if other != first else None
                reply(game, sweep, first, f"LYNCH {sweep.names[suspects[1]]}", rng)
                assert selectors.version(game, engine.PUBLIC) == public
                if watching is not None:
                    assert selectors.version(game, other) == watching
                sweep.check()
                tried["ballots"] += 1
                if compare:
                    secrets = sweep.secrets()
                    for player in sweep.players:
                        assert secrets[player.seat] == secrets_hidden_from(game, player.seat), player.name
        elif phase.stage == "accusation":
            tally = selectors.running_tally(phase)
            assert tally is not None and tally.electorate == state.seats  # the ghosts vote too
        hand_in_by_mail(game, sweep, rng, aims or {})
        close(game, phase)
        game.refresh_from_db()
        sweep.check()
        check_asked(game, sweep)
    assert game.status == Game.Status.FINISHED
    return sweep, tried


def test_an_eight_player_tabula_game_played_by_mail(organiser) -> None:
    game = tabula_game(organiser, 8, seed=5, first_night="normal")
    sweep, tried = play(game, 5, compare=True)
    assert tried["ghost"] and tried["suspect"] and tried["ballots"]
    over = game.events.get(kind="game_over")
    for player in game.players.all():
        assert "The game is over" in sweep.everything(player.seat)
    assert over.data["winner"] in ("village", "wolves")
    # The incremental sweep read every mail of each seat's mailbox, and checked it.
    for player in sweep.players:
        mailbox = [message for message in mail.outbox if any(player.email in to for to in message.to)]
        assert [id(message) for message in sweep.mail[player.seat]] == [id(message) for message in mailbox]
        assert sweep.checked[player.seat] == len(mailbox)


def test_a_thirteen_player_game_with_freemasons_by_mail(organiser) -> None:
    game = tabula_game(organiser, 13, seed=3)
    masons = game.events.get(kind="masons_met").data["masons"]
    assert len(masons) == 2
    names = selectors.names(game)
    for player in game.players.exclude(seat=None):
        welcome = mails_for(player)
        told = "The Freemasons, who know each other" in welcome
        assert told == (player.seat in masons), player.name
        if told:
            assert all(names[mason] in welcome for mason in masons)
    play(game, 3)


def test_the_sweep_finds_a_secret_in_a_mail(organiser) -> None:
    """The incremental sweep is no blind one: the Seer's role, or another seat's
    private link, in a seat's mail is found, in that seat's mailbox only."""
    game = tabula_game(organiser, 8, seed=5)
    sweep = Sweep(game)
    sweep.check()
    seer = seat_of(game, "seer")
    other, third = [seat for seat in range(8) if seat != seer][:2]
    names = sweep.names

    def send(seat: int, text: str) -> None:
        mail.outbox.append(mail.EmailMessage("News", text, to=[f"{names[seat].lower()}@example.org"]))

    leak = sweep._render(game.events.get(kind="role_dealt", data__seat=seer), seer, False)
    assert leak == "Your card: Seer."
    send(seer, leak)
    sweep.check()  # the Seer's own card, in the Seer's mail
    send(other, leak)
    with pytest.raises(AssertionError, match=f"{names[other]}'s mail shows 'Your card: Seer.'"):
        sweep.check()
    token = links.token_for(game.players.get(seat=third).links.first().nonce)
    send(third, f"http://testserver/p/{token}/")
    sweep.check()
    send(other, f"http://testserver/p/{token}/")
    with pytest.raises(AssertionError, match=f"{names[other]}'s mail shows"):
        sweep.check()


def seat_of(game: Game, role: str) -> int:
    (seat,) = [seat for seat, dealt in enumerate(game.deal["roles"]) if dealt == role]
    return seat


def test_sixteen_players_by_mail_the_mythomaniac_becomes_a_seer_and_the_pack_meets_the_werehamster(
    organiser,
) -> None:
    """At 16 the whole deck but a third wolf's is dealt. The second night the pack's
    lists all name the Werehamster, who is spared (and nobody is told but the
    moderator), and the Mythomaniac points at the Seer: he becomes a Seer, the two
    Seers meet, and from the third night they inquire together."""
    game = tabula_game(organiser, 16, seed=SIXTEEN)
    state = game.engine_state
    assert sorted(set(state.rules.roles)) == sorted(set(engine.rulesets.get("tabula").roles))
    assert state.rules.roles.count("wolf") == 3
    hamster, mythomaniac, seer = (seat_of(game, role) for role in ("werehamster", "mythomaniac", "seer"))
    sweep, tried = play(game, SIXTEEN, aims={(2, "wolf"): "werehamster", (2, "mythomaniac"): "seer"})
    assert tried["ghost"] and tried["suspect"] and tried["ballots"] > 1
    wolves = [seat for seat, role in enumerate(state.rules.roles) if role == "wolf"]
    lists = Order.objects.filter(phase__game=game, phase__number=2, phase__stage="night", seat__in=wolves)
    assert lists and all(len(row.order.targets) == 2 and row.order.targets[0] == hamster for row in lists)
    spared = game.events.get(kind="ruling_immune")
    assert spared.data["seat"] == hamster and spared.data["rule"] == "unkillable"
    assert spared.engine_event.audience.scope == "moderator"
    became = game.events.get(kind="mythomaniac_became")
    assert became.data == {"seat": mythomaniac, "target": seer, "role": "seer"}
    met = game.events.get(kind="seers_met")
    assert sorted(met.data["seers"]) == sorted([seer, mythomaniac])
    names = sweep.names
    mine = sweep.everything(mythomaniac)
    assert f"You pointed at {names[seer]}, the Seer: you are a Seer now" in mine
    assert "There are two Seers now, who know each other" in mine
    assert "There are two Seers now, who know each other" in sweep.everything(seer)
    # The third night both Seers inquire, and both learn the answer of the card counted.
    (together,) = game.events.filter(kind="seer_saw", phase__number=3)
    counted, target = together.data["seer"], together.data["target"]
    answer = f"{names[target]} is {'a werewolf' if together.data['werewolf'] else 'not a werewolf'}"
    other = mythomaniac if counted == seer else seer
    assert f"Your inquiry came back: {answer}" in sweep.everything(counted)
    assert f"The Seers' inquiry (the card of {names[counted]} counted) came back: {answer}" in sweep.everything(other)
    # The Werehamster the wolves could not kill outlived both sides, and won alone.
    over = game.events.get(kind="game_over")
    assert over.data["winner"] == "hamster" and over.data["winners"] == [hamster]
    for player in sweep.players:
        assert f"the Werehamster, {names[hamster]}, is still alive when a side would have won" in sweep.everything(
            player.seat
        )
    for player in sweep.players:
        if player.seat not in (seer, mythomaniac):
            assert "There are two Seers now" not in sweep.everything(player.seat)


def test_twenty_four_players_by_mail_the_seer_finds_the_werehamster_and_the_mythomaniac_joins_the_pack(
    organiser,
) -> None:
    """Tabula's largest table, the Owl-man's choice deadly. The first night the Seer
    inquires about the Werehamster, who dies at dawn (only the Seer learns an answer,
    only the moderator why); the second night the Mythomaniac points at a Werewolf and
    joins the pack, last in the succession, the living pack told."""
    game = tabula_game(organiser, 24, seed=TWENTY_FOUR)
    state = game.engine_state
    assert sorted(set(state.rules.roles)) == sorted(set(engine.rulesets.get("tabula").roles))
    hamster, mythomaniac, seer = (seat_of(game, role) for role in ("werehamster", "mythomaniac", "seer"))
    sweep, tried = play(game, TWENTY_FOUR, aims={(1, "seer"): "werehamster", (2, "mythomaniac"): "wolf"})
    assert tried["ghost"] and tried["suspect"] and tried["ballots"] > 1
    names = sweep.names
    seen = game.events.get(kind="ruling_frail")
    assert seen.data["seat"] == hamster and seen.engine_event.audience.scope == "moderator"
    death = game.events.get(kind="killed", data__seat=hamster)
    assert death.phase_id == seen.phase_id
    assert f"Your inquiry came back: {names[hamster]} is not a werewolf." in sweep.everything(seer)
    became = game.events.get(kind="mythomaniac_became")
    assert became.data["seat"] == mythomaniac and became.data["role"] == "wolf"
    assert game.engine_state.rules.roles[mythomaniac] == "wolf"
    assert "you are a werewolf now, the last of the pack" in sweep.everything(mythomaniac)
    pack = game.events.filter(kind="pack_formed").order_by("pk").last().data["pack"]
    assert pack[-1] == mythomaniac
    assert game.events.filter(
        kind="ruling_owl", data__rule="struck"
    ).exists()  # more than 20 players: the Owl-man's choice dies
    for player in sweep.players:
        told = any("The pack, in order of succession" in text for text in sweep.texts[player.seat])
        assert told == (game.deal["roles"][player.seat] == "wolf" or player.seat == mythomaniac), player.name


def test_a_mason_sees_the_other_in_the_circle_and_nobody_else_does(organiser) -> None:
    game = tabula_game(organiser, 13, seed=3)
    masons = game.events.get(kind="masons_met").data["masons"]
    for seat in range(13):
        seen = selectors.visible_events(game, seat)
        shown = {place.seat for place in selectors.circle(game, seat, seen) if place.role}
        pack = set(game.events.get(kind="pack_formed").data["pack"])
        expected = {seat} | (set(masons) if seat in masons else set()) | (pack if seat in pack else set())
        assert shown == expected, seat


def _bots_hand_in(game: Game, rng: Random) -> None:
    """Every seat the open step asks hands in a bot's card; the step is resolved."""
    game.refresh_from_db()
    phase = game.current_phase()
    for seat, slot in sorted(engine.phase(game.engine_state).slots.items()):
        services.submit_order(game, seat, bot_card(slot, seat, rng), phase_id=phase.pk)
    if Phase.objects.get(pk=phase.pk).status == Phase.Status.OPEN:
        services.resolve_now(Game.objects.get(pk=game.pk))
    game.refresh_from_db()


def _refusal(answer: str) -> str:
    """The answer's refusal paragraph, without the open phase's lines below it."""
    return answer.split("What your card said")[0].split("deadline")[0]


def test_a_ghosts_accusation_vote_arriving_late_is_told_it_is_late(organiser) -> None:
    """A ghost's vote for the accusation that arrives once the ballot is open is late:
    it is told so, not that the dead have no ballot (issue 28)."""
    rng = Random(3)
    game = tabula_game(organiser, 8, 3, first_night="normal")
    sweep = Sweep(game)
    _bots_hand_in(game, rng)  # night 1: the pack kills
    state = game.engine_state
    assert game.current_phase().stage == "accusation"
    ghost = next(seat for seat in range(state.seats) if not state.alive[seat])
    accusation = reply_address(game.players.get(seat=ghost))
    _bots_hand_in(game, rng)
    assert game.current_phase().stage == "ballot"
    before = snapshot(game)
    kept = reply(game, sweep, ghost, f"VOTE {sweep.names[state.living()[0]]}", rng, to=accusation)
    assert kept.status == InboundMessage.Status.REFUSED and kept.code == "phase_closed", kept.code
    assert snapshot(game) == before
    refusal = _refusal(sweep.last(ghost))
    assert "It came too late" in refusal and "no ballot" not in refusal, refusal


def test_a_kill_on_the_quiet_first_night_is_told_the_wolves_only_meet(organiser) -> None:
    rng = Random(4)
    game = tabula_game(organiser, 8, 4)
    sweep = Sweep(game)
    state = game.engine_state
    wolf = state.rules.pack[0]
    prey = next(seat for seat in state.living() if seat not in state.rules.pack)
    before = snapshot(game)
    kept = reply(game, sweep, wolf, f"KILL {sweep.names[prey]}", rng)
    assert kept.status == InboundMessage.Status.REFUSED and kept.code == "pack_only_meets", kept.code
    assert snapshot(game) == before
    answer = sweep.last(wolf)
    assert "Tonight the werewolves only meet" in answer and "does not fit your role" not in answer, answer


def test_the_words_offered_after_an_unknown_word_are_the_seats_own(organiser) -> None:
    """An unknown first word is answered with the words of the card asked of the seat
    now: a sleeping villager on Tabula's quiet first night is offered SLEEP, not other
    rulesets' words nor other roles' (issue 28)."""
    rng = Random(5)
    game = tabula_game(organiser, 8, 5)
    sweep = Sweep(game)
    state = game.engine_state
    villager = next(seat for seat in state.living() if state.rules.roles[seat] == "villager")
    kept = reply(game, sweep, villager, f"DANCE {sweep.names[0]}", rng)
    assert kept.status == InboundMessage.Status.REFUSED and kept.code == "unknown_keyword", kept.code
    refusal = _refusal(sweep.last(villager))
    offered = refusal.split("is not a notecard word: write ")[1].split(", or just the names")[0]
    assert offered == "SLEEP", refusal
