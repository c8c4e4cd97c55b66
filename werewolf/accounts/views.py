"""The organiser's account pages beside django-allauth's: profile, invitations, leaving."""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import get_adapter
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST

from werewolf import limits
from werewolf.games import access, retention, validators
from werewolf.games.forms import words
from werewolf.games.models import Game

from . import invitations
from .forms import DeleteAccountForm, InviteForm, OrganiserLoginForm, ProfileForm
from .models import Invitation, Profile

DONE = {
    "co_organiser": _(
        "An invitation to run this game with you is on its way to %(email)s. They run it once they take it up "
        "with an organiser's account of that address."
    ),
    "saved": _("Your profile is saved."),
    "invited": _("The invitation is on its way to %(email)s."),
    "accepted": _("You now run “%(name)s” with its organiser: it is on your list of games."),
    "deleted": _("Your account and its games are deleted."),
}


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    form = ProfileForm(request.POST or None, instance=Profile.of(request.user))
    if request.method == "POST" and form.is_valid():
        saved = form.save()
        translation.activate(saved.language)
        messages.success(request, DONE["saved"])
        response = redirect("accounts:profile")
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            saved.language,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            secure=settings.SESSION_COOKIE_SECURE,
            samesite="Lax",
        )
        return response
    return render(request, "accounts/profile.html", {"form": form})


def _own_games(user: Any) -> list[Game]:
    """The games `user` may hand a co-organiser (`access`: those it owns), not over yet."""
    games = access.games_of(user).exclude(status__in=retention.OVER).order_by("name")
    return [game for game in games if access.may(user, game, access.Action.OWN)]


@login_required
@require_http_methods(["GET", "POST"])
def invitations_page(request: HttpRequest) -> HttpResponse:
    games = _own_games(request.user)
    asked = request.GET.get("game", "")
    form = InviteForm(request.POST or None, games=games, initial={"game": int(asked) if asked.isdigit() else None})
    status = 200
    if request.method == "POST" and form.is_valid():
        game = next((game for game in games if game.pk == form.cleaned_data["game"]), None)
        email = form.cleaned_data["email"]
        try:
            invitations.invite(
                request.user, email, game, language=Profile.of(request.user).language or translation.get_language()
            )
        except limits.Limited as limited:
            response = render(
                request,
                "accounts/invitations.html",
                {"form": form, "sent": _sent(request), "limited": limited},
                status=429,
            )
            response["Retry-After"] = str(limited.retry_after)
            return response
        messages.success(request, DONE["invited"] % {"email": email})
        return redirect("accounts:invitations")
    return render(request, "accounts/invitations.html", {"form": form, "sent": _sent(request)}, status=status)


def _sent(request: HttpRequest) -> list[Invitation]:
    return list(request.user.invitations_sent.select_related("game", "accepted_by")[:50])  # type: ignore[union-attr]


@require_http_methods(["GET", "POST"])
def invitation(request: HttpRequest, key: str) -> HttpResponse:
    """An invitation's link. Opening it (GET) changes nothing, since mail scanners open
    links too: the page says what it invites to, by whom, and to which address, and its
    button does the rest (POST). Logged in with an account that confirmed that address:
    taken up. Logged out: on to the sign-up with that address (which then needs no
    confirming: the link came to it), or to the log in, which comes back here."""
    found = invitations.find(key)
    if found is None:
        return render(request, "accounts/invitation_gone.html", status=410)
    user: Any = request.user
    adapter = get_adapter(request)
    signup = settings.WEREWOLF_SIGNUP_POLICY in ("open", "invite")
    if request.method == "POST":
        if user.is_authenticated:
            if not invitations.may_accept(found, user):
                return redirect("accounts:invitation", key=key)
            invitations.accept(found, user)
            if found.game is not None:
                messages.success(request, DONE["accepted"] % {"name": found.game.name})
                return redirect("games:dashboard", pk=found.game.pk)
            return redirect("games:home")
        if signup and request.POST.get("next") == "signup":
            request.session[invitations.SESSION_KEY] = key
            adapter.stash_verified_email(request, found.email)
            return redirect(reverse("account_signup") + "?" + urlencode({"email": found.email}))
        return redirect(reverse("login") + "?" + urlencode({"next": request.path}))
    return render(
        request,
        "accounts/invitation.html",
        {
            "invitation": found,
            "inviter": Profile.of(found.invited_by),
            "theirs": user.is_authenticated and invitations.may_accept(found, user),
            "signup": signup,
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def delete_account(request: HttpRequest) -> HttpResponse:
    """Leave the site: the account, its own games (every seat, card and mail of them)
    and its characters go; the games it only co-organised stay with their organisers.
    The password is checked at the one gate (`passwords`): guessing it here counts as at
    the log in."""
    user: Any = request.user
    form = DeleteAccountForm(request.POST or None, user=user, request=request)
    games = list(Game.objects.filter(organiser=user).order_by("name"))
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            for game in games:
                retention.delete_game(game)
            user.delete()
        logout(request)
        messages.success(request, DONE["deleted"])
        return redirect("games:home")
    shared = Game.objects.filter(Q(co_organisers=user)).exclude(organiser=user).distinct()
    response = render(
        request,
        "accounts/delete.html",
        {
            "form": form,
            "games": games,
            "running": [game for game in games if game.is_running],
            "shared": list(shared),
        },
        status=429 if form.limited else 200,
    )
    if form.limited:
        response["Retry-After"] = str(form.limited.retry_after)
    return response


@login_required
@require_POST
def co_organisers(request: HttpRequest, pk: int) -> HttpResponse:
    """Who runs a game, its organiser's choice (`access.Action.OWN`): invite someone by
    address, withdraw an invitation nobody took up, or take a co-organiser's access back.
    Back to the game's dashboard, with what was done or why not."""
    game = access.game_for(request.user, pk, access.Action.OWN)
    action = request.POST.get("action", "")
    if action == "invite":
        try:
            email = invitations.invite_co_organiser(
                game, request.POST.get("who", ""), request.user, language=game.language
            )
        except (invitations.NotAnAddress, limits.Limited) as refusal:
            context = {"who": str(refusal), "limited": refusal if isinstance(refusal, limits.Limited) else None}
            messages.error(request, words("accounts/co_organiser_refused.html", context))
        else:
            messages.success(request, DONE["co_organiser"] % {"email": email})
    elif action == "withdraw":
        invitations.withdraw(game, validators.ascii_number(request.POST.get("invitation", "")))
    elif action == "remove":
        user_id = validators.ascii_number(request.POST.get("user", ""))
        if user_id is not None:
            game.co_organisers.remove(user_id)
    return redirect(reverse("games:dashboard", args=[game.pk]) + "#co-organisers")


class LoginView(auth_views.LoginView):
    """The site's one log in (the admin's too), with its limits on wrong passwords
    (`OrganiserLoginForm`); it offers the sign-up when the site takes anyone's."""

    authentication_form = OrganiserLoginForm

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["signup_open"] = settings.WEREWOLF_SIGNUP_POLICY == "open"
        return context
