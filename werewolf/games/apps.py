from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "werewolf.games"
    label = "games"
    verbose_name = _("Games")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.utils import autoreload

        from werewolf import (
            csrf,  # noqa: F401  (registers the CSRF middleware check)
            kept_words,
        )

        from . import outbox  # noqa: F401  (registers the check that the mail app gave one)

        # A template or a catalogue edited under the dev server: its kept words forgotten.
        autoreload.file_changed.connect(kept_words.file_changed, dispatch_uid="werewolf_kept_words")
