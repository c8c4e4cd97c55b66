"""Test settings: the real settings, with mail kept in memory and fast hashing.

`WEREWOLF_INLINE_TASKS` runs enqueued tasks in-process at commit for the web tests,
which drive deadlines through the services themselves; the tests that claim to test
Celery turn it off and start real worker processes (which read WEREWOLF_REAL_TASKS).
The broker is the configured one (CELERY_BROKER_URL), or a SQLite file of the tests'
own, so that tests never eat the tasks of a development server."""

import os

from werewolf.settings import *  # noqa: F403
from werewolf.settings import VAR_DIR

# Mail stays in memory, except in a worker process a test started with a mail server
# of its own (WEREWOLF_EMAIL=smtp and its host and port).
if not (os.environ.get("WEREWOLF_REAL_TASKS") and os.environ.get("WEREWOLF_EMAIL") == "smtp"):
    EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
WEREWOLF_INLINE_TASKS = not os.environ.get("WEREWOLF_REAL_TASKS")
SITE_URL = "http://testserver"
SITE_URL_SOURCE = "settings"  # (a settings module set it: not the built-in default)
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", f"sqla+sqlite:///{VAR_DIR / 'test-broker.sqlite3'}")

# Mailed orders on, so that every test mail carries its signed Reply-To and the secrecy
# sweep reads it too.
WEREWOLF_MAIL_ORDERS = True
WEREWOLF_ORDERS_ADDRESS = "orders@werewolf.test"

# The mail providers' inbound webhooks are mounted and tested (tests/mail/test_providers.py)
# with these secrets; mail itself stays in memory.
INSTALLED_APPS = [*INSTALLED_APPS, "anymail"]  # noqa: F405
ANYMAIL = {"WEBHOOK_SECRET": "hook:secret-words", "MAILGUN_WEBHOOK_SIGNING_KEY": "key-mailgun-test"}

# Whole games post and sign up far faster than people do: the limits a test is not about
# are out of its way (tests/web/test_limits.py sets each one it checks).
WEREWOLF_RATES = {**WEREWOLF_RATES, "talk_post": "100000/60", "join_address": "100000/3600"}  # noqa: F405
