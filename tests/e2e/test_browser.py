"""One game, driven through headless Chromium: the organiser logs in, creates and starts
a game, and a player opens the link from their welcome mail and hands in a card."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core import mail
from django.db import connections

from tests.web.play import seat_roles
from werewolf.games.models import Game

NAMES = ["Alba", "Brio", "Cato", "Dara", "Ezio", "Fenna", "Gusto"]
PASSWORD = "correct horse battery"
SCREENSHOT = Path(django_settings.BASE_DIR) / "var" / "e2e-seat.png"


def submit(page, button) -> None:
    """Click a form's submit button and wait for the page it leads to, which must not
    be an error page (a refused CSRF check, say, answers 403)."""
    with page.expect_navigation() as navigation:
        button.click()
    response = navigation.value
    assert response is not None and response.status < 400, (
        f"{response.request.method if response else 'POST'} to {page.url} answered "
        f"{response.status if response else 'nothing'}: {' '.join(page.inner_text('body').split())[:300]}"
    )


@pytest.mark.browser
@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_organiser_starts_a_game_and_a_player_hands_in_a_card(browser, live_server, settings, django_user_model):
    from playwright.sync_api import expect

    settings.SITE_URL = live_server.url
    django_user_model.objects.create_user("organiser", password=PASSWORD)
    base = live_server.url
    link = re.compile(re.escape(base) + r"/p/[a-z2-7]{32}/")
    requested: list[str] = []

    # The organiser: log in, create the game, start it.
    organiser = browser.new_context()
    organiser.set_default_timeout(30_000)
    page = organiser.new_page()
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", "organiser")
    page.fill("input[name=password]", PASSWORD)
    submit(page, page.locator("main form [type=submit]"))
    expect(page.get_by_role("button", name="Log out")).to_be_visible()

    page.goto(f"{base}/games/new/")
    # Only the chosen ruleset's options show, and they follow the choice.
    classic, tabula = page.locator("fieldset[data-ruleset=classic]"), page.locator("fieldset[data-ruleset=tabula]")
    expect(classic).to_be_visible()
    expect(tabula).to_be_hidden()
    page.select_option("#id_ruleset", "tabula")
    expect(classic).to_be_hidden()
    expect(tabula.get_by_label("Accusation length (minutes)")).to_be_visible()
    page.select_option("#id_ruleset", "classic")
    expect(tabula).to_be_hidden()
    page.fill("#id_name", "Village in a browser")
    page.fill("#id_players", "\n".join(f"{name} <{name.lower()}@example.org>" for name in NAMES))
    submit(page, page.locator("input[type=submit][value='Create the game'], button:has-text('Create the game')"))
    assert re.fullmatch(re.escape(base) + r"/games/\d+/", page.url), page.url
    expect(page.locator("h1")).to_contain_text("Not started")

    submit(page, page.locator("button", has_text=re.compile(r"^\s*Start the game")))
    expect(page.locator("h1")).to_contain_text("Running")
    # On a phone the dashboard fits the screen: the seats table scrolls inside its box.
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    organiser.close()

    # A werewolf (every game has one) has a real choice to make; their welcome mail
    # carries their private link.
    game = Game.objects.get()
    seat = seat_roles(game).index("wolf")
    wolf = game.players.get(seat=seat).email
    # Under Playwright's event loop these queries got a connection of their own context;
    # close it, or it outlives the test and blocks dropping the test database.
    connections.close_all()
    bodies = [message.body for message in mail.outbox if any(wolf in to for to in message.to)]
    urls = [found.group(0) for body in bodies for found in [link.search(body)] if found]
    assert urls, f"no private link for {wolf} in {len(mail.outbox)} mails"

    # The player, in a fresh context with no organiser session.
    player = browser.new_context()
    player.set_default_timeout(30_000)
    page = player.new_page()
    page.on("request", lambda request: requested.append(request.url))
    page.goto(urls[0])
    expect(page.get_by_text("Your role:")).to_be_visible()
    expect(page.locator("#current-card")).to_contain_text("no card yet")
    victim = ""
    for select in ("#id_target_1", "#id_target"):
        if page.locator(select).count():
            option = page.locator(f"{select} option:not([value=''])").first
            victim = option.inner_text().strip()
            page.select_option(select, option.get_attribute("value"))
    assert victim, "a werewolf's card offers no victim to choose"
    submit(page, page.locator("input[type=submit][value='Hand in your card'], button:has-text('Hand in your card')"))
    assert page.url.endswith("?handed=0"), page.url  # the index of the phase the card was for
    expect(page.get_by_text("Your card is in")).to_be_visible()
    expect(page.locator("#current-card")).not_to_contain_text("no card yet")
    expect(page.locator("#current-card")).to_contain_text(f"KILL {victim}")
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT), full_page=True)
    player.close()

    # Bootstrap and everything else came from the app itself.
    assert any("bootstrap" in url for url in requested), requested
    strangers = [url for url in requested if not url.startswith(base)]
    assert not strangers, f"requests left the live server: {strangers}"


def settled_scroll(page, most: int = 50) -> float:
    """The page's scroll position once it has stopped moving."""
    last = page.evaluate("window.scrollY")
    for _ in range(most):
        page.wait_for_timeout(100)
        now = page.evaluate("window.scrollY")
        if now == last:
            return now
        last = now
    return last


@pytest.mark.browser
@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_seat_page_takes_news_in_place_keeping_focus_and_place(browser, live_server, settings, django_user_model):
    """Another seat's card arrives while a player is on their page, focus on their card:
    the page is not reloaded under them (focus and scroll stay), the count of cards in
    changes in place, and the live region reads it out."""
    from playwright.sync_api import expect

    from werewolf import engine
    from werewolf.games import links, services

    settings.SITE_URL = live_server.url
    settings.WEREWOLF_POLL_SECONDS = 0.3
    organiser = django_user_model.objects.create_user("organiser", password=PASSWORD)
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES]
    game = services.start_game(
        services.create_game(organiser, name="Live", seats=seats, options={"wolves": 2, "seers": 1}, seed=5)
    )
    roles = seat_roles(game)
    reader, other = roles.index("seer"), roles.index("villager")
    url = links.url_for(game.players.get(seat=reader))
    connections.close_all()

    context = browser.new_context(viewport={"width": 390, "height": 500})
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.goto(url)
    expect(page.locator("[data-live=phase]")).to_contain_text("0 of 7 cards are in")
    select = page.locator("[data-live=card] select").first
    select.scroll_into_view_if_needed()
    page.mouse.wheel(0, 120)
    select.focus()
    page.evaluate("document.activeElement.dataset.mark = 'mine'")
    scrolled = settled_scroll(page)  # the wheel scrolls after it returns (smoothly, under load)
    assert scrolled > 0
    page.evaluate("window.reloaded = false; window.addEventListener('beforeunload', () => { window.reloaded = true; })")

    services.submit_order(game, other, engine.SLEEP_ORDER)
    connections.close_all()

    expect(page.locator("[data-live=phase]")).to_contain_text("1 of 7 cards are in")
    expect(page.locator("#live-news")).to_contain_text("1 of 7 cards are in")
    assert page.evaluate("document.activeElement.dataset.mark") == "mine"
    assert abs(page.evaluate("window.scrollY") - scrolled) <= 2
    assert page.evaluate("window.reloaded") is False

    # The reader has started their card when the night ends: it stays, with a notice and
    # a button that shows the day's card.
    select.select_option(index=1)
    services.resolve_now(Game.objects.get(pk=game.pk))
    connections.close_all()
    notice = page.locator("[data-live=card] [data-live-notice]")
    expect(notice).to_contain_text("The game has moved on")
    expect(page.locator("#live-news")).to_contain_text("The game has moved on")
    assert page.evaluate("document.activeElement.dataset.mark") == "mine"
    notice.get_by_role("button", name="Show the new card").click()
    expect(page.locator("[data-live=card] h2")).to_contain_text("Day 1")
    expect(page.locator("[data-live=card] h2")).to_be_focused()
    assert page.evaluate("window.reloaded") is False
    context.close()


@pytest.mark.browser
@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_two_players_see_each_others_square_posts_appear(browser, live_server, settings, django_user_model):
    """Ada posts in the square; Bruno, halfway through writing his own post, sees hers
    appear without a reload, hears it in the live region, and keeps what he wrote."""
    from playwright.sync_api import expect

    from werewolf.games import links, services

    settings.SITE_URL = live_server.url
    settings.WEREWOLF_POLL_SECONDS = 0.3
    organiser = django_user_model.objects.create_user("organiser", password=PASSWORD)
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES]
    game = services.start_game(services.create_game(organiser, name="Talkers", seats=seats, options={}, seed=5))
    urls = [links.url_for(game.players.get(seat=seat)) for seat in (0, 1)]
    connections.close_all()

    pages = []
    for url in urls:
        context = browser.new_context()
        context.set_default_timeout(30_000)
        page = context.new_page()
        page.goto(url)
        pages.append(page)
    ada, bruno = pages
    bruno.fill("#talk-square", "I was about to say")
    bruno.evaluate(
        "window.reloaded = false; window.addEventListener('beforeunload', () => { window.reloaded = true; })"
    )

    ada.fill("#talk-square", "Morning all: who saw anything last night?")
    submit(ada, ada.get_by_role("button", name="Post"))
    expect(ada.locator("[data-live=talk-square]")).to_contain_text("who saw anything last night?")

    expect(bruno.locator("[data-live=talk-square]")).to_contain_text("who saw anything last night?")
    expect(bruno.locator("#live-news")).to_contain_text("who saw anything last night?")
    assert bruno.input_value("#talk-square") == "I was about to say"
    assert bruno.evaluate("window.reloaded") is False
    for page in pages:
        page.context.close()


@pytest.mark.browser
@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_player_whose_browser_keeps_no_cookies_still_hands_in_a_card(browser, live_server, settings, organiser):
    """Chromium says a form post came from the seat's own page (Sec-Fetch-Site), which
    lets it in without the CSRF cookie (werewolf/csrf.py): a player who blocks cookies,
    or whose cookie was cleared after the page loaded, is not answered 403."""
    from playwright.sync_api import expect

    from tests.web.play import started_game
    from werewolf.games import links

    settings.SITE_URL = live_server.url
    game = started_game(organiser, "No cookies")
    url = live_server.url + links.url_for(game.players.get(seat=0), absolute=False)
    connections.close_all()  # (see the first test)
    context = browser.new_context()
    context.set_default_timeout(30_000)
    page = context.new_page()
    posts = []
    page.on("request", lambda request: posts.append(request) if request.method == "POST" else None)
    page.goto(url)
    context.clear_cookies()
    submit(page, page.locator("input[type=submit][value='Hand in your card'], button:has-text('Hand in your card')"))
    expect(page.get_by_text("Your card is in")).to_be_visible()
    sent = posts[0].all_headers()  # (`headers` leaves the Sec-Fetch ones out)
    assert sent.get("sec-fetch-site") == "same-origin" and "csrftoken" not in sent.get("cookie", ""), sent
    context.close()


@pytest.mark.browser
@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_deck_that_becomes_ready_says_so_once(browser, live_server, settings, django_user_model):
    """The waiting page of a deck reads out that the deck is ready, and then shows it once:
    the hidden live region does not keep a second copy of the news on the page."""
    from playwright.sync_api import expect

    from werewolf.games.models import PrintJob

    django_user_model.objects.create_user("organiser", password=PASSWORD)
    job = PrintJob.objects.create(key="a" * 64, kind="deck", total=4, filename="deck.pdf")
    connections.close_all()
    context = browser.new_context()
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "organiser")
    page.fill("input[name=password]", PASSWORD)
    submit(page, page.locator("main form [type=submit]"))
    page.goto(f"{live_server.url}/print/{job.key}/")
    expect(page.locator("main")).to_contain_text("Waiting for a worker")
    PrintJob.objects.filter(pk=job.pk).update(status=PrintJob.Status.DONE, done=4, pdf=b"%PDF-1.7")
    connections.close_all()
    expect(page.locator("#live-news")).to_contain_text("Your deck is ready.")  # read out
    expect(page.locator("#live-news")).to_be_empty(timeout=10_000)
    assert page.inner_text("body").count("Your deck is ready.") == 1
    context.close()


@pytest.mark.browser
@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_lupusburg_card_handed_in_is_confirmed_on_screen(browser, live_server, settings, organiser):
    """Under the ring of houses the card form sits far down the page: once a card is in,
    the answer is seen without scrolling at 1280 x 800, and it has the focus."""
    from playwright.sync_api import expect

    from werewolf.games import links, services

    settings.SITE_URL = live_server.url
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:5]]
    game = services.start_game(
        services.create_game(organiser, name="Burg", seats=seats, options={}, ruleset="lupusburg", seed=3)
    )
    url = live_server.url + links.url_for(game.players.get(seat=0), absolute=False)
    connections.close_all()
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.goto(url)
    for select in page.locator("[data-live=card] select").all():
        select.select_option(index=1)
    button = page.locator("button:has-text('Hand in your card'), input[type=submit][value='Hand in your card']")
    button.scroll_into_view_if_needed()
    submit(page, button)
    notice = page.get_by_text("Your card is in")
    expect(notice).to_be_in_viewport(ratio=1)
    expect(page.locator("#handed [role=status]")).to_be_focused()
    context.close()


RING_NAMES = ["Benedikt", "Esmeralda", "Konstantin", "Maximiliane", "Bartholomew-Alexander", "Wilhelmina", "Cato", "Jo"]
"""A Lupusburg table of eight with long names, one longer than the ring writes in full."""

RING_BOXES = """ring => {
    const box = ring.getBoundingClientRect();
    const names = [...ring.querySelectorAll(':scope > text')].map(text => {
        const r = text.getBoundingClientRect();
        return {text: text.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom};
    });
    const labels = [...ring.querySelectorAll('rect.house')]
        .flatMap(rect => [...rect.parentNode.querySelectorAll('text')]);
    const houses = labels.map(text => {
        const m = text.getCTM();
        return {text: text.textContent, b: m.b, c: m.c, height: text.getBoundingClientRect().height};
    });
    return {svg: {left: box.left, right: box.right, top: box.top, bottom: box.bottom}, names, houses};
}"""


@pytest.mark.browser
@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_the_ring_of_houses_shows_every_name_whole_on_a_desktop_and_a_phone(browser, live_server, settings, organiser):
    """Real use found "Benedikt" shown as "enedikt": the names on the ring's left ran out
    of the drawing. On a seat page and on the dashboard (its board unfolded), at 1280 x 800
    and on a phone, every name's box lies inside the ring's, and the house labels are
    upright."""
    from werewolf.games import links, services

    settings.SITE_URL = live_server.url
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in RING_NAMES]
    game = services.start_game(
        services.create_game(organiser, name="Burg", seats=seats, options={}, ruleset="lupusburg", seed=5)
    )
    seat_url = live_server.url + links.url_for(game.players.get(seat=0), absolute=False)
    connections.close_all()
    for width, height in ((1280, 800), (390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(30_000)
        page = context.new_page()
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("input[name=username]", organiser.username)
        page.fill("input[name=password]", PASSWORD)
        submit(page, page.locator("main form [type=submit]"))
        for where, url in (("seat page", seat_url), ("dashboard", f"{live_server.url}/games/{game.pk}/")):
            page.goto(url)
            if where == "dashboard":
                page.locator("#board-secrets > summary").click()
            ring = page.locator("svg.ring")
            ring.scroll_into_view_if_needed()
            found = ring.evaluate(RING_BOXES)
            svg = found["svg"]
            assert len(found["names"]) == len(RING_NAMES), (where, width, found["names"])
            for name in found["names"]:
                inside = (
                    name["left"] >= svg["left"] - 0.5
                    and name["right"] <= svg["right"] + 0.5
                    and name["top"] >= svg["top"] - 0.5
                    and name["bottom"] <= svg["bottom"] + 0.5
                )
                assert inside, (where, width, name, svg)
            assert found["houses"], (where, width)
            for label in found["houses"]:
                assert abs(label["b"]) < 1e-6 and abs(label["c"]) < 1e-6, (where, width, label)  # upright
        context.close()


@pytest.mark.browser
@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_the_deadline_and_the_readers_own_time_write_the_date_alike(browser, live_server, settings, organiser):
    """Real use found "Ven 27 nov" over "ven 27 nov": the deadline is written by the
    server ("Ven", the game's language), the reader's own time by the page's script (the
    browser's own words, "ven"). The script writes it as the server does, in the page's
    language whatever the browser's, so the two lines agree."""
    from werewolf.games import links, services

    settings.SITE_URL = live_server.url
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    game = services.start_game(
        services.create_game(organiser, name="Villaggio", seats=seats, options={"wolves": 2, "seers": 1}, language="it")
    )
    url = live_server.url + links.url_for(game.players.get(seat=0), absolute=False)
    connections.close_all()
    written = re.compile(r"(\w{3}) (\d{1,2}) (\w{3})")
    for locale in ("it-IT", "en-US"):
        context = browser.new_context(locale=locale, timezone_id=game.timezone)
        page = context.new_page()
        page.goto(url)
        deadline = page.locator("main").get_by_text("Scadenza:").first.inner_text()
        local = page.locator("time.local-time").first
        page.wait_for_function("el => el.textContent.trim().length > 0", arg=local.element_handle())
        mine = local.inner_text()
        server, script = written.search(deadline), written.search(mine)
        assert server and script, (deadline, mine)
        assert server.groups() == script.groups(), (locale, deadline, mine)
        assert re.match(r"\w{3} \d{1,2} \w{3}, \d\d:\d\d", mine), mine
        context.close()


@pytest.mark.browser
@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_the_balance_lab_shows_a_setups_figures_in_place_and_follows_changes(
    browser, live_server, settings, organiser, monkeypatch
):
    """On the New game page the organiser asks how the setup plays: the figures and the
    chart come in place (with a lopsided setup's suggestion after them), follow a change
    of the table, and the player list never leaves the page."""
    from playwright.sync_api import expect

    from werewolf.engine import lab as engine_lab

    monkeypatch.setattr(engine_lab, "FIGURES_SECONDS", 0.3)
    monkeypatch.setattr(engine_lab, "ANSWER_SECONDS", 0.6)
    # Enough games for the flag to be sure of two werewolves and no Seer at 7 (the wolves
    # 83 % of the first 70, at least 72 % allowing for chance; at 40, 62 %: not sure).
    monkeypatch.setattr(engine_lab, "FEWEST", 70)
    base = live_server.url
    requested: list[str] = []
    context = browser.new_context()
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", "organiser")
    page.fill("input[name=password]", PASSWORD)
    submit(page, page.locator("main form [type=submit]"))

    page.goto(f"{base}/games/new/")
    page.fill("#id_players", "\n".join(f"{name} <{name.lower()}@example.org>" for name in NAMES))
    page.fill("#id_wolves", "2")
    page.fill("#id_seers", "0")  # two werewolves and no Seer at 7: the wolves win most games
    page.get_by_role("button", name="See how this setup plays").click()
    result = page.locator("#lab-result")
    expect(result.locator("h2")).to_have_text("How this setup plays with 7 players")
    expect(result.locator("svg[role=img]")).to_be_visible()  # (a side that never wins draws no bar)
    expect(result.locator("table")).to_contain_text("bots that talk as players do")
    expect(result.locator("#lab-flag")).to_contain_text("Lopsided")
    expect(result.locator("[data-lab-change]")).to_be_visible()
    assert page.url == f"{base}/games/new/"

    # A player more: the figures follow, for the new table.
    page.fill("#id_players", "\n".join([*NAMES, "Hilde"]))
    page.locator("#id_players").dispatch_event("change")
    expect(result.locator("h2")).to_have_text("How this setup plays with 8 players")
    if result.locator("#lab-flag").count():
        expect(result.locator("[data-lab-change]")).to_be_visible()

    lab_requests = [url for url in requested if "/games/lab/" in url]
    assert lab_requests and all("alba" not in url.lower() for url in lab_requests), lab_requests
    assert all(url.startswith(base) for url in requested)


def test_the_replay_steps_forward_and_back_by_the_arrow_keys(browser, live_server, settings, organiser):
    """After the game, anyone with the public link walks the replay: → goes to the next
    step and ← back, as the links do; on the projector too, which keeps its mode."""
    from playwright.sync_api import expect

    from tests.web.test_replay import play
    from werewolf.games import services

    settings.SITE_URL = live_server.url
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES]
    game = services.start_game(
        services.create_game(organiser, name="Replayed", seats=seats, options={"wolves": 2, "seers": 1}, seed=5)
    )
    play(game, phases=3)
    services.end_game(Game.objects.get(pk=game.pk))
    connections.close_all()
    context = browser.new_context()
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.goto(f"{live_server.url}/g/{game.public_key}/replay/?step=0")
    heading = page.locator("#step-title")
    expect(heading).to_contain_text("Setup")
    expect(page.locator("a[rel=prev]")).to_have_count(0)
    with page.expect_navigation():
        page.keyboard.press("ArrowRight")
    expect(heading).to_contain_text("Night 1")
    assert page.url.endswith("?step=1")
    with page.expect_navigation():
        page.keyboard.press("ArrowRight")
    expect(heading).to_contain_text("Day 1")
    with page.expect_navigation():
        page.keyboard.press("ArrowLeft")
    expect(heading).to_contain_text("Night 1")
    # The links themselves, without the keys.
    with page.expect_navigation():
        page.locator("a[rel=next]").first.click()
    expect(heading).to_contain_text("Day 1")
    # The projector keeps its mode from step to step.
    page.goto(f"{live_server.url}/g/{game.public_key}/replay/?step=1&projector=1")
    with page.expect_navigation():
        page.keyboard.press("ArrowRight")
    assert "projector=1" in page.url and page.url.count("step=2") == 1
    expect(page.locator("html.replay-projector")).to_have_count(1)
    context.close()
