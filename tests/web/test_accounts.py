"""Organisers' accounts (werewolf/accounts, django-allauth): the site's sign-up policy
(open, by invitation, closed), a confirmed address before the first log in, password
resets and confirmation mails limited per address and sent from the outbox by a worker,
invitations (to an account, or to run one game), the profile a new game starts from, and
leaving the site with one's games."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.test import Client

from werewolf import limits
from werewolf.accounts import invitations
from werewolf.accounts.models import Invitation, Profile
from werewolf.games import services
from werewolf.games.models import Dispatch, Game, InboundMessage, Player

from .play import NAMES, started_game

pytestmark = pytest.mark.django_db(transaction=True)
User = get_user_model()


def text(response: Any) -> str:
    return unescape(response.content.decode())


def link_in(message: Any) -> str:
    """The site link a mail carries, as a path."""
    found = re.search(r"http://testserver(/\S+)", message.body)
    assert found, message.body
    return found.group(1)


def sign_up(client: Client, email: str = "teacher@school.example", username: str = "teacher") -> Any:
    return client.post(
        "/accounts/signup/",
        {"email": email, "username": username, "password1": "a long pass phrase", "password2": "a long pass phrase"},
    )


@pytest.fixture
def open_site(settings: Any) -> None:
    settings.WEREWOLF_SIGNUP_POLICY = "open"


def test_an_open_site_takes_a_sign_up_and_its_address_is_confirmed_before_the_first_log_in(open_site: None) -> None:
    client = Client()
    assert "Become an organiser" in text(client.get("/accounts/login/"))
    response = sign_up(client)
    assert response.status_code == 302
    user = User.objects.get(username="teacher")
    assert "_auth_user_id" not in client.session
    # The confirmation went through the outbox, as every mail does.
    row = Dispatch.objects.get(kind=Dispatch.Kind.ACCOUNT)
    assert row.player is None and row.recipient == "teacher@school.example" and row.status == Dispatch.Status.SENT
    (confirmation,) = mail.outbox
    assert confirmation.to == ["teacher@school.example"] and confirmation.extra_headers["Message-ID"] == row.message_id
    # The right password before the confirmation: refused, and the link mailed again.
    refused = Client().post("/accounts/login/", {"username": "teacher", "password": "a long pass phrase"})
    assert refused.status_code == 200 and "is not confirmed yet" in text(refused)
    assert len(mail.outbox) == 2
    # The link confirms the address and logs in.
    confirm = link_in(confirmation)
    assert client.post(confirm).status_code == 302
    assert client.session["_auth_user_id"] == str(user.pk)
    # From then on, the user name or the address logs in.
    for login in ("teacher", "Teacher@School.example"):
        assert (
            Client().post("/accounts/login/", {"username": login, "password": "a long pass phrase"}).status_code == 302
        )


def test_by_default_only_an_invitation_opens_the_sign_up(organiser: Any, organiser_client: Client) -> None:
    stranger = Client()
    assert "Become an organiser" not in text(stranger.get("/accounts/login/"))
    closed = stranger.get("/accounts/signup/")
    assert "closed" in text(closed).lower()
    assert sign_up(stranger).status_code != 302 or not User.objects.filter(username="teacher").exists()
    assert not User.objects.filter(username="teacher").exists()
    # An organiser invites a teacher's assistant to run one game.
    game = started_game(organiser, "Class 3B")
    response = organiser_client.post("/accounts/invitations/", {"email": "assistant@school.example", "game": game.pk})
    assert response.status_code == 302
    invitation_mail = mail.outbox[-1]
    mailed = len(mail.outbox)
    assert "Class 3B" in invitation_mail.subject and invitation_mail.to == ["assistant@school.example"]
    assert Dispatch.objects.filter(kind=Dispatch.Kind.ACCOUNT, recipient="assistant@school.example").exists()
    path = link_in(invitation_mail)
    invited = Client()
    # Opening the link (as a mail scanner would) shows what it invites to, and changes nothing.
    shown = invited.get(path)
    assert shown.status_code == 200 and "Class 3B" in text(shown) and "assistant@school.example" in text(shown)
    assert not invited.session.get(invitations.SESSION_KEY)
    answer = invited.post(path, {"next": "signup"})
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/signup/?email=assistant")
    # The address came by the invitation: the account needs no confirming mail.
    assert sign_up(invited, "assistant@school.example", "assistant").status_code == 302
    assistant = User.objects.get(username="assistant")
    assert invited.session["_auth_user_id"] == str(assistant.pk)
    assert len(mail.outbox) == mailed
    assert list(game.co_organisers.all()) == [assistant]
    assert invited.get(f"/games/{game.pk}/").status_code == 200
    # The link works once.
    assert Client().get(path).status_code == 410
    assert Invitation.objects.get().accepted_by == assistant


def test_a_forged_or_expired_invitation_opens_nothing(organiser: Any, settings: Any) -> None:
    client = Client()
    assert client.get("/accounts/invitation/forged-key/").status_code == 410
    invitations.invite(organiser, "late@example.org")
    path = link_in(mail.outbox[-1])
    settings.WEREWOLF_INVITATION_DAYS = 0
    gone = client.get(path)
    assert gone.status_code == 410 and "Ask the organiser" in text(gone)
    assert not client.session.get(invitations.SESSION_KEY)


def test_a_closed_site_takes_no_sign_up_even_invited_but_an_account_takes_up_a_game(
    organiser: Any, settings: Any
) -> None:
    settings.WEREWOLF_SIGNUP_POLICY = "closed"
    game = started_game(organiser, "Slow game")
    invitations.invite(organiser, "second@example.org", game)
    path = link_in(mail.outbox[-1])
    visitor = Client()
    shown = visitor.get(path)
    assert shown.status_code == 200 and "Make my organiser's account" not in text(shown)
    answer = visitor.post(path, {"next": "signup"})
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/?next=")
    assert "closed" in text(visitor.get("/accounts/signup/")).lower()
    call_command("ensure_organiser", "--username", "second", "--email", "second@example.org", stdout=None)
    second = User.objects.get(username="second")
    visitor.force_login(second)
    # Opening the link logged in changes nothing; its button takes the game up.
    assert visitor.get(path).status_code == 200 and not game.co_organisers.exists()
    taken = visitor.post(path)
    assert taken.status_code == 302 and taken["Location"] == f"/games/{game.pk}/"
    assert list(game.co_organisers.all()) == [second]


def test_password_reset_mails_are_limited_per_address_and_said_when_to_try_again(organiser: Any, settings: Any) -> None:
    organiser.email = "organiser@example.org"
    organiser.save()
    client = Client()
    answers = [client.post("/accounts/password/reset/", {"email": "organiser@example.org"}) for _ in range(5)]
    assert [answer.status_code for answer in answers[:3]] == [302, 302, 302]
    refused = answers[3]
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert re.search(r"Try again within \d+ minutes", text(refused))
    assert len(mail.outbox) == 3
    assert Dispatch.objects.filter(kind=Dispatch.Kind.ACCOUNT).count() == 3
    # The reset link sets a new password, which then logs in.
    path = link_in(mail.outbox[0])
    form = client.get(path)
    assert form.status_code == 302
    done = client.post(form["Location"], {"password1": "a brand new phrase", "password2": "a brand new phrase"})
    assert done.status_code == 302
    login = Client().post("/accounts/login/", {"username": "organiser", "password": "a brand new phrase"})
    assert login.status_code == 302, re.findall(r"alert[^>]*>(.*?)</div>", text(login), re.S)


def test_confirmation_mails_are_limited_per_address(open_site: None) -> None:
    client = Client()
    sign_up(client)
    for _ in range(5):
        Client().post("/accounts/login/", {"username": "teacher", "password": "a long pass phrase"})
    assert len(mail.outbox) == limits.rate("signup_mail").count


def test_invitations_are_limited_per_organiser(organiser_client: Client, settings: Any) -> None:
    settings.WEREWOLF_RATES = {**settings.WEREWOLF_RATES, "invite": "2/86400"}
    for number in range(2):
        assert organiser_client.post("/accounts/invitations/", {"email": f"p{number}@example.org"}).status_code == 302
    refused = organiser_client.post("/accounts/invitations/", {"email": "p9@example.org"})
    assert refused.status_code == 429 and "Try again in" in text(refused)
    assert Invitation.objects.count() == 2 and len(mail.outbox) == 2


def test_the_profile_sets_the_language_and_a_new_games_defaults(organiser: Any, organiser_client: Client) -> None:
    response = organiser_client.post(
        "/accounts/profile/", {"name": "Maestra Anna", "language": "it", "timezone": "Europe/Rome"}
    )
    assert response.status_code == 302 and response.cookies["django_language"].value == "it"
    assert Profile.of(organiser).name == "Maestra Anna"
    form = organiser_client.get("/games/new/")
    page = text(form)
    assert re.search(r'<option value="Europe/Rome"[^>]*selected', page)
    assert re.search(r'<option value="it"[^>]*selected', page)


def test_an_operator_made_account_logs_in_without_confirming(organiser: Any) -> None:
    call_command("ensure_organiser", "--username", "operator_made", "--email", "made@example.org", stdout=None)
    user = User.objects.get(username="operator_made")
    user.set_password("operator pass phrase")
    user.save()
    assert (
        Client()
        .post("/accounts/login/", {"username": "made@example.org", "password": "operator pass phrase"})
        .status_code
        == 302
    )


def test_leaving_the_site_deletes_the_account_and_its_games_only(organiser: Any, organiser_client: Client) -> None:
    own = started_game(organiser, "Mine")
    player = own.players.get(seat=0)
    InboundMessage.objects.create(raw=b"From: x", size=7, sender=player.email, game=own, player=player)
    other = User.objects.create_user("other", password="x")
    shared = services.create_game(
        other, name="Theirs", seats=[services.Seating(name) for name in NAMES[:7]], options={"wolves": 2, "seers": 1}
    )
    shared.co_organisers.add(organiser)
    page = text(organiser_client.get("/accounts/delete/"))
    assert "Mine" in page and "1 of them is running" in page and "Theirs" in page
    wrong = organiser_client.post("/accounts/delete/", {"password": "wrong"})
    assert wrong.status_code == 200 and User.objects.filter(pk=organiser.pk).exists()
    assert organiser_client.post("/accounts/delete/", {"password": "correct horse battery"}).status_code == 302
    assert not User.objects.filter(pk=organiser.pk).exists()
    assert not Game.objects.filter(pk=own.pk).exists() and not Player.objects.filter(game_id=own.pk).exists()
    assert not InboundMessage.objects.exists()
    assert Game.objects.filter(pk=shared.pk).exists() and not shared.co_organisers.exists()
    assert "_auth_user_id" not in organiser_client.session


def test_account_pages_are_each_organisers_own(organiser: Any, organiser_client: Client) -> None:
    for path in ("/accounts/profile/", "/accounts/invitations/", "/accounts/delete/"):
        answer = Client().get(path)
        assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")
    other = User.objects.create_user("other", password="x")
    theirs = started_game(other, "Not yours")
    invitations.invite(other, "their.friend@example.org", theirs)
    page = text(organiser_client.get("/accounts/invitations/"))
    assert "their.friend@example.org" not in page and "Not yours" not in page
    # A game of someone else's, named by a forged form, is refused and nobody is mailed:
    # running it as a co-organiser does not make it one's own to hand on (access.Action.OWN).
    theirs.co_organisers.add(organiser)
    mailed = len(mail.outbox)
    forged = organiser_client.post("/accounts/invitations/", {"email": "x@example.org", "game": theirs.pk})
    assert forged.status_code == 200 and Invitation.objects.filter(email="x@example.org").count() == 0
    assert len(mail.outbox) == mailed


def test_an_account_mail_is_from_the_moderator_in_the_visitors_language(organiser: Any) -> None:
    organiser.email = "organiser@example.org"
    organiser.save()
    Client(HTTP_ACCEPT_LANGUAGE="it").post("/accounts/password/reset/", {"email": "organiser@example.org"})
    (reset,) = mail.outbox
    assert reset.extra_headers["From"].startswith("Il moderatore")
