"""Missed cards, standbys and the late list (issue 31): a seat with no card in at the
deadline has missed it; its own card sets the count back; the policy prods, then asks the
organiser, seats the next standby or does nothing; standbys sign up by the join link and
learn nothing secret until seated; the organiser's late list names the seats with no
card in at the reminder time, once a phase."""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape
from random import Random

import pytest
from django.core import mail
from django.template import Context
from django.test import Client
from django.utils import timezone

from werewolf import addresses, engine
from werewolf.engine.bots import bot_card
from werewolf.games import attendance, services, standbys
from werewolf.games.models import Dispatch, Event, Game, Phase, Player, SeatLink, SeatPolicy, Standby

from .play import (
    NAMES,
    card_form,
    mail_card,
    mails_for,
    open_phase,
    seat_paths,
    seat_roles,
    secrets_hidden_from,
    text_of,
)

pytestmark = pytest.mark.django_db(transaction=True)

BOSS = "boss@example.org"


@pytest.fixture
def boss(organiser):
    addresses.confirm_for(organiser, BOSS)  # the operator's word: organiser mails reach it
    return organiser


def text(response) -> str:
    return unescape(response.content.decode())


def to(address: str) -> list:
    return [message for message in mail.outbox if any(address in recipient for recipient in message.to)]


def set_policy(game: Game, **fields: object) -> None:
    SeatPolicy.objects.update_or_create(game=game, defaults=fields)


def miss_deadline(game: Game) -> Phase:
    """Let the open phase reach its deadline and resolve there (the beat's sweep)."""
    phase = open_phase(game)
    assert phase is not None
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert services.sweep_due_phases() == 1
    return phase


def hand_in_all_but(game: Game, silent: set[int], rng: Random) -> None:
    """Every asked seat but `silent` hands in a card (a bot's), without the last one
    ending the phase: early resolution is off in these games (a majority may end a day)."""
    phase = open_phase(game)
    for seat, slot in sorted(engine.phase(Game.objects.get(pk=game.pk).engine_state).slots.items()):
        current = open_phase(game)
        if seat in silent or current is None or current.pk != phase.pk:
            continue
        services.submit_order(Game.objects.get(pk=game.pk), seat, bot_card(slot, seat, rng))


def own_card(game: Game, seat: int) -> engine.Order:
    slot = engine.phase(Game.objects.get(pk=game.pk).engine_state).asks(seat)
    assert slot is not None
    return bot_card(slot, seat, Random(seat))


def quiet_game(organiser, name: str = "Slow", **policy: object) -> Game:
    """A running classic game without early resolution (each phase waits for its deadline,
    unless a majority ends a day), with the policy given."""
    seats = [services.Seating(player, f"{player.lower()}@example.org") for player in NAMES[:7]]
    game = services.create_game(
        organiser, name=name, seats=seats, options={"wolves": 2, "seers": 1}, seed=11, early_resolution=False
    )
    if policy:
        set_policy(game, **policy)
    return services.start_game(game)


def villager(game: Game) -> int:
    return seat_roles(game).index("villager")


# What "missed" means -------------------------------------------------------------


def test_a_seat_asked_with_no_card_at_the_deadline_has_missed_it() -> None:
    missed, kept = attendance.missed({0, 1, 2}, {1, 5}, Phase.Resolution.DEADLINE)
    assert missed == {0, 2} and kept == {1}


@pytest.mark.parametrize("resolution", [Phase.Resolution.ALL_IN, Phase.Resolution.MAJORITY, Phase.Resolution.MODERATOR])
def test_a_phase_ended_before_its_deadline_counts_nobody_missing(resolution: str) -> None:
    missed, kept = attendance.missed({0, 1, 2}, {1}, resolution)
    assert missed == set() and kept == {1}


def test_each_threshold_is_reached_once_and_nought_means_never() -> None:
    assert [attendance.reached(count, 2) for count in range(5)] == [False, False, True, False, False]
    assert not any(attendance.reached(count, 0) for count in range(5))


@pytest.mark.parametrize("ruleset", ["classic", "tabula", "lunapiena", "lupusburg", "lupusburg-goals"])
def test_every_living_seat_is_asked_at_night_so_a_missed_card_tells_no_role(ruleset: str) -> None:
    players = 5 if ruleset.startswith("lupusburg") else 9
    state, _ = engine.setup(ruleset, engine.options(ruleset, {}, players), players, 7, None)
    spec = engine.phase(state)
    assert spec.kind == "night"
    assert set(spec.slots) == {seat for seat in range(players) if state.alive[seat]}


def test_the_count_moves_once_a_phase_and_a_card_of_the_seats_own_resets_it(boss) -> None:
    game = quiet_game(boss)
    seat = villager(game)
    miss_deadline(game)
    player = game.players.get(seat=seat)
    assert player.missed_cards == 1
    others = set(game.players.exclude(seat=seat).values_list("missed_cards", flat=True))
    assert others == {1}  # nobody handed in: every asked seat missed it
    # The resolution runs once: a second sweep of the same phase changes nothing.
    assert services.sweep_due_phases() == 0
    player.refresh_from_db()
    assert player.missed_cards == 1
    # The seat hands in its own card in the next phase: back to nought.
    services.submit_order(Game.objects.get(pk=game.pk), seat, own_card(game, seat))
    miss_deadline(game)
    player.refresh_from_db()
    assert player.missed_cards == 0


def test_the_organisers_resolve_now_counts_no_seat_missing(boss) -> None:
    game = quiet_game(boss)
    services.resolve_now(Game.objects.get(pk=game.pk))
    assert set(game.players.values_list("missed_cards", flat=True)) == {0}


# The prod and the organiser's note ---------------------------------------------------


def test_after_n_missed_cards_the_player_is_prodded_and_the_organiser_told(boss) -> None:
    game = quiet_game(boss, prod_after=1, act_after=0)
    seat = villager(game)
    player = game.players.get(seat=seat)
    mail.outbox.clear()
    phase = miss_deadline(game)
    prods = [message for message in to(player.email) if "missed its cards" in message.subject]
    assert len(prods) == 1
    body = prods[0].body
    assert "no card in at the deadline of the last phase" in body
    assert "after 1 missed card in a row its player is sent a reminder" in body  # the policy, said again
    assert "/p/" in body  # their own seat
    [note] = to(BOSS)
    assert "Seats that missed their cards" in note.subject
    assert f"seat {seat + 1}, {player.name}" in note.body
    # Once per phase and seat, whatever runs again.
    assert Dispatch.objects.filter(kind=Dispatch.Kind.PROD, phase=phase).count() == 7
    assert Dispatch.objects.filter(kind=Dispatch.Kind.ORGANISER, key=f"attendance:{phase.pk}").count() == 1
    # The next missed card is the second: no new prod (a prod marks the first threshold only).
    mail.outbox.clear()
    miss_deadline(game)
    assert not [message for message in to(player.email) if "missed its cards" in message.subject]


def test_the_prod_and_the_note_tell_nothing_beyond_their_audience(boss) -> None:
    game = quiet_game(boss, prod_after=1, act_after=1)
    mail.outbox.clear()
    miss_deadline(game)
    game.refresh_from_db()
    for player in game.players.all():
        said = mails_for(player)
        for secret in secrets_hidden_from(game, player.occupied_seat):
            assert secret not in said, f"seat {player.seat} reads {secret!r}"
    note = "\n".join(message.message().as_string() for message in to(BOSS))
    assert note
    for secret in secrets_hidden_from(game, engine.PUBLIC):
        assert secret not in note, f"the organiser's note tells {secret!r}"
    for role in set(seat_roles(game)):
        assert role not in note.lower().split()


# At the limit -----------------------------------------------------------------------


def test_at_the_limit_by_default_the_organiser_is_asked_and_the_seat_kept(boss, organiser_client: Client) -> None:
    game = quiet_game(boss)
    assert attendance.policy_of(game) == attendance.Policy(2, 3, "ask", 5)
    seat = villager(game)
    name = game.players.get(seat=seat).name
    for _ in range(3):
        mail.outbox.clear()
        hand_in_all_but(game, {seat}, Random(1))
        miss_deadline(game)
        if open_phase(game) is None:
            pytest.skip("the game ended first")
    assert "Decide what becomes of these seats" in to(BOSS)[0].body
    assert game.players.get(seat=seat).name == name  # nobody took it
    dashboard = text(organiser_client.get(f"/games/{game.pk}/"))
    assert f"seat {seat + 1}, {name}: 3 cards" in dashboard


def test_with_keep_nothing_happens_at_the_limit(boss) -> None:
    game = quiet_game(boss, prod_after=0, act_after=1, at_limit="keep")
    seat = villager(game)
    name = game.players.get(seat=seat).name
    mail.outbox.clear()
    hand_in_all_but(game, {seat}, Random(2))
    miss_deadline(game)
    assert "keep their players and play on their default cards" in to(BOSS)[0].body
    assert game.players.get(seat=seat).name == name


def standby_by_link(game: Game, name: str, client: Client | None = None) -> Standby:
    """`name` signs up as a standby by the join link and confirms by their page."""
    client = client or Client()
    game.refresh_from_db()
    email = f"{name.lower()}@example.org"
    data = {"name": name, "email": email}
    if game.status == Game.Status.DRAFT:
        data["standby"] = "on"
    done = client.post(f"/join/{game.signup_key}/", data)
    assert done.status_code == 200, text(done)[:2000]
    assert "a link to confirm that you stand by is on its way" in text(done)
    link = re.search(r"http://testserver(/standby/[^\s]+/)", to(email)[-1].body).group(1)
    assert "Confirm that you stand by" in text(client.get(link))  # a GET confirms nothing
    assert Standby.objects.get(email=email).pending
    confirmed = client.post(link, {"action": "confirm"})
    assert "you stand by for this game" in text(confirmed)
    return Standby.objects.get(email=email)


def test_with_standby_the_next_standby_in_sign_up_order_takes_the_seat(boss, organiser_client: Client) -> None:
    game = quiet_game(boss, prod_after=0, act_after=1, at_limit="standby")
    organiser_client.post(f"/games/{game.pk}/standbys/", {"action": "open_standbys"})
    first = standby_by_link(game, "Zelda")
    standby_by_link(game, "Yorick")
    seat = villager(game)
    old = game.players.get(seat=seat)
    old_email, old_link = old.email, SeatLink.objects.get(player=old, revoked_at=None)
    mail.outbox.clear()
    hand_in_all_but(game, {seat}, Random(3))
    phase = miss_deadline(game)
    player = Player.objects.get(pk=old.pk)
    assert (player.name, player.email, player.seat, player.missed_cards) == ("Zelda", first.email, seat, 0)
    first.refresh_from_db()
    assert first.seated_at is not None and first.player_id == player.pk
    assert Standby.objects.get(name="Yorick").seated_at is None
    old_link.refresh_from_db()
    assert old_link.revoked_at is not None
    changed = Event.objects.get(game=game, kind="player_substituted")
    assert changed.audience == engine.Audience.public().to_json() and changed.data["new_name"] == "Zelda"
    # The new player is mailed the seat, its role and its link; the old one is not.
    welcome = "\n".join(message.body for message in to(first.email))
    assert "Your role:" in welcome and "/p/" in welcome
    assert not any(link in mails_for_address(old_email) for link in re.findall(r"/p/[a-z2-7]{32}/", welcome))
    assert "Those seats go to the next standbys" in to(BOSS)[-1].body
    # Run again (a duplicated task): nothing more happens.
    assert standbys.take_over(player.pk, 1) is None
    assert Standby.objects.filter(seated_at__isnull=False).count() == 1
    assert Phase.objects.get(pk=phase.pk).status == Phase.Status.RESOLVED


def mails_for_address(address: str) -> str:
    return "\n".join(message.message().as_string() for message in to(address))


# Standbys by the join link ----------------------------------------------------------


def test_before_the_start_the_join_link_takes_standbys_who_are_not_seated(boss, organiser_client: Client) -> None:
    seats = [services.Seating(player, f"{player.lower()}@example.org") for player in NAMES[:6]]
    game = services.create_game(boss, name="Join", seats=seats, options={"wolves": 2, "seers": 1}, seed=3)
    services.open_signup(game)
    assert 'name="standby"' in text(Client().get(f"/join/{Game.objects.get(pk=game.pk).signup_key}/"))
    standby = standby_by_link(game, "Quinn")
    page = text(organiser_client.get(f"/games/{game.pk}/"))
    assert "Quinn" in page and "Standbys" in page
    game = services.start_game(Game.objects.get(pk=game.pk))
    assert game.players.count() == 6 and not game.players.filter(name="Quinn").exists()
    standby.refresh_from_db()
    assert standby.seated_at is None and not standby.pending
    assert not [message for message in to(standby.email) if "Your role" in message.body]


def test_a_running_games_link_takes_standbys_only_while_the_list_is_open(boss, organiser_client: Client) -> None:
    game = quiet_game(boss)
    assert Client().get("/join/nothing/").status_code == 404
    organiser_client.post(f"/games/{game.pk}/standbys/", {"action": "open_standbys"})
    game.refresh_from_db()
    page = text(Client().get(f"/join/{game.signup_key}/"))
    assert "This game has started. Stand by" in page and 'name="standby"' not in page
    standby_by_link(game, "Xenia")
    key = game.signup_key
    organiser_client.post(f"/games/{game.pk}/standbys/", {"action": "close_standbys"})
    assert Client().get(f"/join/{key}/").status_code == 404
    assert not Player.objects.filter(name="Xenia").exists()


def test_a_game_caps_its_standbys(boss, organiser_client: Client) -> None:
    game = quiet_game(boss, standby_limit=1)
    standbys.open_list(game)
    standby_by_link(game, "Wanda")
    game.refresh_from_db()
    refused = Client().post(f"/join/{game.signup_key}/", {"name": "Vera", "email": "vera@example.org"})
    assert refused.status_code == 400 and "The standby list is full" in text(refused)


def test_a_standby_cannot_take_a_players_name_or_address(boss) -> None:
    game = quiet_game(boss)
    game = standbys.open_list(game)
    with pytest.raises(services.ServiceError) as refused:
        standbys.sign_up(game.signup_key, NAMES[0], "other@example.org")
    assert refused.value.code == "signup_name_taken"
    with pytest.raises(services.ServiceError) as refused:
        standbys.sign_up(game.signup_key, "Other", f"{NAMES[1].lower()}@example.org")
    assert refused.value.code == "signup_address_taken"


def test_standbys_count_against_the_sign_up_limits(boss, monkeypatch: pytest.MonkeyPatch) -> None:
    from django.conf import settings

    game = standbys.open_list(quiet_game(boss))
    monkeypatch.setitem(settings.WEREWOLF_RATES, "join_game", "1/3600")
    client = Client()
    first = client.post(f"/join/{game.signup_key}/", {"name": "Una", "email": "una@example.org"})
    second = client.post(f"/join/{game.signup_key}/", {"name": "Tea", "email": "tea@example.org"})
    assert first.status_code == 200 and second.status_code == 429


def test_a_standbys_page_and_mails_show_nothing_secret(boss) -> None:
    game = standbys.open_list(quiet_game(boss))
    client = Client()
    standby = standby_by_link(game, "Sibyl", client)
    page = text(client.get(standbys.page_url(standby).split("testserver", 1)[1]))
    said = text_of(page) + mails_for_address(standby.email)
    game.refresh_from_db()
    for secret in secrets_hidden_from(game, engine.PUBLIC):
        assert secret not in said
    assert "/p/" not in said and "Your role" not in said
    assert "you are next in line" in page


# The organiser seats a standby by hand ------------------------------------------------


def test_the_organiser_seats_a_standby_from_the_dashboard(boss, organiser_client: Client) -> None:
    game = standbys.open_list(quiet_game(boss))
    standby_by_link(game, "Ruth")
    chosen = standby_by_link(game, "Pia")
    seat = villager(game)
    response = organiser_client.post(
        f"/games/{game.pk}/standbys/", {"action": "seat_standby", "seat": seat, "standby": chosen.pk}
    )
    assert response.status_code == 302
    assert game.players.get(seat=seat).name == "Pia"
    assert Standby.objects.get(name="Ruth").seated_at is None
    # Without a standby named: the next in line.
    other = seat_roles(game).index("seer")
    organiser_client.post(f"/games/{game.pk}/standbys/", {"action": "seat_standby", "seat": other})
    assert game.players.get(seat=other).name == "Ruth"
    refused = organiser_client.post(
        f"/games/{game.pk}/standbys/", {"action": "seat_standby", "seat": other}, follow=True
    )
    assert "No standby is waiting" in text(refused)


def test_another_organiser_cannot_touch_the_standbys(boss, django_user_model) -> None:
    game = quiet_game(boss)
    stranger = django_user_model.objects.create_user("stranger", password="correct horse battery")
    client = Client()
    client.force_login(stranger)
    assert client.post(f"/games/{game.pk}/standbys/", {"action": "open_standbys"}).status_code == 404
    assert not Game.objects.get(pk=game.pk).signup_key


# The policy, shown to everyone and set by the organiser ---------------------------------


def test_the_policy_is_in_the_start_mail_and_on_the_seat_page(boss) -> None:
    game = quiet_game(boss, prod_after=2, act_after=4, at_limit="standby")
    player = game.players.get(seat=0)
    said = "after 2 missed cards in a row its player is sent a reminder"
    assert said in mails_for(player)
    assert "After 4 missed cards in a row, the seat goes to the next standby player" in mails_for(player)
    page = text(Client().get(seat_paths(game)[0]))
    assert said in page


@pytest.mark.parametrize("at_limit", [choice.value for choice in SeatPolicy.AtLimit])
def test_the_seat_pages_policy_kept_per_process_is_its_words_in_each_language(at_limit: str) -> None:
    """The seat page's policy (`{% missed_policy %}`, kept per policy and language) is what
    includes/missed_policy.html says of that policy, whichever policy or language came before."""
    from django.template.loader import get_template
    from django.utils import translation

    from werewolf.games.templatetags import werewolf as tags

    template = get_template("includes/missed_policy.html")
    for language in ("en", "it", "en"):
        with translation.override(language):
            for prod_after, act_after in ((0, 0), (1, 1), (2, 4)):
                policy = attendance.Policy(prod_after, act_after, at_limit)
                said = tags.missed_policy(Context({}), policy)
                assert said == template.render({"policy": policy}), (language, policy)


def test_the_organiser_sets_the_policy_on_the_dashboard(boss, organiser_client: Client) -> None:
    game = quiet_game(boss)
    dashboard = text(organiser_client.get(f"/games/{game.pk}/"))
    for field in ("prod_after", "act_after", "at_limit", "standby_limit"):
        assert f'name="{field}"' in dashboard
    organiser_client.post(
        f"/games/{game.pk}/standbys/",
        {"action": "policy", "prod_after": 1, "act_after": 2, "at_limit": "standby", "standby_limit": 3},
    )
    assert attendance.policy_of(Game.objects.get(pk=game.pk)) == attendance.Policy(1, 2, "standby", 3)


# The late list ----------------------------------------------------------------------


def test_the_late_list_names_the_seats_without_a_card_once_a_phase(boss, organiser_client: Client) -> None:
    game = quiet_game(boss)
    phase = game.current_phase()
    seat = villager(game)
    services.submit_order(game, seat, engine.SLEEP_ORDER)
    assert "Late list" not in text(organiser_client.get(f"/games/{game.pk}/"))  # not before the reminder time
    mail.outbox.clear()
    lead = services.reminder_lead(phase)
    services.send_reminders(now=phase.deadline - lead + timedelta(seconds=1))
    services.send_reminders(now=phase.deadline - timedelta(seconds=5))
    [late] = to(BOSS)
    assert "6 cards not in yet" in late.subject
    names = {player.seat: player.name for player in game.players.all()}
    for other, name in names.items():
        assert (f"seat {other + 1}, {name}" in late.body) == (other != seat)
    game.refresh_from_db()
    whole = late.message().as_string()
    for secret in secrets_hidden_from(game, engine.PUBLIC):
        assert secret not in whole
    assert "SLEEP" not in whole.upper().split() and "sleep" not in late.body.lower()
    dashboard = text(organiser_client.get(f"/games/{game.pk}/"))
    listed = dashboard.split('id="late-list"')[1].split("</ul>")[0]
    assert f"seat {seat + 1}, {names[seat]}" not in listed
    assert all(f"seat {other + 1}, {name}" in listed for other, name in names.items() if other != seat)


# A whole game by mail -----------------------------------------------------------------


def test_a_whole_game_by_mail_prods_a_silent_seat_then_seats_a_standby(
    boss, organiser_client: Client, settings
) -> None:
    """Every card by reply to the newest mail; one seat never writes. It is prodded after
    one missed card and taken over by a standby after two; the standby then plays the
    seat by mail to the end. The sweep runs after every phase, on every seat, the
    standby's page and mails (before and after), and the organiser's mails."""
    from .test_game_flow import sweep

    settings.WEREWOLF_MAIL_ORDERS = True
    game = quiet_game(boss, prod_after=1, act_after=2, at_limit="standby")
    organiser_client.post(f"/games/{game.pk}/standbys/", {"action": "open_standbys"})
    standby_client = Client()
    standby = standby_by_link(game, "Odile", standby_client)
    standby_page = standbys.page_url(standby).split("testserver", 1)[1]
    silent = seat_roles(game).index("wolf")  # a wolf: the other wolf keeps the nights going
    silent_email = game.players.get(seat=silent).email
    rng = Random(31)
    anonymous = Client()
    taken_over = prodded = False
    rounds = 0
    while open_phase(game) is not None:
        rounds += 1
        assert rounds < 60
        phase = open_phase(game)
        for seat in sorted(engine.phase(game.engine_state).slots):
            current = open_phase(game)
            if current is None or current.pk != phase.pk:
                break
            if seat == silent and not taken_over:
                continue
            game = Game.objects.get(pk=game.pk)  # (a page's reads are kept on the object: the names change)
            form = card_form(game, seat, rng)
            kept = mail_card(game, seat, form, rng)
            assert kept.status == "applied", (kept.code, kept.card)
        if Phase.objects.get(pk=phase.pk).status == Phase.Status.OPEN:
            miss_deadline(game)
        prodded = prodded or any("missed its cards" in message.subject for message in to(silent_email))
        taken_over = game.players.get(seat=silent).name == "Odile"
        game = Game.objects.get(pk=game.pk)
        if not taken_over:  # the standby still learns nothing
            said = text_of(text(standby_client.get(standby_page))) + mails_for_address(standby.email)
            for secret in secrets_hidden_from(game, engine.PUBLIC):
                assert secret not in said
            assert "Your role" not in said
        for message in to(BOSS):
            whole = message.message().as_string()
            for secret in secrets_hidden_from(game, engine.PUBLIC):
                assert secret not in whole, f"the organiser's {message.subject!r} tells {secret!r}"
        sweep(game, seat_paths(game), anonymous)
    assert prodded and taken_over
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert "is over" in mails_for(game.players.get(seat=silent))
    assert "you have taken over a seat" in text(standby_client.get(standby_page))
    # The old player's link opens nothing now.
    assert not any(
        anonymous.get(path).status_code == 200
        for path in re.findall(r"http://testserver(/p/[a-z2-7]{32}/)", mails_for_address(silent_email))
    )


def test_removing_a_games_addresses_removes_its_standbys_too(boss) -> None:
    from werewolf.games import retention

    game = standbys.open_list(quiet_game(boss))
    standby_by_link(game, "Nadia")
    services.end_game(Game.objects.get(pk=game.pk))
    retention.forget_addresses(Game.objects.get(pk=game.pk))
    assert set(Standby.objects.values_list("email", flat=True)) == {""}


def test_a_lost_take_over_or_a_later_standby_is_seated_by_the_beat(boss, settings) -> None:
    """The take-over task after a resolution may be lost (a broker that restarted), and a
    seat at its limit may have found no standby: the beat's sweep seats one, once."""
    game = quiet_game(boss, prod_after=0, act_after=1, at_limit="standby")
    seat = villager(game)
    hand_in_all_but(game, {seat}, Random(4))
    miss_deadline(game)  # no standby yet: the organiser is asked
    assert "No standby is waiting for these seats" in to(BOSS)[-1].body
    assert standbys.sweep_take_overs() == 0
    standby_by_link(standbys.open_list(Game.objects.get(pk=game.pk)), "Mira")
    assert standbys.sweep_take_overs() == 1
    assert game.players.get(seat=seat).name == "Mira"
    assert standbys.sweep_take_overs() == 0  # once


def test_the_beat_runs_the_take_over_sweep_and_the_worker_knows_its_tasks() -> None:
    from celery import Celery

    from werewolf.celery import _schedule_sweeper
    from werewolf.celery import app as worker

    beat = Celery("werewolf")
    beat.config_from_object("django.conf:settings", namespace="CELERY")
    _schedule_sweeper(beat)
    assert beat.conf.beat_schedule["sweep"]["task"] == "tasks.phases.sweep"
    from tasks.phases import SWEEP

    assert "tasks.standbys.sweep_take_overs" in [step.name for step in SWEEP]
    assert "tasks.standbys" in worker.conf.imports
    assert attendance.TAKE_OVER_TASK == "tasks.standbys.take_over"
