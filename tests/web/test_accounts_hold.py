"""Accounts that hold against a determined stranger (issue 38), tried as an outsider would,
through HTTP and the mail the site sends: each numbered hole of the issue and each "also
seen", on a site whose accounts the operator made (`ensure_organiser`) as on one where
organisers sign up.

1. an address typed into an account (never confirmed) reaches no game;
2. a password reset asked by anyone never changes what the log in accepts;
3. every password check (log in, deleting the account, changing the password,
   re-authenticating) is limited alike, per account and per network address;
4. the co-organiser form answers alike whether or not an account has the address, and adds
   nobody without their word;
5. the sign-up and the reset answer alike for names and addresses that exist and that don't;
also: opening an invitation's link (a GET) changes nothing."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from allauth.account.models import EmailAddress
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.test import Client

from werewolf.accounts.models import Invitation
from werewolf.games.management.commands.ensure_organiser import password_file

from .play import started_game

pytestmark = pytest.mark.django_db(transaction=True)
User = get_user_model()
PASSWORD = "a long pass phrase"


def text(response: Any) -> str:
    return unescape(response.content.decode())


def alike(response: Any, email: str) -> str:
    """The page as a comparison sees it: the address it names, and the form tokens, blanked."""
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", text(response)).replace(email, "ADDRESS")


def operator_made(username: str, email: str = "") -> tuple[Any, str]:
    """An account as the operator makes it, and its first password (read from its file, as
    the operator would hand it over)."""
    args = ["ensure_organiser", "--username", username] + (["--email", email] if email else [])
    call_command(*args, stdout=open("/dev/null", "w"))
    return User.objects.get(username=username), password_file(username).read_text().strip()


def logged_in(username: str, password: str, address: str = "127.0.0.1") -> Client:
    client = Client(REMOTE_ADDR=address)
    response = client.post("/accounts/login/", {"username": username, "password": password})
    assert response.status_code == 302, text(response)
    return client


def links_in(message: Any) -> list[str]:
    return re.findall(r"http://testserver(/\S+)", message.body)


@pytest.fixture
def open_site(settings: Any) -> None:
    settings.WEREWOLF_SIGNUP_POLICY = "open"


def test_1_an_address_a_stranger_typed_into_their_account_reaches_no_game(organiser: Any) -> None:
    game = started_game(organiser, "Class 3B")
    squatter_user, squatter_password = operator_made("squatter")
    squatter = logged_in("squatter", squatter_password)
    # The squatter types the colleague's address into their own account (both answered
    # as allauth answers: the address waits for its confirmation).
    added = squatter.post("/accounts/email/", {"email": "colleague@school.example", "action_add": ""})
    assert added.status_code in (200, 302)
    squatter.post("/accounts/email/", {"email": "colleague@school.example", "action_primary": ""})
    # The organiser asks the colleague to run the game, by that address, as the guide says.
    boss = Client()
    boss.force_login(organiser)
    invited = boss.post(
        f"/accounts/games/{game.pk}/co-organisers/", {"action": "invite", "who": "colleague@school.example"}
    )
    assert invited.status_code == 302
    assert squatter.get(f"/games/{game.pk}/").status_code == 404
    assert not game.co_organisers.exists()
    # The link went to the colleague's mailbox; even holding it, the squatter gets nothing.
    (link,) = [
        path
        for message in mail.outbox
        if message.to == ["colleague@school.example"]
        for path in links_in(message)
        if "/invitation/" in path
    ]
    page = squatter.get(link)
    assert page.status_code == 200 and "has not confirmed the address" in text(page)
    squatter.post(link)
    assert squatter.get(f"/games/{game.pk}/").status_code == 404
    assert not game.co_organisers.exists()
    # The colleague makes their account by the link (the squatter's row blocks nothing),
    # and runs the game.
    colleague = Client()
    assert colleague.post(link, {"next": "signup"}).status_code == 302
    signed = colleague.post(
        "/accounts/signup/", {"email": "colleague@school.example", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert signed.status_code == 302
    assert colleague.get(f"/games/{game.pk}/").status_code == 200
    (co,) = game.co_organisers.all()
    assert co != squatter_user
    # The confirmed address is the colleague's alone now.
    assert not EmailAddress.objects.filter(user=squatter_user, email__iexact="colleague@school.example").exists()


def test_2_a_reset_asked_by_a_stranger_never_locks_an_operator_made_account() -> None:
    for username, email in (("with_address", "head@school.example"), ("typed_later", "")):
        user, password = operator_made(username, email)
        if not email:  # an address set on the account by other means than the command
            user.email = "deputy@school.example"
            user.save()
        asked = Client().post("/accounts/password/reset/", {"email": email or "deputy@school.example"})
        assert asked.status_code == 302
        assert len(mail.outbox) >= 1
        # The right password still logs in, mid-game, without any link clicked.
        assert Client().post("/accounts/login/", {"username": username, "password": password}).status_code == 302


def test_the_operators_address_is_confirmed_at_creation_and_cannot_be_held_by_another() -> None:
    user, _ = operator_made("head", "head@school.example")
    assert EmailAddress.objects.filter(user=user, email="head@school.example", verified=True, primary=True).exists()
    with pytest.raises(Exception, match="confirmed by another account"):
        operator_made("other", "HEAD@school.example")


DOORS = {
    "delete": ("/accounts/delete/", "password"),
    "change": ("/accounts/password/change/", "oldpassword"),
    "reauthenticate": ("/accounts/reauthenticate/", "password"),
}


def _wrong(client: Client, door: str, password: str = "not the password") -> Any:
    url, field = DOORS[door]
    data = {field: password}
    if door == "change":
        data.update({"password1": "a brand new phrase", "password2": "a brand new phrase"})
    return client.post(url, data)


@pytest.mark.parametrize("door", DOORS)
def test_3_every_password_door_is_limited_alike(door: str) -> None:
    user, password = operator_made("target", "target@school.example")
    client = logged_in("target", password)
    count = int(django_settings.WEREWOLF_RATES["login_account"].split("/")[0])
    for _ in range(count):
        refused = _wrong(client, door)
        assert refused.status_code in (200, 429) and "Try again in" not in text(refused)
    limited = _wrong(client, door)
    assert "Try again in" in text(limited), text(limited)[:3000]
    # The right password is not tried either, until the window ends: the account stands.
    right = _wrong(client, door, password)
    assert "Try again in" in text(right)
    assert User.objects.filter(pk=user.pk).exists() and user.check_password(password)
    # Nor does the log in try it: one count for the account, whatever the door.
    login = Client(REMOTE_ADDR="10.0.0.9").post("/accounts/login/", {"username": "target", "password": password})
    assert login.status_code == 200 and "Try again in" in text(login)
    if door == "delete":
        assert limited.status_code == 429 and int(limited["Retry-After"]) > 0


def test_3_wrong_passwords_from_one_network_address_count_across_accounts(settings: Any) -> None:
    settings.WEREWOLF_RATES = {**settings.WEREWOLF_RATES, "login_address": "3/900"}
    users = [operator_made(f"teacher{number}") for number in range(4)]
    clients = [logged_in(user.username, password, "10.1.1.1") for user, password in users[:3]]
    for client in clients:
        _wrong(client, "delete")
    last_user, last_password = users[3]
    refused = Client(REMOTE_ADDR="10.1.1.1").post(
        "/accounts/login/", {"username": last_user.username, "password": last_password}
    )
    assert "Try again in" in text(refused)
    # From another network the account logs in.
    assert (
        Client(REMOTE_ADDR="10.2.2.2")
        .post("/accounts/login/", {"username": last_user.username, "password": last_password})
        .status_code
        == 302
    )


def test_3_the_admins_password_change_is_the_sites_one(organiser_client: Client) -> None:
    response = organiser_client.get("/admin/password_change/")
    assert response.status_code == 302 and response["Location"] == "/accounts/password/change/"


def test_4_the_co_organiser_form_answers_alike_and_adds_nobody(organiser: Any) -> None:
    game = started_game(organiser, "Slow game")
    operator_made("known", "known@school.example")
    boss = Client()
    boss.force_login(organiser)
    answers = []
    for email in ("known@school.example", "nobody@school.example"):
        response = boss.post(
            f"/accounts/games/{game.pk}/co-organisers/", {"action": "invite", "who": email}, follow=True
        )
        page = re.sub(r'name="invitation" value="\d+"', "", alike(response, email))
        answers.append((response.status_code, page))
        boss.post(
            f"/accounts/games/{game.pk}/co-organisers/",
            {"action": "withdraw", "invitation": Invitation.objects.get().pk},
        )
    assert answers[0] == answers[1]
    assert not game.co_organisers.exists()
    # Each address got the same invitation, by mail; nobody was added.
    assert sorted(message.to[0] for message in mail.outbox if "school" in message.to[0]) == [
        "known@school.example",
        "nobody@school.example",
    ]
    # The form is limited as every invitation is.
    django_settings.WEREWOLF_RATES["invite"] = "2/86400"
    try:
        refused = boss.post(
            f"/accounts/games/{game.pk}/co-organisers/",
            {"action": "invite", "who": "third@school.example"},
            follow=True,
        )
    finally:
        django_settings.WEREWOLF_RATES["invite"] = "20/86400"
    assert "Try again in" in text(refused) and Invitation.objects.count() == 0


def test_5_the_sign_up_asks_no_user_name_and_answers_alike_for_a_taken_address(open_site: None) -> None:
    operator_made("teacher", "teacher@school.example")
    form = text(Client().get("/accounts/signup/"))
    assert 'name="username"' not in form
    answers = []
    for email in ("teacher@school.example", "newcomer@school.example"):
        response = Client().post(
            "/accounts/signup/", {"email": email, "username": "teacher", "password1": PASSWORD, "password2": PASSWORD}
        )
        follow = Client().get(response["Location"]) if response.status_code == 302 else response
        answers.append((response.status_code, response.get("Location"), alike(follow, email)))
    assert answers[0] == answers[1]
    # Each address got a mail: the taken one is told an account has it.
    assert {message.to[0] for message in mail.outbox} == {"teacher@school.example", "newcomer@school.example"}


def test_5_the_password_reset_answers_alike(open_site: None) -> None:
    operator_made("teacher", "teacher@school.example")
    answers = []
    for email in ("teacher@school.example", "nobody@school.example"):
        response = Client().post("/accounts/password/reset/", {"email": email})
        answers.append((response.status_code, response["Location"]))
    assert answers[0] == answers[1]


def test_opening_an_invitation_link_logged_in_changes_nothing(organiser: Any) -> None:
    game = started_game(organiser, "Slow game")
    colleague, password = operator_made("colleague", "colleague@school.example")
    boss = Client()
    boss.force_login(organiser)
    boss.post(f"/accounts/games/{game.pk}/co-organisers/", {"action": "invite", "who": "colleague@school.example"})
    (link,) = [path for path in links_in(mail.outbox[-1]) if "/invitation/" in path]
    client = logged_in("colleague", password)
    for _ in range(3):  # the mail scanner, the preview, the reader
        page = client.get(link)
        assert page.status_code == 200 and "Slow game" in text(page)
    assert not game.co_organisers.exists() and Invitation.objects.get().accepted_at is None
    taken = client.post(link)
    assert taken.status_code == 302 and list(game.co_organisers.all()) == [colleague]


def test_the_organisers_mail_goes_only_to_an_address_the_account_confirmed() -> None:
    """An account the operator made with no address types one in and makes it primary
    (allauth lets an account with no confirmed address do so): the game's mails to its
    organiser (the late list) never go there; once an address is confirmed, they do."""
    from werewolf import addresses
    from werewolf.games.models import Dispatch
    from werewolf.mail import outbound

    user, password = operator_made("lonely")
    client = logged_in("lonely", password)
    client.post("/accounts/email/", {"email": "typed@school.example", "action_add": ""})
    client.post("/accounts/email/", {"email": "typed@school.example", "action_primary": ""})
    game = started_game(user, "Slow game")
    phase = game.current_phase()
    outbound.queue_late_list(phase, list(game.players.all()[:2]))
    assert not Dispatch.objects.filter(kind=Dispatch.Kind.ORGANISER).exists()
    addresses.confirm_for(user, "head@school.example")
    outbound.queue_late_list(phase, list(game.players.all()[:2]))
    (sent,) = Dispatch.objects.filter(kind=Dispatch.Kind.ORGANISER)
    assert "head@school.example" in sent.recipient and "typed" not in sent.recipient
