"""The site (django.contrib.sites) in every template rendered with a request, as
`current_site`: allauth's account mails name it ("to register an account on ..."), and
the site's own adapter renders them with the request but without it. Looked up only
where a template uses it."""

from __future__ import annotations

from django.contrib.sites.shortcuts import get_current_site
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject


def current_site(request: HttpRequest) -> dict[str, object]:
    return {"current_site": SimpleLazyObject(lambda: get_current_site(request))}
