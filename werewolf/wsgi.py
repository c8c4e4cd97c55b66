"""The WSGI application the web server serves (README, "Deploying")."""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "werewolf.settings")

application = get_wsgi_application()


def _settle() -> None:
    """Load the URL map (and with it every view, form and template tag module) and set all
    that is loaded by now out of the garbage collector's way (`gc.freeze`): it lives as
    long as the process, and each full collection, which any page may set off, walked the
    lot for nothing. A page that sets one off no longer pays for it."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - imported for its modules
    gc.freeze()


_settle()
