"""Talk by mail: a reply to a talk digest posts what the player wrote (never the quoted
digest) in the town square, as the seat its signed reply address names, from that
seat's own address only; anything else is kept, posts nothing, and says why."""

from __future__ import annotations

import pytest
from django.core import mail

from werewolf.games import links, talk
from werewolf.games.models import Game, InboundMessage, Post
from werewolf.mail import inbound
from werewolf.mail.outbound import orders_address

from ..web.play import started_game
from .test_inbound import letter

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def game(organiser) -> Game:
    game = started_game(organiser, "Talk by mail")
    talk.post(game, 0, "square", "Good morning, village.")
    talk.send_digests()
    return game


def digest_to(game: Game, seat: int):
    player = game.players.get(seat=seat)
    digests = [m for m in mail.outbox if player.email in m.to[0] and m.subject.endswith("talk")]
    digests = digests or [m for m in mail.outbox if player.email in m.to[0] and "Good morning" in m.body]
    assert digests, "no digest was mailed"
    return digests[-1]


def test_a_reply_to_the_digest_posts_in_the_square(game: Game) -> None:
    digest = digest_to(game, 2)
    assert "Reply to this mail to say something in the town square" in digest.body
    address = digest.reply_to[0]
    assert address == orders_address(links.talk_reference(game.players.get(seat=2)))
    body = "I think the baker is lying.\nSee you tonight.\n\nOn Monday, Werewolf wrote:\n> Good morning, village.\n"
    kept = inbound.receive(letter(game, 2, body, to=address))
    assert kept.status == InboundMessage.Status.POSTED
    post = Post.objects.filter(game=game).latest("pk")
    assert (post.seat, post.channel, post.source) == (2, "square", Post.Source.MAIL)
    assert post.text == "I think the baker is lying.\nSee you tonight."
    assert post.author == game.players.get(seat=2).name


def test_a_reply_from_another_address_posts_nothing_and_says_why(game: Game) -> None:
    address = digest_to(game, 3).reply_to[0]
    posts = Post.objects.count()
    kept = inbound.receive(letter(game, 3, "Vote for Ada!", to=address, sender="someone@elsewhere.example"))
    assert kept.status == "refused" and kept.code == "wrong_sender"
    assert Post.objects.count() == posts


def test_a_forged_talk_address_posts_nothing(game: Game) -> None:
    address = digest_to(game, 3).reply_to[0].replace("+t-", "+t-9")
    posts = Post.objects.count()
    kept = inbound.receive(letter(game, 3, "Forged words", to=address))
    assert kept.status == "unmatched" and Post.objects.count() == posts


def test_a_post_too_long_is_refused_with_the_reason(game: Game) -> None:
    address = digest_to(game, 4).reply_to[0]
    kept = inbound.receive(letter(game, 4, "word " * 1000, to=address))
    assert kept.status == "refused" and kept.code == "post_too_long"
    answer = mail.outbox[-1]
    assert answer.subject.endswith("Your mail was not posted") and "at most 2000 characters" in answer.body


def test_a_substitute_voids_the_old_talk_address(game: Game) -> None:
    from werewolf.games import services

    address = digest_to(game, 5).reply_to[0]
    player = game.players.get(seat=5)
    services.substitute_player(player, name="Newcomer", email=player.email)
    kept = inbound.receive(letter(game, 5, "Still me", to=address))
    assert kept.status == "refused" and kept.code == "revoked_reference" and kept.game_id == game.pk


def test_a_player_replaced_for_good_replying_to_an_old_digest_posts_nothing_and_is_told(game: Game) -> None:
    from werewolf.games import services

    player = game.players.get(seat=5)
    name, email, address = player.name, player.email, digest_to(game, 5).reply_to[0]
    services.substitute_player(player, name="Newcomer", email="newcomer@example.org", new_person=True)
    posts = Post.objects.count()
    kept = inbound.receive(letter(game, 5, "I am still here!", to=address, sender=email))
    assert (kept.code, kept.author, kept.game_id) == ("seat_replaced", name, game.pk)
    assert Post.objects.count() == posts
    answer = mail.outbox[-1]
    assert email in answer.to[0] and "given to someone else for good" in " ".join(answer.body.split())
