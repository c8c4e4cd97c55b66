"""What talk each viewer reads: for a seat, the public page and the organiser, the
channels it reads now (from the engine, `werewolf.engine.talk`), their newest posts, and a
digest of them for the polls. Reads only: posting and the mailed digests are `talk`'s."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils import timezone, translation

from werewolf import engine
from werewolf.engine import talk

from . import rows
from .models import Game, Post

SHOWN = 40
"""The newest posts a page shows per channel; the earlier ones are a click away, the
same number at a time (and the export keeps them all)."""


@dataclass(frozen=True)
class Room:
    """One channel as a viewer sees it: its posts, and whether (or why not) the viewer
    may write in it now."""

    name: str
    posts: list[Post]
    may_write: bool
    closed: str
    words: str
    """What the room's own words are a function of (its name and help, its form but for
    the page's CSRF token and address, why the viewer may not write): the ruleset, the
    language, the channel, and how the viewer reads it (the moderator or not, public or
    not, may write or why not). Nothing of a game or a seat: rendered once per process
    for every room of every game of the ruleset that has them (includes/talk.html), a
    handful of parts. Which rooms a viewer is shown is still `rooms`'s, per viewer."""
    earlier: int | None = None
    """Where the posts before these begin (the oldest shown), when there may be more."""
    public: bool = False
    """Whether every seat reads it (the town square): the others' posts are secrets the
    organiser's dashboard folds away."""
    shared: str = ""
    """What the list of posts is a function of, for a reader other than the moderator
    (who sees hidden posts marked, and a form by each): the game, the channel, the posts
    shown (a post's words never change; one hidden leaves the list), the language and the
    time zone of their times. Every reader of the channel is shown the same list, rendered
    once for them all (includes/talk.html); empty for the moderator."""


def channels_for(game: Game, viewer: engine.Viewer) -> list[talk.Channel]:
    """The channels `viewer` reads: a seat's own; the public page the square when the
    organiser allows; the moderator every channel that exists now."""
    state = game.engine_state if game.state is not None else None
    if isinstance(viewer, int):
        return seat_channels(game.status, state, viewer)
    if viewer != engine.MODERATOR:
        return public_channels(game.status, state, game.public_square)
    if game.status == Game.Status.DRAFT or state is None:
        return []
    return list(talk.channels(state))


def public_channels(status: str, state: engine.State | None, public_square: bool) -> list[talk.Channel]:
    """The channels the public page reads: the square, when the organiser allows it."""
    if status == Game.Status.DRAFT or state is None or not public_square:
        return []
    return [channel for channel in talk.channels(state) if channel.name == talk.SQUARE]


def seat_channels(status: str, state: engine.State | None, seat: int) -> list[talk.Channel]:
    """The channels a seat reads in a game of `status` and `state` (none before it starts)."""
    if status == Game.Status.DRAFT or state is None:
        return []
    return list(talk.readable(state, seat))


def rooms(game: Game, viewer: engine.Viewer, before: int | None = None) -> list[Room]:
    """What `viewer` reads, channel by channel, newest posts last (the newest `SHOWN` of
    the channels together, or those before the post numbered `before`), in one query
    whatever the number of channels. Hidden posts are left out, except for the moderator,
    who sees them marked, and also sees the posts of a group gone since (both Lovers
    dead)."""
    channels = channels_for(game, viewer)
    if not channels:
        return []
    moderator = viewer == engine.MODERATOR
    names = None if moderator else [channel.name for channel in channels]
    newest = rows.newest_posts(game, names, moderator, before, SHOWN * max(len(channels), 1))
    by_channel: dict[str, list[Post]] = {}
    for found in newest:
        by_channel.setdefault(found.channel, []).append(found)
    known = {channel.name for channel in channels}
    channels += [talk.Channel(name, frozenset(), frozenset()) for name in by_channel if name not in known]
    state = game.engine_state
    everyone = frozenset(range(state.seats))
    language, zone = translation.get_language(), timezone.get_current_timezone_name()
    rooms = []
    for channel in channels:
        may_write = viewer == engine.MODERATOR and channel.name in known
        closed = ""
        if isinstance(viewer, int):
            may_write = viewer in channel.writers
            closed = "" if may_write else talk.refusal(state, viewer, channel.name, "-") or ""
        shown = by_channel.get(channel.name, [])[-SHOWN:]
        earlier = shown[0].pk if len(shown) == SHOWN else None
        shared = ""
        if viewer != engine.MODERATOR:
            posts_shown = ",".join(str(post.pk) for post in shown)
            shared = f"{game.pk}|{channel.name}|{posts_shown}|{language}|{zone}"
        public = channel.readers == everyone
        words = f"{game.ruleset}|{language}|{channel.name}|{moderator:d}|{public:d}|{may_write:d}|{closed}"
        rooms.append(Room(channel.name, shown, may_write, closed, words, earlier, public, shared))
    return rooms


def digest(game: Game, viewer: engine.Viewer) -> list[Any]:
    """What the viewer's page shows of talk that can change, for `selectors.version`: per
    channel it reads, how many posts and how many hidden, from that channel only (another
    group's talk never changes a page)."""
    names = [channel.name for channel in channels_for(game, viewer)]
    if not names:
        return []
    return digest_of(names, rows.post_counts(game, names))


def digest_of(names: list[str], counts: list[Any]) -> list[Any]:
    """`digest`, given the names of the channels the viewer reads and each channel's
    (name, posts, hidden posts), by name: only the viewer's channels count."""
    if not names:
        return []
    return [names] + [[channel, total, hidden] for channel, total, hidden in counts if channel in names]
