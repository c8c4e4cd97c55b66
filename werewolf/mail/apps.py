from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MailConfig(AppConfig):
    """The mail side: what the games' mails say and how they are queued and sent, and the
    doors mail comes in by (its management commands). Its rows are the games' models
    (`Dispatch`, `InboundMessage`), so it has no models of its own."""

    name = "werewolf.mail"
    label = "mail"
    verbose_name = _("Mail")

    def ready(self) -> None:
        from werewolf.games import outbox

        from . import outbound, providers  # noqa: F401  (providers registers the webhook check)

        outbox.register(outbound)
