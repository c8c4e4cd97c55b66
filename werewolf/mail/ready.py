"""Whether this process may take players' mail: the doors (`receive_mail`,
`mail_server`) refuse to start when the settings say they would answer players on the
console, or take orders for an address nobody configured (a process started without the
app's settings: see WEREWOLF_ENV_FILE). The reasons are for the organiser's terminal or
the mail log, never for a player."""

from __future__ import annotations

from django.conf import settings

DEFAULT_ORDERS_ADDRESS = "orders@localhost"
CONSOLE_BACKENDS = ("django.core.mail.backends.console.EmailBackend",)


def problems() -> list[str]:
    """What stops this process from taking players' mail, in words for the organiser."""
    found = []
    if not settings.WEREWOLF_MAIL_ORDERS:
        found.append(
            "Orders by mail are off (WEREWOLF_MAIL_ORDERS): no reply would be read. "
            "Set it in the environment or in the env file (WEREWOLF_ENV_FILE)."
        )
    if settings.WEREWOLF_ORDERS_ADDRESS == DEFAULT_ORDERS_ADDRESS:
        found.append(
            f"The orders address is the built-in {DEFAULT_ORDERS_ADDRESS}: this process was started "
            "without the app's settings. Set WEREWOLF_ORDERS_ADDRESS, or point WEREWOLF_ENV_FILE at "
            "the file that holds the settings."
        )
    if settings.EMAIL_BACKEND in CONSOLE_BACKENDS:
        found.append(
            "Mail goes to the console (WEREWOLF_EMAIL is console): the players' answers would be "
            "printed here and never sent. Set WEREWOLF_EMAIL=smtp and its host, or the env file."
        )
    return found
