"""Who may do what, walked over every organiser URL: as someone logged out, as a player
(who has a seat link and no account), as another organiser, as a co-organiser of the game,
as its organiser, and as the site's staff. Another organiser's game answers as if it did
not exist (404), and what a visitor may not do leaves the game as it was.

The table below must name every URL of the games app that takes a game's number: a new
organiser page fails this test until it says who may open it."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from werewolf import addresses
from werewolf.accounts.models import Invitation
from werewolf.games import links
from werewolf.games.access import Action
from werewolf.games.models import Game
from werewolf.printing import jobs

from .play import snapshot, started_game

pytestmark = pytest.mark.django_db

VIEW, RUN, OWN = Action.VIEW, Action.RUN, Action.OWN
GET_ONLY = None

# url name: (what a GET needs, what a POST needs; GET_ONLY where the page takes no POST,
# and the POST's data: an action that changes nothing, or one refused on a running game).
ORGANISER_URLS: dict[str, tuple[Action | None, Action | None, dict[str, Any]]] = {
    "dashboard": (VIEW, RUN, {"action": "nothing"}),
    "edit": (VIEW, RUN, {}),
    "delete": (OWN, OWN, {}),
    "seat_card": (VIEW, RUN, {}),
    "paper_cards": (VIEW, RUN, {}),
    "substitute": (VIEW, RUN, {}),
    "export": (VIEW, GET_ONLY, {}),
    "game_role_cards": (VIEW, GET_ONLY, {}),
    "game_notecards": (VIEW, GET_ONLY, {}),
    "game_tally": (VIEW, GET_ONLY, {}),
    "game_record": (VIEW, GET_ONLY, {}),
    "game_script": (VIEW, GET_ONLY, {}),
    "game_score_sheet": (VIEW, GET_ONLY, {}),
    "join_code": (VIEW, GET_ONLY, {}),
    "dashboard_signup": (None, RUN, {"action": "close_signup"}),
    "dashboard_talk": (None, RUN, {"channel": "square", "text": ""}),
    "dashboard_standbys": (None, RUN, {"action": "remove_standby"}),
    "replay_private": (None, RUN, {}),
    "game_calendar": (VIEW, RUN, {"action": "nothing"}),
}
MAY = {
    "anonymous": frozenset(),
    "player": frozenset(),
    "other organiser": frozenset(),
    "co-organiser": frozenset({VIEW, RUN}),
    "organiser": frozenset({VIEW, RUN, OWN}),
    "staff": frozenset({VIEW, RUN, OWN}),
}


def _patterns(resolver: URLResolver, namespace: str = "") -> list[tuple[str, str]]:
    found = []
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            found += _patterns(entry, entry.namespace or namespace)
        elif isinstance(entry, URLPattern) and namespace == "games":
            found.append((entry.name or "", str(entry.pattern)))
    return found


def test_the_table_names_every_page_about_a_game() -> None:
    about_a_game = {name for name, route in _patterns(get_resolver()) if route.startswith("games/<int:pk>/")}
    assert about_a_game == set(ORGANISER_URLS)
    numbered = {name for name, route in _patterns(get_resolver()) if "<int:pk>" in route}
    assert numbered - about_a_game == {"character_edit", "character_delete"}  # tested below


def test_a_character_is_its_organisers_only(organiser: Any, django_user_model: Any) -> None:
    from werewolf.games.models import Character

    mine = Client()
    mine.force_login(organiser)
    page = mine.get("/characters/new/")
    assert page.status_code == 200
    character = Character.objects.create(organiser=organiser, name="Baker", definition={})
    other = Client()
    other.force_login(django_user_model.objects.create_user("other", password="long enough pw"))
    for url in (f"/characters/{character.pk}/", f"/characters/{character.pk}/delete/"):
        assert other.get(url).status_code in (404, 405)
        assert other.post(url, {"name": "Stolen"}).status_code == 404
        assert Client().post(url).status_code == 302
    character.refresh_from_db()
    assert character.name == "Baker"


@pytest.fixture
def visitors(organiser: Any, django_user_model: Any) -> tuple[Game, dict[str, Client]]:
    game = started_game(organiser, "Access")
    co, other = (django_user_model.objects.create_user(name, password="long enough pw") for name in ("co", "other"))
    staff = django_user_model.objects.create_user("staff", password="long enough pw", is_staff=True)
    game.co_organisers.add(co)
    clients = {name: Client() for name in MAY}
    for name, user in (("organiser", organiser), ("co-organiser", co), ("other organiser", other), ("staff", staff)):
        clients[name].force_login(user)
    player_link = links.url_for(game.players.get(seat=0), absolute=False)
    assert clients["player"].get(player_link).status_code == 200
    return game, clients


def _url(name: str, game: Game) -> str:
    seat = {"seat": 0} if name in ("seat_card", "substitute") else {}
    return reverse(f"games:{name}", kwargs={"pk": game.pk, **seat})


def _answered(response: Any, allowed: bool, who: str) -> str | None:
    """What is wrong with the answer, if anything."""
    status = response.status_code
    if who in ("anonymous", "player"):
        ok = status == 302 and response["Location"].startswith("/accounts/login/")
    elif allowed:
        ok = status not in (403, 404) and status < 500
    else:
        ok = status == 404
    return None if ok else f"{status} {response.get('Location', '')}"


def test_every_organiser_url_answers_each_kind_of_visitor_as_it_may(
    visitors: tuple[Game, dict[str, Client]],
) -> None:
    game, clients = visitors
    wrong = []
    for name, (get_needs, post_needs, data) in ORGANISER_URLS.items():
        url = _url(name, game)
        for who, client in clients.items():
            may = MAY[who]
            if get_needs is not None:
                problem = _answered(client.get(url), get_needs in may, who)
                if problem:
                    wrong.append(f"GET {name} as {who}: {problem}")
            if post_needs is not None:
                before = snapshot(game), game.status
                response = client.post(url, data)
                game.refresh_from_db()
                problem = _answered(response, post_needs in may, who)
                if problem:
                    wrong.append(f"POST {name} as {who}: {problem}")
                if post_needs not in may and (snapshot(game), game.status) != before:
                    wrong.append(f"POST {name} as {who} changed the game")
    assert not wrong, "\n".join(wrong)


def test_a_game_document_print_job_is_for_those_who_may_see_the_game(
    visitors: tuple[Game, dict[str, Client]],
) -> None:
    game, clients = visitors
    job = jobs.game_job(game, paper="a4", backs=False)
    for path in ("", "version.json", "document.pdf"):
        url = f"/print/{job.key}/{path}"
        for who, client in clients.items():
            problem = _answered(client.get(url), VIEW in MAY[who], who)
            assert problem is None, f"GET {url} as {who}: {problem}"


def test_the_list_of_games_holds_what_one_organises_or_co_organises(
    visitors: tuple[Game, dict[str, Client]],
) -> None:
    game, clients = visitors
    dashboard = _url("dashboard", game)
    for who in ("organiser", "co-organiser", "other organiser"):
        page = clients[who].get("/").content.decode()
        assert (dashboard in page) == (who != "other organiser"), who


def test_only_the_organiser_chooses_who_co_organises(
    visitors: tuple[Game, dict[str, Client]], django_user_model: Any
) -> None:
    game, clients = visitors
    url = reverse("accounts:co_organisers", args=[game.pk])
    third = django_user_model.objects.create_user("third", password="long enough pw")
    addresses.confirm_for(third, "third@example.org")
    co = game.co_organisers.get()
    # Only the organiser (and staff) may invite, withdraw or remove; anyone else is answered
    # as if the game did not exist, and nothing changes.
    for who in ("anonymous", "player", "other organiser", "co-organiser"):
        for data in (
            {"action": "invite", "who": "third@example.org"},
            {"action": "remove", "user": co.pk},
        ):
            problem = _answered(clients[who].post(url, data), False, who)
            assert problem is None, f"{who}: {problem}"
        assert clients[who].get(url).status_code in (302, 404, 405)
    assert list(game.co_organisers.values_list("username", flat=True)) == ["co"]
    assert not Invitation.objects.exists()
    # The organiser invites by address: nobody runs the game until they take it up.
    done = clients["organiser"].post(url, {"action": "invite", "who": "THIRD@example.org"})
    assert done.status_code == 302 and done["Location"] == f"/games/{game.pk}/#co-organisers"
    assert list(game.co_organisers.values_list("username", flat=True)) == ["co"]
    invitation = Invitation.objects.get()
    assert invitation.game == game and invitation.email == "THIRD@example.org"
    # Not an address: said plainly, on the dashboard.
    refused = clients["organiser"].post(url, {"action": "invite", "who": "third"}, follow=True)
    assert "is not an e-mail address" in refused.content.decode()
    assert Invitation.objects.count() == 1
    # Withdrawn, the invitation opens nothing.
    clients["organiser"].post(url, {"action": "withdraw", "invitation": invitation.pk})
    assert not Invitation.objects.exists()
    clients["organiser"].post(url, {"action": "remove", "user": co.pk})
    assert clients["co-organiser"].get(_url("dashboard", game)).status_code == 404


# Every page under /accounts/: "anyone" may open it logged out, "account" needs a log in.
# A sample path for those that take a key (a forged one: it must open nothing).
ACCOUNT_URLS: dict[str, tuple[str, str]] = {
    "login": ("anyone", "/accounts/login/"),
    "logout": ("anyone", "/accounts/logout/"),
    "profile": ("account", "/accounts/profile/"),
    "invitations": ("account", "/accounts/invitations/"),
    "invitation": ("anyone", "/accounts/invitation/forged-key/"),
    "delete": ("account", "/accounts/delete/"),
    "co_organisers": ("account", "/accounts/games/1/co-organisers/"),
    "account_login": ("anyone", "/accounts/login/"),
    "account_logout": ("anyone", "/accounts/logout/"),
    "account_inactive": ("anyone", "/accounts/inactive/"),
    "account_signup": ("anyone", "/accounts/signup/"),
    "account_reauthenticate": ("account", "/accounts/reauthenticate/"),
    "account_request_reauthentication_code": ("account", "/accounts/reauthenticate/code/"),
    "account_confirm_reauthentication_code": ("account", "/accounts/reauthenticate/code/confirm/"),
    "account_email": ("account", "/accounts/email/"),
    "account_email_verification_sent": ("anyone", "/accounts/confirm-email/"),
    "account_change_password": ("account", "/accounts/password/change/"),
    "account_set_password": ("account", "/accounts/password/set/"),
    "account_reset_password": ("anyone", "/accounts/password/reset/"),
    "account_confirm_login_code": ("anyone", "/accounts/login/code/confirm/"),
    "account_confirm_email": ("anyone", "/accounts/confirm-email/forged-key/"),
    "account_reset_password_from_key_done": ("anyone", "/accounts/password/reset/key/done/"),
    "account_reset_password_from_key": ("anyone", "/accounts/password/reset/key/1-forged-key/"),
    "account_reset_password_done": ("anyone", "/accounts/password/reset/done/"),
}


def _account_routes(resolver: URLResolver, prefix: str = "") -> set[str]:
    found: set[str] = set()
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            found |= _account_routes(entry, prefix + str(entry.pattern))
        elif (prefix + str(entry.pattern)).startswith("accounts/"):
            found.add(entry.name or "")
    return found


def test_the_account_table_names_every_account_page() -> None:
    assert _account_routes(get_resolver()) == set(ACCOUNT_URLS)


def test_every_account_page_answers_each_visitor_and_shows_no_one_else(django_user_model: Any) -> None:
    """Walked as someone logged out, and as an account the operator made (`ensure_organiser
    --email`, its address confirmed by the command): no page opens to a visitor it should
    not, none fails, none shows another organiser's name, address, game or invitation, and
    nothing a visitor posts changes anyone's account."""
    from allauth.account.models import EmailAddress
    from django.core.management import call_command

    from werewolf.accounts import invitations
    from werewolf.games.management.commands.ensure_organiser import password_file

    with open("/dev/null", "w") as quiet:
        call_command("ensure_organiser", "--username", "made", "--email", "made@school.example", stdout=quiet)
        call_command("ensure_organiser", "--username", "elsewhere", "--email", "hidden@other.example", stdout=quiet)
    other = django_user_model.objects.get(username="elsewhere")
    secret_game = started_game(other, "Their secret game")
    invitations.invite(other, "their-colleague@other.example", secret_game)
    made = django_user_model.objects.get(username="made")
    clients = {"anonymous": Client()}
    clients["operator-made"] = Client()
    login = {"username": "made", "password": password_file("made").read_text().strip()}
    assert clients["operator-made"].post("/accounts/login/", login).status_code == 302
    before = (
        list(django_user_model.objects.values_list("pk", "password", "email", "is_active").order_by("pk")),
        list(EmailAddress.objects.values_list("user_id", "email", "verified", "primary").order_by("pk")),
    )
    wrong = []
    for name, (who_may, path) in ACCOUNT_URLS.items():
        for who, client in clients.items():
            if name in ("logout", "account_logout"):
                continue  # would end the walk's session; logging out is tested elsewhere
            for method in ("get", "post"):
                response = getattr(client, method)(path)
                status = response.status_code
                if status >= 500:
                    wrong.append(f"{method.upper()} {name} as {who}: {status}")
                if who == "anonymous" and who_may == "account":
                    location = response.get("Location", "")
                    if not (status == 302 and location.startswith("/accounts/login/")):
                        wrong.append(f"{method.upper()} {name} as {who}: {status} {location}")
                page = response.content.decode(errors="replace")
                for secret in ("elsewhere", "hidden@other.example", "Their secret game", "their-colleague"):
                    if secret in page:
                        wrong.append(f"{method.upper()} {name} as {who} shows {secret!r}")
    after = (
        list(django_user_model.objects.values_list("pk", "password", "email", "is_active").order_by("pk")),
        list(EmailAddress.objects.values_list("user_id", "email", "verified", "primary").order_by("pk")),
    )
    assert not wrong, "\n".join(wrong)
    assert after == before, "an empty post changed an account"
    assert made.is_active and not made.is_staff
