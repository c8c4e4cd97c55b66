from django.apps import apps
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import include, path

from werewolf import health
from werewolf.games.forms import OrganiserLoginForm


def admin_login(request: HttpRequest) -> HttpResponseRedirect:
    """The admin logs in through the site's one log in, and its limits on wrong passwords."""
    return auth_views.redirect_to_login(request.GET.get("next", "/admin/"))


urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("accounts/login/", auth_views.LoginView.as_view(authentication_form=OrganiserLoginForm), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/login/", admin_login),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("werewolf.games.urls")),
]
if apps.is_installed("anymail"):  # a mail provider's webhooks (WEREWOLF_MAIL_PROVIDER)
    from werewolf.mail import providers

    providers.connect()
    urlpatterns.insert(0, path("mail/provider/", include("anymail.urls")))
