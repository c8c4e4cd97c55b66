#!/usr/bin/env python
import os
import sys
from datetime import UTC

EX_TEMPFAIL = 75  # sysexits: the mail system keeps the message and tries again


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "werewolf.settings")
    if sys.argv[1:2] == ["receive_mail"]:
        sys.exit(receive_mail(sys.argv))
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


def receive_mail(argv: list[str]) -> int:
    """`manage.py receive_mail`, as a mail system's pipe runs it. The mail system bounces
    a message whose command fails with anything but 75, and puts what the command printed
    into the bounce, for the sender to read: so what happened goes to the log
    (WEREWOLF_MAIL_LOG or var/receive_mail.log, else syslog), and any failure before the
    message is stored, even one loading the settings (an unreadable secret key, a
    database that is down), exits 75: the mail system keeps the message and tries again,
    and shows the one line said on stderr (why, and whether the log could not be
    written) in its deferral. A stored message prints nothing."""
    import contextlib
    import io
    import traceback

    printed = io.StringIO()
    code = EX_TEMPFAIL
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            from django.core.management import execute_from_command_line

            execute_from_command_line(argv)
        code = 0
    except SystemExit as exit:
        code = 0 if exit.code in (0, None) else EX_TEMPFAIL
    except BaseException:
        traceback.print_exc(file=printed)
    unlogged = _log_quietly(printed.getvalue(), code)
    if code != 0:
        # The mail system keeps the message and shows this line in its deferral
        # (`postqueue -p`, the mail log): why, in one line, never a traceback.
        lines = [line.strip() for line in printed.getvalue().strip().splitlines() if line.strip()]
        reason = lines[-1] if lines else "unknown failure"
        sys.stderr.write(f"receive_mail: the message was not stored (tried again later): {reason[:300]}\n")
    if unlogged:
        sys.stderr.write(f"receive_mail: {unlogged[:300]}\n")
    return code


def _log_quietly(text: str, code: int) -> str:
    """Write the outcome to the pipe's log; "" if it was, else why not (the outcome
    then goes to syslog, if it can)."""
    from datetime import datetime

    line = f"{datetime.now(UTC).isoformat()} receive_mail exit {code}: {text.strip()}\n"
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(os.environ.get("WEREWOLF_VAR_DIR", os.path.join(here, "var")), "receive_mail.log")
    path = os.environ.get("WEREWOLF_MAIL_LOG", default)
    try:
        with open(path, "a", encoding="utf-8") as log:
            log.write(line)
        return ""
    except OSError as failure:
        try:
            import syslog

            syslog.syslog(syslog.LOG_MAIL | (syslog.LOG_INFO if code == 0 else syslog.LOG_ERR), line[:4000])
        except Exception:
            pass
        return f"cannot write its log {path} ({failure.strerror}): give the user it runs as that file and directory"


if __name__ == "__main__":
    main()
