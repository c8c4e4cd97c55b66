"""Private seat links: a secret in the URL, stored only as a hash.

The secret is an HMAC of a random nonce under the site's secret key, in lowercase
base32, so the server can write the same link into every mail without keeping the
secret itself. Revoking a link sets `revoked_at`; a substitute gets a new nonce.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.core import signing
from django.db import connection
from django.urls import get_script_prefix, reverse
from django.utils import timezone

from werewolf import engine

from .models import Game, Phase, Player, SeatLink, SeatPolicy
from .reading import read

TOKEN_LENGTH = 32
_TOKEN = re.compile(rf"[a-z2-7]{{{TOKEN_LENGTH}}}")


class LinkError(Exception):
    """A link that does not open a seat: `code` is "unknown" or "revoked". A revoked
    mail reference names its `link` (whose seat)."""

    def __init__(self, code: str, link: SeatLink | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.link = link


def issue(player: Player) -> SeatLink:
    """Give `player` a new link, revoking any earlier one."""
    player.links.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
    nonce = secrets.token_hex(16)
    return SeatLink.objects.create(player=player, nonce=nonce, token_hash=digest(token_for(nonce)))


def token_for(nonce: str) -> str:
    mac = hmac.new(settings.SECRET_KEY.encode(), b"seat-link:" + nonce.encode(), hashlib.sha256).digest()
    return base64.b32encode(mac).decode().rstrip("=").lower()[:TOKEN_LENGTH]


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def current(player: Player) -> SeatLink | None:
    """The player's link in force (read once per player object, see `prime`)."""
    primed = getattr(player, "_current_link", _UNPRIMED)
    if primed is None or isinstance(primed, SeatLink):  # primed: `prime` set it
        return primed
    return player.links.filter(revoked_at__isnull=True).order_by("-pk").first()


_UNPRIMED = object()


def prime(players: list[Player]) -> None:
    """Read the links in force of many players in one query (a phase's mails ask each
    player's link twice); `current` then answers from memory for these objects."""
    found: dict[int, SeatLink] = {}
    for link in _in_force(players):
        found[link.player_id] = link  # the newest wins
    for player in players:
        player._current_link = found.get(player.pk)  # type: ignore[attr-defined]


def _in_force(players: list[Player]) -> list[SeatLink]:
    """`SeatLink.objects.filter(player__in=players, revoked_at__isnull=True).order_by("pk")`,
    in SQL written once (as `games/rows.py` reads a page's rows: the ORM's writing of it
    cost more than its running)."""
    if not players:
        return []
    marks = ", ".join(["%s"] * len(players))
    table = connection.ops.quote_name(SeatLink._meta.db_table)
    sql = f"SELECT * FROM {table} WHERE player_id IN ({marks}) AND revoked_at IS NULL ORDER BY id"  # noqa: S608 - no input in the names
    return read(SeatLink, sql, [player.pk for player in players])


def url_for(player: Player, *, absolute: bool = True) -> str | None:
    link = current(player)
    if link is None:
        return None
    path = path_of("games:seat", token_for(link.nonce))
    return settings.SITE_URL + path if absolute else path


def path_of(name: str, token: str) -> str:
    """The path of the seat's URL `name` ("games:seat", "games:seat_talk"...) for `token`,
    as `reverse` writes it, without reversing it again (`path_around`): a seat's page
    writes six of its own links, and a reverse() costs 0.1 ms of CPU."""
    head, tail = path_around(name, get_script_prefix())
    return f"{head}{token}{tail}"


@functools.lru_cache(maxsize=16)
def path_around(name: str, prefix: str) -> tuple[str, str]:
    """The path of a seat's URL `name` around its token under the script prefix
    `prefix`, reversed once per name and prefix (a phase's mails write twelve links;
    `reverse` costs more than the rest of writing one). Under "/", the path the URL
    resolver reads (`path_info`), by which `middleware.SeatPostMiddleware` tells a seat's
    card or post."""
    sample = "a" * TOKEN_LENGTH  # (a token's shape: nothing in it is quoted)
    below = reverse(name, args=[sample]).removeprefix(get_script_prefix())
    head, _, tail = below.partition(sample)
    return prefix + head, tail


def player_for(token: str) -> Player:
    """The player a token opens, or `LinkError`, with its game (and the game's
    missed-cards policy, which the page shows: `attendance.policy_of`). Never changes
    anything: mail scanners open links too.

    Two statements written once (`_player_sql`, `_game_sql`), read as `raw()` reads them
    (`reading.read`), as `games/rows.py` reads a page's rows: the ORM writing the one
    joined statement it replaces
    (`SeatLink.objects.select_related("player__game__seat_policy")`, the columns of four
    tables, each quoted and given its converters) was about a fifth of a seat page's
    work. `tests/web/test_rows.py` holds them to that query."""
    if not _TOKEN.fullmatch(token):  # not one of ours (a NUL, say, which PostgreSQL refuses): no query
        raise LinkError("unknown")
    player = next(iter(read(Player, _player_sql(), [digest(token)])), None)
    if player is None:
        raise LinkError("unknown")
    if getattr(player, "link_revoked_at", None) is not None:
        raise LinkError("revoked")
    player.game = read(Game, _game_sql(), [player.game_id])[0]
    return player


@functools.cache
def _player_sql() -> str:
    """The player a link's hash opens, with the link's `link_revoked_at`."""
    return f"""
    SELECT player.*, link.revoked_at AS link_revoked_at
      FROM {SeatLink._meta.db_table} link
      JOIN {Player._meta.db_table} player ON player.id = link.player_id
     WHERE link.token_hash = %s
"""


@functools.cache
def _game_sql() -> str:
    """A game by its id, with its missed-cards policy's columns, `policy_id` NULL where
    it has none (`attendance.policy_of`)."""
    return f"""
    SELECT game.*, kept.id AS policy_id, kept.prod_after AS policy_prod_after,
           kept.act_after AS policy_act_after, kept.at_limit AS policy_at_limit,
           kept.standby_limit AS policy_standby_limit
      FROM {Game._meta.db_table} game
      LEFT JOIN {SeatPolicy._meta.db_table} kept ON kept.game_id = game.id
     WHERE game.id = %s
"""


@dataclass(frozen=True, slots=True)
class Speaker:
    """What a post by a seat's own link needs, and no more: the seat, the name it posts
    under, and its game's id, status, state (as JSON text) and newest phase."""

    player: int
    seat: int | None
    name: str
    game: int
    status: str
    state: str | None
    """The game's state as the database prints it (`state_sql`), JSON text."""
    phase: int | None


def looks_like_token(token: str) -> bool:
    """Whether `token` could be a link's secret at all (a NUL, say, which PostgreSQL
    refuses, is not): anything else opens nothing, without a query."""
    return _TOKEN.fullmatch(token) is not None


def speaker_for(token: str) -> Speaker:
    """`player_for` for a post: the same link, refused the same way ("unknown",
    "revoked"), read with its seat and game in one plain query. A post is the busiest
    request a game has (issue 10's benchmark): building the ORM's query and three model
    instances, the game's whole row among them, cost many times the query itself. The
    game's state comes as the database's own text of it (`Speaker.state`), which a post
    may later compare with the row's (`talk.post_by_link`)."""
    if not looks_like_token(token):
        raise LinkError("unknown")
    with statements() as cursor:
        cursor.execute(_speaker_sql(connection.vendor), [digest(token)])
        row = cursor.fetchone()
    if row is None:
        raise LinkError("unknown")
    revoked, player, seat, name, game, status, state, phase = row
    if revoked:
        raise LinkError("revoked")
    return Speaker(player, seat, name, game, status, state, phase)


@functools.cache
def from_link() -> str:
    """The FROM clause of a statement that reads a seat's link (its hash the parameter):
    `link`, its `player` and `game`, and the game's open `phase` (`open_phase_join`).
    A card (`cards`) and a page's poll (`polls`) read by it."""
    return f"""
      FROM {SeatLink._meta.db_table} link
      JOIN {Player._meta.db_table} player ON player.id = link.player_id
      JOIN {Game._meta.db_table} game ON game.id = player.game_id
      {open_phase_join()}
     WHERE link.token_hash = %s
"""


def open_phase_join() -> str:
    """The join that gives a statement reading `game` the game's open `phase`: its id,
    index and deadline, NULLs when none is open."""
    return f"""LEFT JOIN LATERAL (
           SELECT opened.id, opened."index", opened.deadline FROM {Phase._meta.db_table} opened
            WHERE opened.game_id = game.id AND opened.status = '{Phase.Status.OPEN}'
            ORDER BY opened."index" LIMIT 1) phase ON TRUE"""


def statements() -> Any:
    """A cursor for the few plain statements a busy request runs every time: on
    PostgreSQL (werewolf.database) parsed and planned once per connection, which halves
    the server's work for a post; elsewhere an ordinary cursor."""
    prepared = getattr(connection, "prepared_cursor", None)
    return prepared() if prepared is not None else connection.cursor()


def run(sql: str, params: list[Any]) -> tuple[int, tuple[Any, ...] | None]:
    """One of the few statements a busy request runs every time: the rows it wrote and
    its first row. On PostgreSQL (werewolf.database) prepared once per connection;
    elsewhere by an ordinary cursor (`statements`)."""
    with statements() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount, (cursor.fetchone() if cursor.description else None)


def state_from(state: Any) -> engine.State:
    """A game's state as a link's read found it: the JSON text, decoded once per text
    while it is recent (a game's cards and posts come in bursts between two
    resolutions, and a State is immutable), or the JSON already decoded."""
    return _decoded(state) if isinstance(state, str) else engine.State.from_json(state)


@functools.lru_cache(maxsize=256)
def _decoded(text: str) -> engine.State:
    return engine.State.from_json(json.loads(text))


def state_sql(vendor: str, table: str = "game") -> str:
    """The game row's state as text, the same text each time for the same state: the
    JSON column as PostgreSQL prints its jsonb, or as SQLite keeps it."""
    return f"{table}.state::text" if vendor == "postgresql" else f"{table}.state"


@functools.cache
def _speaker_sql(vendor: str) -> str:
    return f"""
    SELECT link.revoked_at IS NOT NULL, player.id, player.seat, player.name,
           game.id, game.status, {state_sql(vendor)},
           (SELECT phase.id FROM {Phase._meta.db_table} phase
             WHERE phase.game_id = game.id ORDER BY phase."index" DESC LIMIT 1)
      FROM {SeatLink._meta.db_table} link
      JOIN {Player._meta.db_table} player ON player.id = link.player_id
      JOIN {Game._meta.db_table} game ON game.id = player.game_id
     WHERE link.token_hash = %s
"""


# Mail references -------------------------------------------------------------------
#
# A mail that asks for a card carries, in its Reply-To, a reference naming the seat and
# the phase the card is for, signed with the seat link's nonce: `<player>-<phase>-<mac>`.
# A reply to an old phase's mail is therefore known to be late, a substitute's new link
# makes the old references void, and nobody can write one without the site's secret.

REFERENCE = re.compile(r"(?<![0-9a-z])(\d{1,10})-(\d{1,5})-([a-z2-7]{20})(?![0-9a-z])")


def reference_for(player: Player, phase_index: int) -> str | None:
    link = current(player)
    if link is None:
        return None
    return f"{player.pk}-{phase_index}-{_reference_mac(link.nonce, phase_index)}"


def player_for_reference(reference: str) -> tuple[Player, int]:
    """The player and phase index a reference names, or `LinkError` ("unknown" for a
    forged or mangled one, "revoked", with the link, for one of a link since replaced)."""
    found = REFERENCE.fullmatch(reference.lower())
    if found is None:
        raise LinkError("unknown")
    player_pk, index, mac = int(found[1]), int(found[2]), found[3]
    for link in SeatLink.objects.select_related("player__game").filter(player_id=player_pk).order_by("-pk"):
        if hmac.compare_digest(_reference_mac(link.nonce, index), mac):
            if link.revoked_at is not None:
                raise LinkError("revoked", link)
            return link.player, index
    raise LinkError("unknown")


def _reference_mac(nonce: str, index: int) -> str:
    message = f"mail-reference:{nonce}:{index}".encode()
    mac = hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).digest()
    return base64.b32encode(mac).decode().rstrip("=").lower()[:20]


TALK = re.compile(r"t-(\d{1,10})-([a-z2-7]{20})")


def talk_reference(player: Player) -> str | None:
    """The signed reference a talk digest's reply address carries: a reply to it posts in
    the town square as this seat. It dies with the seat's link (a substitute's is new)."""
    link = current(player)
    if link is None:
        return None
    return f"t-{player.pk}-{_reference_mac(link.nonce, -1)}"


def player_for_talk(reference: str) -> Player:
    """The player a talk reference names, or `LinkError` ("unknown", "revoked")."""
    found = TALK.fullmatch(reference.lower())
    if found is None:
        raise LinkError("unknown")
    for link in SeatLink.objects.select_related("player__game").filter(player_id=int(found[1])).order_by("-pk"):
        if hmac.compare_digest(_reference_mac(link.nonce, -1), found[2]):
            if link.revoked_at is not None:
                raise LinkError("revoked", link)
            return link.player
    raise LinkError("unknown")


BOUNCE = re.compile(r"b-(\d{1,12})-([a-z2-7]{16})")


def bounce_reference(dispatch_pk: int) -> str:
    """The signed reference a mail's return path carries (VERP): a bounce sent to it
    names the mail, and nobody can forge one for another mail."""
    return f"b-{dispatch_pk}-{_bounce_mac(dispatch_pk)}"


def dispatch_for_bounce(reference: str) -> int:
    """The mail (its Dispatch pk) a bounce reference names, or `LinkError("unknown")`."""
    found = BOUNCE.fullmatch(reference.lower())
    if found is None or not hmac.compare_digest(_bounce_mac(int(found[1])), found[2]):
        raise LinkError("unknown")
    return int(found[1])


def _bounce_mac(pk: int) -> str:
    mac = hmac.new(settings.SECRET_KEY.encode(), f"bounce:{pk}".encode(), hashlib.sha256).digest()
    return base64.b32encode(mac).decode().rstrip("=").lower()[:16]


_SIGNUP_SALT = "werewolf.signup"


def signup_url(player: Player) -> str:
    """The link that confirms `player`'s sign-up (signed, so it can't be made up)."""
    token = signing.dumps(player.pk, salt=_SIGNUP_SALT, compress=False)
    return settings.SITE_URL + reverse("games:join_confirm", args=[token])


def player_for_signup(token: str) -> Player:
    """The pending player a confirmation link names; `LinkError` "unknown" if forged or
    mangled (or the player has gone), "expired" after WEREWOLF_SIGNUP_HOURS."""
    try:
        pk = signing.loads(token, salt=_SIGNUP_SALT, max_age=timedelta(hours=settings.WEREWOLF_SIGNUP_HOURS))
    except signing.SignatureExpired:
        raise LinkError("expired") from None
    except signing.BadSignature:
        raise LinkError("unknown") from None
    player = Player.objects.select_related("game").filter(pk=pk).first() if isinstance(pk, int) else None
    if player is None:
        raise LinkError("unknown")
    return player


Found = TypeVar("Found")


class LastReads(Generic[Found]):
    """What the last read of each link used lately found, per process, by the link's
    hash: a link's next card or post is checked against it and written by one statement
    that writes only if the database still holds what was read (cards.py, talk.py).
    Bounded: the oldest goes when it is full (a dict keeps its order), and threads
    racing to drop one simply drop another."""

    def __init__(self, size: int = 2048) -> None:
        self._found: dict[str, Found] = {}
        self._size = size

    def get(self, key: str) -> Found | None:
        return self._found.get(key)

    def forget(self, key: str) -> None:
        self._found.pop(key, None)

    def remember(self, key: str, found: Found) -> None:
        if self._found.get(key) == found:
            return
        if len(self._found) >= self._size:
            try:
                del self._found[next(iter(self._found))]
            except (KeyError, RuntimeError, StopIteration):  # another thread was at it
                pass
        self._found[key] = found
