from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    """Organisers' accounts: who may sign up (the site's policy and invitations), their
    profile, and leaving the site with their games. django-allauth does the sign-up, the
    confirmed address and the password reset; this app decides and remembers the rest."""

    name = "werewolf.accounts"
    label = "accounts"
    verbose_name = _("Organisers' accounts")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import signals  # noqa: F401  (an invitation taken up when its account is made)
