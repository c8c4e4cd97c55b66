"""Django's CSRF middleware, which lets a form post that the browser itself says came from
one of this site's own pages skip the token check.

Every browser since 2023 sends `Sec-Fetch-Site` with each request it makes to a secure
origin (HTTPS, or localhost): `same-origin` when the page that sent it is of this very
origin (scheme, host and port), something else when it is not. No page can set or change
it (it is a forbidden header name), so a forged cross-site post cannot claim to be
same-origin, which is all that the token proves. The token costs a post Django's check
in pure Python (the cookie's secret and the form's token unmasked and compared: about
55 us of CPU on the benchmark machine of issue 11, against 5 us); the header costs one
lookup. Go's net/http
(`CrossOriginProtection`), Echo and ASP.NET Core protect forms this way.

Anything else goes Django's whole way, unchanged: a post without the header (an older
browser, a page over plain HTTP, a test client, a script), and one the browser says is
same-site, cross-site or typed in (`none`) is checked for its Origin (or Referer) and its
token. So forms still carry the token, and a post that may skip it is one that could
not have been forged.

Django's deploy check security.W003 looks for its own class by name, so the settings
silence it; `check_csrf_middleware` asks the same of this class or any subclass of
Django's.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import checks
from django.http import HttpRequest, HttpResponseForbidden
from django.middleware import csrf
from django.utils.module_loading import import_string

_SAFE = frozenset(("GET", "HEAD", "OPTIONS", "TRACE"))


class CsrfViewMiddleware(csrf.CsrfViewMiddleware):
    def process_view(
        self, request: HttpRequest, callback: Any, callback_args: Any, callback_kwargs: Any
    ) -> HttpResponseForbidden | None:
        if request.META.get("HTTP_SEC_FETCH_SITE") == "same-origin" and request.method not in _SAFE:
            # Django's own way to let a request through (it marks it checked, and returns None);
            # a private method, so django-stubs leaves it out.
            self._accept(request)  # type: ignore[attr-defined]
            return None
        return super().process_view(request, callback, callback_args, callback_kwargs)


@checks.register(checks.Tags.security, deploy=True)
def check_csrf_middleware(app_configs: Any, **kwargs: Any) -> list[checks.CheckMessage]:
    """Django's security.W003, for Django's CSRF middleware or any subclass of it."""
    for path in settings.MIDDLEWARE:
        try:
            middleware = import_string(path)
        except ImportError:
            continue
        if isinstance(middleware, type) and issubclass(middleware, csrf.CsrfViewMiddleware):
            return []
    return [
        checks.Warning(
            "No CSRF middleware in MIDDLEWARE: neither Django's CsrfViewMiddleware nor a subclass of it "
            "(werewolf.csrf.CsrfViewMiddleware) protects the forms.",
            id="werewolf.W003",
        )
    ]
