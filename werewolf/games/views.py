"""Thin views: read with selectors, write with services, words in templates."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from werewolf import engine, limits
from werewolf.engine import grammar
from werewolf.engine.grammar import CardError, read_card

from . import (
    access,
    attendance,
    cards,
    links,
    middleware,
    polls,
    retention,
    selectors,
    services,
    standby_views,
    standbys,
    talk,
    validators,
)
from .absences import of_game as absences_of
from .forms import (
    AssignRolesForm,
    DemoForm,
    ExtendForm,
    GameForm,
    NotecardForm,
    PaperCardsForm,
    SignupForm,
    StandbyJoinForm,
    SubstituteForm,
    words,
)
from .models import Dispatch, Game, Order, Phase, Player
from .templatetags.werewolf import own

DEMO_FIXTURE = Path(settings.BASE_DIR) / "fixtures" / "demo.json"
_PUBLIC_KEY = re.compile(r"[A-Za-z0-9_-]{1,32}")
"""What a public page's key looks like (secrets.token_urlsafe): PostgreSQL refuses a NUL."""

DONE = {
    "created": _("The game is set up. Nobody has been mailed yet: check it, then start it."),
    "saved": _("The game is saved."),
    "deleted": _("The game “%(name)s” was deleted."),
    "started": _("The game has started: the seats are drawn, the roles dealt, and the players mailed their links."),
    "extended": _("The deadline is %(minutes)s minutes later."),
    "resolved": _("The phase is resolved."),
    "ended": _("The game is over: every role is revealed."),
    "series": _(
        "Game %(number)s of the series is set up with the same players and options. Nobody has been mailed yet: "
        "check it, then start it."
    ),
    "mailed": _("The link is on its way to %(name)s again."),
    "resumed": _("Mail goes to %(name)s again. Mails held meanwhile are listed below: send again the ones they need."),
    "substituted": _("%(name)s now plays seat %(seat)s; the old link no longer opens it."),
    "substituted_mailed": _(
        "%(name)s now plays seat %(seat)s and is mailed a new link; the old link no longer opens it."
    ),
    "entered": _("%(name)s's card is in."),
    "not_a_draft": _("This game has started: it can no longer be changed or deleted."),
    "running": _("This game is running: it can be deleted once it is over."),
    "addresses_removed": _("The players' mail addresses are removed; the record and the names stay."),
}
"""What the organiser is told after an action went through (shown by base.html)."""


# Organiser pages ---------------------------------------------------------------------


def home(request: HttpRequest) -> HttpResponse:
    """The organiser's games; each offers Delete only where `access` lets this account
    delete it (its organiser, not a co-organiser)."""
    games = list(access.games_of(request.user))
    owned = {game.pk for game in games if access.may(request.user, game, access.Action.OWN)}
    return render(request, "games/home.html", {"games": games, "owned": owned, "demo_form": DemoForm()})


@login_required
@require_http_methods(["GET", "POST"])
def create(request: HttpRequest) -> HttpResponse:
    form = GameForm(request.POST or None, organiser=request.user, initial=_new_game_defaults(request.user))
    form.helper.form_id = "game-form"  # the balance lab's button submits it from outside
    if request.method == "POST" and form.is_valid():
        game = services.create_game(request.user, **_game_settings(form.cleaned_data))
        _signup_as_asked(game, form.cleaned_data)
        messages.success(request, DONE["created"])
        _advise(request, form)
        return redirect("games:dashboard", pk=game.pk)
    return render(request, "games/game_form.html", {"form": form, "rulesets": _introductions()})


@login_required
@require_http_methods(["GET", "POST"])
def edit(request: HttpRequest, pk: int) -> HttpResponse:
    """Change a game that has not started, in the form that set it up."""
    game = _organised(request, pk)
    if game.status != Game.Status.DRAFT:
        messages.error(request, DONE["not_a_draft"])
        return redirect("games:dashboard", pk=pk)
    form = GameForm(
        request.POST or None,
        initial=GameForm.initial_for(game),
        submit_label=_("Save the game"),
        organiser=game.organiser,
    )
    if request.method == "POST" and form.is_valid():
        try:
            game = services.update_draft(game, **_game_settings(form.cleaned_data))
            _signup_as_asked(game, form.cleaned_data)
        except services.ServiceError:
            messages.error(request, DONE["not_a_draft"])
        else:
            messages.success(request, DONE["saved"])
            _advise(request, form)
        return redirect("games:dashboard", pk=pk)
    return render(request, "games/game_form.html", {"form": form, "game": game})


def _introductions() -> list[dict[str, Any]]:
    """Each ruleset family's introduction on the New game form (its own template,
    `rulesets/<family>/games/intro.html`), with the players it takes across its editions,
    in the order the form lists the rulesets."""
    families: dict[str, dict[str, Any]] = {}
    for ruleset in engine.listed():  # in the form's order
        rules = engine.rulesets.get(ruleset)
        family = rules.capabilities.family
        known = families.setdefault(
            family,
            {
                "introduction": own(ruleset, "games/intro.html"),
                "least": rules.min_players,
                "most": rules.max_players,
            },
        )
        known["least"] = min(known["least"], rules.min_players)
        known["most"] = max(known["most"], rules.max_players)
    return list(families.values())


def _new_game_defaults(user: Any) -> dict[str, str]:
    """A new game starts in the organiser's time zone and language, as their profile
    (werewolf.accounts) gives them, once they have saved one."""
    profile = getattr(user, "organiser_profile", None)
    return {"timezone": profile.timezone, "language": profile.language} if profile is not None else {}


def _advise(request: HttpRequest, form: GameForm) -> None:
    """The rulebook's advice on what the organiser chose, taken all the same."""
    for advice in form.cleaned_data.get("advice", ()):
        messages.warning(request, advice)


@login_required
@require_http_methods(["GET", "POST"])
def delete(request: HttpRequest, pk: int) -> HttpResponse:
    """Delete a game that has not started, or one that is over (or keep its record with
    the players' addresses removed): a page that asks, and its POST that does. A running
    game is neither: it still mails its players."""
    game = _organised(request, pk, access.Action.OWN)
    if game.status not in (Game.Status.DRAFT, *retention.OVER):
        messages.error(request, DONE["running"])
        return redirect("games:dashboard", pk=pk)
    if request.method == "POST":
        try:
            if request.POST.get("action") == "forget_addresses":
                retention.forget_addresses(game)
                messages.success(request, DONE["addresses_removed"])
                return redirect("games:dashboard", pk=pk)
            if game.status == Game.Status.DRAFT:
                services.delete_draft(game)
            else:
                retention.delete_finished(game)
        except (services.ServiceError, retention.StillRunning):
            messages.error(request, DONE["running"])
            return redirect("games:dashboard", pk=pk)
        messages.success(request, DONE["deleted"] % {"name": game.name})
        return redirect("games:home")
    return render(request, "games/delete.html", {"game": game, "players": game.players.order_by("pk")})


def _game_settings(data: dict[str, Any]) -> dict[str, Any]:
    """The game form's answers, as `services.create_game` and `update_draft` take them."""
    return {
        "name": data["name"],
        "seats": data["players"],
        "options": data["options"],
        "ruleset": data.get("ruleset") or engine.listed()[0],
        "stage_minutes": data.get("stage_minutes") or {},
        "timezone_name": data["timezone"],
        "night_minutes": data["night_minutes"],
        "day_minutes": data["day_minutes"],
        "early_resolution": data["early_resolution"],
        "draw_seats": data["seating"] == "draw",
        "deal_roles": data["dealing"] == "deal",
        "public_square": bool(data.get("public_square")),
        "expected_players": data.get("expected_players"),
        "language": data.get("language") or "en",
    }


def _signup_as_asked(game: Game, data: dict[str, Any]) -> None:
    """Open or close the sign-up by a link as the game form asks."""
    if data.get("signup"):
        services.open_signup(game, data.get("signup_limit"))
    elif game.signup_key:
        services.close_signup(game)


def _reminded(game: Game) -> set[int]:
    """The players reminded that their card for the open phase is not in."""
    phase = game.current_phase() if game.is_running else None
    if phase is None:
        return set()
    return set(phase.dispatches.filter(kind=Dispatch.Kind.REMINDER).values_list("player_id", flat=True))


def _extend_form(game: Game) -> ExtendForm:
    phase = game.current_phase() if game.is_running else None
    return ExtendForm(initial={"phase": phase.index if phase else None})


def _posted_phase(request: HttpRequest) -> int | None:
    """The index of the phase the organiser's page showed, if the form carried it; a
    mangled one refuses the action (`stale_form`) rather than act on whatever is open."""
    value = request.POST.get("phase", "")
    index = validators.ascii_number(value)
    if value and index is None:
        raise services.ServiceError("stale_form")
    return index


@login_required
@require_http_methods(["GET", "POST"])
def dashboard(request: HttpRequest, pk: int) -> HttpResponse:
    game = _organised(request, pk)
    error = None
    extend_form = _extend_form(game)
    roles_form = AssignRolesForm(game=game) if game.status == Game.Status.DRAFT and not game.deal_roles else None
    if request.method == "POST":
        action = request.POST.get("action")
        try:
            if action == "assign" and roles_form is not None:
                roles_form = AssignRolesForm(request.POST, game=game)
                if roles_form.is_valid():
                    try:
                        services.assign_deal(game, roles_form.hands(), roles_form.mark())
                        return redirect("games:dashboard", pk=pk)
                    except engine.SetupError as refused:
                        roles_form.refuse(refused)
            elif action == "start":
                services.start_game(game)
                messages.success(request, DONE["started"])
            elif action == "extend":
                extend_form = ExtendForm(request.POST)
                if extend_form.is_valid():
                    data = extend_form.cleaned_data
                    services.extend_deadline(game, data["minutes"], data["phase"])
                    messages.success(request, DONE["extended"] % {"minutes": data["minutes"]})
                    return redirect("games:dashboard", pk=pk)
            elif action == "resolve":
                if services.resolve_now(game, _posted_phase(request)):
                    messages.success(request, DONE["resolved"])
            elif action == "resend":
                services.send_mail_again(game, validators.ascii_number(request.POST.get("dispatch", "")))
            elif action == "end":
                services.end_game(game)
                messages.success(request, DONE["ended"])
            elif action == "next_in_series":
                following = services.next_in_series(game, game.organiser)
                messages.success(request, DONE["series"] % {"number": following.series_number})
                return redirect("games:dashboard", pk=following.pk)
            elif action == "resume_mail":
                seat = validators.ascii_number(request.POST.get("seat", ""))
                player = get_object_or_404(Player, game=game, seat=-1 if seat is None else seat)
                services.resume_mail(player)
                messages.success(request, DONE["resumed"] % {"name": player.name})
            elif action == "remove_signup":
                services.remove_signup(game, validators.ascii_number(request.POST.get("player", "")))
            elif action == "mail_link":
                seat = validators.ascii_number(request.POST.get("seat", ""))
                player = get_object_or_404(Player, game=game, seat=-1 if seat is None else seat)
                services.mail_link_again(player)
                messages.success(request, DONE["mailed"] % {"name": player.name})
            if not extend_form.is_bound and not (roles_form and roles_form.is_bound):
                return redirect("games:dashboard", pk=pk)
        except services.ServiceError as refusal:
            error = refusal
            extend_form = _extend_form(game)
        game.refresh_from_db()
    context = selectors.dashboard_context(game)
    context.update(
        {
            "extend_form": extend_form,
            "roles_form": roles_form,
            "error": error,
            "public_url": _public_url(game),
            "join_url": settings.SITE_URL + reverse("games:join", args=[game.signup_key]) if game.signup_key else "",
            "pending": game.players.filter(pending=True).count() if game.signup_key else 0,
            "reminded": _reminded(game),
            "entered": validators.ascii_number(request.GET.get("entered", "")),
            "owner": access.may(request.user, game, access.Action.OWN),
            "keep_days": int(settings.WEREWOLF_KEEP_ADDRESSES_DAYS),
            **standby_views.panel(game),  # the missed-cards policy, the late list, the standbys
            "absences": absences_of(game) if game.is_running else [],
        }
    )
    return render(request, "games/dashboard.html", context, status=400 if error else 200)


@login_required
@require_http_methods(["GET", "POST"])
def seat_card(request: HttpRequest, pk: int, seat: int) -> HttpResponse:
    """The organiser opens one seat's card, and may write one on the player's behalf."""
    game = _organised(request, pk)
    player = get_object_or_404(Player, game=game, seat=seat)
    phase = game.current_phase() if game.is_running else None
    slot = engine.phase(game.engine_state).asks(seat) if phase else None
    names = selectors.names(game)
    form, error, handed = None, None, False
    if slot is not None and phase is not None:
        form, error, handed = _hand_in(
            request,
            game,
            seat,
            slot,
            phase,
            names,
            submit="enter",
            source=Order.Source.MODERATOR,
            entered_by=request.user,
        )
        if handed:
            messages.success(request, DONE["entered"] % {"name": player.name})
            return redirect("games:dashboard", pk=pk)
    context = {
        "game": game,
        "player": player,
        "phase": phase,
        "slot": slot,
        "form": form,
        "error": error,
        "names": names,
        "viewer": engine.MODERATOR,
        "history": selectors.card_history(phase, seat) if phase else [],
    }
    return render(request, "games/seat_card.html", context, status=400 if error else 200)


@login_required
@require_http_methods(["GET", "POST"])
def paper_cards(request: HttpRequest, pk: int) -> HttpResponse:
    """The organiser types in a pile of paper notecards, one line a seat."""
    game = _organised(request, pk)
    phase = game.current_phase() if game.is_running else None
    if phase is None:
        return redirect("games:dashboard", pk=pk)
    spec = engine.phase(game.engine_state)
    names = selectors.names(game)
    handed = selectors.cards_in(phase)
    rows = [(seat, f"{seat + 1}. {names[seat]}", _card_status(handed[seat])) for seat in sorted(spec.slots)]
    form = PaperCardsForm(
        request.POST or None, seats=rows, initial={"phase": phase.pk}, submit_label=_("Hand in these cards")
    )
    verbs = _verbs(game, spec)
    error = None
    if request.method == "POST" and form.is_valid():
        # One pass: every line is read, and every line that reads is checked against the
        # rules, so the organiser sees all the faulty lines at once.
        state = game.engine_state
        cards = {}
        for seat, text in form.card_texts():
            try:
                card = read_card(text, names, spec.asks(seat), game.ruleset)
            except CardError as problem:
                form.add_error(f"seat_{seat}", _paper_card_error(game, names, seat, verbs, reading=problem))
                continue
            checked = engine.validate(state, seat, card)
            if isinstance(checked, engine.OrderError):
                refusal = services.OrderRefused(checked)
                form.add_error(f"seat_{seat}", _paper_card_error(game, names, seat, verbs, refusal=refusal))
            else:
                cards[seat] = card
        if not form.errors and cards:
            try:
                services.submit_orders(
                    game,
                    cards,
                    phase_id=form.cleaned_data["phase"],
                    source=Order.Source.MODERATOR,
                    entered_by=request.user,
                )
                return redirect(reverse("games:dashboard", args=[pk]) + f"?entered={len(cards)}")
            except services.CardsRefused as refused:
                for seat, refused_card in refused.errors.items():
                    form.add_error(f"seat_{seat}", _paper_card_error(game, names, seat, verbs, refusal=refused_card))
            except services.ServiceError as refusal:
                error = refusal
    context = {"game": game, "phase": phase, "form": form, "error": error, "names": names, "verbs": verbs}
    return render(request, "games/paper_cards.html", context, status=400 if error or form.errors else 200)


def _verbs(game: Game, spec: engine.PhaseSpec) -> list[grammar.Verb]:
    """The notecard words the open phase asks for, from its cards' schemas: only this
    game's variants, and SLEEP wherever a card may do nothing."""
    return grammar.verbs(grammar.slot_cards(spec.slots.values()), game.ruleset)


def _paper_card_error(
    game: Game,
    names: list[str],
    seat: int,
    verbs: list[grammar.Verb],
    *,
    reading: CardError | None = None,
    refusal: services.ServiceError | None = None,
) -> str:
    """Why one line of the paper cards was refused, in words for the organiser (the
    game's family's words: its refusals are its own)."""
    context = {"game": game, "names": names, "writer": names[seat], "verbs": verbs}
    context |= {"reading": reading, "refusal": refusal}
    return words("games/paper_card_error.html", {**context, "organiser": True})


def _card_status(handed_in: bool) -> str:
    return words("includes/card_status.html", {"handed_in": handed_in})


@login_required
@require_http_methods(["GET", "POST"])
def substitute(request: HttpRequest, pk: int, seat: int) -> HttpResponse:
    game = _organised(request, pk)
    player = get_object_or_404(Player, game=game, seat=seat)
    others = list(game.players.exclude(pk=player.pk).values_list("name", flat=True))
    form = SubstituteForm(request.POST or None, taken=others)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        # The same person at a fixed address keeps their days away; another does not.
        new_person = validators.notecard_key(data["name"]) != validators.notecard_key(player.name)
        player = services.substitute_player(player, name=data["name"], email=data["email"], new_person=new_person)
        done = DONE["substituted_mailed"] if data["email"] and game.is_running else DONE["substituted"]
        messages.success(request, done % {"name": player.name, "seat": seat + 1})
        return redirect("games:dashboard", pk=pk)
    return render(request, "games/substitute.html", {"game": game, "player": player, "form": form})


@login_required
@require_GET
def export(request: HttpRequest, pk: int) -> HttpResponse:
    game = _organised(request, pk)
    response = JsonResponse(selectors.export(game), json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="game-{game.pk}.json"'
    return response


@login_required
@require_POST
def demo(request: HttpRequest) -> HttpResponse:
    form = DemoForm(request.POST)
    if not form.is_valid():
        return redirect("games:home")
    fixture = json.loads(DEMO_FIXTURE.read_text())
    you = form.cleaned_data["name"].strip()
    if you.casefold() in ("", "you", "me", "i", "myself"):
        # The events name every seat in the third person ("... was lynched"): a
        # pronoun there reads wrong, so the demo seat gets a real name instead.
        you = fixture["your_name"]
    bots = [name for name in fixture["bots"] if name.casefold() != you.casefold()][: fixture["players"] - 1]
    player = services.start_demo(
        request.user,
        name=fixture["name"],
        you=you,
        bot_names=bots,
        night_minutes=fixture["night_minutes"],
        day_minutes=fixture["day_minutes"],
        early_resolution=fixture["early_resolution"],
    )
    path = links.url_for(player, absolute=False)
    if path is None:
        raise RuntimeError("start_demo gave the organiser's seat no link")
    return redirect(path)


def speak(request: HttpRequest, game: Game) -> None:
    """The rest of the request in the game's language: what its players read (its pages,
    and its documents: werewolf/printing/views.py). The page then offers no switch of the
    site's language (it would not change this page)."""
    translation.activate(game.language)
    request.game_language = game.language  # type: ignore[attr-defined]


def _organised(request: HttpRequest, pk: int, action: access.Action | None = None) -> Game:
    """The game an organiser's page is about, if this visitor may do what the request does
    to it: look (GET) or run it (POST), unless the view names the action. Else 404."""
    if action is None:
        action = access.Action.VIEW if request.method in ("GET", "HEAD") else access.Action.RUN
    return access.game_for(request.user, pk, action)


def _public_url(game: Game) -> str:
    return settings.SITE_URL + reverse("games:public", args=[game.public_key])


# Player pages ------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def seat(request: HttpRequest, token: str) -> HttpResponse:
    """A player's page. GET never changes anything: mail scanners open links too."""
    if request.method == "POST":
        # A card that goes in costs one or two statements on PostgreSQL (`cards.hand_in`),
        # by the same rules as the way below (`acceptance`), which says why any other is
        # refused.
        handed_in = cards.hand_in(token, request.POST)
        if handed_in is not None:
            # The seat's page, which then tells whether the phase the card was for is still
            # open or whether this card ended it (not redirect(), which would first try the
            # path as a view's name).
            return HttpResponseRedirect(f"{request.path}?handed={handed_in.index}")
    try:
        player = links.player_for(token)
    except links.LinkError as problem:
        return link_error(request, problem)
    speak(request, player.game)
    seat = player.occupied_seat
    card = selectors.seat_card(player)  # a card handed in needs this, not the whole page
    slot, phase = card["slot"], card["phase"]
    form, error = None, None
    if slot is not None:
        form, error, handed = _hand_in(request, player.game, seat, slot, phase, card["names"], submit="hand_in")
        if handed:
            # The phase the card was for: the page then tells whether it is still open,
            # or whether this card ended it (the last card in, a majority).
            return redirect(f"{request.path}?handed={phase.index}")
    elif request.method == "POST":
        # Why no card is taken, as precisely as the rules say (a bet already placed, a
        # ghost's ballot): public facts, or facts about this seat only.
        unasked = selectors.unasked(card["state"], seat) if phase else ""
        error = services.ServiceError(
            "game_not_running" if not player.game.is_running else (unasked or "not_asked") if phase else "phase_closed"
        )
    handed_index = validators.ascii_number(request.GET.get("handed", ""))
    handed_phase = None
    if handed_index is not None and error is None:
        handed_phase = next((known for known in selectors.phases(player.game) if known.index == handed_index), None)
    still_open = handed_phase is not None and phase is not None and handed_phase.pk == phase.pk
    context = selectors.seat_context(player, card)
    newest = selectors.newest_card(phase, seat) if still_open else None
    context.update(
        {
            "form": form,
            "error": error,
            "handed": still_open,
            # An instant card (a Lupusburg bet) acted when it went in: it is not changed.
            "handed_at_once": newest is not None and newest[2] is not None,
            "handed_phase": handed_phase if handed_phase is not None and not still_open else None,
            # Why no card is asked (a ghost in a ballot, a suspect): public facts only.
            "unasked": selectors.unasked(card["state"], seat) if phase and slot is None else "",
            "policy": attendance.policy_of(player.game),  # the missed-cards policy, shown to every seat
        }
    )
    return render(
        request, "games/seat.html", context, status=400 if error or (form is not None and form.errors) else 200
    )


def _hand_in(
    request: HttpRequest,
    game: Game,
    seat: int,
    slot: engine.Slot,
    phase: Phase,
    names: list[str],
    *,
    submit: str,
    source: str = Order.Source.WEB,
    entered_by: Any = None,
) -> tuple[NotecardForm, services.ServiceError | None, bool]:
    """The notecard form for a seat, starting from its counted card, and on POST the card
    handed in: the form, the refusal if any, and whether the card went in."""
    posted = request.method == "POST"
    form = NotecardForm(
        request.POST or None,
        slot=slot,
        names=names,
        seat=seat,
        # A posted form shows what was posted: the counted card is not read for it.
        initial=NotecardForm.initial_for(phase.pk, None if posted else selectors.card_of(phase, seat), slot),
        submit=submit,
        ruleset=game.ruleset,
    )
    if not posted or not form.is_valid():
        return form, None, False
    try:
        services.submit_order(
            game, seat, form.order(), phase_id=form.cleaned_data["phase"], source=source, entered_by=entered_by
        )
    except services.ServiceError as refusal:
        form.refused("card-error")
        return form, refusal, False
    return form, None, True


@require_GET
def seat_version(request: HttpRequest, token: str) -> JsonResponse:
    version = polls.seat_version(token)  # one statement on PostgreSQL, else None
    if version is not None:
        return JsonResponse({"version": version})
    try:
        player = links.player_for(token)
    except links.LinkError:
        return JsonResponse({"version": None}, status=404)
    return JsonResponse({"version": selectors.version(player.game, player.occupied_seat)})


def public_game(key: str) -> Game:
    """The game whose public key is `key` (its public page, projector and replay), or 404."""
    if not _PUBLIC_KEY.fullmatch(key):
        raise Http404
    return get_object_or_404(Game, public_key=key)


@require_GET
def public(request: HttpRequest, key: str) -> HttpResponse:
    game = public_game(key)
    speak(request, game)
    return render(request, "games/public.html", selectors.public_context(game))


@require_GET
def public_version(request: HttpRequest, key: str) -> JsonResponse:
    version = polls.public_version(key) if _PUBLIC_KEY.fullmatch(key) else None  # one statement on PostgreSQL
    if version is not None:
        return JsonResponse({"version": version})
    game = public_game(key)
    return JsonResponse({"version": selectors.version(game, engine.PUBLIC)})


# Talk ---------------------------------------------------------------------------------


def _talk_refused(
    request: HttpRequest, game: Game, refusal: services.ServiceError, back: str, action: str
) -> HttpResponse:
    """A refused post, on a page of its own: the reason, and the text kept in a form to
    send again (nothing written is lost)."""
    context = {
        "game": game,
        "talk_error": refusal.code,
        "channel": request.POST.get("channel", ""),
        "text": request.POST.get("text", ""),
        "back": back,
        "talk_url": action,
        "max_post": engine.talk.MAX_POST,
        "limited": refusal.params.get("limited"),
    }
    return _limited_or(render(request, "games/talk_refused.html", context, status=400), refusal)


def _limited_or(response: HttpResponse, refusal: services.ServiceError | None) -> HttpResponse:
    """A refusal by a limit answers 429, saying when to try again (Retry-After) too."""
    limited = refusal.params.get("limited") if refusal is not None else None
    if isinstance(limited, limits.Limited):
        response.status_code = 429
        response["Retry-After"] = str(limited.retry_after)
    return response


def link_error(request: HttpRequest, problem: links.LinkError) -> HttpResponse:
    """A seat link that opens nothing: unknown (404) or replaced (410)."""
    status = 404 if problem.code == "unknown" else 410
    return render(request, "games/link_error.html", {"problem": problem.code}, status=status)


@require_POST
def seat_talk(request: HttpRequest, token: str) -> HttpResponse:
    """A seat posts in one of its channels; back to its page, at the talk. A post taken
    costs one statement, or one read and one INSERT (`talk.post_by_link`); a refusal
    reads the game as the seat's page does, to say why in the game's language."""
    try:
        talk.post_by_link(token, request.POST.get("channel", ""), request.POST.get("text", ""))
    except links.LinkError as problem:
        return link_error(request, problem)
    except services.ServiceError as refusal:
        try:
            player = links.player_for(token)
        except links.LinkError as problem:  # replaced meanwhile
            return link_error(request, problem)
        speak(request, player.game)
        return _talk_refused(request, player.game, refusal, reverse("games:seat", args=[token]), request.path)
    return middleware.post_taken(request)


@require_POST
def seat_talk_mail(request: HttpRequest, token: str) -> HttpResponse:
    """A seat chooses how often the talk is mailed to it."""
    try:
        player = links.player_for(token)
    except links.LinkError as problem:
        return link_error(request, problem)
    speak(request, player.game)
    try:
        talk.set_pace(player, request.POST.get("pace", ""))
    except services.ServiceError as refusal:
        return _talk_refused(request, player.game, refusal, reverse("games:seat", args=[token]), "")
    return redirect(reverse("games:seat", args=[token]) + "#talk")


@login_required
@require_POST
def dashboard_talk(request: HttpRequest, pk: int) -> HttpResponse:
    """The organiser posts as the moderator, or hides a post (or shows it again)."""
    game = _organised(request, pk)
    back = reverse("games:dashboard", args=[pk])
    action = request.POST.get("action", "post")
    try:
        if action in ("hide", "show"):
            talk.hide(game, validators.ascii_number(request.POST.get("post", "")), hidden=action == "hide")
        else:
            talk.post(game, None, request.POST.get("channel", ""), request.POST.get("text", ""))
    except services.ServiceError as refusal:
        return _talk_refused(request, game, refusal, back, request.path)
    return redirect(back + "#talk")


@require_POST
def seat_display(request: HttpRequest, token: str) -> HttpResponse:
    """A seat switches large print and high contrast on or off: kept on the seat, so the
    facility's tablet shows it that way whoever opens the link."""
    try:
        player = links.player_for(token)
    except links.LinkError as problem:
        return link_error(request, problem)
    services.set_large_print(player, request.POST.get("large_print") == "on")
    return redirect(reverse("games:seat", args=[token]))


@require_GET
def projector(request: HttpRequest, key: str) -> HttpResponse:
    """The public page for a screen at the front of the room: the circle (alive, dead,
    whose card is in, never what), the phase, the countdown and the latest public news,
    in type read from the back, on one 1920 x 1080 screen."""
    game = public_game(key)
    speak(request, game)
    context = selectors.public_context(game)
    context["projector"] = selectors.projector_context(game, context)
    return render(request, "games/projector.html", context)


# Joining by a link -------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, key: str) -> HttpResponse:
    """The join link: a name and an address ask for a seat; a mail confirms it."""
    # (A running game's join link takes standbys only: games/standbys.py.)
    game = Game.objects.filter(signup_key=key, status__in=standbys.OPEN).first() if _PUBLIC_KEY.fullmatch(key) else None
    if game is None:
        return render(request, "games/join_closed.html", status=404)
    speak(request, game)
    form = StandbyJoinForm(request.POST or None, standby_only=game.is_running)
    error = None
    if request.method == "POST" and form.is_valid():
        email = form.cleaned_data["email"]
        try:
            try:  # each sign-up mails its address: limited per network, address and game
                limits.hit_all(
                    ("join_address", limits.client_address(request)),
                    ("join_email", email.casefold()),
                    ("join_game", key),
                )
            except limits.Limited as limited:
                raise services.ServiceError("limited", limited=limited) from None
            if form.wants_standby():
                standby = standbys.sign_up(key, form.cleaned_data["name"], email)
                return render(request, "games/standby_done.html", {"game": game, "standby": standby})
            player = services.sign_up(key, form.cleaned_data["name"], email)
        except services.ServiceError as refusal:
            error = refusal
        else:
            return render(request, "games/join_done.html", {"game": game, "player": player})
    status = 400 if error or form.errors else 200
    seated = game.players.filter(pending=False).count()
    context = {"game": game, "form": form, "error": error, "seated": seated, "names": []}
    return _limited_or(render(request, "games/join.html", context, status=status), error)


@require_http_methods(["GET", "POST"])
def join_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The link mailed to confirm a sign-up. GET only asks (mail scanners open links);
    the button's POST confirms."""
    try:
        player = links.player_for_signup(token)
    except links.LinkError as problem:
        return render(request, "games/join_closed.html", {"problem": problem.code}, status=404)
    speak(request, player.game)
    error = None
    if request.method == "POST":
        try:
            player = services.confirm_signup(player)
        except services.ServiceError as refusal:
            error = refusal
    context: dict[str, Any] = {
        "game": player.game,
        "player": player,
        "error": error,
        "confirmed": not player.pending,
        "names": [],
    }
    return render(request, "games/join_confirm.html", context, status=400 if error else 200)


@login_required
@require_http_methods(["GET"])
def join_code(request: HttpRequest, pk: int) -> HttpResponse:
    """The join link as a large QR code and in letters, for a screen at the front of the
    room while the sign-up is open."""
    game = _organised(request, pk)
    if not game.signup_key or game.status != Game.Status.DRAFT:
        return redirect(reverse("games:dashboard", args=[pk]) + "#signup")
    join_url = settings.SITE_URL + reverse("games:join", args=[game.signup_key])
    return render(request, "games/join_code.html", {"game": game, "join_url": join_url})


@login_required
@require_POST
def dashboard_signup(request: HttpRequest, pk: int) -> HttpResponse:
    """The organiser opens or closes the sign-up of a game not yet started."""
    game = _organised(request, pk)
    try:
        if request.POST.get("action") == "close_signup":
            services.close_signup(game)
        else:
            form = SignupForm(request.POST)
            limit = form.cleaned_data.get("limit") if form.is_valid() else None
            if not form.is_valid():
                raise services.ServiceError("signup_limit")
            services.open_signup(game, limit)
    except services.ServiceError as refusal:
        refused = {"game": game, "error": refusal, "organiser": True, "names": []}
        messages.error(request, words("includes/service_error.html", refused))
    return redirect(reverse("games:dashboard", args=[pk]) + "#signup")


# Characters an organiser builds from ability blocks (builder.py).


@login_required
@require_GET
def characters(request: HttpRequest) -> HttpResponse:
    """The organiser's characters, each with the rules text its blocks make."""
    from .models import Character

    saved = [(row, row.engine_character) for row in Character.objects.filter(organiser_id=request.user.pk)]
    return render(request, "games/characters.html", {"saved": saved})


@login_required
@require_http_methods(["GET", "POST"])
def character_edit(request: HttpRequest, pk: int | None = None) -> HttpResponse:
    """Build a character, or change one (games that use it keep the definition they
    copied when they were set up)."""
    from .builder import BlockFormSet, CharacterForm, definition, initial_blocks
    from .models import Character

    instance = get_object_or_404(Character, pk=pk, organiser=request.user) if pk is not None else None
    form = CharacterForm(request.POST or None, instance=instance, organiser=request.user)
    blocks = BlockFormSet(
        request.POST or None, prefix="blocks", initial=initial_blocks(instance.definition) if instance else None
    )
    if request.method == "POST" and form.is_valid() and blocks.is_valid():
        raw = definition(form, blocks)
        if raw is not None:
            character = form.save(commit=False)
            character.organiser = request.user
            character.definition = raw
            character.save()
            messages.success(request, _("The character is saved: tick it on a Luna Piena game's form to use it."))
            return redirect("games:characters")
    return render(request, "games/character_form.html", {"form": form, "blocks": blocks, "instance": instance})


@login_required
@require_POST
def character_delete(request: HttpRequest, pk: int) -> HttpResponse:
    from .models import Character

    get_object_or_404(Character, pk=pk, organiser=request.user).delete()
    messages.success(request, _("The character is deleted. Games set up with it keep it."))
    return redirect("games:characters")
