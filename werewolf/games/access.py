"""Who may do what to a game, answered in one place.

Three kinds of people besides players (who need no account: their seat link is their key):

- the site's **staff** (`is_staff`): every game, the admin and the mail outbox, for support;
- a game's **organiser** (the account that set it up): everything about that game;
- its **co-organisers**, accounts the organiser invited to run it (a teacher's assistant, a
  second moderator): they see its secrets and run it, but do not delete it, change who
  co-organises it, or remove its players' addresses.

Every organiser view, export, PDF, print job and talk action asks `game_for` (or `may`);
the replay, which players and the public may also open once the game is over, asks
`replay_for`.
A game the visitor may not touch answers exactly as one that does not exist (404), so
game numbers cannot be probed.
"""

from __future__ import annotations

import enum
from typing import Any

from django.db.models import Q, QuerySet
from django.http import Http404

from .models import Game, PrintJob


class Action(enum.Enum):
    """What is done to a game."""

    VIEW = "view"
    """Open its dashboard, documents and export: its secrets."""
    RUN = "run"
    """Change it: set up or edit a draft, start it, move deadlines, enter cards, substitute
    players, post as the moderator."""
    OWN = "own"
    """What only its organiser (and staff) may do: delete it, choose its co-organisers,
    remove its players' addresses."""


_CO_ORGANISER = frozenset({Action.VIEW, Action.RUN})


def is_organiser(user: Any) -> bool:
    """Whether the account may organise at all (any active account; staff included)."""
    return bool(user is not None and user.is_authenticated and user.is_active)


def may(user: Any, game: Game, action: Action) -> bool:
    """Whether `user` may do `action` to `game`."""
    if not is_organiser(user):
        return False
    if user.is_staff or game.organiser_id == user.pk:
        return True
    return action in _CO_ORGANISER and game.co_organisers.filter(pk=user.pk).exists()


def games_of(user: Any) -> QuerySet[Game]:
    """The games `user` organises or co-organises (staff see their own here too; the admin
    lists every game)."""
    if not is_organiser(user):
        return Game.objects.none()
    return Game.objects.filter(Q(organiser=user) | Q(co_organisers=user)).distinct()


def game_for(user: Any, pk: int, action: Action) -> Game:
    """The game numbered `pk`, if `user` may do `action` to it; otherwise 404, whether it
    exists or not."""
    game = Game.objects.filter(pk=pk).first()
    if game is None or not may(user, game, action):
        raise Http404
    return game


OVER = (Game.Status.FINISHED, Game.Status.ENDED)
"""A game that is over, by its end or by its organiser."""


def may_replay(user: Any, game: Game) -> bool:
    """Whether `user` may walk through `game`'s replay, which shows every card and every
    role: its organisers at any time; anyone else (its players, the public) once it is
    over, unless its organiser keeps the replay private."""
    return (game.status in OVER and not game.replay_private) or may(user, game, Action.VIEW)


def replay_for(user: Any, game: Game) -> Game:
    """`game`, if `user` may see its replay; otherwise 404, as a game that does not exist."""
    if not may_replay(user, game):
        raise Http404
    return game


def print_job_for(user: Any, job: PrintJob) -> PrintJob:
    """A print job, if `user` may read it. A deck is nobody's secret (any organiser's);
    a game's document (role cards, notecards with seat links, the record) is for those
    who may see that game."""
    if job.kind == "deck":
        if not is_organiser(user):
            raise Http404
        return job
    game = Game.objects.filter(pk=job.params.get("game")).first()
    if game is None or not may(user, game, Action.VIEW):
        raise Http404
    return job
