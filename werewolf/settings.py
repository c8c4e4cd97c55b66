"""Settings: every service comes from an environment variable, with embedded defaults
(SQLite, Celery on a SQLite broker, mail to the console) so that the app runs with
nothing else installed. See README.md, "Deploying", for the variables."""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path
from typing import Any

import csp.constants
import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def _read_env_file() -> Path | None:
    """Settings every process reads from one file, so that a process started with an empty
    environment (a mail system's pipe, a service manager) runs with the app's settings:
    WEREWOLF_ENV_FILE, else `werewolf.env` beside manage.py if there is one. Lines are
    NAME=value (`export` and quotes allowed, # comments); the environment itself wins."""
    named = os.environ.get("WEREWOLF_ENV_FILE")
    path = Path(named) if named else BASE_DIR / "werewolf.env"
    if not path.is_file():
        if named:
            raise RuntimeError(f"WEREWOLF_ENV_FILE names {path}, which is not a readable file")
        return None
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        name, _, value = line.removeprefix("export ").partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        os.environ.setdefault(name.strip(), value)
    return path


_SITE_URL_IN_ENVIRONMENT = "WEREWOLF_SITE_URL" in os.environ
ENV_FILE = _read_env_file()
VAR_DIR = Path(os.environ.get("WEREWOLF_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def _env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def _secret_key() -> str:
    key = os.environ.get("WEREWOLF_SECRET_KEY")
    if key:
        return key
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = _env_bool("WEREWOLF_DEBUG", False)
ALLOWED_HOSTS = _env_list("WEREWOLF_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1],testserver")
CSRF_TRUSTED_ORIGINS = _env_list("WEREWOLF_CSRF_TRUSTED_ORIGINS", "")
SITE_URL_FILE = VAR_DIR / "site-url"
"""Where `dev.py run` writes the address it serves on (`manage.py site_url ADDRESS`), for
every process of this machine that has no WEREWOLF_SITE_URL: the web server, the worker,
and a `receive_mail` the mail system starts."""


def _site_url() -> tuple[str, str]:
    """The public address the links in mail carry, and where it comes from: the
    environment, the env file, the file `dev.py run` wrote (SITE_URL_FILE), or the
    built-in default, which the doors and the workers refuse to use on a site that set
    another (werewolf/site)."""
    if "WEREWOLF_SITE_URL" in os.environ:
        return os.environ["WEREWOLF_SITE_URL"], "environment" if _SITE_URL_IN_ENVIRONMENT else "env file"
    try:
        written = SITE_URL_FILE.read_text(encoding="utf-8").strip()
    except OSError:
        written = ""
    if written:
        return written, "dev.py run"
    return "http://127.0.0.1:8000", "default"


SITE_URL, SITE_URL_SOURCE = _site_url()
SITE_URL = SITE_URL.rstrip("/")
# The sites framework's one site (django.contrib.sites): `migrate` records its domain from
# an address set as above, and its name, which allauth's account mails say.
SITE_ID = 1
SITE_NAME = os.environ.get("WEREWOLF_SITE_NAME", "Werewolf")

# Served over HTTPS (the site's URL says so): cookies only over HTTPS, plain HTTP sent to
# HTTPS, and, when the environment asks, HSTS. Behind a proxy that ends TLS, say so with
# WEREWOLF_BEHIND_PROXY=1 (it must set X-Forwarded-Proto). `manage.py check --deploy` is
# clean with WEREWOLF_SITE_URL=https://..., WEREWOLF_HSTS_SECONDS and a secret key set.
_HTTPS = SITE_URL.startswith("https://")
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = _env_bool("WEREWOLF_SECURE_COOKIES", _HTTPS)
SECURE_SSL_REDIRECT = _env_bool("WEREWOLF_SSL_REDIRECT", _HTTPS)
SECURE_HSTS_SECONDS = int(os.environ.get("WEREWOLF_HSTS_SECONDS", "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = _env_bool("WEREWOLF_HSTS_SUBDOMAINS", False)
if _env_bool("WEREWOLF_BEHIND_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_HSTS_PRELOAD = _env_bool("WEREWOLF_HSTS_PRELOAD", False)
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]  # the load balancer asks over plain HTTP
# HSTS for the subdomains and the preload list bind the whole domain, which a game
# server often shares: they are the operator's choice (the variables above), not a fault.
# security.W003 looks for Django's CSRF middleware by name; werewolf.W003 asks for it or
# a subclass, as werewolf/csrf.py's is.
SILENCED_SYSTEM_CHECKS = ["security.W003", "security.W005", "security.W021"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.sites",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "crispy_forms",
    "crispy_bootstrap5",
    "csp",
    "allauth",
    "allauth.account",
    "werewolf.games",
    "werewolf.mail",  # above the games: registers the outbox the games queue their mail in
    "werewolf.printing",
    "werewolf.accounts",
    "werewolf.site",  # below django.contrib.sites: records the site's address after its migrations
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Every answer's headers, the fast path's included: the policy below, and no caching of
    # anything the app itself makes (werewolf/headers.py).
    "csp.middleware.CSPMiddleware",
    "werewolf.headers.NoStoreMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # A seat's post in the talk from its own page, taken before the rest (werewolf/games/middleware.py).
    "werewolf.games.middleware.SeatPostMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Django's, but a post the browser says is same-origin skips the token (werewolf/csrf.py).
    "werewolf.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

# The pages' script and styles are static files: no inline script, style or handler runs.
# Images may be data: URIs (Bootstrap's icons); the polls fetch from the site itself.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [csp.constants.SELF],
        "script-src": [csp.constants.SELF],
        "style-src": [csp.constants.SELF],
        "img-src": [csp.constants.SELF, "data:"],
        "font-src": [csp.constants.SELF],
        "connect-src": [csp.constants.SELF],
        "object-src": [csp.constants.NONE],
        "base-uri": [csp.constants.NONE],
        "form-action": [csp.constants.SELF],
        "frame-ancestors": [csp.constants.NONE],
    }
}

# The cache every web and worker process shares: the limits below count in it, so they
# hold behind a load balancer. Redis when there are several machines
# (WEREWOLF_CACHE_URL=redis://...); else files under var/cache, which every process of one
# machine shares (never one process's memory, nor the database a card's INSERT waits on).
CACHES: dict[str, dict[str, Any]]
if os.environ.get("WEREWOLF_CACHE_URL"):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["WEREWOLF_CACHE_URL"],
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
            "OPTIONS": {"MAX_ENTRIES": 20000},
        }
    }

# What many readers of a game's pages see alike (the seat page's phase and its log's groups:
# games.selectors.shared_version, shared_log), rendered once per game version by each web
# process and kept in its memory (Django's {% cache %} tag uses this alias): the keys hold the
# version, so nothing kept is ever stale, and a lookup costs less than the shared cache's.
# Its bound holds a storm's minute: a twelve-seat game's first visits keep about 30 parts
# (its phase, its log's groups, a circle a seat and the places those circles share (its
# villagers one, each wolf one), a form a role, the talk, the role's help) of about 1 kB
# each, so 1,000 games fill 30,000 parts, about 30 MB a web process. Parts
# go least recently used first (LocMemCache moves a part read to the front, and drops the
# last third when full): a game's shared parts, read by each of its seats, outlive the
# parts of pages read once, as long as fewer than the bound's parts come between two
# readers of one game (docs/performance.md).
CACHES["template_fragments"] = {
    "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
    "LOCATION": "template-fragments",
    "OPTIONS": {"MAX_ENTRIES": 30000},
}


def _rates() -> dict[str, str]:
    """How often each limited thing may happen (werewolf/limits.py): COUNT/SECONDS, each
    overridable by WEREWOLF_RATES (`talk_post=20/60,login_account=10/900`)."""
    rates = {
        "login_account": "5/900",  # wrong passwords for one account
        "login_address": "30/900",  # wrong passwords from one network address
        "talk_post": "10/60",  # posts by one seat
        "join_game": "30/3600",  # sign-ups by a game's join link
        "join_email": "3/3600",  # sign-ups for one mail address (each sends a mail)
        "join_address": "20/3600",  # sign-ups from one network address
        "reset_mail": "3/3600",  # password-reset mails to one address
        "reset_address": "20/3600",  # password-reset requests from one network address
        "signup_mail": "3/3600",  # mails confirming an organiser's address, to one address
        "signup_address": "10/3600",  # organiser sign-ups from one network address
        "invite": "20/86400",  # invitations one organiser sends
        "lab": "20/600",  # setups one organiser has the balance lab simulate (not those it kept)
    }
    for item in _env_list("WEREWOLF_RATES", ""):
        name, _, rate = item.partition("=")
        if name.strip() not in rates:
            raise RuntimeError(f"WEREWOLF_RATES names {name.strip()!r}; the limits are {', '.join(rates)}")
        rates[name.strip()] = rate.strip()
    return rates


WEREWOLF_RATES = _rates()
WEREWOLF_BEHIND_PROXY = _env_bool("WEREWOLF_BEHIND_PROXY", False)


def _allauth_rate(name: str, per: str) -> str:
    count, _, seconds = WEREWOLF_RATES[name].partition("/")
    return f"{count}/{seconds}s/{per}"


# The account mails' limits, counted by django-allauth in the same shared cache.
ACCOUNT_RATE_LIMITS = {
    "reset_password": f"{_allauth_rate('reset_address', 'ip')},{_allauth_rate('reset_mail', 'key')}",
    "signup": _allauth_rate("signup_address", "ip"),
    "confirm_email": _allauth_rate("signup_mail", "key"),
    # Passwords are limited at one gate for every door (werewolf/accounts/passwords.py):
    # not by django-allauth's own counts as well, whose refusal would say other words.
    "change_password": None,
    "reauthenticate": None,
}
ALLAUTH_TRUSTED_PROXY_COUNT = 1 if WEREWOLF_BEHIND_PROXY else 0
WEREWOLF_SIGNUP_HOURS = float(os.environ.get("WEREWOLF_SIGNUP_HOURS", "48"))
"""How long a sign-up by a join link waits for its confirmation by mail before it is dropped."""

ROOT_URLCONF = "werewolf.urls"
WSGI_APPLICATION = "werewolf.wsgi.application"

TEMPLATES: list[dict[str, Any]] = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}",
        # Each thread keeps its connection for a minute (0: one per request): opening one
        # cost more than a whole post (issue 10). A kept connection is checked before each
        # request or task uses it, so a database that restarted meanwhile costs a
        # reconnect, not an error.
        conn_max_age=int(os.environ.get("WEREWOLF_DB_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend, with a health check that costs no round trip and statements a
    # busy request runs every time prepared once per connection (werewolf/database).
    DATABASES["default"]["ENGINE"] = "werewolf.database"
    # psycopg's prepared statements, which Django turns off unless OPTIONS names a
    # threshold: on for the statements werewolf.database's `prepared_cursor` runs (which
    # asks for each at once); Django's own cursors bind on the client side and never
    # prepare. Off (None) behind a pooler that loses them.
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = (
        5 if _env_bool("WEREWOLF_DB_PREPARED", True) else None
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE transactions take the write lock up front, so two resolvers queue up
    # instead of failing with "database is locked"; WAL lets readers go on meanwhile.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-db.sqlite3")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en"
# Each language offered has its catalogue in werewolf/locale (English is the source). A game's
# language is what its players read; the site's own pages follow the viewer's (the language
# switch in the footer, else the browser's Accept-Language).
LANGUAGES = [("en", "English"), ("it", "Italiano")]
LOCALE_PATHS = [BASE_DIR / "werewolf" / "locale"]
# Dates and times in the reader's language: the formats the templates name (DATETIME_FORMAT...)
# per language, in werewolf/formats/<language>/formats.py.
FORMAT_MODULE_PATH = ["werewolf.formats"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
WHITENOISE_USE_FINDERS = True

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "games:home"
LOGOUT_REDIRECT_URL = "games:home"

# Organiser accounts (werewolf/accounts): django-allauth signs them up with a confirmed
# address and resets passwords; the site's own log in (its limits in werewolf/limits.py)
# takes a user name or the address. WEREWOLF_SIGNUP_POLICY says who may sign up: "open"
# (anyone), "invite" (by an organiser's invitation; the default) or "closed" (accounts by
# the operator's `manage.py ensure_organiser` only).
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
WEREWOLF_SIGNUP_POLICY = os.environ.get("WEREWOLF_SIGNUP_POLICY", "invite").strip().lower()
if WEREWOLF_SIGNUP_POLICY not in ("open", "invite", "closed"):
    raise RuntimeError(f"WEREWOLF_SIGNUP_POLICY is {WEREWOLF_SIGNUP_POLICY!r}; it may be open, invite or closed")
WEREWOLF_KEEP_ADDRESSES_DAYS = float(os.environ.get("WEREWOLF_KEEP_ADDRESSES_DAYS", "90"))
"""How long a game that is over keeps its players' mail addresses (0: until the organiser
removes them or deletes the game): werewolf/games/retention.py."""
WEREWOLF_INVITATION_DAYS = float(os.environ.get("WEREWOLF_INVITATION_DAYS", "14"))
"""How long an invitation to become an organiser may be taken up."""
ACCOUNT_ADAPTER = "werewolf.accounts.adapter.AccountAdapter"
ACCOUNT_LOGIN_METHODS = {"username", "email"}
# The sign-up asks for no user name: a name that is taken would tell a stranger that an
# account has it, and the same sign-up answers alike for every address (a taken one gets a
# mail saying so). django-allauth makes a user name from the address.
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
# One confirmed address an account; a new one replaces it only once confirmed.
ACCOUNT_CHANGE_EMAIL = True
# Every password django-allauth checks goes through werewolf/accounts/passwords.py; an
# address blocks a sign-up only once an account confirmed it (werewolf/addresses.py).
ACCOUNT_FORMS = {
    "signup": "werewolf.accounts.forms.SignupForm",
    "change_password": "werewolf.accounts.forms.ChangePasswordForm",
    "reauthenticate": "werewolf.accounts.forms.ReauthenticateForm",
}
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
ACCOUNT_EMAIL_SUBJECT_PREFIX = ""
# "strict": an address another account only typed (never confirmed) blocks no sign-up;
# one an account confirmed is answered as allauth answers every taken address (the same
# page, and a mail to it), werewolf/accounts/forms.py's SignupForm.
ACCOUNT_PREVENT_ENUMERATION = "strict"
ACCOUNT_SESSION_REMEMBER = True

CRISPY_ALLOWED_TEMPLATE_PACKS = "bootstrap5"
CRISPY_TEMPLATE_PACK = "bootstrap5"

# Mail: "console" (default), "file" (one file a message under var/mail) or "smtp".
_EMAIL_BACKENDS = {
    "console": "django.core.mail.backends.console.EmailBackend",
    "file": "django.core.mail.backends.filebased.EmailBackend",
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
    "locmem": "django.core.mail.backends.locmem.EmailBackend",
}
EMAIL_BACKEND = _EMAIL_BACKENDS[os.environ.get("WEREWOLF_EMAIL", "console")]

# A mail provider instead of an MTA (django-anymail): WEREWOLF_MAIL_PROVIDER names it
# (mailgun, sendgrid, postmark, amazon_ses...); mail then goes out through its API, and
# replies come in at /mail/provider/<provider>/inbound/, checked by the provider's
# signature (Mailgun's signing key) and/or the basic-auth secret set on the webhook URL.
WEREWOLF_MAIL_PROVIDER = os.environ.get("WEREWOLF_MAIL_PROVIDER", "")
ANYMAIL = {
    name: os.environ[f"WEREWOLF_ANYMAIL_{name}"]
    for name in (
        "MAILGUN_API_KEY",
        "MAILGUN_SENDER_DOMAIN",
        "MAILGUN_WEBHOOK_SIGNING_KEY",
        "SENDGRID_API_KEY",
        "POSTMARK_SERVER_TOKEN",
        "WEBHOOK_SECRET",
    )
    if os.environ.get(f"WEREWOLF_ANYMAIL_{name}")
}
if WEREWOLF_MAIL_PROVIDER:
    INSTALLED_APPS.append("anymail")
    EMAIL_BACKEND = f"anymail.backends.{WEREWOLF_MAIL_PROVIDER}.EmailBackend"
EMAIL_FILE_PATH = VAR_DIR / "mail"
EMAIL_HOST = os.environ.get("WEREWOLF_EMAIL_HOST", "127.0.0.1")
EMAIL_PORT = int(os.environ.get("WEREWOLF_EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("WEREWOLF_EMAIL_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("WEREWOLF_EMAIL_PASSWORD", "")
EMAIL_USE_TLS = _env_bool("WEREWOLF_EMAIL_TLS", False)
EMAIL_TIMEOUT = 30
DEFAULT_FROM_EMAIL = os.environ.get("WEREWOLF_FROM_EMAIL", "Werewolf moderator <moderator@localhost>")

# Orders by mail. With WEREWOLF_MAIL_ORDERS on, every mail that asks for a card carries
# a signed Reply-To (orders+<reference>@domain, from WEREWOLF_ORDERS_ADDRESS), and mail
# that reaches `manage.py receive_mail` (a pipe from the MTA) or `manage.py mail_server`
# (an SMTP listener) is read as a notecard. Off by default: replies would go nowhere
# until the mail system routes them here (see docs/organiser-guide.md).
WEREWOLF_MAIL_ORDERS = _env_bool("WEREWOLF_MAIL_ORDERS", False)
WEREWOLF_ORDERS_ADDRESS = os.environ.get("WEREWOLF_ORDERS_ADDRESS", "orders@localhost")
# Every inbound message is kept; bytes beyond the first limit are cut (and the cut noted),
# and a message over the second is refused with a reply rather than read.
WEREWOLF_INBOUND_KEEP_BYTES = int(os.environ.get("WEREWOLF_INBOUND_KEEP_BYTES", str(10 * 1024 * 1024)))
WEREWOLF_INBOUND_READ_BYTES = int(os.environ.get("WEREWOLF_INBOUND_READ_BYTES", str(1024 * 1024)))
# Orders from an IMAP mailbox instead of an MTA (werewolf/mail/imap.py): `manage.py
# fetch_mail` (or its --watch), and the beat every WEREWOLF_IMAP_POLL_SECONDS once a host is set.
WEREWOLF_IMAP_HOST = os.environ.get("WEREWOLF_IMAP_HOST", "")
WEREWOLF_IMAP_SECURITY = os.environ.get("WEREWOLF_IMAP_SECURITY", "tls")
WEREWOLF_IMAP_PORT = int(os.environ.get("WEREWOLF_IMAP_PORT", "993" if WEREWOLF_IMAP_SECURITY == "tls" else "143"))
WEREWOLF_IMAP_USER = os.environ.get("WEREWOLF_IMAP_USER", "")
WEREWOLF_IMAP_PASSWORD = os.environ.get("WEREWOLF_IMAP_PASSWORD", "")
WEREWOLF_IMAP_CAFILE = os.environ.get("WEREWOLF_IMAP_CAFILE", "")
WEREWOLF_IMAP_FOLDER = os.environ.get("WEREWOLF_IMAP_FOLDER", "INBOX")
WEREWOLF_IMAP_DONE_FOLDER = os.environ.get("WEREWOLF_IMAP_DONE_FOLDER", "Werewolf/Done")
WEREWOLF_IMAP_POLL_SECONDS = int(os.environ.get("WEREWOLF_IMAP_POLL_SECONDS", "60"))
# A seat whose mail keeps being refused is answered this many times an hour at most (the
# rest is kept and shown to the organiser): no loop can form with an auto-responder.
WEREWOLF_REFUSALS_ANSWERED_PER_HOUR = int(os.environ.get("WEREWOLF_REFUSALS_ANSWERED_PER_HOUR", "4"))

# Celery: the broker is a SQLite file beside the database unless a URL is given.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", f"sqla+sqlite:///{VAR_DIR / 'broker.sqlite3'}")
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
# Celery closes the database connection before and after every task unless told to reuse
# it: a new connection (and a new server process) for each phase resolved. A task keeps
# it as a request does instead, for CONN_MAX_AGE and checked before use (werewolf/celery.py).
CELERY_DB_REUSE_MAX = sys.maxsize
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # Redis gives an unacknowledged message (an ETA task waiting in a worker) to another
    # worker after this long. ETA tasks are kept short (WEREWOLF_ETA_HORIZON_SECONDS) and
    # a redelivered one only finds its phase resolved; the sweeper owns long deadlines.
    _VISIBILITY = int(os.environ.get("WEREWOLF_VISIBILITY_TIMEOUT", "3600"))
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": _VISIBILITY}
    if _VISIBILITY < 60:  # a short timeout (the tests') is also swept for often
        CELERY_BROKER_TRANSPORT_OPTIONS.update({"unacked_restore_interval": 1, "unacked_restore_throttle": 1})

WEREWOLF_POLL_SECONDS = float(os.environ.get("WEREWOLF_POLL_SECONDS", "15"))
"""How often an open game page asks whether it has news (then updates in place)."""
# How often the beat sweeper looks for phases past their deadline (and for reminders
# due), and how near a deadline must be to get an ETA task as well (the sweeper alone
# owns longer ones).
WEREWOLF_SWEEP_SECONDS = float(os.environ.get("WEREWOLF_SWEEP_SECONDS", "30"))
WEREWOLF_MAIL_SWEEP_SECONDS = float(os.environ.get("WEREWOLF_MAIL_SWEEP_SECONDS", "120"))
WEREWOLF_ETA_HORIZON_SECONDS = float(os.environ.get("WEREWOLF_ETA_HORIZON_SECONDS", "600"))
# A phase past its deadline that the sweeper handed to the workers is not handed out again
# before this long: only a task lost on the way (a broker restarted empty) needs it again.
WEREWOLF_HAND_OUT_AGAIN_SECONDS = float(os.environ.get("WEREWOLF_HAND_OUT_AGAIN_SECONDS", "60"))
# A mail still marked "being sent" after this long belonged to a worker that died while
# sending it: the sweep marks it "may not have been sent" and never sends it again itself.
WEREWOLF_MAIL_STALE_SECONDS = float(os.environ.get("WEREWOLF_MAIL_STALE_SECONDS", "900"))

# WEREWOLF_LOG_FORMAT=json: one JSON object a line, with game, phase, dispatch and inbound
# ids (werewolf/logs.py), for a log collector; plain text otherwise. The Celery workers
# write the same lines (werewolf/celery.py gives Celery's handlers the same formatter).
WEREWOLF_LOG_JSON = os.environ.get("WEREWOLF_LOG_FORMAT", "").lower() == "json"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "werewolf.logs.JSONFormatter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            **({"formatter": "json"} if WEREWOLF_LOG_JSON else {}),
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("WEREWOLF_LOG_LEVEL", "WARNING")},
    "loggers": {"werewolf": {"level": os.environ.get("WEREWOLF_LOG_LEVEL", "INFO")}},
}
