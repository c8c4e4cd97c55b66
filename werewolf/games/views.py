"""Thin views: read with selectors, write with services, words in templates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from werewolf import engine
from werewolf.mail.grammar import CardError, read_card

from . import links, selectors, services
from .forms import AssignRolesForm, DemoForm, ExtendForm, GameForm, NotecardForm, PaperCardsForm, SubstituteForm, words
from .models import Game, Order, Phase, Player

DEMO_FIXTURE = Path(settings.BASE_DIR) / "fixtures" / "demo.json"


# Organiser pages ---------------------------------------------------------------------


def home(request: HttpRequest) -> HttpResponse:
    games = Game.objects.filter(organiser=request.user) if request.user.is_authenticated else Game.objects.none()
    return render(request, "games/home.html", {"games": games, "demo_form": DemoForm()})


@login_required
@require_http_methods(["GET", "POST"])
def create(request: HttpRequest) -> HttpResponse:
    form = GameForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        game = services.create_game(
            request.user,
            name=data["name"],
            seats=data["players"],
            options=data["options"],
            timezone_name=data["timezone"],
            night_minutes=data["night_minutes"],
            day_minutes=data["day_minutes"],
            early_resolution=data["early_resolution"],
            draw_seats=data["seating"] == "draw",
            deal_roles=data["dealing"] == "deal",
        )
        return redirect("games:dashboard", pk=game.pk)
    return render(request, "games/game_form.html", {"form": form})


def _extend_form(game: Game) -> ExtendForm:
    phase = game.current_phase() if game.is_running else None
    return ExtendForm(initial={"phase": phase.index if phase else None})


def _posted_phase(request: HttpRequest) -> int | None:
    """The index of the phase the organiser's page showed, if the form carried it."""
    value = request.POST.get("phase", "")
    return int(value) if value.isdigit() else None


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
                        services.assign_roles(game, roles_form.roles(), roles_form.cleaned_data["alpha"])
                        return redirect("games:dashboard", pk=pk)
                    except engine.SetupError as refused:
                        roles_form.refuse(refused)
            elif action == "start":
                services.start_game(game)
            elif action == "extend":
                extend_form = ExtendForm(request.POST)
                if extend_form.is_valid():
                    data = extend_form.cleaned_data
                    services.extend_deadline(game, data["minutes"], data["phase"])
                    return redirect("games:dashboard", pk=pk)
            elif action == "resolve":
                services.resolve_now(game, _posted_phase(request))
            elif action == "end":
                services.end_game(game)
            elif action == "mail_link":
                seat = request.POST.get("seat", "")
                services.mail_link_again(get_object_or_404(Player, game=game, seat=int(seat) if seat.isdigit() else -1))
            if not extend_form.is_bound and not (roles_form and roles_form.is_bound):
                return redirect("games:dashboard", pk=pk)
        except services.ServiceError as refusal:
            error = refusal
            extend_form = _extend_form(game)
        game.refresh_from_db()
    context = selectors.dashboard_context(game)
    context.update(
        {"extend_form": extend_form, "roles_form": roles_form, "error": error, "public_url": _public_url(game)}
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
    if slot is not None:
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
    error = None
    if request.method == "POST" and form.is_valid():
        cards = {}
        for seat, text in form.card_texts():
            try:
                cards[seat] = read_card(text, names, spec.asks(seat))
            except CardError as problem:
                form.add_error(f"seat_{seat}", words("includes/card_error.html", {"error": problem, "names": names}))
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
                for seat, problem in refused.errors.items():
                    form.add_error(
                        f"seat_{seat}", words("includes/service_error.html", {"error": problem, "names": names})
                    )
            except services.ServiceError as refusal:
                error = refusal
    context = {"game": game, "phase": phase, "form": form, "error": error, "names": names}
    return render(request, "games/paper_cards.html", context, status=400 if error or form.errors else 200)


def _card_status(handed_in: bool) -> str:
    return words("includes/card_status.html", {"handed_in": handed_in})


@login_required
@require_http_methods(["GET", "POST"])
def substitute(request: HttpRequest, pk: int, seat: int) -> HttpResponse:
    game = _organised(request, pk)
    player = get_object_or_404(Player, game=game, seat=seat)
    others = [name for name in selectors.names(game) if name != player.name]
    form = SubstituteForm(request.POST or None, taken=others)
    if request.method == "POST" and form.is_valid():
        services.substitute_player(player, name=form.cleaned_data["name"], email=form.cleaned_data["email"])
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
    bots = [name for name in fixture["bots"] if name.casefold() != you.casefold()][: fixture["players"] - 1]
    player = services.start_demo(
        request.user,
        name=fixture["name"],
        you=you,
        bot_names=bots,
        night_minutes=fixture["night_minutes"],
        day_minutes=fixture["day_minutes"],
    )
    return redirect(links.url_for(player, absolute=False))


def _organised(request: HttpRequest, pk: int) -> Game:
    game = get_object_or_404(Game, pk=pk)
    if game.organiser_id != request.user.pk and not request.user.is_superuser:
        raise PermissionDenied
    return game


def _public_url(game: Game) -> str:
    return settings.SITE_URL + reverse("games:public", args=[game.public_key])


# Player pages ------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def seat(request: HttpRequest, token: str) -> HttpResponse:
    """A player's page. GET never changes anything: mail scanners open links too."""
    try:
        player = links.player_for(token)
    except links.LinkError as problem:
        return render(
            request,
            "games/link_error.html",
            {"problem": problem.code},
            status=404 if problem.code == "unknown" else 410,
        )
    context = selectors.seat_context(player)
    slot, phase = context["slot"], context["phase"]
    form, error = None, None
    if slot is not None:
        form, error, handed = _hand_in(
            request, player.game, player.seat, slot, phase, context["names"], submit="hand_in"
        )
        if handed:
            return redirect(request.path + "?handed=1")
    elif request.method == "POST":
        error = services.ServiceError(
            "game_not_running" if not player.game.is_running else "not_asked" if phase else "phase_closed"
        )
    context.update({"form": form, "error": error, "handed": request.GET.get("handed") == "1" and error is None})
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
    form = NotecardForm(
        request.POST or None,
        slot=slot,
        names=names,
        seat=seat,
        initial=NotecardForm.initial_for(phase.pk, selectors.card_of(phase, seat)),
        submit=submit,
    )
    if request.method != "POST" or not form.is_valid():
        return form, None, False
    try:
        services.submit_order(
            game, seat, form.order(), phase_id=form.cleaned_data["phase"], source=source, entered_by=entered_by
        )
    except services.ServiceError as refusal:
        return form, refusal, False
    return form, None, True


@require_GET
def seat_version(request: HttpRequest, token: str) -> JsonResponse:
    try:
        player = links.player_for(token)
    except links.LinkError:
        return JsonResponse({"version": None}, status=404)
    return JsonResponse({"version": selectors.version(player.game, player.seat)})


@require_GET
def public(request: HttpRequest, key: str) -> HttpResponse:
    game = get_object_or_404(Game, public_key=key)
    return render(request, "games/public.html", selectors.public_context(game))


@require_GET
def public_version(request: HttpRequest, key: str) -> JsonResponse:
    game = get_object_or_404(Game, public_key=key)
    return JsonResponse({"version": selectors.version(game, engine.PUBLIC)})
