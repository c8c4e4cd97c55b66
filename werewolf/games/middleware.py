"""A seat's two busiest posts, a card and a post in the talk, taken before the rest of
the middleware.

A card POST is the request a running game serves most after the page's poll, and
the one that writes (issue 11); a post in the talk comes next (issue 10).
`cards.hand_in` and `talk.post_by_link` take them in one or two statements; the rest
of the request was Django's way around them: the session, the language, the common
checks, the CSRF check, the user, the messages and the URL resolver, each asked to do
nothing for a request that reads no session, speaks no language and answers with a
redirect. Together they cost a gunicorn worker about 170 of the 600 us it spent on a
card (`benchmarks/web.py`: the card POST went from 0.45 to 0.49 of a trivial view's
rate to 0.53 to 0.57). What the handler itself does around every request still
happens: the database connection's checks at its start and end, and an error turned
into Django's answer (a 400 for a body too large, say).

`SeatPostMiddleware` sits right after `SecurityMiddleware` (which has already
redirected a plain-HTTP request where HTTPS is required, and adds its headers to the
answer) and takes only what the rest could not refuse:

- a POST to a seat's page (`games:seat`) or its talk (`games:seat_talk`), at a host the
  site serves (`get_host`, as `CommonMiddleware` checks it);
- that the browser says came from this very site's own page (`Sec-Fetch-Site:
  same-origin`): the case in which `werewolf.csrf` skips the token, so the check the
  rest would make is this one;
- a card `cards.hand_in` takes, or a post `talk.post_by_link` takes.

Anything else goes the whole way, unchanged. A refusal above all: the view gives it,
from what the database holds then, in the game's language. A card `hand_in` did not
take is not offered to it again (`TRIED`); a refused post is tried again by the view,
which is what reads the reason (a refusal writes nothing). The answers are the views'
own (`card_taken`, `post_taken`), with the header the rest would add to them
(X-Frame-Options, as `XFrameOptionsMiddleware` would).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

from . import cards, links, services, talk

TRIED = "_werewolf_card_tried"
"""Set on a request whose card `SeatPostMiddleware` offered `cards.hand_in`."""


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


def card_taken(request: HttpRequest, handed: cards.Handed) -> HttpResponse:
    """The answer to a card that went in: the seat's page, which then tells whether the
    phase it was for is still open or whether this card ended it."""
    # Not redirect(), which would first try the path as a view's name.
    return HttpResponseRedirect(f"{request.path}?handed={handed.index}")


def post_taken(request: HttpRequest) -> HttpResponse:
    """The answer to a post that went in: the seat's page, at the talk. The page is the
    post's path less its "talk/" (games/urls.py), without a reverse() to build it again."""
    return HttpResponseRedirect(request.path.removesuffix("talk/") + "#talk")


def _take(request: HttpRequest) -> HttpResponse | None:
    """The answer, if the request is a seat's card or post that goes in; else None."""
    path = request.path_info
    for name in ("games:seat", "games:seat_talk"):
        head, tail = links.path_around(name, "/")
        if path.startswith(head) and path.endswith(tail):
            token = path[len(head) : len(path) - len(tail)]
            if links.looks_like_token(token):
                break
    else:
        return None
    request.get_host()  # a host the site does not serve: refused (400), as the rest would
    data = cards.form_of(request)
    if name == "games:seat":
        setattr(request, TRIED, True)
        handed = cards.hand_in(token, data)
        return None if handed is None else card_taken(request, handed)
    try:
        talk.post_by_link(token, data.get("channel", ""), data.get("text", ""))
    except (links.LinkError, services.ServiceError):
        return None  # the view tries again, and says why
    return post_taken(request)
