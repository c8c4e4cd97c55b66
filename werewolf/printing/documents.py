"""What each printed document holds, built from a game or a ruleset: role cards (a deck, a
Lupusburg pack, a game's deal), notecards, the tally sheet, the score sheet, the game's
record and the moderator's script. Each is a template of templates/print/ given its
context here, then laid out on paper by `layout`. Each card shows the role's name, side
and ability in the templates' words, and an emblem drawn for this project
(templates/print/emblem.svg)."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.template.loader import render_to_string, select_template
from django.utils import translation

from werewolf import engine
from werewolf.engine import grammar, rulesets
from werewolf.games import links, replay, scores, selectors
from werewolf.games.models import Game
from werewolf.games.templatetags.werewolf import own

from . import layout
from .layout import CARD, FACES_PAGE, PAPERS, POINTS, PX


@dataclass(frozen=True)
class RoleCard:
    """One card: the role, its side, and the player it is for (a started game's deal),
    or "" for a deck."""

    role: str
    side: str
    player: str = ""
    kind: str = "role"
    """"role", or a piece of Lupusburg's pack: "house", "chest" (a house with the chest),
    "goal", "coin", "seal", "burgomaster", "sweeper" (the ruleset's print/pack_card.html)."""
    value: str = ""
    """The goal's kind, the coin's value."""


def deck_cards(ruleset: str, players: int, options: dict[str, Any] | None = None) -> list[RoleCard]:
    """The cards of `ruleset`'s deck for `players` (its default options unless given),
    in the deck's own order. `engine.SetupError` for a count the ruleset does not take."""
    chosen = engine.options(ruleset, options or {}, players)
    table = engine.cast(ruleset, chosen)
    return [RoleCard(role, table[role].side) for role in engine.deck(ruleset, chosen, players)]


def pack_cards(ruleset: str, players: int, options: dict[str, Any] | None = None) -> list[RoleCard]:
    """Everything a table needs to play `ruleset` on paper for `players`: the role cards,
    then the other pieces the ruleset names (`engine.paper_pack`: Lupusburg's houses,
    coins, seals...)."""
    cards = deck_cards(ruleset, players, options)
    cards += [RoleCard("", "", kind=kind, value=value) for kind, value in engine.paper_pack(ruleset, players)]
    return cards


def deck(
    ruleset: str, players: int, options: dict[str, Any] | None = None, *, pack: bool = False
) -> tuple[list[RoleCard], dict[str, Any]]:
    """A deck printed without a game (the print page, `print_cards`): its cards (with
    `pack`, the whole pack) as a game of `players` with `options` deals them, and the
    options as such a game holds them (what `options` leaves out filled in for the
    table: a Mafia preset's role counts), which the cards' texts read.
    `engine.SetupError` for a table or options the ruleset does not take."""
    chosen = engine.options(ruleset, options or {}, players)
    cards = pack_cards(ruleset, players, chosen) if pack else deck_cards(ruleset, players, chosen)
    return cards, chosen


def game_cards(game: Any, seats: Iterable[int] | None = None) -> list[RoleCard]:
    """Each seat's card in a started game (only `seats`, if given), naming its player."""
    state = game.engine_state
    table = engine.cast(game.ruleset, game.options)
    wanted = set(range(state.seats) if seats is None else seats)
    cards = []
    for player in game.players.exclude(seat=None).order_by("seat"):
        if player.seat in wanted:
            for role in engine.roles_of(state, player.seat):
                cards.append(RoleCard(role, table[role].side, player.name))
    return cards


def role_cards_pdf(
    cards: Sequence[RoleCard],
    *,
    ruleset: str,
    options: dict[str, Any] | None = None,
    paper: str = "a4",
    backs: bool = False,
    language: str | None = None,
    title: str = "",
) -> bytes:
    """The cards as a PDF, in `language` (the active one if None): each distinct face
    rendered once (`role_cards_html`), then laid out on the sheets (`layout.tile`)."""
    html = role_cards_html(cards, ruleset=ruleset, options=options, backs=backs, language=language, title=title)
    return layout.tile(html, cards, backs=backs, paper=paper)


def role_cards_html(
    cards: Sequence[RoleCard],
    *,
    ruleset: str,
    options: dict[str, Any] | None = None,
    backs: bool = False,
    language: str | None = None,
    title: str = "",
) -> str:
    """The document `role_cards_pdf` renders: each distinct face of `cards` once (in the
    order of their first card), then (with `backs`) the back, one under the other down
    pages a card wide and FACES_PAGE tall. The paper is no part of it: the sheets are
    made from the faces (`layout.tile`)."""
    card_width, card_height = CARD
    roles = {card.role for card in cards if card.kind == "role"} | {"back"}
    context = {
        "faces": list(dict.fromkeys(cards)),
        "backs": backs,
        # Each emblem drawn once as an image the renderer keeps.
        "emblems": {role: layout.emblem_url(role) for role in sorted(roles)},
        "card": {"width": card_width, "height": card_height},
        "faces_height": FACES_PAGE,
        "game": _GameWords(ruleset, options or {}),
        "title": title,
    }
    with translation.override(language or translation.get_language()):
        return render_to_string("print/role_cards.html", context)


@dataclass(frozen=True)
class _GameWords:
    """What the role texts ask of a game (its ruleset and options), for a deck printed
    without one."""

    ruleset: str
    options: dict[str, Any]


# Notecards and tally sheets ----------------------------------------------------------

NOTECARDS_ACROSS, NOTECARDS_DOWN = 2, 2
"""Notecards a sheet: four, each a quarter of the sheet."""


@dataclass(frozen=True)
class Notecard:
    """One player's notecard for a phase: every card of the phase looks alike (the same
    words, whatever the role), but for the name and, optionally, the seat's own link."""

    seat: int
    name: str
    link: str = ""


def notecards(game: Any, *, with_links: bool = False) -> tuple[Any, list[Notecard], list[Any]]:
    """The open phase, a notecard for every seat it asks (at night every living player,
    whatever their role; a Tabula ballot leaves out the suspects, as everybody knows), and
    the notecard words of the phase (every card's, so no notecard tells a role)."""

    phase = game.current_phase() if game.is_running else None
    if phase is None:
        return None, [], []
    spec = engine.phase(game.engine_state)
    names = selectors.names(game)
    players = {player.seat: player for player in game.players.exclude(seat=None)}
    cards = [
        Notecard(seat, names[seat], (links.url_for(players[seat]) or "") if with_links else "")
        for seat in sorted(spec.slots)
    ]
    verbs = grammar.verbs(grammar.slot_cards(spec.slots.values()), game.ruleset)
    return phase, cards, verbs


NOTECARD_LINES = 8
"""Lines to write on, a notecard."""
NOTECARD_PADDING, NOTECARD_BORDER = 10.0, 0.15
"""A notecard's padding left and right, and its cut guide's width (millimetres)."""
LINE_PITCH, LINE_WIDTH = 9.3, 0.3
"""From one line to write on to the next, and a line's thickness (millimetres)."""


def notecards_pdf(game: Any, *, paper: str = "a4", with_links: bool = False) -> bytes:
    """The open phase's notecards, four to a sheet, with cut guides."""
    phase, cards, verbs = notecards(game, with_links=with_links)
    return notecards_document_pdf(notecards_html(game, phase, cards, verbs, paper=paper), paper=paper)


def notecards_html(game: Any, phase: Any, cards: Sequence[Notecard], verbs: Sequence[Any], *, paper: str = "a4") -> str:
    """The document `notecards_document_pdf` renders: what every notecard shares laid
    out once (the card with the game and the phase, once for the cards with a QR code
    and once for those without; the words and the lines to write on), and what is each
    card's own (the name, the code), one under the other down pages a card wide."""
    width, height = PAPERS[paper]
    card_width, card_height = width / NOTECARDS_ACROSS, height / NOTECARDS_DOWN
    context = {
        "game": game,
        "phase": phase,
        "cards": cards,
        "frames": sorted({bool(card.link) for card in cards}),
        "verbs": verbs,
        "names": [card.name for card in cards],
        "card": {"width": card_width, "height": card_height},
        "faces_height": FACES_PAGE,
        "lines": _lines(card_width - 2 * (NOTECARD_PADDING + NOTECARD_BORDER)),
    }
    return render_to_string("print/notecards.html", context)


def notecards_document_pdf(html: str, *, paper: str = "a4") -> bytes:
    """`notecards_html` rendered, then drawn four cards a sheet: each card is its frame
    (plain, or linked with room for the code), the player's name where the frame's name
    mark is, the code where the frame's linked-qr mark is, and the words below the name,
    or where the frame's words mark is if that is lower (a linked card's head has a
    least height)."""
    document, faces = layout.faces(html)
    named = {face.name: number for number, face in enumerate(faces)}
    count = sum(1 for name in named if name.startswith("name-"))
    width, height = PAPERS[paper]
    card_width, card_height = width / NOTECARDS_ACROSS, height / NOTECARDS_DOWN
    per_sheet = NOTECARDS_ACROSS * NOTECARDS_DOWN
    words = named["words"]
    placed = []
    for start in range(0, count, per_sheet):
        sheet = []
        for slot, number in enumerate(range(start, min(start + per_sheet, count))):
            row, column = divmod(slot, NOTECARDS_ACROSS)
            x, y = column * card_width * POINTS, row * card_height * POINTS
            code = named.get(f"qr-{number}")
            key = "plain" if code is None else "linked"
            frame, own = faces[named[key]], named[f"name-{number}"]
            name_x, name_y = frame.at(f"{key}-name")
            words_x, words_y = frame.at(f"{key}-words")
            sheet.append((named[key], x, y))
            sheet.append((own, x + name_x * PX, y + name_y * PX))
            if code is not None:  # over the name, as a positioned box is on the card
                code_x, code_y = frame.at("linked-qr")
                sheet.append((code, x + code_x * PX, y + code_y * PX))
            below = max(words_y, name_y + faces[own].height)
            sheet.append((words, x + words_x * PX, y + below * PX))
        placed.append(sheet)
    return layout.compose(document, faces, placed or [[]], width, height)  # no card: a blank sheet


@functools.lru_cache
def _lines(width: float) -> dict[str, Any]:
    """A notecard's lines to write on as one image `width` millimetres wide: each line
    the bottom of a band LINE_PITCH high, as a bottom border would draw it."""
    height = NOTECARD_LINES * LINE_PITCH
    bands = " ".join(
        f"M0 {(line + 1) * LINE_PITCH - LINE_WIDTH:.3f}H{width:.3f}V{(line + 1) * LINE_PITCH:.3f}H0Z"
        for line in range(NOTECARD_LINES)
    )
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.2f}mm" height="{height:.2f}mm" '
        f'viewBox="0 0 {width:.2f} {height:.2f}"><path d="{bands}" fill="#555"/></svg>'
    )
    return {"url": layout.svg_url(svg), "width": width, "height": height}


@dataclass(frozen=True)
class TallyRow:
    seat: int
    name: str


def tally_pdf(game: Any, *, paper: str = "a4") -> bytes | None:
    """The tally sheet of the open vote (a classic day, a Tabula accusation or ballot):
    a row per player who may be named and per card handed in instead of a vote, boxes
    for the tally marks, the voters to tick off, and the votes a strict majority needs
    where a majority ends the vote. None when the open phase is no vote."""

    phase = game.current_phase() if game.is_running else None
    if phase is None:
        return None
    state = game.engine_state
    spec = engine.phase(state)
    if spec.stage.cards == "secret" or not spec.slots:
        return None
    names = selectors.names(game)
    slot = next(iter(spec.slots.values()))
    labels = grammar.labels_for(slot.card.fields[0].refers, names)  # seats; Lupusburg's houses
    living = len(state.living())
    context = {
        "game": game,
        "phase": phase,
        "candidates": [TallyRow(choice, labels[choice]) for choice in slot.choices],
        "instead": slot.instead,  # (cards counted as candidates of their own: NO ELIMINATION)
        "voters": [TallyRow(seat, names[seat]) for seat in sorted(spec.slots)],
        "majority": living // 2 + 1 if spec.stage.decisive else None,
        "paper": {"width": PAPERS[paper][0], "height": PAPERS[paper][1]},
        "marks": range(12),
    }
    return layout.render_pdf(render_to_string("print/tally.html", context))


# Score sheets -------------------------------------------------------------------------


SHEET_GAMES = 4
"""How many games a blank score sheet has room for."""


def score_sheet_pdf(game: Any = None, *, ruleset: str = "", players: int = 0, paper: str = "a4") -> bytes:
    """The score sheet of a series: for a game, the games of its series so far filled in
    (points by source, running totals) and room for the next ones; without one, a blank
    sheet for `players` players of `ruleset`."""
    if game is not None:
        ruleset = game.ruleset
        seated = list(game.players.exclude(seat=None).order_by("seat"))
        names = [player.name for player in seated]
        blocks = scores.series_blocks(game, seated)
    else:
        names = ["" for _ in range(players)]
        blocks = []
    while len(blocks) < SHEET_GAMES or not any(not block.filled for block in blocks):
        blocks.append(scores.ScoreBlock(len(blocks) + 1, [{"name": name} for name in names], False))
    context = {
        "game": game,
        "ruleset": ruleset,
        "parts": engine.score_parts(ruleset),  # a column for each source of points
        "blocks": blocks,
        "paper": {"width": PAPERS[paper][0], "height": PAPERS[paper][1]},
    }
    return layout.render_pdf(render_to_string(own(ruleset, "print/score_sheet.html"), context))


# The game record ---------------------------------------------------------------------


@dataclass
class RecordPhase:
    """One phase of the record: what happened (every event, secrets included) and the
    card that counted from each seat, each named by who held the seat when it was
    written (`replay.Written`: its writer and the names of the seats then)."""

    phase: Any
    events: list[Any]
    cards: list[replay.Written]


def record_pdf(game: Any, *, paper: str = "a4") -> bytes | None:
    """After a game, the whole story phase by phase, every card revealed: the roles as
    dealt, then each phase's cards and events. None while the game is not over."""
    context = record_context(game, paper=paper)
    return None if context is None else layout.render_pdf(record_html(context))


def record_context(game: Any, *, paper: str = "a4") -> dict[str, Any] | None:
    """What print/record.html shows of a game, or None while the game is not over."""

    if game.status not in (Game.Status.FINISHED, Game.Status.ENDED):
        return None
    # The replay's chapters (every card of the game read at once), each phase that told
    # something: what it told and the card each seat had in at its end, each named by
    # the seats' holders record as the story tells it, never by today's names.
    chapters = replay.story(game)
    phases = [
        RecordPhase(chapter.phase, chapter.events, chapter.counted_by()) for chapter in chapters if chapter.events
    ]
    dealt = chapters[0].names
    state = _as_dealt(game)
    roles = [(dealt[seat], engine.roles_of(state, seat)) for seat in range(min(state.seats, len(dealt)))]
    return {
        "game": game,
        "viewer": engine.MODERATOR,
        "names": chapters[-1].names,
        "phases": phases,
        "roles": roles,
        "outcome": selectors.outcome_event(game),
        "paper": {"width": PAPERS[paper][0], "height": PAPERS[paper][1]},
        "head": True,
        "numbered": True,
    }


def _as_dealt(game: Any) -> engine.State:
    """The table as the game was dealt (its setup again, from the seed and the recorded
    deal): a role that changed later (a Mythomaniac's, a seat converted) is told by the
    story, not by the roles as dealt. The state now, for a setup the rules now refuse."""
    state: engine.State = game.engine_state
    try:
        dealt, _ = engine.setup(game.ruleset, game.options, state.seats, game.seed, game.deal)
    except (engine.SetupError, ValueError, KeyError, IndexError):
        return state
    return dealt


def record_html(context: Mapping[str, Any]) -> str:
    return render_to_string("print/record.html", dict(context))


RECORD_PAGE_ROWS = 40
"""About how many lines of the record (a player's role, a card, an event; a phase's
heading counts three) fill a page."""
RECORD_PART_ROWS = 3 * RECORD_PAGE_ROWS
"""About how much of a large record a worker renders at a time (a part starts a page)."""


def record_rows(context: Mapping[str, Any]) -> list[int]:
    """The record's rows: its head's, then each phase's (see RECORD_PAGE_ROWS)."""
    head = 4 + len(context["roles"])
    return [head] + [3 + len(group.cards) + len(group.events) for group in context["phases"]]


def record_parts(context: Mapping[str, Any]) -> list[str]:
    """A large record cut into parts of about RECORD_PART_ROWS rows, whole phases each:
    the first with the title and the roles as dealt, none with page numbers (the worker
    numbers the pages of the whole once it is joined, `_number_pages`). Each part is a
    document of its own, in HTML."""
    return [
        record_html({**context, "phases": groups, "head": number == 0, "numbered": False})
        for number, groups in enumerate(record_part_groups(context))
    ]


def record_part_groups(context: Mapping[str, Any]) -> list[list[RecordPhase]]:
    """The record's phases in parts of about RECORD_PART_ROWS rows (the first part
    counts the title and the roles), whole phases each, at least one a part."""
    rows = record_rows(context)
    parts: list[list[RecordPhase]] = [[]]
    filled = rows[0]
    for group, size in zip(context["phases"], rows[1:], strict=True):
        if parts[-1] and filled + size > RECORD_PART_ROWS:
            parts.append([])
            filled = 0
        parts[-1].append(group)
        filled += size
    return parts


# The moderator's script --------------------------------------------------------------


@dataclass(frozen=True)
class ScriptStep:
    """One call of the night: the step, the roles it calls (as dealt at this table), the
    night they start and, if they stop, the last."""

    step: str
    roles: tuple[str, ...]
    from_night: int
    last_night: int


def script(ruleset: str, roles: Sequence[str], options: Mapping[str, Any] | None = None) -> list[ScriptStep]:
    """The night's calls for the roles in play, in the ruleset's order: a step calls
    the roles its name names (a role's name, its night card kind or `called_at`; the
    pack's step calls every role of the pack). `options`: the game's, where they name
    characters an organiser built."""
    rules = rulesets.get(ruleset)
    table = engine.cast(ruleset, options or {})
    present = list(dict.fromkeys(roles))
    quiet = (options or {}).get("first_night") == "quiet"
    steps = []
    for step in rules.night_order:
        called = tuple(
            role
            for role in present
            if step in (role, table[role].night, table[role].called_at) or (step == "pack" and table[role].pack)
        )
        if called:
            rows = [table[role] for role in called]
            first = min(row.from_night for row in rows)
            if step == "pack" and quiet:
                first = max(first, 2)  # the pack only meets on a quiet first night
            last = 0 if any(row.last_night == 0 for row in rows) else max(row.last_night for row in rows)
            steps.append(ScriptStep(step, called, first, last))
    return steps


def script_pdf(game: Any, *, paper: str = "a4") -> bytes:
    """The moderator's script for a game: the night's calls in order, first-night and
    later-night steps marked (a quiet first night said), the day as the ruleset plays it
    (the ruleset's own `print/script/day.html`, where it has one), and a grid of players
    and roles to cross off."""

    state = game.engine_state
    seated = list(game.players.exclude(seat=None).order_by("seat"))
    dealt = [(player.name, engine.roles_of(state, player.seat)) for player in seated]
    roles = [role for _, held in dealt for role in held]
    day = select_template(own(game, "print/script/day.html"))
    context = {
        "game": game,
        "names": selectors.names(game),
        "steps": script(game.ruleset, roles, game.options),
        "quiet": game.options.get("first_night") == "quiet",
        "day": day.template.name,
        "roles": set(roles),
        "options": game.options,
        "dealt": dealt,
        "nights": range(1, 7),
        "paper": {"width": PAPERS[paper][0], "height": PAPERS[paper][1]},
    }
    return layout.render_pdf(render_to_string("print/script.html", context))
