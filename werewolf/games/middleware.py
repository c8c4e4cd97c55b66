"""A card handed in by a seat's own page, taken before the rest of the middleware.

A card POST is the request a running game serves most after the page's poll, and
the one that writes (issue 11). `cards.hand_in` takes it in one or two statements;
the rest of the request was Django's way around it: the session, the language, the
common checks, the CSRF check, the user, the messages and the URL resolver, each
asked to do nothing for a request that reads no session, speaks no language and
answers with a redirect. Together they cost a gunicorn worker about 170 of the 600 us
it spent on a card (`benchmarks/web.py`: the card POST went from 0.45 to 0.49 of a
trivial view's rate to 0.53 to 0.57). What the handler itself does around every
request still happens: the database connection's checks at its start and end, and an
error turned into Django's answer (a 400 for a body too large, say).

`HandInMiddleware` sits right after `SecurityMiddleware` (which has already redirected
a plain-HTTP request where HTTPS is required, and adds its headers to the answer) and
takes only what the rest could not refuse:

- a POST to a seat's page (`games:seat`), at a host the site serves (`get_host`, as
  `CommonMiddleware` checks it);
- that the browser says came from this very site's own page (`Sec-Fetch-Site:
  same-origin`): the case in which `werewolf.csrf` skips the token, so the check the
  rest would make is this one;
- a card `cards.hand_in` takes (any other answer, a refusal above all, is the view's
  to give, and it gives it from what the database holds then).

Anything else goes the whole way, unchanged; so does a card `hand_in` does not take,
which the view then does not try again (`TRIED`). The answer is the view's own: a
redirect to the seat's page, with the headers the rest would add to it
(X-Frame-Options, as `XFrameOptionsMiddleware` would).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

from . import cards, links

TRIED = "_werewolf_card_tried"
"""Set on a request whose card `HandInMiddleware` offered `cards.hand_in`."""


class HandInMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "POST" and request.META.get("HTTP_SEC_FETCH_SITE") == "same-origin":
            token = _token(request.path_info)
            if token is not None:
                request.get_host()  # a host the site does not serve: refused (400), as the rest would
                setattr(request, TRIED, True)
                handed = cards.hand_in(token, cards.form_of(request))
                if handed is not None:
                    response = HttpResponseRedirect(f"{request.path}?handed={handed.index}")
                    response.headers.setdefault("X-Frame-Options", settings.X_FRAME_OPTIONS)
                    return response
        return self.get_response(request)


def _token(path_info: str) -> str | None:
    """The token of a seat page's path (`games:seat`), if `path_info` (the path below the
    script's prefix, as the URL resolver reads it) is one."""
    head, tail = links.seat_path("/")
    if not (path_info.startswith(head) and path_info.endswith(tail)):
        return None
    token = path_info[len(head) : len(path_info) - len(tail)]
    return token if links.looks_like_token(token) else None
