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
    python3 dev.py messages [--check]
                                     bring the Italian catalogue (werewolf/locale/it/
                                     LC_MESSAGES/django.po) up to date with the code and
                                     templates, changing only what changed: each new msgid
                                     is appended untranslated (an empty msgstr, where it is
                                     used above it), each msgid nothing marks any more is
                                     marked obsolete (#~), and every other entry is left
                                     byte for byte as it is. --check writes nothing and
                                     exits 1 if the catalogue would change

Both make a virtual environment in .venv and install what the project needs into it
(again only when pyproject.toml changes). `test` (and `install`) also install axe-core (npm),
and Debian's chromium, poppler-utils, gettext, dovecot-imapd and postfix for the browser,
printing, translation, IMAP and Postfix tests, when they are missing and this user may run apt-get.
`messages` needs GNU gettext (Django's makemessages runs xgettext), installed the same way.
"""

from __future__ import annotations

import collections
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import venv
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PYTHON = VENV / "bin" / "python"


HELP = ("-h", "--help", "help")


def main(argv: list[str]) -> int:
    if argv and argv[0] in HELP:
        print(__doc__)
        return 0
    if len(argv) < 1 or argv[0] not in ("run", "test", "install", "messages"):
        print(__doc__, file=sys.stderr)
        return 2
    command, rest, address = argv[0], argv[1:], ""
    if command == "messages":
        if any(arg in HELP for arg in rest):
            print(__doc__)
            return 0
        if rest not in ([], ["--check"]):
            print(f"dev.py messages takes only --check, not {' '.join(rest)!r}.", file=sys.stderr)
            return 2
        install(dev=False)
        return messages(check=bool(rest))
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
        if not ensure_debian(binary, package, purpose):
            print(f"{binary} is missing: {purpose} will be skipped (and fail under CI).", file=sys.stderr)


def ensure_debian(binary: str, package: str, purpose: str) -> bool:
    """Install Debian's `package` for `purpose` when `binary` is missing and this user may
    run apt-get; whether `binary` is there now."""
    if shutil.which(binary):
        return True
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
    return shutil.which(binary) is not None


CATALOGUE = ROOT / "werewolf" / "locale" / "it" / "LC_MESSAGES" / "django.po"
"""The catalogue `messages` keeps up to date (the one language the site has beside English)."""


def messages(*, check: bool) -> int:
    """`dev.py messages`: the catalogue brought up to date with a small diff (`merge_catalogue`),
    what changed said; with `check`, nothing written and 1 if anything would change."""
    if not ensure_debian("xgettext", "gettext", "makemessages"):
        print("xgettext is missing: install GNU gettext (Debian: apt-get install gettext).", file=sys.stderr)
        return 1
    current = CATALOGUE.read_text(encoding="utf-8")
    merged, changes = merge_catalogue(current, fresh_catalogue(ROOT, PYTHON))
    for key in changes.added:
        print(f"new, to translate: {_shown(key)}")
    for key in changes.revived:
        print(f"used again, its old translation kept and marked fuzzy (check it): {_shown(key)}")
    for key in changes.obsolete:
        print(f"obsolete, marked #~: {_shown(key)}")
    for key, old, new in changes.flags:
        print(f"format flag {new or 'none'} (was {old or 'none'}): {_shown(key)}")
    where = CATALOGUE.relative_to(ROOT)
    if merged == current:
        print(f"{where} is up to date.")
        return 0
    if check:
        print(f"{where} is not up to date: run python3 dev.py messages.", file=sys.stderr)
        return 1
    CATALOGUE.write_text(merged, encoding="utf-8")
    print(
        f"{where}: {len(changes.added)} new, {len(changes.revived)} used again, {len(changes.obsolete)} obsolete, "
        f"{len(changes.flags)} format flags set."
    )
    if changes.added or changes.revived:
        print("Translate the entries with an empty msgstr, check the fuzzy ones, then python3 dev.py install.")
    return 0


def fresh_catalogue(root: Path, python: Path) -> str:
    """The Italian catalogue Django's makemessages makes from scratch (no translation yet)
    of the code (werewolf/) and templates (templates/, every kind of file there) under
    `root`, in a temporary copy, so the real catalogue is never rewritten."""
    extensions = sorted({path.suffix.lstrip(".") for path in (root / "templates").rglob("*.*")} | {"py"})
    with tempfile.TemporaryDirectory(prefix="werewolf-messages-") as temporary:
        copy = Path(temporary)
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.mo", "django.po")
        shutil.copytree(root / "werewolf", copy / "werewolf", ignore=ignore)
        shutil.copytree(root / "templates", copy / "templates", ignore=ignore)
        shutil.copy(root / "manage.py", copy / "manage.py")
        (copy / "var").mkdir()
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "werewolf.settings",
            "WEREWOLF_VAR_DIR": str(copy / "var"),
            "PYTHONPATH": str(copy),
        }
        command = [str(python), "manage.py", "makemessages", "-l", "it", "--no-obsolete", "-v", "0"]
        command += [f"--extension={extension}" for extension in extensions]
        subprocess.run(command, cwd=copy, env=env, check=True)
        return (copy / CATALOGUE.relative_to(ROOT)).read_text(encoding="utf-8")


Key = tuple[str, str | None]
"""An entry's msgid (the singular one of a plural entry) and its msgctxt."""


class Entry(NamedTuple):
    """One entry of a .po file as written: its lines (comments and strings), where it
    starts and ends in the file's text, its key (None for the header) and flags
    (`#,` lines), and whether it is obsolete (`#~`)."""

    lines: list[str]
    start: int
    end: int
    key: Key | None
    flags: tuple[str, ...]
    obsolete: bool


class CatalogueChanges:
    """What `merge_catalogue` did: the keys appended, revived and marked obsolete, and the
    entries whose flags makemessages would write otherwise, as (key, old, new)."""

    def __init__(self) -> None:
        self.added: list[Key] = []
        self.revived: list[Key] = []
        self.obsolete: list[Key] = []
        self.flags: list[tuple[Key, str, str]] = []


_FLAG_KINDS = re.compile(r"^(?:python|python-brace|c)-format$")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


def merge_catalogue(current: str, fresh: str) -> tuple[str, CatalogueChanges]:
    """`current` (the catalogue as committed) brought up to date with `fresh` (what
    makemessages extracts now, untranslated): an entry of `fresh` whose key `current`
    lacks is appended at the end as makemessages wrote it (its references, its flags, an
    empty msgstr), or, where `current` holds it obsolete, made live again where it stands
    with its old translation, marked fuzzy for a translator to check; a live entry of
    `current` that `fresh` lacks is marked obsolete in place, as msgmerge marks one (`#~`
    before its strings, its references dropped). Every other byte of `current` stays as
    it is: its references, wrapping and order are never rewritten. An entry whose format
    flag differs (a msgid now used as a format string, or no longer) takes makemessages'
    format flag and keeps its other flags: the flag is what makes the catalogue's compiler
    check that a translation's placeholders are the msgid's."""
    entries = parse_catalogue(current)
    wanted = [entry for entry in parse_catalogue(fresh) if entry.key is not None and not entry.obsolete]
    wanted_keys = {entry.key for entry in wanted}
    live = {entry.key: entry for entry in entries if entry.key is not None and not entry.obsolete}
    dead = {entry.key: entry for entry in entries if entry.key is not None and entry.obsolete}
    changes = CatalogueChanges()
    replaced: dict[int, str] = {}
    appended: list[str] = []
    for entry in wanted:
        assert entry.key is not None
        old = live.get(entry.key)
        if old is not None:
            old_flags, new_flags = _format_flags(old.flags), _format_flags(entry.flags)
            if old_flags != new_flags:
                replaced[old.start] = "\n".join(_with_format_flags(old.lines, entry.flags))
                changes.flags.append((entry.key, old_flags, new_flags))
        elif entry.key in dead:
            buried = dead[entry.key]
            comments = [line for line in entry.lines if line.startswith("#") and not line.startswith(("#~", "#,"))]
            comments.append("#, " + ", ".join(("fuzzy", *dict.fromkeys(entry.flags))))
            strings = [
                line[3:] if line.startswith("#~ ") else line[2:] for line in buried.lines if line.startswith("#~")
            ]
            replaced[buried.start] = "\n".join(comments + strings)
            changes.revived.append(entry.key)
        else:
            appended.append("\n".join(entry.lines))
            changes.added.append(entry.key)
    for key, entry in live.items():
        if key not in wanted_keys:
            kept = [line for line in entry.lines if line.startswith("#") and not line.startswith(("#:", "#."))]
            strings = ["#~ " + line for line in entry.lines if not line.startswith("#")]
            replaced[entry.start] = "\n".join(kept + strings)
            changes.obsolete.append(key)
    merged, last = [], 0
    for entry in entries:
        if entry.start in replaced:
            merged += [current[last : entry.start], replaced[entry.start]]
            last = entry.end
    text = "".join(merged) + current[last:]
    if appended:
        text = text.rstrip("\n") + "\n\n" + "\n\n".join(appended) + "\n"
    return text, changes


def parse_catalogue(text: str) -> list[Entry]:
    """The entries of a .po file, in order: a blank line ends one, and so does a comment,
    msgctxt or msgid after a msgstr (an entry appended by hand without its blank line)."""
    entries: list[Entry] = []
    lines: list[str] = []
    start = end = offset = 0
    after_msgstr = False

    def close() -> None:
        if lines:
            entries.append(Entry(list(lines), start, end, *_key(lines)))
            lines.clear()

    for line in text.split("\n"):
        obsolete = line.startswith("#~")
        bare = line[2:].lstrip() if obsolete else line
        if not line.strip():
            close()
            after_msgstr = False
        else:
            comment = line.startswith("#") and not obsolete
            if after_msgstr and (comment or bare.startswith(("msgctxt", "msgid"))):
                close()
                after_msgstr = False
            if not lines:
                start = offset
            lines.append(line)
            end = offset + len(line)
            after_msgstr = after_msgstr or bare.startswith("msgstr")
        offset += len(line) + 1
    close()
    return entries


def _key(lines: list[str]) -> tuple[Key | None, tuple[str, ...], bool]:
    """The key of an entry's lines, its flags and whether it is obsolete."""
    parts: dict[str, str] = {}
    current = ""
    flags: list[str] = []
    obsolete = False
    for line in lines:
        if line.startswith("#,"):
            flags += [flag.strip() for flag in line[2:].split(",") if flag.strip()]
            continue
        if line.startswith("#~"):
            obsolete = True
            line = line[2:].lstrip()
        elif line.startswith("#"):
            continue
        line = line.strip()
        word = re.match(r"^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+", line)
        if word is not None:
            current = word.group(1)
            parts[current] = ""
            line = line[word.end() :]
        if line.startswith('"') and current:
            parts[current] += _unquote(line)
    if "msgid" not in parts or not parts["msgid"]:
        return None, tuple(flags), obsolete
    return (parts["msgid"], parts.get("msgctxt")), tuple(flags), obsolete


def _unquote(quoted: str) -> str:
    """A .po string's text: the quotes taken off, its C escapes read."""
    inner = quoted.strip()[1:-1]
    return re.sub(r"\\(.)", lambda escape: _ESCAPES.get(escape.group(1), escape.group(1)), inner)


def _with_format_flags(lines: list[str], fresh: tuple[str, ...]) -> list[str]:
    """An entry's lines with the format flags of `fresh` in place of its own, its other
    flags (fuzzy, say) kept: the one `#,` line rewritten, added above the strings, or
    dropped when no flag is left."""
    kept = [flag for line in lines if line.startswith("#,") for flag in line[2:].split(",") if flag.strip()]
    flags = [flag.strip() for flag in kept if not _FLAG_KINDS.match(flag.strip())]
    flags += [flag for flag in fresh if _FLAG_KINDS.match(flag)]
    body = [line for line in lines if not line.startswith("#,")]
    at = next((i for i, line in enumerate(body) if not line.startswith("#") or line.startswith("#~")), len(body))
    return body[:at] + (["#, " + ", ".join(dict.fromkeys(flags))] if flags else []) + body[at:]


def _format_flags(flags: tuple[str, ...]) -> str:
    return ", ".join(sorted({flag for flag in flags if _FLAG_KINDS.match(flag)}))


def _shown(key: Key) -> str:
    msgid, context = key
    text = msgid if len(msgid) <= 70 else msgid[:67] + "..."
    return repr(text) + (f" (context {context!r})" if context else "")


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
                # At a lower priority than the web server, and without the chatter between
                # workers nothing here uses, as the README's deployment runs it: a
                # deadline's mails wait a little, a page does not.
                [*WORKER_NICE, str(PYTHON), "-m", "celery", "-A", "werewolf", "worker", "-B", "--pool=solo"]
                + ["--loglevel=warning", "--without-gossip", "--without-mingle", "--without-heartbeat"],
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
