"""Whether this process may take players' mail: the doors (`receive_mail`,
`mail_server`) refuse to start when the settings say they would answer players on the
console, take orders for an address nobody configured, or put the built-in site address
in their links on a site that set another (a process started without the app's
settings: see WEREWOLF_ENV_FILE). The reasons are for the organiser's terminal or
the mail log, never for a player."""

from __future__ import annotations

import grp
import os
import pwd
import sys
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from werewolf.site import address

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
    refused = address.refusal()
    if refused:
        found.append(refused)
    return found


@dataclass(frozen=True)
class Access:
    """What `user` may not do to `path` that the pipe needs: `need` is "user" (no such
    user), "reach" (a directory on the way it may not enter), "read", "write" or "run"."""

    need: str
    path: str


def access_problems(user: str) -> list[Access]:
    """What the pipe, run by the mail system as `user`, could not read, write or run:
    the env file, the secret key, the SQLite database and its directory, its log, the
    interpreter (a .venv made from an interpreter in root's home) and manage.py. Worked
    out from the files' owners and modes, whoever asks."""
    try:
        account = pwd.getpwnam(user)
    except KeyError:
        return [Access("user", user)]
    groups = {account.pw_gid, *(group.gr_gid for group in grp.getgrall() if user in group.gr_mem)}
    found: list[Access] = []

    def allowed(path: Path, bit: int) -> bool:
        try:
            status = path.stat()
        except OSError:
            return False
        if account.pw_uid == 0:
            return bit != 1 or bool(status.st_mode & 0o111)
        if status.st_uid == account.pw_uid:
            return bool(status.st_mode & (bit << 6))
        if status.st_gid in groups:
            return bool(status.st_mode & (bit << 3))
        return bool(status.st_mode & bit)

    def reaches(path: Path) -> bool:
        for directory in reversed(path.parents):
            if not allowed(directory, 1):
                found.append(Access("reach", str(directory)))
                return False
        return True

    def need(path: Path, what: str) -> None:
        bit = {"read": 4, "write": 2, "run": 1}[what]
        if reaches(path) and not allowed(path, bit):
            found.append(Access(what, str(path)))

    def writable(path: Path) -> None:
        """A file the pipe writes, or makes in its directory if it is not there yet."""
        if path.exists():
            need(path, "write")
        need(path.parent, "write")

    if settings.ENV_FILE is not None:
        need(Path(settings.ENV_FILE), "read")
    key = Path(settings.VAR_DIR) / "secret_key"
    if key.exists():
        need(key, "read")
    database = settings.DATABASES["default"]
    if database["ENGINE"].endswith("sqlite3"):
        writable(Path(database["NAME"]))
    writable(Path(os.environ.get("WEREWOLF_MAIL_LOG", Path(settings.VAR_DIR) / "receive_mail.log")))
    interpreter = Path(sys.executable)
    need(interpreter, "run")
    real = interpreter.resolve()
    if real != interpreter:
        need(real, "run")
    need(Path(settings.BASE_DIR) / "manage.py", "read")
    return list(dict.fromkeys(found))
