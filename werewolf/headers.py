"""Headers every answer of the app carries."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.utils.cache import add_never_cache_headers


class NoStoreMiddleware:
    """Nothing the app makes is kept by a browser or a proxy: a seat's page, its poll, the
    dashboard, an export or a print job shows what only its reader may know, and a shared
    computer (a classroom's, a care home's) must not show it to the next person. An answer
    that says how it may be kept already (the static files, the PDFs) keeps its own word."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response
        self.static = settings.STATIC_URL or "/static/"

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if not response.has_header("Cache-Control") and not request.path.startswith(self.static):
            add_never_cache_headers(response)
        return response
