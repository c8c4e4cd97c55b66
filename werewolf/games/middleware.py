"""A seat's busiest post after its page's poll, a post in the talk (issue 10), taken
before the rest of the middleware.

`talk.post_by_link` takes a post in one or two statements; the rest of the request was
Django's way around it: the session, the language, the common checks, the CSRF check,
the user, the messages and the URL resolver, each asked to do nothing for a request that
reads no session, speaks no language and answers with a redirect. What the handler
itself does around every request still happens: the database connection's checks at
its start and end, and an error turned into Django's answer (a 400 for a body too
large, say).

A card (`games:seat`) is not taken here: it goes the whole way, where the view offers
it to `cards.hand_in` first. Taking it here saved a fraction of a millisecond a card,
which neither a player nor an operator notices, for a second copy of the CSRF check's
rule (docs/performance.md).

`SeatPostMiddleware` sits right after `SecurityMiddleware` (which has already
redirected a plain-HTTP request where HTTPS is required, and adds its headers to the
answer) and takes only what the rest could not refuse:

- a POST to a seat's talk (`games:seat_talk`), at a host the site serves (`get_host`,
  as `CommonMiddleware` checks it);
- that the browser says came from this very site's own page (`Sec-Fetch-Site:
  same-origin`): the case in which `werewolf.csrf` skips the token, so the check the
  rest would make is this one;
- a post `talk.post_by_link` takes.

Anything else goes the whole way, unchanged. A refusal above all: the view gives it,
from what the database holds then, in the game's language (a refusal writes nothing).
The answer is the view's own (`post_taken`), with the header the rest would add to it
(X-Frame-Options, as `XFrameOptionsMiddleware` would).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from urllib.parse import parse_qsl

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

from . import links, services, talk


class SeatPostMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "POST" and request.META.get("HTTP_SEC_FETCH_SITE") == "same-origin":
            taken = _take(request)
            if taken is not None:
                taken.headers.setdefault("X-Frame-Options", settings.X_FRAME_OPTIONS)
                return taken
        return self.get_response(request)


def post_taken(request: HttpRequest) -> HttpResponse:
    """The answer to a post that went in: the seat's page, at the talk. The page is the
    post's path less its "talk/" (games/urls.py), without a reverse() to build it again."""
    return HttpResponseRedirect(request.path.removesuffix("talk/") + "#talk")


def _take(request: HttpRequest) -> HttpResponse | None:
    """The answer, if the request is a seat's post that goes in; else None."""
    path = request.path_info
    head, tail = links.path_around("games:seat_talk", "/")
    if not (path.startswith(head) and path.endswith(tail)):
        return None
    token = path[len(head) : len(path) - len(tail)]
    if not links.looks_like_token(token):
        return None
    request.get_host()  # a host the site does not serve: refused (400), as the rest would
    data = form_of(request)
    try:
        talk.post_by_link(token, data.get("channel", ""), data.get("text", ""))
    except (links.LinkError, services.ServiceError):
        return None  # the view tries again, and says why
    return post_taken(request)


def form_of(request: HttpRequest) -> Mapping[str, str]:
    """The posted form, as `_take` reads it: a form the browser sent urlencoded (what
    the seat page's form sends) read into a plain dict, each field's last value as
    `request.POST` gives it, by the same reading (Django's QueryDict: the body decoded
    by the default charset, or as Latin-1 if it is not that; urllib's `parse_qsl` with
    blank values kept, up to DATA_UPLOAD_MAX_NUMBER_FIELDS), without building the
    QueryDict. Anything else, or a
    form already read (a cross-site check reads the token), is `request.POST` itself; so
    is a form with too many fields, which `request.POST` then refuses as Django does."""
    if (
        request.content_type != "application/x-www-form-urlencoded"
        or request.encoding not in (None, settings.DEFAULT_CHARSET)
        or hasattr(request, "_post")
    ):
        return request.POST
    body = request.body  # (as request.POST would: refused past DATA_UPLOAD_MAX_MEMORY_SIZE)
    try:
        text = body.decode(settings.DEFAULT_CHARSET)
    except UnicodeDecodeError:
        text = body.decode("iso-8859-1")
    try:
        return dict(
            parse_qsl(
                text,
                keep_blank_values=True,
                encoding=settings.DEFAULT_CHARSET,
                max_num_fields=settings.DATA_UPLOAD_MAX_NUMBER_FIELDS,
            )
        )
    except ValueError:
        return request.POST
