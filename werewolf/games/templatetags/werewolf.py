"""Template helpers that turn event data into words, through templates only."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

from django import template
from django.conf import settings
from django.template import Engine
from django.template.loader import get_template
from django.urls import get_script_prefix
from django.utils import translation
from django.utils.html import escape
from django.utils.safestring import mark_safe

from werewolf import engine, kept_words
from werewolf.engine import grammar

register = template.Library()


@register.filter
def wall_clock(value: Any) -> datetime | str:
    """A time an event holds as the game's clock read it ("2026-11-27T01:03"), as a
    naive datetime, so that `date` shows it as it is, in no viewer's zone."""
    try:
        return datetime.fromisoformat(str(value)).replace(tzinfo=None)
    except ValueError:
        return ""


@register.filter
def seat(index: Any, names: Sequence[str]) -> str:
    """The name in a seat."""
    try:
        return names[int(index)]
    except (TypeError, ValueError, IndexError):
        return "?"


@register.filter
def seats(indices: Any, names: Sequence[str]) -> str:
    return ", ".join(seat(index, names) for index in indices or ())


@register.filter
def numbers(values: Any) -> str:
    """Numbers as a sentence lists them ("8, 3, 2"). Django's `join` leaves a list of
    numbers as it is where autoescaping is off, as in a plain-text mail ("[8, 3, 2]")."""
    return ", ".join(str(value) for value in values or ())


@register.filter
def spoken(word: Any) -> str:
    """A notecard word (KILL, NO VOTE) in the language being written (UCCIDI in Italian)."""
    return grammar.spoken(str(word or ""), translation.get_language())


@register.filter
def spoken_words(words: Any) -> str:
    """Notecard words, each in the language being written, separated by commas."""
    return ", ".join(spoken(word) for word in words or ())


@register.filter
def house(index: Any, names: Sequence[str]) -> str:
    """A Lupusburg house by its owner's name and its number ("Ada 2"), as cards write it."""
    try:
        return grammar.labels_for("house", names)[int(index)]
    except (TypeError, ValueError, IndexError):
        return "?"


@register.filter
def houses(indices: Any, names: Sequence[str]) -> str:
    return ", ".join(house(index, names) for index in indices or ())


@register.filter
def votes_in(index: Any, tally: Any) -> int:
    """How many votes a seat has in a tally given as `[seat, count]` pairs (0 if none)."""
    for row in tally or ():
        if row and row[0] == index:
            return int(row[1])
    return 0


@register.filter
def ballots_for(index: Any, ballots: Any) -> int:
    """How many of a day's ballots, given as `[voter, seat]` pairs, name a seat."""
    return sum(1 for ballot in ballots or () if len(ballot) > 1 and ballot[1] == index)


@register.filter
def token_name(token: str | None) -> str:
    """A token's name in the reader's language (includes/token.html): the built-in ones
    translated, an organiser's as they wrote it."""
    return get_template("includes/token.html").render({"token": token or ""}).strip()


@register.filter
def character(role_id: str | None, game: Any) -> Any:
    """The definition of a character of `game` (anything with `ruleset` and `options`),
    in rulesets whose characters are made of ability blocks (Luna Piena): what
    rulesets/werewolf/includes/character_text.html puts in words. None elsewhere."""
    if not role_id or game is None:
        return None
    ruleset = game.get("ruleset") if isinstance(game, dict) else getattr(game, "ruleset", None)
    options = game.get("options", {}) if isinstance(game, dict) else getattr(game, "options", {})
    if ruleset not in engine.rulesets.RULESETS:
        return None
    try:
        return engine.rulesets.get(ruleset).characters(options).get(role_id)
    except (engine.SetupError, ValueError):
        return None


def ruleset_of(holder: Any) -> str | None:
    """The ruleset id of a game, of anything else holding one as `ruleset` (a deck printed
    without a game), or `holder` itself when it is an id; None when it names no ruleset."""
    ruleset: Any
    if isinstance(holder, str):
        ruleset = holder
    elif isinstance(holder, Mapping):
        ruleset = holder.get("ruleset")
    else:
        ruleset = getattr(holder, "ruleset", None)
    return str(ruleset) if ruleset in engine.rulesets.RULESETS else None


@register.filter
def own(holder: Any, name: str) -> list[str]:
    """The template `name` as the ruleset's own folder holds it
    (templates/rulesets/<family>/<name>, shared by the editions of one game), then as the
    folders of its lineage hold it (rulesets/werewolf/<name>: the words of every werewolf
    game), then the shared one, whose words are neutral: what `{% include %}` and
    `select_template` pick from, the ruleset's words first. `holder` is a game, a
    ruleset's id, or anything holding one as `ruleset`."""
    ruleset = ruleset_of(holder)
    if ruleset is None:
        return [name]
    return [*_chain(ruleset, name), name]


@lru_cache(maxsize=1024)
def _chain(ruleset: str, name: str) -> tuple[str, ...]:
    capabilities = engine.capabilities(ruleset)
    return tuple(f"rulesets/{folder}/{name}" for folder in (capabilities.family, *capabilities.lineage))


def _own_template(ruleset: str | None, name: str) -> template.Template:
    """The compiled template `own` picks (the engine's, to render with a Context; the
    template loaders keep what they found, and what they did not)."""
    return Engine.get_default().select_template(own(ruleset, name))


@register.filter
def role(role_id: str | Sequence[str] | None, holder: Any = None) -> str:
    """The role's name in the reader's language, in the words of the game's ruleset
    (`holder`: a game or a ruleset's id; rulesets/<family>/includes/role.html names its
    roles, includes/role.html stands in for a role no ruleset names); of a seat that
    holds several (`engine.roles_of`), each one's, as includes/roles.html lists them."""
    if role_id is not None and not isinstance(role_id, str):
        named = [role(one, holder) for one in role_id]
        return get_template("includes/roles.html").render({"roles": named}).strip()
    return _role_words(translation.get_language(), ruleset_of(holder), role_id)


@kept_words.register
@lru_cache(maxsize=1024)
def _role_words(language: str | None, ruleset: str | None, role_id: str | None) -> str:
    """`role`'s words, once per process for the same role, ruleset and language (the key's
    `language`: the words are those of the language active), as the template reads
    nothing else: a seat's page names the roles of its circle on every request."""
    compiled = _own_template(ruleset, "includes/role.html")
    return str(compiled.render(template.Context({"role": role_id}))).strip()


@register.filter
def ballot_card(card: Any, holder: Any = None) -> str:
    """A card a tally counts in place of a player (`Slot.instead`: a day's NO
    ELIMINATION), or its kind, in the players' words rather than its notecard word
    (includes/ballot_card.html, in the words of the game's ruleset: `holder` as `own`
    takes it): the same words at every door that shows a tally (the running tally, the
    replay, the vote count in the square, the printed tally sheet, the day's result)."""
    kind = str(getattr(card, "kind", card) or "")
    return _ballot_card_words(translation.get_language(), ruleset_of(holder), kind, str(getattr(card, "word", "")))


@kept_words.register
@lru_cache(maxsize=256)
def _ballot_card_words(language: str | None, ruleset: str | None, kind: str, word: str) -> str:
    compiled = _own_template(ruleset, "includes/ballot_card.html")
    return mark_safe(str(compiled.render(template.Context({"kind": kind, "word": word}))).strip())


_EMBLEM = re.compile(r"[a-z_]+")


@register.filter
def emblem(role_id: Any) -> list[str]:
    """The drawing of a role's emblem on its printed card (print/emblems/<role>.svg,
    named by the role's id: rulesets that share a role share its drawing), else a plain
    disc."""
    if not isinstance(role_id, str) or not _EMBLEM.fullmatch(role_id):
        return ["print/emblems/none.svg"]
    return [f"print/emblems/{role_id}.svg", "print/emblems/none.svg"]


@register.filter
def of(mapping: Mapping[Any, Any] | None, key: Any) -> Any:
    """`mapping[key]`, or "" when it holds no such key (a template's lookup by a
    variable: each card's emblem among a deck's)."""
    return (mapping or {}).get(key, "")


@register.filter
def field(order: engine.Order | None, name: str) -> tuple[int, ...]:
    """The values written in one field of a card (`swap`): `engine.Order.field`."""
    return order.field(name) if order is not None else ()


def written(order: engine.Order, names: Sequence[str], ruleset: str | None) -> tuple[list[tuple[str, str]], bool]:
    """A card as it is written in `ruleset`'s words: each notecard word with what
    follows it, in the names cards use (seats; Lupusburg's houses and coin ranks); and
    whether it names anything but seats."""
    words = []
    other = False
    for word, values, refers in grammar.grammar(ruleset).spell(order):
        labels = grammar.labels_for(refers, names)
        other = other or (refers != "seat" and bool(values))
        words.append((word, ", ".join(labels[value] if 0 <= value < len(labels) else "?" for value in values)))
    return words, other


@register.filter(needs_autoescape=True)
def with_link(text: str, url: str, autoescape: bool = True) -> str:
    """Plain text as HTML, its one known link (the seat's own) made a link: what urlize
    would make of a mail's lines, at the cost of an escape and a replace."""
    if not autoescape:
        return text
    escaped: str = escape(text)
    if url:
        shown = escape(url)
        escaped = escaped.replace(shown, f'<a href="{shown}">{shown}</a>')
    return mark_safe(escaped)


@register.simple_tag
def poll_milliseconds() -> int:
    """How often an open page asks for news (static/werewolf/app.js), in milliseconds."""
    return round(settings.WEREWOLF_POLL_SECONDS * 1000)


@register.simple_tag(takes_context=True)
def phase_name(context: template.Context, phase: Any) -> str:
    """A phase's name ("Night 2", "Day 1"), to use inside a sentence or as a heading.

    The words come from includes/phase_name.html, rendered once per language and phase
    shape: a phase's name is public, and a mail or page names a phase several times."""
    shape = tuple(getattr(phase, name, None) for name in _PHASE_NAME_READS)
    text = _phase_name(translation.get_language(), context.autoescape, *shape)
    return mark_safe(text) if context.autoescape else text


_PHASE_NAME_READS = ("kind", "number", "stage", "step")
"""All that includes/phase_name.html reads of its phase (keep the two in step)."""


@kept_words.register
@lru_cache(maxsize=2048)
def _phase_name(language: str | None, autoescape: bool, *shape: Any) -> str:
    phase = SimpleNamespace(**dict(zip(_PHASE_NAME_READS, shape, strict=True)))
    compiled = Engine.get_default().get_template("includes/phase_name.html")
    return str(compiled.render(template.Context({"phase": phase}, autoescape=autoescape))).strip()


@register.simple_tag(takes_context=True)
def missed_policy(context: template.Context, policy: Any) -> str:
    """A game's missed-cards policy in words (includes/missed_policy.html), as every seat's
    page says it: rendered once per process for each policy and language, as the words
    read nothing but the policy (`attendance.Policy`, whose values are the key)."""
    text = _missed_policy(translation.get_language(), context.autoescape, policy)
    return mark_safe(text) if context.autoescape else text


@kept_words.register
@lru_cache(maxsize=256)
def _missed_policy(language: str | None, autoescape: bool, policy: Any) -> str:
    compiled = Engine.get_default().get_template("includes/missed_policy.html")
    return str(compiled.render(template.Context({"policy": policy}, autoescape=autoescape)))


@register.tag("alike")
def do_alike(parser: template.base.Parser, token: template.base.Token) -> AlikeNode:
    """`{% alike "name" [value ...] %}...{% endalike %}`: a part every mail of one moment
    says alike (a phase's mails: the same game, phase and language), given the values
    named after it (`said_alike`, as Django's `{% cache %}` varies on its values): written
    for the first mail and kept for the others. The part may read nothing of the seat it
    is written for but those values (tests/mail/test_alike.py holds every mail to what it
    would be written alone). Where nothing is kept for the moment (a page, a mail written
    alone), it is written each time."""
    bits = token.split_contents()
    if len(bits) < 2:
        raise template.TemplateSyntaxError("'alike' takes a name, then the values the part reads of its seat")
    nodelist = parser.parse(("endalike",))
    parser.delete_first_token()
    return AlikeNode(nodelist, bits[1], [parser.compile_filter(bit) for bit in bits[2:]])


class AlikeNode(template.Node):
    def __init__(self, nodelist: template.NodeList, name: str, vary: list[Any]) -> None:
        self.nodelist = nodelist
        self.name = name
        self.vary = vary

    def render(self, context: template.Context) -> str:
        said: dict[tuple[Any, ...], str] | None = context.get("said_alike")
        if said is None:
            return str(self.nodelist.render(context))
        key = (
            "alike",
            self.origin.template_name if self.origin else None,
            self.name,
            translation.get_language(),
            context.autoescape,
            *(value.resolve(context) for value in self.vary),
        )
        words = said.get(key)
        if words is None:
            words = said[key] = self.nodelist.render(context)
        return words


@register.simple_tag(takes_context=True)
def event_text(context: template.Context, event: Any) -> str:
    """An event in words for the page's viewer (the caller has filtered it), with the
    names the seats had when it happened if the selectors worked them out
    (`names_then`; a substitution renames a seat from then on only)."""
    game = context.get("game")
    ruleset = getattr(game, "ruleset", None) or context.get("ruleset")
    memo = context.get("event_words")
    if memo is None:
        return worded(event, context.get("names"), context.get("viewer"), ruleset, autoescape=context.autoescape)
    # One reader's mail says each event in its text and its HTML: worded once, as plain
    # text (event templates hold no markup), and escaped for the HTML.
    text = memo.get(id(event))
    if text is None:
        text = memo[id(event)] = worded(event, context.get("names"), context.get("viewer"), ruleset)
    return escape(text) if context.autoescape else text


def worded(
    event: Any, names: Sequence[str] | None, viewer: Any, ruleset: str | None, *, autoescape: bool = False
) -> str:
    """`event_text`'s words for `viewer`, given the seats' `names` now: the names they had
    when it happened, and the writers of its cards then, where the selectors worked them
    out (`names_then`, `writers_then`), plain text unless told to escape."""
    then = getattr(event, "names_then", None)
    return render_event(
        event,
        (names or ()) if then is None else then,
        viewer,
        autoescape=autoescape,
        ruleset=ruleset,
        writers=getattr(event, "writers_then", None),
    )


@register.simple_tag(takes_context=True)
def card_text(context: template.Context, order: engine.Order | None) -> str:
    """A notecard in words."""
    names = context.get("names") or ()
    game = context.get("game")
    ruleset = getattr(game, "ruleset", None) or context.get("ruleset")
    words, other = written(order, names, ruleset) if order is not None else ([], False)
    compiled = _own_template(ruleset, "includes/card.html")
    text = compiled.render(template.Context({"order": order, "names": names, "written": words, "other": other}))
    return mark_safe(text.strip()) if context.autoescape else text.strip()


def render_event(
    event: Any,
    names: Sequence[str],
    viewer: Any,
    *,
    autoescape: bool = True,
    ruleset: str | None = None,
    writers: Sequence[str] | None = None,
) -> str:
    """An event in words for `viewer`. `ruleset` lets a template word an event its own
    way where rulesets share its kind (a Tabula night death does not say who killed).
    `writers`: the seats named as the writers of the cards the event tells (a voter, the
    wolf whose list decided), where one has left the seat since (`Holders.writers`);
    None: the names. A template names a card's writer by `writers`, anyone else by
    `names`.

    The words are those of everything the event's template reads, and only that: its
    kind and data, the names and the writers, the viewer, the ruleset, the language, and for a few kinds
    the resolution of the event's phase (`PHASE_READERS`). An event never changes, and a
    page shows the same events again and again as the game goes on (a seat's page after
    every card, every seat's page, the mails), so they are worded once for all of those
    (`_event_words`, per process). `tests/web/test_event_words.py` checks that the event
    templates read nothing else of the event, and that the words are the same as a
    fresh rendering's for every event of whole games of every ruleset."""
    kind = event.kind
    visible_to = getattr(event, "visible_to", None)
    if isinstance(viewer, int) and visible_to is not None and visible_to(engine.PUBLIC):
        # A public event reads alike for every seat and the public (checked for every
        # event of whole games of each ruleset, tests/web/test_shared_pages.py): worded
        # once for them all, not once a seat (a phase's twelve mails, a storm's first
        # visits to twelve pages).
        viewer = engine.PUBLIC
    phase: str | None = _NO_PHASE
    if kind in PHASE_READERS:
        opened = getattr(event, "phase", None)
        phase = _NO_PHASE if opened is None else getattr(opened, "resolution", None)
    named = tuple(names)
    # (None where they are the names: the words of most events are kept under one key)
    wrote = None if writers is None or writers is names or tuple(writers) == named else tuple(writers)
    try:
        data = json.dumps(event.data)  # (its keys in their order: a template reads them as they come)
    except (TypeError, ValueError):  # not JSON (nothing the engine writes): worded afresh
        return _marked(_words(event, event.data, named, viewer, autoescape, ruleset, wrote), autoescape)
    language = translation.get_language()
    return _marked(_event_words(language, kind, data, named, viewer, autoescape, ruleset, phase, wrote), autoescape)


PHASE_READERS = frozenset({"day_ended"})
"""The event kinds whose template reads the resolution of the event's phase (a tie the
moderator broke, a majority before the deadline): `event.phase.resolution`, the only
thing any event template reads of the event itself besides its data."""

_NO_PHASE = "-"
"""What `_event_words` is given for the phase of an event that has none, or whose kind
does not read it."""


@kept_words.register
@lru_cache(maxsize=8192)
def _event_words(
    language: str | None,
    kind: str,
    data: str,
    names: tuple[str, ...],
    viewer: Any,
    autoescape: bool,
    ruleset: str | None,
    phase: str | None,
    writers: tuple[str, ...] | None = None,
) -> str:
    """`render_event`'s words, once per process for the same event, names, writers,
    viewer and language (`language` is the key's: the words are those of the language
    active)."""
    seen = SimpleNamespace(kind=kind, phase=None if phase == _NO_PHASE else SimpleNamespace(resolution=phase))
    return _words(seen, json.loads(data), names, viewer, autoescape, ruleset, writers)


def _words(
    event: Any,
    data: Any,
    names: Sequence[str],
    viewer: Any,
    autoescape: bool,
    ruleset: str | None,
    writers: Sequence[str] | None = None,
) -> str:
    compiled = _event_template(event.kind, ruleset)
    context = {
        "data": data,
        "names": names,
        "writers": names if writers is None else writers,
        "viewer": viewer,
        "event": event,
        "ruleset": ruleset,
    }
    text: str = compiled.render(template.Context(context, autoescape=autoescape))
    return " ".join(text.split())


def _marked(text: str, autoescape: bool) -> str:
    return mark_safe(text) if autoescape else text


def _event_template(kind: str, ruleset: str | None) -> template.Template:
    """The template of an event kind: the ruleset's own (rulesets/<family>/events/, as
    both Lupusburg editions word shared kinds with their houses and characters), or the
    shared one."""
    return _own_template(ruleset, f"events/{kind}.html")


@register.simple_tag(takes_context=True)
def seat_url(context: template.Context, name: str) -> str:
    """`{% url name token %}` for the token of the seat's page being rendered (its
    link's own pages: its poll, its talk, its PDF...), written from `links.path_of`."""
    from werewolf.games import links

    return links.path_of(name, context["request"].resolver_match.kwargs["token"])


@register.inclusion_tag("includes/talk.html", takes_context=True)
def talk(context: template.Context, game: Any, viewer: Any, talk_url: str) -> dict[str, Any]:
    """The channels `viewer` reads (a seat number, "public" or "moderator"), with their
    posts and, where it may write, a form posting to `talk_url`."""
    from werewolf.games import rooms
    from werewolf.games.validators import ascii_number

    request = context.get("request")
    before = ascii_number(request.GET.get("before", "")) if request is not None else None
    return {
        "game": game,
        "rooms": rooms.rooms(game, viewer, before),
        "before": before,
        "talk_url": talk_url,
        "moderator": viewer == engine.MODERATOR,
        "max_post": engine.talk.MAX_POST,
        "csrf_token": context.get("csrf_token"),
    }


@register.simple_tag(takes_context=True)
def circle_places(context: template.Context, circle: Sequence[Any], shared: str = "") -> str:
    """The places of a circle (`selectors.circle`), each as includes/circle_place.html
    writes it. With `shared` (a seat's page: `selectors.circle_shared`), every place but
    the viewer's own is kept once for every seat whose key is the same, in the fragments'
    cache as `{% cache %}` keeps the page's other shared parts: the key holds each of
    those places as the viewer is shown it, and no role of its own place, so the places a
    page takes from it are the ones it would have rendered. The viewer's own place, which
    says "you" and may name its own role, is the one written for it: most seats of a game
    see the others alike (all but a pack, which sees itself), where a whole circle, with
    its "you", was a part a seat."""
    game = context.get("game")

    def written(place: Any) -> str:
        return str(_circle_place().render(template.Context({"place": place, "game": game}, context.autoescape)))

    if not shared:
        return mark_safe("".join(written(place) for place in circle))
    from django.core.cache import caches

    kept = caches["template_fragments"]
    key = "werewolf.circle." + hashlib.md5(shared.encode(), usedforsecurity=False).hexdigest()
    others: list[str] | None = kept.get(key)
    if others is None:
        # (the viewer's place as the key holds it: another seat's, no role shown)
        seen = [
            dataclasses.replace(place, is_viewer=False, role=None) if place.is_viewer else place for place in circle
        ]
        others = [written(place) for place in seen]
        kept.set(key, others, 3600)
    return mark_safe(
        "".join(written(place) if place.is_viewer else other for place, other in zip(circle, others, strict=True))
    )


def _circle_place() -> template.Template:
    return Engine.get_default().get_template("includes/circle_place.html")


@register.simple_tag
def frame(part: str) -> str:
    """A part of every page's frame (includes/frame/<part>.html: base.html's stylesheets
    and navigation bar, its scripts), rendered with no context at all: its words and links
    are the language's and the site's (the script prefix every link starts with), never a
    page's or a reader's. Rendered once per process for each language and prefix: every
    page shows them, and a static file's or a named URL's path costs more to write than
    to keep."""
    return _frame(part, translation.get_language(), get_script_prefix())


@kept_words.register
@lru_cache(maxsize=64)
def _frame(part: str, language: str | None, prefix: str) -> str:
    compiled = Engine.get_default().get_template(f"includes/frame/{part}.html")
    return mark_safe(str(compiled.render(template.Context())).strip())


@register.simple_tag
def signup_hours() -> int:
    """How many hours a sign-up waits for its confirmation (WEREWOLF_SIGNUP_HOURS)."""
    return round(settings.WEREWOLF_SIGNUP_HOURS)


@register.simple_tag
def qr_code(url: str, label: str, scale: int = 4) -> str:
    """`url` as a QR code, an inline SVG image named `label` for screen readers, `scale`
    pixels a module wide but never wider than its container (a phone's screen)."""
    import io

    import segno

    out = io.BytesIO()
    code = segno.make(url, error="m")
    code.save(out, kind="svg", border=2, xmldecl=False, svgclass="qr", lineclass=None, title=label, omitsize=True)
    width = code.symbol_size(scale=scale, border=2)[0]
    svg = out.getvalue().decode()
    # Its width as an attribute, never a style: the pages' policy lets no inline style in
    # (app.css keeps it within its container).
    attributes = f'role="img" aria-label="{_attribute(label)}" width="{width}" '
    return mark_safe(svg.replace("<svg ", "<svg " + attributes, 1))


def _attribute(value: str) -> str:
    from django.utils.html import escape

    return str(escape(value))
