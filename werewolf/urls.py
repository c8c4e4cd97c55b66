from django.apps import apps
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import include, path, reverse

from werewolf import health
from werewolf.accounts import views as account_views
from werewolf.games import urls as games_urls
from werewolf.printing import urls as printing_urls


def admin_login(request: HttpRequest) -> HttpResponseRedirect:
    """The admin logs in through the site's one log in, and its limits on wrong passwords."""
    return auth_views.redirect_to_login(request.GET.get("next", "/admin/"))


def admin_password_change(request: HttpRequest) -> HttpResponseRedirect:
    """The admin's password change is the site's one (django-allauth's, with the limits on
    wrong passwords of werewolf/accounts/passwords.py)."""
    return HttpResponseRedirect(reverse("account_change_password"))


ACCOUNT_LIMITS = {"account_reset_password": "reset_mail", "account_signup": "signup_address"}
"""The limit a page of django-allauth's answers 429 for, by the page's URL name."""


def handler429(request: HttpRequest) -> HttpResponse:
    """django-allauth's refusal (too many password resets or sign-ups): when to try again,
    at the latest (its count is a sliding window: the end of the longest one)."""
    from werewolf import limits

    match = getattr(request, "resolver_match", None)
    kind = ACCOUNT_LIMITS.get(match.url_name if match else "", "signup_address")
    seconds = limits.rate(kind).seconds
    response = render(request, "429.html", {"limited": limits.Limited(kind, seconds)}, status=429)
    response["Retry-After"] = str(seconds)
    return response


urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("accounts/login/", account_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/", include("werewolf.accounts.urls")),
    # Sign-up with a confirmed address, password reset and change, the account's
    # addresses (django-allauth); the log in above is the site's own, with its limits.
    path("accounts/", include("allauth.urls")),
    path("admin/login/", admin_login),
    path("admin/password_change/", admin_password_change),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    # The games' pages, then their paper's (werewolf/printing/urls.py), in one namespace:
    # the paper's pages keep the names "games:..." that the templates reverse.
    path("", include((games_urls.urlpatterns + printing_urls.urlpatterns, "games"))),
]
if apps.is_installed("anymail"):  # a mail provider's webhooks (WEREWOLF_MAIL_PROVIDER)
    from werewolf.mail import providers

    providers.connect()
    urlpatterns.insert(0, path("mail/provider/", include("anymail.urls")))
