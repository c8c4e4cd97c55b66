from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "werewolf.games"
    label = "games"
    verbose_name = _("Games")
    default_auto_field = "django.db.models.BigAutoField"
