"""Every page, in each state a player or an organiser meets it, checked by axe-core (the
accessibility rules engine) in headless Chromium at a desktop and two phone widths: no
violation of WCAG 2.2 A or AA is allowed, and no page scrolls sideways. The HTML mails
are checked the same way."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import connections

from tests.conftest import require
from tests.web.play import seat_roles
from werewolf import engine
from werewolf.accounts.models import Invitation, key_digest
from werewolf.games import links, services
from werewolf.games.models import Character, Game

from .test_browser import PASSWORD

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    # The pages are the same whatever the database: they are checked once, in the first
    # CI pass (SQLite), which keeps the second pass for what the database changes.
    pytest.mark.skipif(
        os.environ.get("DATABASE_URL", "").startswith("postgres"),
        reason="markup does not depend on the database: checked in the SQLite pass",
    ),
]

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "characters"
WIDTHS = {"desktop": (1280, 800), "phone": (390, 844), "small phone": (320, 640)}
RULES = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
NAMES = ["Alba", "Brio", "Cato", "Dara", "Ezio", "Fenna", "Gusto"]


def axe_source() -> str:
    """axe-core from the npm registry (dev.py test installs it under .cache/axe), else the
    copy bundled with the axe-playwright-python wheel; never from a CDN."""
    npm = Path(django_settings.BASE_DIR) / ".cache" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
    if npm.exists():
        return npm.read_text()
    try:
        import axe_playwright_python
    except ImportError:
        axe_playwright_python = None
    bundled = Path(axe_playwright_python.__file__).parent / "axe.min.js" if axe_playwright_python else None
    require("axe-core", bool(bundled and bundled.exists()), "run `python3 dev.py test` (it installs axe-core)")
    assert bundled is not None
    return bundled.read_text()


LANDMARKS = ["region", "landmark-one-main"]
"""axe's best-practice rules that every text sits in a landmark, one of them `main`:
asked of the mails, which a screen reader otherwise reads as one unlabelled run."""


def violations(page: Any, source: str, landmarks: bool = False) -> list[str]:
    """axe's WCAG A/AA violations on the page as it stands (and, with `landmarks`, its
    findings of text outside any landmark), one line each."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        # Evaluated, not added as a <script>: the pages' policy runs no inline script.
        page.evaluate(source + "\n;0")
    found = page.evaluate(
        "rules => axe.run(document, {runOnly: {type: 'tag', values: rules}}).then(r => r.violations)", RULES
    )
    if landmarks:
        found += page.evaluate(
            "rules => axe.run(document, {runOnly: {type: 'rule', values: rules}}).then(r => r.violations)", LANDMARKS
        )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {', '.join(n['target'][0] for n in v['nodes'][:3])}" for v in found
    ]


class Tour:
    """Visits pages in a browser context at each width and gathers axe's findings."""

    def __init__(self, browser: Any, base: str, source: str) -> None:
        self.browser, self.base, self.source = browser, base, source
        self.found: dict[str, list[str]] = {}
        self.contexts: dict[str, Any] = {}

    def context(self, who: str, width: str) -> Any:
        key = f"{who}@{width}"
        if key not in self.contexts:
            w, h = WIDTHS[width]
            context = self.browser.new_context(viewport={"width": w, "height": h})
            context.set_default_timeout(30_000)
            if who == "organiser":
                page = context.new_page()
                page.goto(f"{self.base}/accounts/login/")
                page.fill("input[name=username]", "organiser")
                page.fill("input[name=password]", PASSWORD)
                with page.expect_navigation():
                    page.locator("main form [type=submit]").click()
                page.close()
            self.contexts[key] = context
        return self.contexts[key]

    def check(self, name: str, who: str, path: str, act: Callable[[Any], None] | None = None) -> None:
        for width in WIDTHS:
            page = self.context(who, width).new_page()
            page.goto(path if path.startswith("http") else self.base + path)
            if act is not None:
                act(page)
            # axe at the desktop and phone widths; the smallest phone only for overflow.
            problems = violations(page, self.source) if width != "small phone" else []
            wide = page.evaluate("document.documentElement.scrollWidth")
            if wide > WIDTHS[width][0]:
                culprits = page.evaluate(
                    "w => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > w)"
                    ".slice(0, 3).map(e => e.tagName + '.' + e.className)",
                    WIDTHS[width][0],
                )
                problems.append(f"the page scrolls sideways: {wide} px wide ({', '.join(culprits)})")
            if problems:
                self.found[f"{name} ({width})"] = problems
            page.close()

    def close(self) -> None:
        for context in self.contexts.values():
            context.close()


def submit(selector: str) -> Callable[[Any], None]:
    def act(page: Any) -> None:
        page.evaluate("document.querySelectorAll('form').forEach(f => { f.noValidate = true; })")
        with page.expect_navigation():
            page.locator(selector).first.click()

    return act


@pytest.fixture
def tour(browser, live_server, settings) -> Iterator[Tour]:
    settings.SITE_URL = live_server.url
    settings.WEREWOLF_POLL_SECONDS = 3600  # nothing changes under axe while it looks
    tour = Tour(browser, live_server.url, axe_source())
    yield tour
    tour.close()
    connections.close_all()


def test_every_page_in_every_state_passes_axe(tour: Tour, django_user_model) -> None:
    organiser = django_user_model.objects.create_user("organiser", password=PASSWORD)
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES]

    def wrong_password(page: Any) -> None:
        page.fill("input[name=username]", "organiser")
        page.fill("input[name=password]", "not it")
        submit("main form [type=submit]")(page)

    tour.check("login", "anonymous", "/accounts/login/")
    tour.check("login refused", "anonymous", "/accounts/login/", wrong_password)
    tour.check("home, anonymous", "anonymous", "/")
    tour.check("link error", "anonymous", "/p/" + "a" * 32 + "/")
    tour.check("sign-up closed", "anonymous", "/accounts/signup/")
    tour.check("password reset", "anonymous", "/accounts/password/reset/")
    tour.check("invitation gone", "anonymous", "/accounts/invitation/no-such-key/")

    draft = services.create_game(organiser, name="Draft", seats=seats, options={}, deal_roles=False)
    # An invitation waiting to be taken up: its page, as the invited and as an account that
    # has not confirmed its address; and the dashboard's list of invitations waiting.
    Invitation.objects.create(email="co@example.org", key_hash=key_digest("k" * 32), invited_by=organiser, game=draft)
    tour.check("an invitation", "anonymous", "/accounts/invitation/" + "k" * 32 + "/")
    tour.check("an invitation, to another address", "organiser", "/accounts/invitation/" + "k" * 32 + "/")
    tour.check("home", "organiser", "/")
    tour.check("your account", "organiser", "/accounts/profile/")
    tour.check("invitations", "organiser", "/accounts/invitations/")
    tour.check("delete your account", "organiser", "/accounts/delete/")
    tour.check("change your password", "organiser", "/accounts/password/change/")
    tour.check("new game", "organiser", "/games/new/")
    tour.check("new game refused", "organiser", "/games/new/", submit("main form [type=submit]"))
    tour.check("draft dashboard", "organiser", f"/games/{draft.pk}/")
    dealt = services.create_game(
        organiser, name="Dealt", seats=seats[:5], options={}, ruleset="lupusburg-goals", deal_roles=False
    )
    tour.check("lupusburg draft dashboard, the organiser's deal", "organiser", f"/games/{dealt.pk}/")
    tour.check("change a draft", "organiser", f"/games/{draft.pk}/edit/")
    tour.check("delete a draft", "organiser", f"/games/{draft.pk}/delete/")
    draft = services.open_signup(draft)
    tour.check("draft dashboard, sign-up open", "organiser", f"/games/{draft.pk}/")
    tour.check("the join code for a screen", "organiser", f"/games/{draft.pk}/join-code/")
    tour.check("print a deck", "organiser", "/print/")
    tour.check(
        "print a deck refused",
        "organiser",
        "/print/",
        lambda page: (page.fill("input[name=players]", "2"), submit("main form [type=submit]")(page)),
    )
    tour.check("characters, none yet", "organiser", "/characters/")
    tour.check("build a character", "organiser", "/characters/new/")
    tour.check(
        "build a character refused",
        "organiser",
        "/characters/new/",
        lambda page: (
            page.fill("input[name=name]", "Busy"),
            page.select_option("select[name=blocks-0-kind]", "inspect"),
            page.select_option("select[name=blocks-1-kind]", "protect"),
            submit("main form [type=submit]")(page),
        ),
    )
    Character.objects.create(
        organiser=organiser, name="Doctor", definition=json.loads((FIXTURES / "doctor.json").read_text())
    )
    connections.close_all()
    tour.check("characters", "organiser", "/characters/")
    tour.check("join", "anonymous", f"/join/{draft.signup_key}/")
    tour.check("join refused", "anonymous", f"/join/{draft.signup_key}/", submit("main form [type=submit]"))
    pending = services.sign_up(draft.signup_key, "Zoë", "zoe@example.org")
    connections.close_all()
    tour.check("join, confirm", "anonymous", links.signup_url(pending))

    game = services.start_game(
        services.create_game(organiser, name="Running", seats=seats, options={"wolves": 2, "seers": 1}, seed=5)
    )
    roles = seat_roles(game)
    wolf, seer = roles.index("wolf"), roles.index("seer")
    url = {seat: links.url_for(game.players.get(seat=seat)) for seat in range(len(NAMES))}
    public = f"/g/{game.public_key}/"
    connections.close_all()
    tour.check("dashboard, night", "organiser", f"/games/{game.pk}/")
    tour.check("paper cards", "organiser", f"/games/{game.pk}/cards/")
    tour.check("a seat's card, by the organiser", "organiser", f"/games/{game.pk}/seats/{wolf}/card/")
    tour.check("substitute", "organiser", f"/games/{game.pk}/seats/{wolf}/substitute/")
    tour.check("public page, night", "anonymous", public)
    tour.check("seat, night, the wolf's list", "anonymous", url[wolf])
    tour.check("seat, night, the seer", "anonymous", url[seer])

    def refused(page: Any) -> None:
        # A card naming the seer herself: refused, with the reason next to the form.
        page.evaluate(
            "seat => { const s = document.querySelector('[data-live=card] select');"
            " const o = document.createElement('option'); o.value = seat; o.text = 'me'; s.add(o); s.value = seat; }",
            str(seer),
        )
        submit("[data-live=card] [type=submit]")(page)

    tour.check("seat, a refused card", "anonymous", url[seer], refused)
    services.submit_order(game, wolf, engine.Order("kill", (seer,)))
    services.resolve_now(Game.objects.get(pk=game.pk))
    connections.close_all()
    tour.check("seat, day vote", "anonymous", url[wolf])
    tour.check("seat, dead", "anonymous", url[seer])

    def refused_post(page: Any) -> None:
        page.fill("#talk-ghosts", "x" * 10)
        page.evaluate("document.querySelector('#talk-ghosts').value = 'x'.repeat(3000)")
        submit("#talk-ghosts ~ button")(page)

    tour.check("talk, a refused post", "anonymous", url[seer], refused_post)
    tour.check("projector, day", "anonymous", public + "projector/")
    tour.check("not found", "anonymous", "/games/999999/")
    tour.check("dashboard, day", "organiser", f"/games/{game.pk}/")
    services.end_game(Game.objects.get(pk=game.pk))
    connections.close_all()
    tour.check("seat, game over", "anonymous", url[wolf])
    tour.check("public page, game over", "anonymous", public)
    tour.check("dashboard, game over", "organiser", f"/games/{game.pk}/")

    tabula = services.start_game(
        services.create_game(
            organiser,
            name="Tabula",
            seats=[services.Seating(n, f"{n.lower()}@example.org") for n in NAMES + ["Hilde"]],
            ruleset="tabula",
            options={},
            seed=3,
        )
    )
    services.resolve_now(tabula)
    tabula_url = links.url_for(tabula.players.get(seat=0))
    connections.close_all()
    tour.check("tabula, accusation", "anonymous", tabula_url)
    services.resolve_now(Game.objects.get(pk=tabula.pk))
    connections.close_all()
    tour.check("tabula, ballot", "anonymous", tabula_url)

    lupusburg = services.start_game(
        services.create_game(
            organiser,
            name="Lupusburg",
            seats=[services.Seating(n, f"{n.lower()}@example.org") for n in NAMES[:6]],
            ruleset="lupusburg-goals",
            options={},
            seed=5,
        )
    )
    lupusburg_url = links.url_for(lupusburg.players.get(seat=0))
    play_lupusburg(lupusburg, until="bets")
    connections.close_all()
    tour.check("lupusburg, bets", "anonymous", lupusburg_url)
    play_lupusburg(lupusburg, until="accusation")
    connections.close_all()
    tour.check("lupusburg, accusation", "anonymous", lupusburg_url)
    play_lupusburg(lupusburg, until="")
    connections.close_all()
    tour.check("lupusburg, the score", "anonymous", lupusburg_url)
    tour.check("lupusburg dashboard, the score", "organiser", f"/games/{lupusburg.pk}/")
    assert not tour.found, "axe found:\n" + json.dumps(tour.found, indent=1)


def play_lupusburg(game: Game, until: str) -> None:
    """Hand in a bot's card for every seat asked, step after step, until the step `until`
    opens (or the game ends)."""
    from random import Random

    from werewolf import engine
    from werewolf.engine.bots import bot_card

    rng = Random(9)
    for _ in range(400):
        game.refresh_from_db()
        phase = game.current_phase()
        if phase is None or phase.stage == until:
            return
        for seat, slot in sorted(engine.phase(game.engine_state).slots.items()):
            game.refresh_from_db()
            if game.current_phase() is None or game.current_phase().pk != phase.pk:
                break
            services.submit_order(game, seat, bot_card(slot, seat, rng), phase_id=phase.pk)
        if Game.objects.get(pk=game.pk).current_phase() == phase:
            services.resolve_now(Game.objects.get(pk=game.pk))
    raise AssertionError("the game does not end")


def test_mail_html_passes_axe(tour: Tour, django_user_model, settings) -> None:
    """The HTML mails, loaded into the browser as a mail client shows them."""
    from django.core import mail

    from tests.web.play import reply_address
    from werewolf.games import absences, dates
    from werewolf.games.models import Absence, AbsencePolicy, Standby
    from werewolf.mail import inbound

    settings.WEREWOLF_MAIL_ORDERS = True
    organiser = django_user_model.objects.create_user("organiser", password=PASSWORD)
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES]
    game = services.start_game(services.create_game(organiser, name="Mailed", seats=seats, options={}, seed=2))
    player = game.players.get(seat=0)
    raw = (
        f"From: {player.name} <{player.email}>\r\nTo: {reply_address(player)}\r\nSubject: Re: card\r\n"
        "Message-ID: <axe-reply@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nVOTE Nobody\r\n"
    ).encode()
    inbound.receive(raw)  # refused (no such name): the answer is an HTML mail too
    phase = game.current_phase()
    services.send_reminders(now=phase.deadline - timedelta(seconds=30))  # the reminder
    from werewolf.games import talk

    talk.post(game, 1, "square", "Hello, village: https://example.org")
    talk.send_digests()  # the talk digest
    draft = services.open_signup(
        services.create_game(organiser, name="Signing", seats=[], options={}, expected_players=9)
    )
    services.sign_up(draft.signup_key, "Zoë", "zoe@example.org")  # the sign-up to confirm
    # Hand-overs: a substitute for good and the person replaced; a standby standing in for
    # an absent player, the player away, and the player back.
    services.substitute_player(game.players.get(seat=1), name="Ivo", email="ivo@example.org", new_person=True)
    Game.objects.filter(pk=game.pk).update(absence_policy=AbsencePolicy.STANDBY)
    Standby.objects.create(game=game, name="Zelda", email="zelda@example.org", pending=False)
    today = absences.today(game)
    absence = absences.declare(game.players.get(seat=2), dates.Span(today, today + timedelta(days=1)))
    services.resolve_now(Game.objects.get(pk=game.pk))
    Absence.objects.filter(pk=absence.pk).update(start=today - timedelta(days=3), end=today - timedelta(days=1))
    services.resolve_now(Game.objects.get(pk=game.pk))
    connections.close_all()
    kinds: dict[str, str] = {}
    for message in mail.outbox:
        for content, mimetype in getattr(message, "alternatives", []):
            if mimetype == "text/html":
                kind = re.sub(r"\W+", "-", message.subject.split("]")[-1].split(":")[-1].strip().lower())[:40]
                kinds.setdefault(kind, content)
    assert len(kinds) >= 11, (
        f"expected the welcome, a refusal, a reminder, talk, a sign-up, results and five hand-overs: {sorted(kinds)}"
    )
    phase_mail = next(html for kind, html in kinds.items() if "is-over" in kind)
    following = phase_mail[phase_mail.index("Day 1:") :]
    assert re.search(r'<a href="http[^"]+/p/[a-z2-7]{32}/"', following), "the next phase's link is not a link"
    assert "<br>" in following.split("</p>")[0], "the next phase's lines run together"
    for kind, html in kinds.items():
        for width in WIDTHS:
            page = tour.context("anonymous", width).new_page()
            page.set_content(html)
            problems = violations(page, tour.source, landmarks=True)
            if problems:
                tour.found[f"mail {kind} ({width})"] = problems
            page.close()
    assert not tour.found, "axe found:\n" + json.dumps(tour.found, indent=1)


def test_a_refusal_is_tied_to_its_fields_and_takes_the_focus(tour: Tour, django_user_model) -> None:
    organiser = django_user_model.objects.create_user("organiser", password=PASSWORD)
    page = tour.context("anonymous", "desktop").new_page()
    page.goto(f"{tour.base}/accounts/login/")
    page.fill("input[name=username]", "organiser")
    page.fill("input[name=password]", "not it")
    submit("main form [type=submit]")(page)
    assert page.title().startswith("Error: ")
    assert page.evaluate("document.activeElement.id") == "login-error"
    for name in ("username", "password"):
        field = page.locator(f"input[name={name}]")
        assert field.get_attribute("aria-invalid") == "true"
        assert field.get_attribute("aria-describedby") == "login-error"

    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES]
    game = services.start_game(services.create_game(organiser, name="Refusals", seats=seats, options={}, seed=5))
    seer = seat_roles(game).index("seer")
    url = links.url_for(game.players.get(seat=seer))
    connections.close_all()
    page.goto(url)
    page.evaluate(
        "seat => { const s = document.querySelector('[data-live=card] select');"
        " const o = document.createElement('option'); o.value = seat; o.text = 'me'; s.add(o); s.value = seat; }",
        str(seer),
    )
    submit("[data-live=card] [type=submit]")(page)
    assert page.title().startswith("Error: ")
    assert page.evaluate("document.activeElement.id") == "card-error"
    select = page.locator("[data-live=card] select").first
    assert select.get_attribute("aria-describedby") == "card-error"
    assert select.get_attribute("aria-invalid") == "true"

    # The countdown says its time in words inside <time>, and speaks up near the end.
    countdown = page.locator("time[data-countdown]").first
    assert countdown.inner_text().strip()
    page.evaluate(
        "() => { const t = document.querySelector('time[data-countdown]');"
        " t.setAttribute('datetime', new Date(Date.now() + 59500).toISOString()); }"
    )
    from playwright.sync_api import expect

    expect(page.locator("#live-news")).to_contain_text("One minute left before the deadline.")
    page.close()


def contrast(one: str, two: str) -> float:
    """WCAG's contrast ratio of two CSS rgb() colours."""

    def luminance(colour: str) -> float:
        red, green, blue = (int(part) / 255 for part in re.findall(r"\d+", colour)[:3])
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (red, green, blue)]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(one), luminance(two)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def tab_to(page: Any, selector: str, most: int = 60) -> dict[str, str]:
    """Press Tab until the element matching `selector` has the focus; its focus ring."""
    for _ in range(most):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            return page.evaluate(
                "() => { const s = getComputedStyle(document.activeElement);"
                " return {width: s.outlineWidth, style: s.outlineStyle, colour: s.outlineColor}; }"
            )
    raise AssertionError(f"Tab never reached {selector}")


def test_a_night_and_a_day_with_the_keyboard_alone(tour: Tour, django_user_model) -> None:
    """A wolf plays a night and a day without a mouse; every stop on the way shows a focus
    ring of at least 3:1 against the page (and the navbar's against the navbar)."""
    organiser = django_user_model.objects.create_user("organiser", password=PASSWORD)
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES]
    game = services.start_game(
        services.create_game(organiser, name="Keys", seats=seats, options={"wolves": 2, "seers": 1}, seed=5)
    )
    roles = seat_roles(game)
    wolf = roles.index("wolf")
    url = links.url_for(game.players.get(seat=wolf))
    connections.close_all()
    page = tour.context("anonymous", "desktop").new_page()
    page.goto(url)
    ring = tab_to(page, ".navbar a")
    assert ring["style"] != "none" and contrast(ring["colour"], "rgb(33, 37, 41)") >= 3
    for selector in ("[data-live=card] select", "[data-live=card] [type=submit]"):
        ring = tab_to(page, selector)
        assert float(ring["width"].rstrip("px")) >= 2 and contrast(ring["colour"], "rgb(255, 255, 255)") >= 3
    page.goto(url)
    tab_to(page, "[data-live=card] select")
    page.keyboard.press("ArrowDown")
    tab_to(page, "[data-live=card] [type=submit]")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "Your card is in" in page.inner_text("main")

    services.resolve_now(Game.objects.get(pk=game.pk))
    connections.close_all()
    page.goto(url)
    tab_to(page, "[data-live=card] select")
    page.keyboard.press("ArrowDown")
    tab_to(page, "[data-live=card] [type=submit]")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "Your card is in" in page.inner_text("main")
    connections.close_all()
    day = Game.objects.get(pk=game.pk).current_phase()
    assert day is not None and day.kind == "day"
    assert day.current_orders()[wolf].kind == "vote"
    page.close()


def test_the_projector_fills_one_screen_and_takes_news_in_place(tour: Tour, django_user_model, settings) -> None:
    """24 seats on a 1920 x 1080 screen with no scrolling, axe-clean, the count of cards
    in changing in place; and a seat's large print passes axe on a phone too."""
    from playwright.sync_api import expect

    settings.WEREWOLF_POLL_SECONDS = 0.3
    organiser = django_user_model.objects.create_user("organiser", password=PASSWORD)
    names = NAMES + [f"Player{n}" for n in range(17)]
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in names]
    game = services.start_game(
        services.create_game(organiser, name="Projected", seats=seats, ruleset="tabula", options={}, seed=7)
    )
    connections.close_all()
    context = tour.browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    page.goto(f"{tour.base}/g/{game.public_key}/projector/")
    expect(page.locator(".projector-circle li")).to_have_count(24)
    assert page.evaluate("document.documentElement.scrollHeight") <= 1080
    assert page.evaluate("document.documentElement.scrollWidth") <= 1920
    assert violations(page, tour.source) == []
    expect(page.locator("[data-live=phase]")).to_contain_text("0 of 24 cards are in")
    services.submit_order(game, 3, engine.SLEEP_ORDER if seat_roles(game)[3] == "villager" else engine.Order("sleep"))
    connections.close_all()
    expect(page.locator("[data-live=phase]")).to_contain_text("1 of 24 cards are in")
    expect(page.locator("[data-live=seats] li").nth(3)).to_contain_text("card in")
    context.close()

    services.set_large_print(game.players.get(seat=0), True)
    url = links.url_for(game.players.get(seat=0))
    connections.close_all()
    tour.check("seat in large print", "anonymous", url)
    assert not tour.found, "axe found:\n" + json.dumps(tour.found, indent=1)


def test_the_balance_lab_passes_axe(tour: Tour, django_user_model, monkeypatch) -> None:
    """The New game page with the lab's figures, chart and suggestion shown in place, and
    the lab's own page (the button without the page's script), at every width."""
    from werewolf.engine import lab as engine_lab

    monkeypatch.setattr(engine_lab, "FIGURES_SECONDS", 0.2)
    monkeypatch.setattr(engine_lab, "ANSWER_SECONDS", 0.4)
    monkeypatch.setattr(engine_lab, "FEWEST", 40)
    django_user_model.objects.create_user("organiser", password=PASSWORD)

    def figures(page: Any) -> None:
        page.fill("#id_players", "\n".join(NAMES))
        page.locator("#lab-button").click()
        page.locator("#lab-result [data-lab-figures] table").wait_for()
        if page.locator("#lab-flag").count():
            page.locator("#lab-result [data-lab-change]").wait_for()

    def without_script(page: Any) -> None:
        page.fill("#id_players", "\n".join(NAMES))
        # The button as it is without scripts: a plain submit of the form to the lab.
        page.evaluate("b => b.replaceWith(b.cloneNode(true))", page.locator("#lab-button").element_handle())
        with page.expect_navigation():
            page.locator("#lab-button").click()
        page.locator("[data-lab-figures] table").wait_for()

    tour.check("new game, the balance lab", "organiser", "/games/new/", figures)
    tour.check("the balance lab's page", "organiser", "/games/new/", without_script)


def test_the_replay_passes_axe(tour: Tour, django_user_model) -> None:
    """The replay at each kind of step (the setup, a night, a day's votes, the end), on a
    projector too, a Lupusburg game's ring among them; and the dashboard's switch."""
    from tests.web.test_replay import play

    organiser = django_user_model.objects.create_user("organiser", password=PASSWORD)
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES]
    game = services.start_game(
        services.create_game(organiser, name="Replayed", seats=seats, options={"wolves": 2, "seers": 1}, seed=5)
    )
    services.resolve_now(game)  # nobody's card: the moderator's events
    game = play(game)
    lupusburg = services.start_game(
        services.create_game(organiser, name="Burg", seats=seats[:5], options={}, ruleset="lupusburg-goals", seed=4)
    )
    lupusburg = play(lupusburg, seed=4)
    connections.close_all()
    replay = f"/g/{game.public_key}/replay/"
    tour.check("dashboard, the replay's switch", "organiser", f"/games/{game.pk}/")
    tour.check("replay, setup", "anonymous", replay + "?step=0")
    tour.check("replay, a night", "anonymous", replay + "?step=1")
    tour.check("replay, a day's votes", "anonymous", replay + "?step=2")
    tour.check("replay, the end", "anonymous", replay)
    tour.check("replay on a projector", "anonymous", replay + "?step=2&projector=1")
    tour.check("lupusburg replay, the ring", "anonymous", f"/g/{lupusburg.public_key}/replay/?step=3")
    tour.check("lupusburg replay on a projector", "anonymous", f"/g/{lupusburg.public_key}/replay/?projector=1")
    assert not tour.found, "axe found:\n" + json.dumps(tour.found, indent=1)


def test_the_replay_on_a_projector_reads_at_phone_width_as_well_as_the_page(tour: Tour, django_user_model) -> None:
    """The replay's projector mode at phone width, every step of a game whose names make
    the cards table scroll sideways: axe finds nothing (its heading order included), and
    the table is reached by the keyboard and scrolled by it."""
    from tests.web.test_replay import play
    from werewolf.games import replay

    organiser = django_user_model.objects.create_user("organiser", password=PASSWORD)
    long_names = [
        *("Massimiliano", "Bartolomeo", "Gianfranco", "Annunziata", "Ermenegildo"),
        *("Filiberto", "Genoveffa", "Leopoldina", "Cristoforo"),
    ]
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in long_names]
    game = services.start_game(
        services.create_game(organiser, name="Projected", seats=seats, options={"wolves": 2, "seers": 1}, seed=5)
    )
    game = play(game)
    steps = len(replay.story(Game.objects.get(pk=game.pk)))
    connections.close_all()
    scrolled = 0
    for step in range(steps):
        where = f"replay on a projector, step {step} (phone)"
        page = tour.context("anonymous", "phone").new_page()
        page.goto(f"{tour.base}/g/{game.public_key}/replay/?step={step}&projector=1")
        problems = violations(page, tour.source)
        problems += page.evaluate(
            "rules => axe.run(document, {runOnly: {type: 'rule', values: rules}})"
            ".then(r => r.violations.map(v => v.id))",
            ["heading-order"],
        )
        table = page.locator(".table-responsive")
        if table.count() and table.evaluate("e => e.scrollWidth > e.clientWidth"):
            for _ in range(40):
                page.keyboard.press("Tab")
                if page.evaluate("document.activeElement.classList.contains('table-responsive')"):
                    break
            else:
                problems.append("the cards table is out of the keyboard's reach")
            before = page.url
            page.keyboard.press("ArrowRight")  # scrolls the table, not on to the next step
            page.wait_for_timeout(500)  # (a smooth scroll, or a navigation)
            if page.url != before:
                problems.append("the arrow key in the cards table goes on to the next step")
            elif not table.evaluate("e => e.scrollLeft > 0"):
                problems.append("the arrow keys do not scroll the cards table")
            else:
                scrolled += 1
        if problems:
            tour.found[where] = problems
        page.close()
    assert scrolled, "no step's cards table scrolled sideways: this game tests nothing"
    assert not tour.found, "axe found:\n" + json.dumps(tour.found, indent=1)
