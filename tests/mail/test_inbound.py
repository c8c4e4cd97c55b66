"""Orders by mail: a reply to the newest mail hands the card in; anything else is kept,
changes nothing, and (when the seat can be told safely) gets a reply saying what to do."""

from __future__ import annotations

import base64
from email.message import EmailMessage

import pytest
from django.core import mail

from werewolf import engine
from werewolf.games import links, services
from werewolf.games.models import Game, InboundMessage, Order
from werewolf.mail import inbound
from werewolf.mail.outbound import orders_address

from ..web.play import NAMES, pack_of, reply_address, seat_roles, snapshot, started_game

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def game(organiser) -> Game:
    return started_game(organiser, "By mail")


def seat_of(game: Game, role: str) -> int:
    return seat_roles(game).index(role)


def name_of(game: Game, seat: int) -> str:
    return game.players.get(seat=seat).name


def letter(
    game: Game,
    seat: int,
    body: str,
    *,
    to: str | None = None,
    sender: str | None = None,
    message_id: str | None = None,
    charset: str = "utf-8",
    html: bool = False,
) -> bytes:
    """A reply as a mail client would send it."""
    player = game.players.get(seat=seat)
    message = EmailMessage()
    message["From"] = f"{player.name} <{sender or player.email}>"
    message["To"] = to or reply_address(player)
    message["Subject"] = "Re: [By mail] Your seat"
    message["Message-ID"] = message_id or f"<{len(mail.outbox)}.{InboundMessage.objects.count()}@example.org>"
    message.set_content(body, subtype="html" if html else "plain", charset=charset)
    return bytes(message)


def last_reply_to(game: Game, seat: int) -> str:
    player = game.players.get(seat=seat)
    replies = [m for m in mail.outbox if player.email in m.to[0] and m.extra_headers.get("In-Reply-To")]
    assert replies, "no reply was mailed"
    return replies[-1].body


def test_a_wolf_hands_in_a_preference_list_by_replying(game: Game) -> None:
    wolf = pack_of(game)[0]
    villager, seer = seat_of(game, "villager"), seat_of(game, "seer")
    body = f"KILL {name_of(game, villager)}, {name_of(game, seer)[:3]}\n\nOn Monday the moderator wrote:\n> KILL Alba\n"
    kept = inbound.receive(letter(game, wolf, body))
    assert kept.status == InboundMessage.Status.APPLIED, kept.code
    order = Order.objects.get(phase__game=game, seat=wolf)
    assert order.source == Order.Source.MAIL and order.order == engine.Order("kill", (villager, seer))
    reply = last_reply_to(game, wolf)
    assert "your card is in: KILL" in reply and "reply again, and the last card counts" in reply


def test_the_last_card_counts_whether_mailed_or_typed(game: Game) -> None:
    seer = seat_of(game, "seer")
    first, second = [seat for seat in game.engine_state.living() if seat != seer][:2]
    inbound.receive(letter(game, seer, f"INQUIRE {name_of(game, first)}"))
    inbound.receive(letter(game, seer, f"inquire: {name_of(game, second).upper()}"))
    assert Order.objects.filter(seat=seer).latest("pk").order == engine.Order("inquire", (second,))


def test_names_alone_greetings_and_signatures(game: Game) -> None:
    seer = seat_of(game, "seer")
    target = next(seat for seat in game.engine_state.living() if seat != seer)
    name = name_of(game, target)
    kept = inbound.receive(letter(game, seer, f"Hi moderator,\n\nINQUIRE {name}\n\n-- \nme\n"))
    assert kept.status == "applied" and kept.card == f"INQUIRE {name}"
    alone = inbound.receive(letter(game, seer, f"Hi moderator,\n\n{name.lower()}\n\nThanks\n-- \nSent with love\n"))
    assert alone.status == "applied" and alone.card == name.lower()
    refused = inbound.receive(letter(game, seer, "Hello,\n\nI think I will pass tonight.\n"))
    assert refused.status == "refused" and refused.code == "unknown_name"
    # The greeting is passed over: the refusal names what the player wrote under it.
    assert "Nobody in this game is called “I think I will pass tonight.”" in last_reply_to(game, seer)


@pytest.mark.parametrize("charset", ["iso-8859-1", "utf-8", "windows-1252"])
def test_accents_in_any_common_charset(organiser, charset: str) -> None:
    seats = [services.Seating(name, f"p{seat}@example.org") for seat, name in enumerate(["Zoë", "Çelik", *NAMES[:5]])]
    game = services.start_game(
        services.create_game(organiser, name="Accents", seats=seats, options={"wolves": 2, "seers": 1}, seed=3)
    )
    seer = seat_of(game, "seer")
    target = next(seat for seat in game.engine_state.living() if seat != seer)
    kept = inbound.receive(letter(game, seer, f"INQUIRE {name_of(game, target)}", charset=charset))
    assert kept.status == "applied", (kept.code, kept.card)


def test_an_unknown_charset_and_base64_are_still_read(game: Game) -> None:
    seer = seat_of(game, "seer")
    target = next(seat for seat in game.engine_state.living() if seat != seer)
    player = game.players.get(seat=seer)
    body = base64.b64encode(f"INQUIRE {name_of(game, target)}\r\n".encode()).decode()
    raw = (
        f"From: {player.email}\r\nTo: {reply_address(player)}\r\nSubject: =?x-unknown?q?odd?=\r\n"
        "Message-ID: <odd@example.org>\r\nContent-Type: text/plain; charset=x-unknown-8bit\r\n"
        f"Content-Transfer-Encoding: base64\r\n\r\n{body}\r\n"
    ).encode()
    assert inbound.receive(raw).status == "applied"


def test_an_html_only_reply_is_read_without_its_quote(game: Game) -> None:
    seer = seat_of(game, "seer")
    target = next(seat for seat in game.engine_state.living() if seat != seer)
    html = (
        f"<html><head><style>p{{}}</style></head><body><div>INQUIRE&nbsp;{name_of(game, target)}</div>"
        "<div class='gmail_quote'>On Monday wrote:<blockquote>KILL Alba</blockquote></div></body></html>"
    )
    kept = inbound.receive(letter(game, seer, html, html=True))
    assert kept.status == "applied", (kept.code, kept.card)


def test_a_forged_reference_changes_nothing_and_mails_nobody(game: Game) -> None:
    wolf = pack_of(game)[0]
    player = game.players.get(seat=wolf)
    reference = links.reference_for(player, game.current_phase().index)
    forged = reference[:-4] + ("aaaa" if not reference.endswith("aaaa") else "bbbb")
    before, outbox = snapshot(game), len(mail.outbox)
    kept = inbound.receive(letter(game, wolf, "KILL Alba", to=orders_address(forged), sender="stranger@evil.test"))
    assert kept.status == "unmatched" and kept.code == "forged_reference"
    assert snapshot(game) == before and len(mail.outbox) == outbox
    assert InboundMessage.objects.filter(pk=kept.pk, raw__isnull=False).exists()


def test_mail_without_a_reference_from_a_player_is_answered(game: Game) -> None:
    seer = seat_of(game, "seer")
    before = snapshot(game)
    kept = inbound.receive(letter(game, seer, "INQUIRE Alba", to="orders@werewolf.test"))
    assert kept.status == "unmatched" and kept.code == "no_reference"
    assert snapshot(game) == before
    assert "did not say which game and phase it was for" in last_reply_to(game, seer)


def test_a_reply_from_another_address_is_refused_and_the_seat_is_told(game: Game) -> None:
    wolf = pack_of(game)[0]
    before = snapshot(game)
    kept = inbound.receive(letter(game, wolf, "KILL Alba", sender="friend@example.net"))
    assert kept.status == "refused" and kept.code == "wrong_sender"
    assert snapshot(game) == before
    assert not [m for m in mail.outbox if "friend@example.net" in m.to[0]]
    assert "friend@example.net, which is not the address this seat is registered with" in last_reply_to(game, wolf)


def test_a_replayed_message_is_kept_but_not_taken_twice(game: Game) -> None:
    seer = seat_of(game, "seer")
    target = next(seat for seat in game.engine_state.living() if seat != seer)
    raw = letter(game, seer, f"INQUIRE {name_of(game, target)}", message_id="<once@example.org>")
    assert inbound.receive(raw).status == "applied"
    before, outbox = snapshot(game), len(mail.outbox)
    again = inbound.receive(raw)
    assert again.status == "duplicate"
    assert snapshot(game) == before and len(mail.outbox) == outbox
    assert InboundMessage.objects.filter(message_id="<once@example.org>").count() == 2


def test_a_reply_to_an_old_phase_never_lands_on_the_next(game: Game) -> None:
    """A wolf's names-only reply to the night mail, arriving by day, is not a vote."""
    wolf = pack_of(game)[0]
    villager = seat_of(game, "villager")
    old_address = reply_address(game.players.get(seat=wolf))
    services.resolve_now(game)
    assert game.current_phase().kind == "day"
    before = snapshot(game)
    kept = inbound.receive(letter(game, wolf, name_of(game, villager), to=old_address))
    assert kept.status == "refused" and kept.code == "phase_closed"
    assert snapshot(game) == before
    assert "a phase that has already been resolved" in last_reply_to(game, wolf)


def test_a_substitutes_old_reference_is_void(game: Game) -> None:
    wolf = pack_of(game)[0]
    player = game.players.get(seat=wolf)
    old_address = reply_address(player)
    services.substitute_player(player, name=player.name, email=player.email)
    before = snapshot(game)
    kept = inbound.receive(letter(game, wolf, "KILL Alba", to=old_address))
    assert kept.status == "refused" and kept.code == "revoked_reference"
    assert kept.game_id == game.pk and kept.player_id == player.pk  # kept with its game and seat
    assert snapshot(game) == before
    assert "before your seat's link was replaced" in last_reply_to(game, wolf)


def test_unknown_and_ambiguous_names_get_a_reply_listing_the_players(organiser) -> None:
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in ["Anna", "Anselmo", *NAMES[1:6]]]
    game = services.start_game(
        services.create_game(organiser, name="Names", seats=seats, options={"wolves": 2, "seers": 1}, seed=2)
    )
    seer = seat_of(game, "seer")
    before = snapshot(game)
    assert inbound.receive(letter(game, seer, "INQUIRE An")).code == "ambiguous_name"
    assert "could be Anna, Anselmo" in last_reply_to(game, seer)
    assert inbound.receive(letter(game, seer, "INQUIRE Zebedee")).code == "unknown_name"
    assert "Nobody in this game is called “Zebedee”" in last_reply_to(game, seer)
    assert snapshot(game) == before


def test_a_rule_refusal_by_mail_says_what_to_do(game: Game) -> None:
    wolf, other = pack_of(game)[0], pack_of(game)[1]
    before = snapshot(game)
    kept = inbound.receive(letter(game, wolf, f"KILL {name_of(game, other)}"))
    assert kept.status == "refused" and kept.code == "target_wolf"
    assert "the pack cannot kill its own" in last_reply_to(game, wolf)
    assert snapshot(game) == before


def test_an_empty_reply_is_refused(game: Game) -> None:
    seer = seat_of(game, "seer")
    kept = inbound.receive(letter(game, seer, "\n\nOn Monday the moderator wrote:\n> INQUIRE Alba\n"))
    assert kept.status == "refused" and kept.code == "empty_card"
    assert "The card is empty" in last_reply_to(game, seer)


def test_a_huge_message_is_kept_cut_and_refused(game: Game, settings) -> None:
    settings.WEREWOLF_INBOUND_KEEP_BYTES = 50_000
    settings.WEREWOLF_INBOUND_READ_BYTES = 20_000
    seer = seat_of(game, "seer")
    before = snapshot(game)
    raw = letter(game, seer, "INQUIRE Alba\n" + "x" * 100 + "\n" + "padding line\n" * 8000)
    kept = inbound.receive(raw)
    assert kept.status == "refused" and kept.code == "too_large"
    assert kept.truncated and kept.size == len(raw) and len(bytes(kept.raw)) == 50_000
    assert "too large to read" in last_reply_to(game, seer)
    assert snapshot(game) == before


def test_garbage_is_kept_and_answered_by_nobody(game: Game) -> None:
    outbox = len(mail.outbox)
    for raw in (b"", b"\xff\xfe\x00garbage", b"From: nobody\r\n\r\n" + bytes(range(256)) * 10):
        kept = inbound.receive(raw)
        assert kept.status == "unmatched"
    assert InboundMessage.objects.count() == 3 and len(mail.outbox) == outbox


@pytest.mark.parametrize("how", ["ended by the organiser", "won"])
def test_a_card_after_the_game_is_over(game: Game, how: str) -> None:
    seer = seat_of(game, "seer")
    address = reply_address(game.players.get(seat=seer))
    if how == "won":
        Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    else:
        services.end_game(game)
    kept = inbound.receive(letter(game, seer, "SLEEP", to=address))
    assert kept.status == "refused" and kept.code == "game_over"
    assert "The game is over: no more cards." in last_reply_to(game, seer)


def test_a_crash_while_reading_keeps_the_message(game: Game, monkeypatch) -> None:
    seer = seat_of(game, "seer")

    def broken(*args, **kwargs):
        raise RuntimeError("database went away")

    monkeypatch.setattr(inbound, "read", broken)
    kept = inbound.receive(letter(game, seer, "SLEEP"))
    assert kept.status == "failed" and bytes(kept.raw).startswith(b"From:")


def test_mails_that_ask_for_a_card_carry_a_signed_reply_address(game: Game) -> None:
    for player in game.players.all():
        address = reply_address(player)
        local = address.split("@")[0]
        assert local.startswith("orders+") and address.endswith("@werewolf.test")
        assert links.player_for_reference(local.split("+", 1)[1]) == (player, game.current_phase().index)


def test_the_organiser_sees_every_mail_the_game_received(game: Game, organiser_client, admin_client) -> None:
    seer = seat_of(game, "seer")
    inbound.receive(letter(game, seer, "INQUIRE Nobody-at-all"))
    page = organiser_client.get(f"/games/{game.pk}/").content.decode()
    assert "Mail received: 1 message" in page and game.players.get(seat=seer).email in page
    assert "unknown_name" in page
    assert admin_client.get("/admin/games/inboundmessage/").status_code == 200


def test_nul_characters_anywhere_are_kept_and_refused_plainly(game: Game) -> None:
    seer = seat_of(game, "seer")
    player = game.players.get(seat=seer)
    raw = (
        f"From: {player.email}\r\nTo: {reply_address(player)}\r\nSubject: a\x00b\r\n"
        "Message-ID: <nul\x00@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
        "INQUIRE Al\x00ba\r\n"
    ).encode()
    kept = inbound.receive(raw)
    assert kept.status == "refused" and kept.code == "unknown_name"
    assert bytes(kept.raw) == raw


def test_help_by_mail_answers_with_the_seats_card_syntax_and_changes_nothing(game: Game) -> None:
    seer = seat_of(game, "seer")
    before = snapshot(game)
    kept = inbound.receive(letter(game, seer, "help\n\nOn Monday the moderator wrote:\n> INQUIRE Alba\n"))
    assert kept.status == "command" and kept.code == "help"
    assert snapshot(game) == before
    answer = mail.outbox[-1]
    assert answer.subject.endswith("How to write your card") and answer.extra_headers.get("In-Reply-To")
    assert "INQUIRE" in answer.body and "deadline" in answer.body


def test_status_by_mail_answers_with_the_card_as_it_stands_even_from_an_old_mail(game: Game) -> None:
    seer = seat_of(game, "seer")
    target = next(seat for seat in game.engine_state.living() if seat != seer)
    kept = inbound.receive(letter(game, seer, "STATUS"))
    assert kept.status == "command" and "you have no card in yet" in mail.outbox[-1].body
    inbound.receive(letter(game, seer, f"INQUIRE {name_of(game, target)}"))
    player = game.players.get(seat=seer)
    old = reply_address(player).replace(f"-{game.current_phase().index}-", "-99-")  # not a real reference
    assert inbound.receive(letter(game, seer, "Status.", to=old)).status == "unmatched"
    kept = inbound.receive(letter(game, seer, "Status."))
    body = mail.outbox[-1].body
    assert kept.status == "command" and "your card as it stands: INQUIRE" in body or "as it stands" in body
    assert name_of(game, target) in body


def test_help_and_status_cannot_be_a_players_name() -> None:
    from django.core.exceptions import ValidationError

    from werewolf.games.validators import clean_player_name

    for name in ("Help", "STATUS"):
        with pytest.raises(ValidationError):
            clean_player_name(name)


def _mailed_to(player) -> list:
    return [message for message in mail.outbox if player.email in message.to[0]]


def test_every_mail_to_a_seat_carries_its_reply_address_and_the_dead_are_answered(game: Game) -> None:
    """A seat nothing is asked of (here a dead villager) gets mails with a Reply-To that
    the inbound route reads, so HELP and STATUS reach its game, and are answered that
    nothing is asked of it now; a card from it is refused and changes nothing."""
    wolves = pack_of(game)
    victim = seat_of(game, "villager")
    for wolf in wolves:
        services.submit_order(game, wolf, engine.Order("kill", (victim,)), phase_id=game.current_phase().pk)
    services.resolve_now(Game.objects.get(pk=game.pk))
    game.refresh_from_db()
    assert not game.engine_state.alive[victim]
    dead = game.players.get(seat=victim)
    news = _mailed_to(dead)[-1]  # "Night 1 is over", which asks nothing of a ghost
    assert news.reply_to, "a mail to a seat nothing is asked of has no reply address"
    local = news.reply_to[0].split("@")[0]
    assert links.player_for_reference(local.split("+", 1)[1]) == (dead, game.current_phase().index)
    for word in ("HELP", "status"):
        kept = inbound.receive(letter(game, victim, f"Hi,\n{word}\n\n> Night 1 is over\n", to=news.reply_to[0]))
        assert kept.status == "command" and kept.code == word.lower(), kept.code
        answer = last_reply_to(game, victim)
        assert "Nothing is asked of you now" in answer, answer
        assert "How to write your card" not in answer and "you have no card in yet" not in answer
    before = snapshot(game)
    alive = next(seat for seat in game.engine_state.living())
    kept = inbound.receive(letter(game, victim, f"VOTE {name_of(game, alive)}", to=news.reply_to[0]))
    assert kept.status == InboundMessage.Status.REFUSED and kept.code == "not_asked", kept.code
    assert "No card is asked of you in this phase" in last_reply_to(game, victim)
    assert snapshot(game) == before
