from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "werewolf.games"
    label = "games"
    verbose_name = _("Games")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from werewolf import csrf  # noqa: F401  (registers the CSRF middleware check)

        from . import outbox  # noqa: F401  (registers the check that the mail app gave one)
