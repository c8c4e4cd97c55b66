"""Bad input: each refusal says what to do, and nothing in the game changes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from werewolf import engine
from werewolf.games import links, services
from werewolf.games.models import Event, Game, Order, Phase

from .play import GAME_FORM, NAMES, pack_of, seat_roles, snapshot, started_game, text_of

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def game(organiser) -> Game:
    return started_game(organiser, "Bad input")


def path_of(game: Game, seat: int) -> str:
    return links.url_for(game.players.get(seat=seat), absolute=False)


def role_seat(game: Game, role: str) -> int:
    return seat_roles(game).index(role)


def post_card(game: Game, seat: int, **fields) -> tuple[int, str]:
    response = Client().post(path_of(game, seat), {"phase": game.current_phase().pk, **fields})
    return response.status_code, response.content.decode()


def kill_first_villager(game: Game) -> int:
    """Play the first night so that a villager dies; returns the dead seat."""
    victim = seat_roles(game).index("villager")
    for seat in pack_of(game):
        services.submit_order(game, seat, engine.Order("kill", (victim,)))
    services.resolve_now(game)
    return victim


def test_a_list_naming_a_wolf_is_refused(game: Game) -> None:
    wolf, other = pack_of(game)[0], pack_of(game)[1]
    before = snapshot(game)
    status, page = post_card(game, wolf, target_1=other)
    assert status == 400
    assert f"{seat_names(game)[other]} is a werewolf: the pack cannot kill its own" in page
    assert snapshot(game) == before


def test_a_vote_for_a_dead_player_is_refused(game: Game) -> None:
    dead = kill_first_villager(game)
    voter = next(seat for seat in game.engine_state.living())
    before = snapshot(game)
    status, page = post_card(game, voter, target=dead)
    assert status == 400
    assert f"{seat_names(game)[dead]} is dead: name a living player." in page
    assert snapshot(game) == before


def test_an_unknown_player_is_refused(game: Game) -> None:
    seer = role_seat(game, "seer")
    before = snapshot(game)
    status, page = post_card(game, seer, target=42)
    assert status == 400
    assert "names a player who is not in this game" in page
    assert snapshot(game) == before


def test_a_card_after_the_deadline_is_refused(game: Game) -> None:
    Phase.objects.filter(game=game).update(deadline=timezone.now() - timedelta(seconds=5))
    before = snapshot(game)
    status, page = post_card(game, role_seat(game, "villager"))
    assert status == 400
    assert "The deadline has passed" in page
    assert snapshot(game) == before


def test_a_card_for_a_resolved_phase_never_counts_for_the_next(game: Game) -> None:
    old_phase = game.current_phase().pk
    kill_first_villager(game)
    voter = game.engine_state.living()[0]
    before = snapshot(game)
    response = Client().post(path_of(game, voter), {"phase": old_phase, "target": game.engine_state.living()[1]})
    assert response.status_code == 400
    assert "already been resolved" in response.content.decode()
    assert snapshot(game) == before


def test_a_tampered_link_is_refused_without_a_hint(game: Game) -> None:
    path = path_of(game, 0)
    token = path.split("/")[2]
    forged = token[:-1] + ("a" if token[-1] != "a" else "b")
    response = Client().get(f"/p/{forged}/")
    assert response.status_code == 404
    assert "The link is not valid" in response.content.decode()
    assert Client().post(f"/p/{forged}/", {"phase": 1}).status_code == 404
    assert Client().get("/p/short/").status_code == 404


def test_a_substituted_players_old_link_is_revoked(game: Game, organiser_client: Client) -> None:
    old_path = path_of(game, 3)
    mail.outbox.clear()
    response = organiser_client.post(
        f"/games/{game.pk}/seats/3/substitute/", {"name": "Zora", "email": "zora@example.org"}
    )
    assert response.status_code == 302
    revoked = Client().get(old_path)
    assert revoked.status_code == 410
    assert "This link has been replaced" in revoked.content.decode()
    new_path = path_of(game, 3)
    assert new_path != old_path and Client().get(new_path).status_code == 200
    # The new person gets the new link; the one replaced is told, with no link to a seat.
    (new,) = [message for message in mail.outbox if message.to == ["Zora <zora@example.org>"]]
    assert new_path in new.body
    (replaced,) = [message for message in mail.outbox if message is not new]
    assert "You no longer hold seat 4" in replaced.subject and "/p/" not in replaced.body


def test_opening_a_link_changes_nothing(game: Game) -> None:
    before = snapshot(game)
    for _ in range(3):
        assert Client().get(path_of(game, 0)).status_code == 200
        assert Client().get(path_of(game, 0) + "version.json").status_code == 200
    assert snapshot(game) == before


def test_organiser_pages_are_closed_to_players(game: Game, django_user_model) -> None:
    anonymous = Client()
    for url in (f"/games/{game.pk}/", f"/games/{game.pk}/export.json", f"/games/{game.pk}/seats/0/card/"):
        response = anonymous.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    stranger = Client()
    stranger.force_login(django_user_model.objects.create_user("stranger", password="another long password"))
    response = stranger.get(f"/games/{game.pk}/")
    assert response.status_code == 404  # another organiser's game answers as one that is not there
    missing = stranger.get("/games/999999/").content.decode().replace("/games/999999/", f"/games/{game.pk}/")
    assert text_of(response.content.decode()) == text_of(missing)
    assert stranger.post(f"/games/{game.pk}/", {"action": "end"}).status_code == 404
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING


def test_the_organiser_enters_a_card_for_a_player(game: Game, organiser_client: Client) -> None:
    seer = role_seat(game, "seer")
    target = (seer + 1) % 7
    response = organiser_client.post(
        f"/games/{game.pk}/seats/{seer}/card/", {"phase": game.current_phase().pk, "target": target}
    )
    assert response.status_code == 302
    order = Order.objects.get(phase=game.current_phase(), seat=seer)
    assert order.source == Order.Source.MODERATOR and order.order == engine.Order("inquire", (target,))
    entered = Event.objects.get(game=game, kind="card_entered")
    assert entered.audience == "moderator"
    page = Client().get(path_of(game, seer)).content.decode()
    assert f"INQUIRE {seat_names(game)[target]}" in page
    assert "entered a card" not in Client().get(path_of(game, target)).content.decode()


def test_the_dashboard_shows_who_handed_in_not_what(game: Game, organiser_client: Client) -> None:
    wolf = pack_of(game)[0]
    victim = seat_roles(game).index("villager")
    services.submit_order(game, wolf, engine.Order("kill", (victim,)))
    page = organiser_client.get(f"/games/{game.pk}/").content.decode()
    assert "handed in" in page and "waiting" in page
    assert f"KILL {seat_names(game)[victim]}" not in page


def test_extend_resolve_and_end(game: Game, organiser_client: Client) -> None:
    deadline = game.current_phase().deadline
    assert organiser_client.post(f"/games/{game.pk}/", {"action": "extend", "minutes": 30}).status_code == 302
    assert game.current_phase().deadline >= deadline + timedelta(minutes=30)
    bad = organiser_client.post(f"/games/{game.pk}/", {"action": "extend", "minutes": -4})
    assert bad.status_code == 200 and "greater than or equal to 1" in bad.content.decode()
    night = game.current_phase().pk
    assert organiser_client.post(f"/games/{game.pk}/", {"action": "resolve"}).status_code == 302
    assert Phase.objects.get(pk=night).resolution == Phase.Resolution.MODERATOR
    assert organiser_client.post(f"/games/{game.pk}/", {"action": "end"}).status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    public = Client().get(f"/g/{game.public_key}/").content.decode()
    assert "The organiser ended the game" in public
    late = organiser_client.post(f"/games/{game.pk}/", {"action": "resolve"})
    assert late.status_code == 400 and "This game is not running" in late.content.decode()


def test_a_stale_dashboard_never_acts_on_the_next_phase(game: Game, organiser_client: Client) -> None:
    """Resolve and extend carry the phase the organiser saw: if it closed meanwhile
    (a majority, the deadline, a second click), the next phase is left alone."""
    night = game.current_phase()
    page = organiser_client.get(f"/games/{game.pk}/").content.decode()
    assert f'name="phase" value="{night.index}"' in page
    assert organiser_client.post(f"/games/{game.pk}/", {"action": "resolve", "phase": night.index}).status_code == 302
    before = snapshot(game)
    twice = organiser_client.post(f"/games/{game.pk}/", {"action": "resolve", "phase": night.index})
    assert twice.status_code == 400 and "has already been resolved, so nothing was changed" in twice.content.decode()
    late = organiser_client.post(f"/games/{game.pk}/", {"action": "extend", "minutes": 30, "phase": night.index})
    assert late.status_code == 400 and "has already been resolved, so nothing was changed" in late.content.decode()
    assert snapshot(game) == before
    assert f'name="phase" value="{game.current_phase().index}"' in late.content.decode()


def test_the_game_form_explains_bad_player_lists(organiser_client: Client) -> None:
    response = organiser_client.post("/games/new/", {**GAME_FORM, "players": "Ann <ann@x.org>\nann <b@x.org>"})
    assert response.status_code == 200
    assert "names must differ" in response.content.decode()
    players = "\n".join(f"P{i} <p{i}@x.org>" for i in range(5))
    response = organiser_client.post("/games/new/", {**GAME_FORM, "players": players, "wolves": 3})
    assert "Too many werewolves" in response.content.decode()
    response = organiser_client.post("/games/new/", {**GAME_FORM, "players": "Ann\nBob <not an address>"})
    assert "Line 2 is not “Name &lt;email&gt;”: Bob &lt;not an address&gt;" in response.content.decode()
    assert Game.objects.count() == 0


def seat_names(game: Game) -> list[str]:
    return [player.name for player in game.players.order_by("seat")]


def test_every_field_of_the_game_form_renders(organiser_client: Client) -> None:
    from werewolf.games.forms import GameForm

    page = organiser_client.get("/games/new/").content.decode()
    for name in GameForm().fields:
        assert f'name="{name}"' in page, name


def test_paper_cards_go_in_together_or_not_at_all(game: Game, organiser_client: Client) -> None:
    names = seat_names(game)
    wolves = list(pack_of(game))
    seer = role_seat(game, "seer")
    villagers = [seat for seat, role in enumerate(seat_roles(game)) if role == "villager"]
    url = f"/games/{game.pk}/cards/"
    phase = game.current_phase().pk
    before = snapshot(game)
    bad = {
        "phase": phase,
        f"seat_{wolves[0]}": f"KILL {names[wolves[1]]}",
        f"seat_{seer}": "INQUIRE Nobody",
        f"seat_{villagers[0]}": "SLEEP",
    }
    response = organiser_client.post(url, bad)
    page = response.content.decode()
    assert response.status_code == 400
    assert "Nobody in this game is called “Nobody”" in page
    assert snapshot(game) == before
    bad[f"seat_{seer}"] = f"INQUIRE {names[wolves[0]]}"
    response = organiser_client.post(url, bad)
    assert "the pack cannot kill its own" in response.content.decode()
    assert snapshot(game) == before
    good = {"phase": phase, f"seat_{seer}": names[wolves[0]][:3].lower()}
    good.update({f"seat_{seat}": "sleep" for seat in villagers})
    good.update({f"seat_{wolf}": f"{names[villagers[0]]}, {names[villagers[1]]}" for wolf in wolves})
    response = organiser_client.post(url, good)
    assert response.status_code == 302 and "entered=7" in response["Location"]
    assert Phase.objects.get(pk=phase).status == Phase.Status.RESOLVED  # every card in: resolved at once
    assert Event.objects.filter(game=game, kind="killed", data__seat=villagers[0]).exists()


def test_a_huge_or_odd_post_is_refused_plainly(game: Game) -> None:
    before = snapshot(game)
    response = Client().post(path_of(game, 0), {"phase": game.current_phase().pk, "target": "x" * 3_000_000})
    assert response.status_code == 400
    assert "could not be read" in response.content.decode()
    response = Client().post(
        path_of(game, 0), b"phase=%FF%FE&target=%E9t%E9", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 400
    assert snapshot(game) == before


def test_seats_can_follow_the_listed_order(organiser_client: Client) -> None:
    players = "\n".join(f"{name} <{name.lower()}@example.org>" for name in NAMES[:7])
    response = organiser_client.post("/games/new/", {**GAME_FORM, "players": players, "seating": "listed"})
    game = Game.objects.get(pk=int(response["Location"].strip("/").split("/")[-1]))
    organiser_client.post(f"/games/{game.pk}/", {"action": "start"})
    assert seat_names(game) == NAMES[:7]


def test_the_player_list_help_shows_its_example(organiser_client: Client) -> None:
    page = organiser_client.get("/games/new/").content.decode()
    assert "“Ada &lt;ada@example.org&gt;”" in page


def test_the_last_card_handed_in_counts(game: Game) -> None:
    wolf = pack_of(game)[0]
    villagers = [seat for seat, role in enumerate(seat_roles(game)) if role == "villager"]
    names = seat_names(game)
    for target in villagers[:2]:
        status, _ = post_card(game, wolf, target_1=target)
        assert status == 302
    page = Client().get(path_of(game, wolf)).content.decode()
    assert f"KILL {names[villagers[1]]}</strong>" in page
    services.resolve_now(game)
    assert Event.objects.filter(game=game, kind="killed", data__seat=villagers[1]).exists()


def test_the_dead_hand_in_nothing(game: Game) -> None:
    dead = kill_first_villager(game)
    page = Client().get(path_of(game, dead)).content.decode()
    assert "You are dead" in page and "Hand in your card" not in page
    before = snapshot(game)
    response = Client().post(path_of(game, dead), {"phase": game.current_phase().pk, "target": 0})
    assert response.status_code == 400
    assert "No card is asked of you in this phase." in response.content.decode()
    assert snapshot(game) == before


def test_the_organiser_mails_a_link_again(game: Game, organiser_client: Client) -> None:
    mail.outbox.clear()
    for _ in range(2):
        assert organiser_client.post(f"/games/{game.pk}/", {"action": "mail_link", "seat": 2}).status_code == 302
    player = game.players.get(seat=2)
    assert [message.to for message in mail.outbox] == [[f"{player.name} <{player.email}>"]] * 2
    assert path_of(game, 2) in mail.outbox[0].body
    assert organiser_client.post(f"/games/{game.pk}/", {"action": "mail_link", "seat": 99}).status_code == 404
    assert organiser_client.post(f"/games/{game.pk}/", {"action": "mail_link", "seat": "x"}).status_code == 404


def test_options_that_no_longer_fit_the_table_are_refused_at_the_start(organiser, organiser_client: Client) -> None:
    """Chosen for twelve, four werewolves do not fit the seven who came: starting says so
    (the refusal once carried the engine's code under the name of its own, and raised
    a TypeError instead), and the game stays a draft."""
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:12]]
    game = services.create_game(organiser, name="Too many wolves", seats=seats, options={"wolves": 4, "seers": 1})
    game.players.filter(pk__in=list(game.players.order_by("-pk").values_list("pk", flat=True)[:5])).delete()
    with pytest.raises(services.ServiceError) as refused:
        services.start_game(game)
    assert refused.value.code == "options_do_not_fit"
    assert refused.value.params == {"count": 7, "setup_code": "too_many_wolves"}
    response = organiser_client.post(f"/games/{game.pk}/", {"action": "start"})
    assert response.status_code == 400
    assert "options do not fit its 7 players" in response.content.decode()
    game.refresh_from_db()
    assert game.status == Game.Status.DRAFT and not game.players.exclude(seat=None).exists()


def test_the_organiser_may_deal_the_roles(organiser_client: Client) -> None:
    players = "\n".join(f"{name} <{name.lower()}@example.org>" for name in NAMES[:7])
    response = organiser_client.post("/games/new/", {**GAME_FORM, "players": players, "dealing": "assign"})
    game = Game.objects.get(pk=int(response["Location"].strip("/").split("/")[-1]))
    dashboard = f"/games/{game.pk}/"
    refused = organiser_client.post(dashboard, {"action": "start"})
    assert refused.status_code == 400 and "give every player a role first" in refused.content.decode()
    by_name = {player.name: player.pk for player in game.players.all()}
    deal = {f"role_{pk}": "villager" for pk in by_name.values()}
    deal.update(
        {f"role_{by_name['Cato']}": "wolf", f"role_{by_name['Ezio']}": "wolf", f"role_{by_name['Alba']}": "wolf"}
    )
    wrong = organiser_client.post(dashboard, {"action": "assign", **deal, "alpha": ""})
    assert "Deal these cards, one to every player: Werewolf ×2, Seer, Villager ×4." in wrong.content.decode()
    deal[f"role_{by_name['Alba']}"] = "seer"
    not_a_wolf = organiser_client.post(dashboard, {"action": "assign", **deal, "alpha": by_name["Alba"]})
    assert "The alpha must be one of the werewolves." in not_a_wolf.content.decode()
    assert organiser_client.post(dashboard, {"action": "assign", **deal, "alpha": by_name["Ezio"]}).status_code == 302
    assert organiser_client.post(dashboard, {"action": "start"}).status_code == 302
    game.refresh_from_db()
    roles = {player.name: seat_roles(game)[player.seat] for player in game.players.all()}
    assert roles == {
        "Alba": "seer",
        "Cato": "wolf",
        "Ezio": "wolf",
        **{n: "villager" for n in ("Brio", "Dara", "Fenna", "Gusto")},
    }
    pack = Event.objects.get(game=game, kind="pack_formed").data["pack"]
    assert pack[0] == game.players.get(name="Ezio").seat


def test_the_herbalist_and_the_vigilante_get_their_own_cards(organiser) -> None:
    game = started_game(organiser, "Variants", players=8, seed=4, wolfsbane="doorstep", vigilante=True)
    roles = seat_roles(game)
    herbalist, vigilante = roles.index("herbalist"), roles.index("vigilante")
    page = Client().get(path_of(game, herbalist)).content.decode()
    assert "Sprinkle wolfsbane on the doorstep of" in page and "yourself allowed" in page
    status, _ = post_card(game, herbalist, target=herbalist)
    assert status == 302
    assert Order.objects.get(seat=herbalist).order == engine.Order("protect", (herbalist,))
    page = Client().get(path_of(game, vigilante)).content.decode()
    assert "Shoot" in page and "keep your shot" in page
    before = snapshot(game)
    status, page = post_card(game, vigilante, target=vigilante)
    assert status == 400 and "You cannot name yourself on this card: name another player." in page
    assert snapshot(game) == before


def test_cupid_names_two_lovers_on_the_form(organiser) -> None:
    game = started_game(organiser, "Cupid", seed=4, cupid=True)
    cupid = seat_roles(game).index("cupid")
    first, second = [seat for seat in range(7) if seat != cupid][:2]
    page = Client().get(path_of(game, cupid)).content.decode()
    assert "Lover 1" in page and "Lover 2" in page and "Name the two players who fall in love" in page
    before = snapshot(game)
    status, page = post_card(game, cupid, target_1=first)
    assert status == 400 and "Name exactly two different players." in page
    status, page = post_card(game, cupid, target_1=first, target_2=first)
    assert status == 400 and "appears twice on your list" in page
    assert snapshot(game) == before
    status, _ = post_card(game, cupid, target_1=first, target_2=second)
    assert status == 302
    assert Order.objects.get(seat=cupid).order == engine.Order("pair", (first, second))


def test_dark_city_wolves_may_swap_two_cards_on_the_form(organiser) -> None:
    game = started_game(organiser, "Dark City", seed=4, dark_city=True)
    wolf, other_wolf = pack_of(game)[0], pack_of(game)[1]
    villagers = [seat for seat in range(7) if seat_roles(game)[seat] != "wolf"]
    page = Client().get(path_of(game, wolf)).content.decode()
    assert "Swap the card of, 1" in page and "whose cards swap at the end of the night" in page
    before = snapshot(game)
    status, page = post_card(game, wolf, target_1=villagers[0], swap_1=villagers[1], swap_2=other_wolf)
    assert status == 400 and "is a werewolf: only villagers' cards can be swapped." in page
    assert snapshot(game) == before
    status, _ = post_card(game, wolf, swap_1=villagers[1], swap_2=villagers[2])
    assert status == 302
    assert Order.objects.get(seat=wolf).order == engine.Order("kill", (), (("swap", (villagers[1], villagers[2])),))


# Inputs that once made a server error: each is a plain refusal now, nothing changed. ----


def test_a_nul_in_a_link_is_a_plain_not_found(game: Game) -> None:
    """PostgreSQL refuses a NUL in a query: the page must not ask it."""
    before = snapshot(game)
    for path in ("/g/%00/", "/g/%00/version.json", "/g/a%00b/", "/p/%00/", "/p/%00/version.json"):
        assert Client().get(path).status_code == 404, path
    page = Client().get("/p/" + "%00" * 32 + "/")
    assert page.status_code == 404 and "The link is not valid" in page.content.decode()
    assert Client().get("/p/" + "%00" * 32 + "/version.json").status_code == 404
    assert Client().post("/p/" + "%00" * 32 + "/", {"phase": 1}).status_code == 404
    page = Client().get("/g/%00/")
    assert "There is nothing at this address" in page.content.decode()
    assert snapshot(game) == before


def test_a_player_name_longer_than_a_seat_holds_is_refused(game: Game, organiser_client: Client) -> None:
    long_name = "A" * 61
    players = "\n".join([f"{long_name} <a@example.org>"] + [f"{name} <{name}@x.org>" for name in NAMES[1:7]])
    response = organiser_client.post("/games/new/", {**GAME_FORM, "players": players})
    assert response.status_code == 200
    assert "at most 60 characters" in response.content.decode()
    assert Game.objects.filter(name=GAME_FORM["name"]).count() == 0
    before, names = snapshot(game), seat_names(game)
    url = f"/games/{game.pk}/seats/3/substitute/"
    response = organiser_client.post(url, {"name": long_name, "email": "zora@example.org"})
    assert response.status_code == 200 and "at most 60 characters" in response.content.decode()
    response = organiser_client.post(url, {"name": "Zora", "email": "z" * 250 + "@example.org"})
    assert response.status_code == 200 and "at most 254 characters" in response.content.decode()
    assert snapshot(game) == before and seat_names(game) == names


def test_a_phase_length_beyond_sixty_days_is_refused(organiser_client: Client) -> None:
    players = "\n".join(f"{name} <{name.lower()}@example.org>" for name in NAMES[:7])
    for field in ("night_minutes", "day_minutes"):
        response = organiser_client.post("/games/new/", {**GAME_FORM, "players": players, field: 999_999_999_999})
        assert response.status_code == 200
        assert "less than or equal to 86400" in response.content.decode()
    assert Game.objects.count() == 0


def test_odd_digits_in_the_organisers_posts_change_nothing(game: Game, organiser_client: Client) -> None:
    """ "²".isdigit() is true, but int("²") fails: only ASCII digits are numbers here."""
    before = snapshot(game)
    response = organiser_client.post(f"/games/{game.pk}/", {"action": "resolve", "phase": "²"})
    assert response.status_code == 400 and "This form is out of date" in response.content.decode()
    assert organiser_client.post(f"/games/{game.pk}/", {"action": "mail_link", "seat": "²"}).status_code == 404
    response = organiser_client.post(f"/games/{game.pk}/", {"action": "extend", "minutes": 30, "phase": "²"})
    assert "This form is out of date" in response.content.decode()
    assert snapshot(game) == before
    for entered in ("abc", "²", "-3", "1e9", "99999999999999999999"):
        response = organiser_client.get(f"/games/{game.pk}/?entered={entered}")
        assert response.status_code == 200, entered
        assert "entered." not in response.content.decode()
    assert "3 cards entered." in organiser_client.get(f"/games/{game.pk}/?entered=3").content.decode()
    for handed in ("²", "x", "99999999999999999999"):
        assert Client().get(path_of(game, 0) + f"?handed={handed}").status_code == 200


def test_a_card_for_a_mangled_phase_says_the_form_is_out_of_date(game: Game, organiser_client: Client) -> None:
    seer = role_seat(game, "seer")
    before = snapshot(game)
    for phase in ("", "abc", "²", "\x00", "99999999999999999999"):
        response = Client().post(path_of(game, seer), {"phase": phase, "target": (seer + 1) % 7})
        assert response.status_code == 400, phase
        assert "This form is out of date: reload the page and hand your card in again." in response.content.decode()
        response = organiser_client.post(
            f"/games/{game.pk}/seats/{seer}/card/", {"phase": phase, "target": (seer + 1) % 7}
        )
        assert "This form is out of date: reload the page" in response.content.decode(), phase
        response = organiser_client.post(f"/games/{game.pk}/cards/", {"phase": phase, f"seat_{seer}": "SLEEP"})
        assert response.status_code == 400
        assert "This form is out of date: reload the page" in response.content.decode(), phase
    assert snapshot(game) == before
