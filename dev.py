#!/usr/bin/env python3
"""The two commands of the quick start, on a machine with only Python 3.11+ and pip.

    python3 dev.py run [HOST:PORT]   set everything up and serve the app with a Celery worker
                                     and beat, at HOST:PORT (default 127.0.0.1:8000, or the
                                     WEREWOLF_ADDRESS environment variable); 0.0.0.0:8000
                                     serves every network interface. The links in mail
                                     use it (written to var/site-url for every process)
                                     unless WEREWOLF_SITE_URL is set. Ctrl-C stops it all
    python3 dev.py test [ARGS]       set everything up and run the whole test suite (ARGS go
                                     to pytest)
    python3 dev.py install           set up what `test` needs, and run nothing (CI does this
                                     once before its two test runs side by side)

Both make a virtual environment in .venv and install what the project needs into it
(again only when pyproject.toml changes). `test` (and `install`) also install axe-core (npm),
and Debian's chromium, poppler-utils, gettext, dovecot-imapd and postfix for the browser,
printing, translation, IMAP and Postfix tests, when they are missing and this user may run apt-get.
"""

from __future__ import annotations

import collections
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PYTHON = VENV / "bin" / "python"


HELP = ("-h", "--help", "help")


def main(argv: list[str]) -> int:
    if argv and argv[0] in HELP:
        print(__doc__)
        return 0
    if len(argv) < 1 or argv[0] not in ("run", "test", "install"):
        print(__doc__, file=sys.stderr)
        return 2
    command, rest, address = argv[0], argv[1:], ""
    if command == "run":
        # Everything about the command line is checked before anything is installed.
        if any(arg in HELP for arg in rest):
            print(__doc__)
            return 0
        if len(rest) > 1:
            print(f"dev.py run takes one address, HOST:PORT, not {' '.join(rest)!r}.", file=sys.stderr)
            return 2
        given = rest[0] if rest else os.environ.get("WEREWOLF_ADDRESS", "127.0.0.1:8000")
        parsed = parse_address(given)
        if parsed is None:
            print(
                f"dev.py run: {given!r} is not an address to serve on. Write HOST:PORT, for example "
                "127.0.0.1:8000, or 0.0.0.0:8080 to serve every network interface.",
                file=sys.stderr,
            )
            return 2
        address = parsed
    install(dev=command in ("test", "install"))
    compile_catalogues()
    if command == "run":
        return run(address)
    ensure_chromium()
    ensure_axe()
    if command == "test":
        return subprocess.call([str(PYTHON), "-m", "pytest", *rest], cwd=ROOT)
    return 0


def install(*, dev: bool) -> None:
    if not PYTHON.exists():
        print("Creating the virtual environment in .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    extra = "[dev]" if dev else ""
    stamp = VENV / f".installed{extra or '-base'}"
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    # What `test` installs holds what `run` needs: either stamp will do for `run`.
    stamps = [stamp] if dev else [stamp, VENV / ".installed[dev]"]
    if any(done.exists() and done.read_text() == wanted for done in stamps):
        return
    pip = [str(PYTHON), "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off"]
    print("Installing the project and its dependencies into .venv (step 1 of 2: pip itself) ...", flush=True)
    subprocess.check_call([*pip, "--quiet", "--upgrade", "pip"], cwd=ROOT)
    print(
        "Installing the project and its dependencies into .venv (step 2 of 2: about a hundred packages; "
        "the first time takes a few minutes, one line a package below) ...",
        flush=True,
    )
    subprocess.check_call([*pip, "-e", f".{extra}"], cwd=ROOT)
    stamp.write_text(wanted)


def compile_catalogues() -> None:
    """Compile each language's catalogue (werewolf/locale/<lang>/LC_MESSAGES/django.po)
    into the .mo the app reads, when the .po is newer; by Babel, so GNU gettext is not
    needed."""
    for po in sorted((ROOT / "werewolf" / "locale").glob("*/LC_MESSAGES/django.po")):
        mo = po.with_suffix(".mo")
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        subprocess.check_call(
            [str(PYTHON), "-m", "babel.messages.frontend", "-q", "compile", "-i", str(po), "-o", str(mo)], cwd=ROOT
        )


def _where_mail_goes() -> str:
    """Where this run's mail goes, as the settings the app reads will say (the
    environment, or the env file)."""
    code = (
        "import json; from django.conf import settings as s; "
        "print(json.dumps([s.EMAIL_BACKEND, s.EMAIL_HOST, s.EMAIL_PORT, str(s.EMAIL_FILE_PATH)]))"
    )
    try:
        out = subprocess.check_output(
            [str(PYTHON), "manage.py", "shell", "-v", "0", "-c", code], cwd=ROOT, text=True, process_group=0
        )
        backend, host, port, folder = json.loads(out.strip().splitlines()[-1])
    except (subprocess.CalledProcessError, ValueError, IndexError):
        return "Mail goes where WEREWOLF_EMAIL says."
    return mail_sentence(backend, host, port, folder)


def mail_sentence(backend: str, host: str, port: int, folder: str) -> str:
    """The sentence `run` prints for the mail backend the settings name."""
    if backend.startswith("anymail.backends."):
        return f"Mail goes out through {backend.split('.')[2]}'s API (WEREWOLF_MAIL_PROVIDER)."
    if backend == "django.core.mail.backends.smtp.EmailBackend":
        return f"Mail goes to the SMTP server at {host}:{port}."
    if backend == "django.core.mail.backends.filebased.EmailBackend":
        path = Path(folder)
        return f"Mail is written under {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}."
    if backend == "django.core.mail.backends.locmem.EmailBackend":
        return "Mail is kept in memory and never sent (WEREWOLF_EMAIL=locmem)."
    return "Mail goes to this console (WEREWOLF_EMAIL=file writes it under var/mail instead)."


def ensure_chromium() -> None:
    """Debian's chromium for the browser tests, poppler-utils (pdftoppm) to render the
    printed documents to PNG, and Dovecot for a real IMAP mailbox, when missing and this
    user may run apt-get."""
    for binary, package, purpose in (
        ("chromium", "chromium", "the browser tests"),
        ("pdftoppm", "poppler-utils", "the printing tests"),
        ("dovecot", "dovecot-imapd", "the IMAP mailbox tests"),
        ("xgettext", "gettext", "the translation check (makemessages)"),
        ("postfix", "postfix", "the Postfix route's test (its own instance; the system's is left unconfigured)"),
    ):
        if shutil.which(binary):
            continue
        if os.geteuid() == 0 and shutil.which("apt-get"):
            print(f"Installing Debian's {package} for {purpose} ...", flush=True)
            env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
            if package == "postfix":  # installed, not configured: the test runs an instance of its own
                subprocess.run(
                    ["debconf-set-selections"], input=b"postfix postfix/main_mailer_type select No configuration\n"
                )
            # Another apt-get (a second checkout's setup, the machine's own) may hold the
            # dpkg lock: wait for it rather than go on without the package.
            wait = ["-o", "DPkg::Lock::Timeout=600"]
            subprocess.call(["apt-get", *wait, "update", "-qq"], env=env)
            subprocess.call(["apt-get", *wait, "install", "-y", "-qq", package], env=env)
        if not shutil.which(binary):
            print(f"{binary} is missing: {purpose} will be skipped (and fail under CI).", file=sys.stderr)


AXE_VERSION = "4.14.1"
AXE = ROOT / ".cache" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
"""axe-core, the accessibility rules engine the browser tests run on every page (from
the npm registry, pinned; never from a CDN)."""


def ensure_axe() -> None:
    package = AXE.parent / "package.json"
    if package.exists() and f'"version": "{AXE_VERSION}"' in package.read_text():
        return
    if shutil.which("npm"):
        print(f"Installing axe-core {AXE_VERSION} for the accessibility checks ...", flush=True)
        prefix = str(ROOT / ".cache" / "axe")
        subprocess.call(
            ["npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefix", prefix, f"axe-core@{AXE_VERSION}"]
        )
    if not AXE.exists():
        print("axe-core is missing: the accessibility checks will be skipped (and fail under CI).", file=sys.stderr)


def manage(*args: str) -> None:
    """A management command `run` needs, in a process group of its own: a Ctrl-C
    meanwhile reaches `run`, which stops it without a traceback of the command's."""
    subprocess.check_call([str(PYTHON), "manage.py", *args], cwd=ROOT, process_group=0)


def parse_address(address: str) -> str | None:
    """`address` if it is HOST:PORT (an IPv6 host in brackets), else None."""
    host, colon, port = address.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    if host.startswith("["):
        return address if host.endswith("]") and len(host) > 2 and ":" in host else None
    if ":" in host or host.startswith("-") or any(char.isspace() or char in "/@?#" for char in host):
        return None
    return address


WORKER_NICE = ["nice", "-n", "10"]
"""The worker's priority below the web server's (the README's "Deploying": `nice -n 10`)."""


def run(address: str) -> int:
    """Serve the app at `address` with a worker and its beat until interrupted (Ctrl-C,
    SIGTERM, the terminal closing: each stops everything and returns 0), or until one of
    them dies (said, and 1). The address is written where every process of this machine
    reads it (var/site-url), and `migrate` records it as the site's."""
    # Its own handlers, whatever it inherited: started in the background of a shell
    # without job control, a process begins with Ctrl-C ignored, and only its children
    # would have stopped.
    for signum in STOPPING:
        signal.signal(signum, _interrupt)
    started: list[Watched] = []
    dead: Watched | None = None
    try:
        manage("site_url", f"http://{address}")
        manage("migrate", "--no-input", "-v", "0")
        login = subprocess.check_output(
            [str(PYTHON), "manage.py", "ensure_organiser", "--staff"], cwd=ROOT, text=True, process_group=0
        ).strip()
        started.append(
            Watched(
                "the Celery worker (and its beat)",
                # At a lower priority than the web server, as the README's deployment runs it:
                # a deadline's mails wait a little, a page does not.
                [*WORKER_NICE, str(PYTHON), "-m", "celery", "-A", "werewolf", "worker", "-B", "--pool=solo"]
                + ["--loglevel=warning"],
            )
        )
        server = Watched("the web server", [str(PYTHON), "manage.py", "runserver", "--noreload", address])
        started.append(server)
        _wait_for(address, server.process)
        dead = _dead(*started)
        if dead is None:
            print()
            print(f"Werewolf is running at http://{address}/")
            print(login)
            print("Log in, then 'Start a demo game' to watch bots play with you, or 'New game' to set one up.")
            print(_where_mail_goes() + " Ctrl-C stops.")
            sys.stdout.flush()
        while dead is None:
            time.sleep(0.5)
            dead = _dead(*started)
    except KeyboardInterrupt:
        pass  # stopping: whatever stops now stops because of it, and is not said
    finally:
        _stop(*started)
    if dead is None:
        return 0
    # A process that died is said, with how and its last lines, and the run fails: a
    # worker that died leaves cards taken but no phase resolved and no mail sent.
    print(
        f"\ndev.py run: {dead.name} stopped (exit status {dead.process.returncode}), so Werewolf is not running. "
        "Its last lines:",
        file=sys.stderr,
    )
    for line in dead.tail:
        print(f"    {line}", file=sys.stderr)
    print("Fix what they say (the settings in the environment or the env file), then run it again.", file=sys.stderr)
    return 1


STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""What stops `run`: Ctrl-C, a service manager's or kill's SIGTERM, the terminal closing."""


class Watched:
    """A process `run` starts, in a process group of its own (the worker's beat joins
    the worker's): a Ctrl-C at the terminal reaches `run` alone, which stops each group
    whole. Its output goes on to this terminal, and its last lines are kept, to be said
    if it dies."""

    def __init__(self, name: str, command: list[str]) -> None:
        self.name = name
        self.tail: collections.deque[str] = collections.deque(maxlen=15)
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            process_group=0,
        )
        self.copier = threading.Thread(target=self._copy, daemon=True)
        self.copier.start()

    def _copy(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            line = raw.decode("utf-8", "replace").rstrip()
            self.tail.append(line)
            print(line, file=sys.stderr, flush=True)

    def dead(self) -> bool:
        if self.process.poll() is None:
            return False
        self.copier.join(timeout=5)  # its last lines, read to the end
        return True

    def signal(self, signum: int) -> None:
        """Send `signum` to every process of the group still there."""
        try:
            os.killpg(self.process.pid, signum)
        except (ProcessLookupError, PermissionError):
            pass

    def running(self) -> bool:
        """Whether any process of its group is left (its own, reaped first)."""
        self.process.poll()
        try:
            os.killpg(self.process.pid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True


def _dead(*watched: Watched) -> Watched | None:
    """The first of the processes that has stopped, if any."""
    return next((one for one in watched if one.dead()), None)


def _stop(*watched: Watched, patience: float = 15) -> None:
    """Stop the server and the worker with its beat: SIGTERM to each group, `patience`
    seconds to finish what they are doing, then SIGKILL to what is left. A second Ctrl-C
    (or SIGTERM) meanwhile kills them at once, and raises nothing here."""
    for signum in STOPPING:
        signal.signal(signum, _hurry)
    for one in watched:
        one.signal(signal.SIGTERM)
    deadline = time.monotonic() + patience
    # (A process left as a zombie that nobody reaps, under a container's init, counts as
    # running: a few seconds after the kill, run stops waiting for it.)
    while any(one.running() for one in watched) and time.monotonic() < deadline + 5:
        if HURRY.is_set() or time.monotonic() > deadline:
            for one in watched:
                one.signal(signal.SIGKILL)
        time.sleep(0.1)
    for one in watched:
        one.dead()  # reaped, its last lines copied


def _wait_for(address: str, server: subprocess.Popen[bytes], seconds: float = 60) -> None:
    """Return once the server answers on its port (or has died, or time is up)."""
    host, _, port = address.rpartition(":")
    host = host.strip("[]")
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1" if host == "0.0.0.0" else "::1"
    deadline = time.monotonic() + seconds
    while server.poll() is None and time.monotonic() < deadline:
        try:
            socket.create_connection((host or "127.0.0.1", int(port)), timeout=1).close()
            return
        except OSError:
            time.sleep(0.3)


HURRY = threading.Event()
"""Set by a second Ctrl-C (SIGTERM, SIGHUP) while `run` stops: stop at once."""


def _interrupt(signum: int, frame: object) -> None:
    """Ctrl-C, SIGTERM and SIGHUP alike: `run` stops what it started and returns. The
    next one only hurries the stop along, with no traceback."""
    for each in STOPPING:
        signal.signal(each, _hurry)
    raise KeyboardInterrupt


def _hurry(signum: int, frame: object) -> None:
    HURRY.set()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
