"""Paper: role cards as PDF, rendered by WeasyPrint from templates/print/.

Cards are poker size (63 x 88 mm), nine to a sheet (A4 or Letter) with cut guides and
crop marks; the optional backs follow each sheet of fronts, placed mirrored (each row
read right to left) so that a long-edge duplex print puts every back behind its front.
Each card shows the role's name, side and ability in the templates' words, and an emblem
drawn for this project (templates/print/emblem.svg). WeasyPrint renders each distinct
face once, and the sheets are laid out from the faces (`_tile`). Nothing is fetched while
rendering: the documents are self-contained, and the URL fetcher refuses everything.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.template.loader import render_to_string, select_template
from django.utils import translation

from werewolf import engine
from werewolf.engine import grammar, rulesets

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
"""Sheet sizes in millimetres."""
CARD = (63.0, 88.0)
"""A poker-size card, in millimetres."""
ACROSS, DOWN = 3, 3
PER_SHEET = ACROSS * DOWN


class FetchRefused(Exception):
    """What the URL fetcher says to any fetch: documents embed all they show."""


@dataclass(frozen=True)
class RoleCard:
    """One card: the role, its side, and the player it is for (a started game's deal),
    or "" for a deck."""

    role: str
    side: str
    player: str = ""
    kind: str = "role"
    """"role", or a piece of Lupusburg's pack: "house", "chest" (a house with the chest),
    "goal", "coin", "seal", "burgomaster", "sweeper" (print/pack_card.html)."""
    value: str = ""
    """The goal's kind, the coin's value."""


@dataclass(frozen=True)
class Sheet:
    """A sheet of cards in reading order (None where a slot has no card: after the last
    card, or before it in a mirrored row of backs), fronts or backs."""

    cards: tuple[RoleCard | None, ...]
    backs: bool = False


def deck_cards(ruleset: str, players: int, options: dict[str, Any] | None = None) -> list[RoleCard]:
    """The cards of `ruleset`'s deck for `players` (its default options unless given),
    in the deck's own order. `engine.SetupError` for a count the ruleset does not take."""
    chosen = engine.options(ruleset, options or {}, players)
    table = engine.cast(ruleset, chosen)
    return [RoleCard(role, table[role].side) for role in engine.deck(ruleset, chosen, players)]


def pack_cards(ruleset: str, players: int) -> list[RoleCard]:
    """Everything a table needs to play a Lupusburg edition on paper for `players`: the
    characters, a house card with and one without the chest for each player, the secret
    goals (goals edition), the coins (the bag's, or the stack), a seal for each player, the
    Burgomaster's card and (goals edition) the Chimney Sweeper's."""
    from werewolf.engine.rulesets.lupusburg import table as lupusburg

    goals = ruleset == lupusburg.GOALS
    cards = deck_cards(ruleset, players)
    cards += [RoleCard("", "", kind=kind) for _ in range(players) for kind in ("chest", "house")]
    if goals:
        cards += [RoleCard("", "", kind="goal", value=goal) for goal in lupusburg.GOAL_DECK]
    coins = lupusburg.stack(players)[::-1] if goals else lupusburg.BAG_COINS
    cards += [RoleCard("", "", kind="coin", value=str(coin)) for coin in coins]
    cards += [RoleCard("", "", kind="seal") for _ in range(players)]
    cards.append(RoleCard("", "", kind="burgomaster"))
    if goals:
        cards.append(RoleCard("", "", kind="sweeper"))
    return cards


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


def sheets(cards: Sequence[RoleCard], backs: bool) -> list[Sheet]:
    """Sheets of nine, each followed (with `backs`) by its backs sheet, mirrored."""
    out: list[Sheet] = []
    for start in range(0, len(cards), PER_SHEET):
        chunk = list(cards[start : start + PER_SHEET])
        padded: list[RoleCard | None] = [*chunk, *([None] * (PER_SHEET - len(chunk)))]
        out.append(Sheet(tuple(padded)))
        if backs:
            mirrored: list[RoleCard | None] = []
            for row in range(DOWN):
                mirrored += reversed(padded[row * ACROSS : (row + 1) * ACROSS])
            out.append(Sheet(tuple(mirrored), backs=True))
    return out


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
    rendered once (`role_cards_html`), then laid out on the sheets (`_tile`)."""
    html = role_cards_html(cards, ruleset=ruleset, options=options, backs=backs, language=language, title=title)
    return _tile(render_document(html), cards, backs=backs, paper=paper)


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
    made from the faces (`_tile`)."""
    card_width, card_height = CARD
    roles = {card.role for card in cards if card.kind == "role"} | {"back"}
    context = {
        "faces": list(dict.fromkeys(cards)),
        "backs": backs,
        # Each emblem drawn once as an image the renderer keeps.
        "emblems": {role: _emblem_url(role) for role in sorted(roles)},
        "card": {"width": card_width, "height": card_height},
        "faces_height": FACES_PAGE,
        "game": _GameWords(ruleset, options or {}),
        "title": title,
    }
    with translation.override(language or translation.get_language()):
        return render_to_string("print/role_cards.html", context)


def _layout(cards: Sequence[RoleCard], backs: bool, paper: str) -> str:
    """The paper, and where each face of `role_cards_html` goes, sheet by sheet: what the
    HTML alone does not say (its pages are a card wide whatever the paper; the cards'
    order, and how many of each), so that a job's hash covers it."""
    faces = {card: number for number, card in enumerate(dict.fromkeys(cards))}
    return f"{paper} " + " ".join(
        ",".join("-" if card is None else "b" if sheet.backs else str(faces[card]) for card in sheet.cards)
        for sheet in sheets(cards, backs)
    )


_POINTS = 72 / 25.4
"""PDF points a millimetre."""
_PX = 0.75
"""PDF points a CSS pixel."""
FACES_PAGE = 2000.0
"""How tall a page of faces may be, in millimetres: a document of faces (role cards,
notecards) stacks them one under the other down pages this tall at most, so that a deck
costs WeasyPrint a page or two, not one a face (much of its cost goes by the page), and
every coordinate stays well inside what any PDF reader takes."""


def _tile(document: Any, cards: Sequence[RoleCard], *, backs: bool, paper: str) -> bytes:
    """The sheets of `cards` (`sheets`) made from the faces rendered by `role_cards_html`:
    each sheet draws its crop marks, then each card's face where it goes."""
    number = {card: index for index, card in enumerate(dict.fromkeys(cards))}
    back = len(number)
    width, height = PAPERS[paper]
    margin_x, margin_y = (width - ACROSS * CARD[0]) / 2, (height - DOWN * CARD[1]) / 2
    layout = []
    for sheet in sheets(cards, backs):
        placed = []
        for slot, card in enumerate(sheet.cards):
            if card is not None:
                row, column = divmod(slot, ACROSS)
                x, y = (margin_x + column * CARD[0]) * _POINTS, (margin_y + row * CARD[1]) * _POINTS
                placed.append((back if sheet.backs else number[card], x, y))
        layout.append(placed)
    marks = _crop_marks(width, height, margin_x, margin_y)
    return _compose(document, _faces(document), layout or [[]], width, height, marks)  # no card: a bare sheet


@dataclass(frozen=True)
class _Face:
    """One face of a document of faces: a WeasyPrint page that draws this face alone,
    where it is on its page of faces, and that place (its border box, CSS pixels from
    the page's top left; the page's height)."""

    page: Any
    left: float
    top: float
    width: float
    height: float
    page_width: float
    page_height: float
    name: str = ""
    """The face's id in the document, if it has one."""

    def at(self, anchor: str) -> tuple[float, float]:
        """Where the element `anchor` (an id) of this face is, CSS pixels from the face's
        top left."""
        x, y = self.page.anchors[anchor][:2]
        return x - self.left, y - self.top


def _faces(document: Any) -> list[_Face]:
    """The faces of a laid-out `document`: every child of its body, in order, each made
    a page of its own from the page it is on (the same boxes, laid out once; nothing
    else of the page). Drawn as pages of their own, each face is a content stream of its
    own in the PDF, which `_compose` draws wherever it goes. This leans on WeasyPrint's
    laid-out boxes (`Page._page_box`, `copy_with_children`), not its documented API:
    the print tests read every composed sheet back, and render it."""
    from weasyprint.document import Page

    faces = []
    for page in document.pages:
        page_box, root, body = _page_boxes(page)
        for face in body.children:
            if face.element is body.element:  # an anonymous box: loose text in the body
                raise ValueError("every child of the body of a document of faces is a face")
            alone = page_box.copy_with_children([root.copy_with_children([body.copy_with_children([face])])])
            faces.append(
                _Face(
                    Page(alone),
                    face.border_box_x(),
                    face.border_box_y(),
                    face.border_width(),
                    face.border_height(),
                    page.width,
                    page.height,
                    face.element.get("id", ""),
                )
            )
    return faces


class FacesUnread(RuntimeError):
    """A page of faces laid out otherwise than `_faces` reads it: WeasyPrint's boxes are
    not its documented API, and another release may build them otherwise."""


def _page_boxes(page: Any) -> tuple[Any, Any, Any]:
    """A laid-out page's box, its root box and its body box, the body alone in the root;
    or FacesUnread naming the WeasyPrint that laid it out, rather than a bare
    AttributeError or "too many values to unpack" (in a worker, what the job keeps as
    its error)."""
    import weasyprint

    try:
        page_box = page._page_box
        root = page_box.children[0]
        (body,) = root.children
    except (AttributeError, IndexError, TypeError, ValueError) as unread:
        raise FacesUnread(
            f"WeasyPrint {weasyprint.__version__} laid out a page of faces otherwise than "
            f"printing._faces reads it (one body in the root; written for WeasyPrint 70): {unread!r}"
        ) from unread
    return page_box, root, body


def _compose(
    document: Any,
    faces: Sequence[_Face],
    layout: Sequence[Sequence[tuple[int, float, float]]],
    width: float,
    height: float,
    marks: bytes = b"",
) -> bytes:
    """A PDF of sheets `width` x `height` millimetres drawing the `faces` of `document`:
    a sheet of `layout` lists them as (face, x, y), the face's top left x and y points
    from the sheet's top left; `marks`, drawing operators of the sheet's own (the crop
    marks), are drawn first on each. WeasyPrint writes each face's page; then, before
    the PDF is written out, each page's content becomes a form the sheets draw (`Do`)
    with the resources (fonts, images) every face shares, embedded once, and the sheets
    take the pages' place."""
    sheet_size = (width * _POINTS, height * _POINTS)

    def finish(_document: Any, pdf: Any) -> None:
        pages = [pdf.objects[number] for number in pdf.pages["Kids"][::3]]
        forms, fonts = _faces_as_forms(pdf, pages, faces)
        _drop_pages(pdf, pages)
        _add_sheets(pdf, layout, faces, forms, fonts, sheet_size, marks)

    drawn = [face.page for face in faces] or document.pages[:1]  # no face: a blank page, for its resources
    pdf: bytes = document.copy(drawn).write_pdf(finisher=finish)
    return pdf


def _faces_as_forms(pdf: Any, pages: list[Any], faces: Sequence[_Face]) -> tuple[Any, Any]:
    """Each face's page content as a form (an XObject) the sheets draw, with the resources
    every page shares: the forms by name (`Face0`...), and the shared fonts."""
    import pydyf

    shared = pages[0]["Resources"]  # one resources dictionary, every page's
    forms = pydyf.Dictionary()
    for number, face in enumerate(faces):
        stream = pdf.objects[int(pages[number]["Contents"].split()[0])]
        stream.extra.update(
            {
                "Type": "/XObject",
                "Subtype": "/Form",
                # Its whole page: nothing else of the page is drawn, and what flows
                # out of the face (a long name) shows, as it would on a page.
                "BBox": pydyf.Array([0, 0, face.page_width * _PX, face.page_height * _PX]),
                "Resources": shared,
            }
        )
        forms[f"Face{number}"] = stream.reference
    return forms, pdf.objects[int(shared.split()[0])]["Font"]


def _drop_pages(pdf: Any, pages: list[Any]) -> None:
    """The faces' pages, no longer pages: left empty, out of the page tree, and nothing
    (headings, ids) pointing into them."""
    import pydyf

    for page in pages:
        page.clear()
    for name in ("Outlines", "PageMode"):
        pdf.catalog.pop(name, None)
    if "Names" in pdf.catalog:
        pdf.catalog["Names"].pop("Dests", None)
        if not pdf.catalog["Names"]:
            del pdf.catalog["Names"]
    pdf.pages["Kids"] = pydyf.Array()
    pdf.pages["Count"] = 0


def _add_sheets(
    pdf: Any,
    layout: Sequence[Sequence[tuple[int, float, float]]],
    faces: Sequence[_Face],
    forms: Any,
    fonts: Any,
    size: tuple[float, float],
    marks: bytes,
) -> None:
    """The sheets, as pages: on each, its `marks`, then each face of `layout` drawn
    (its form) at its place."""
    import pydyf

    sheet_width, sheet_height = size
    resources = pydyf.Dictionary({"Font": fonts, "XObject": forms})
    pdf.add_object(resources)
    for placed in layout:
        parts = [marks]
        for number, x, y in placed:
            face = faces[number]
            dx = x - face.left * _PX
            dy = sheet_height - y - (face.page_height - face.top) * _PX
            parts.append(f"q 1 0 0 1 {dx:.3f} {dy:.3f} cm /Face{number} Do Q\n".encode())
        content = pydyf.Stream([b"".join(parts)], compress=True)
        pdf.add_object(content)
        sheet = pydyf.Dictionary(
            {
                "Type": "/Page",
                "Parent": pdf.pages.reference,
                "MediaBox": pydyf.Array([0, 0, sheet_width, sheet_height]),
                "Contents": content.reference,
                "Resources": resources.reference,
            }
        )
        pdf.add_page(sheet)


def _svg_url(svg: str) -> str:
    import base64

    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


@functools.lru_cache
def _emblem_url(role: str) -> str:
    """A role's emblem (templates/print/emblem.svg) as a data: URL, drawn once a process:
    every card of the role shows the same image."""
    svg = render_to_string("print/emblem.svg", {"role": role})
    return _svg_url(" ".join(svg.split()))


@functools.lru_cache
def _crop_marks(width: float, height: float, margin_x: float, margin_y: float) -> bytes:
    """The sheet's crop marks as PDF drawing operators (points, from the bottom left): a
    short line 0.2 mm thick in each margin on every cut line, all of them one path."""
    lines = []
    for column in range(ACROSS + 1):
        x = margin_x + column * CARD[0]
        lines += [(x, margin_y - 7, x, margin_y - 2), (x, height - margin_y + 2, x, height - margin_y + 7)]
    for row in range(DOWN + 1):
        y = margin_y + row * CARD[1]
        lines += [(margin_x - 7, y, margin_x - 2, y), (width - margin_x + 2, y, width - margin_x + 7, y)]
    path = " ".join(
        f"{a * _POINTS:.2f} {(height - b) * _POINTS:.2f} m {c * _POINTS:.2f} {(height - d) * _POINTS:.2f} l"
        for a, b, c, d in lines
    )
    return f"q 0 G {0.2 * _POINTS:.3f} w {path} S Q\n".encode()


def render_pdf(html: str) -> bytes:
    """A self-contained HTML document as PDF bytes."""
    pdf: bytes = render_document(html).write_pdf()
    return pdf


def render_document(html: str) -> Any:
    """A self-contained HTML document laid out by WeasyPrint (its pages, and where each
    element with an id is on them: `anchors`), to write as PDF. What does not change
    from one document to the next is kept by this thread (`_kept`): the fonts found, the
    document's stylesheet parsed (its one <style>, given to WeasyPrint parsed), and the
    images it shows (the emblems, the lines to write on)."""
    import weasyprint

    kept = _kept()
    before, style, rest = html.partition("<style>")
    css, end, after = rest.partition("</style>")
    stylesheets = []
    if style and end and "<body" not in before and "<style" not in after:  # its one stylesheet
        html = before + after
        stylesheets = [_stylesheet(css)]
    if len(kept.images) > KEPT_IMAGES:  # between documents: never one's images mid-render
        kept.images.clear()
    _load_images(html, kept)
    document = weasyprint.HTML(string=html, url_fetcher=_refuser(), base_url="about:blank")
    return document.render(font_config=kept.fonts, stylesheets=stylesheets, cache=kept.images)


KEPT_IMAGES = 64
"""Images a thread keeps from one document to the next, at most (emblems and the lines
to write on: a few dozen)."""
KEPT_STYLESHEETS = 32
"""Parsed stylesheets a thread keeps (one a template, paper and size)."""


@dataclass
class _Kept:
    fonts: Any
    images: dict[str, Any]
    stylesheets: dict[str, Any]


_threads = threading.local()


def _kept() -> _Kept:
    """What this thread keeps from one document to the next: its fontconfig set-up
    (fonts found and measured once; safe to keep because no document declares an
    @font-face, which would stay in it), the images WeasyPrint loaded, by URL (its image
    cache, documented to be shared between documents; each loaded by a document of the
    images alone, `_load_images`, since an image keeps the layout of the document that
    loaded it; bounded, though the print templates show a few dozen at most), and the
    stylesheets parsed. A thread's own: WeasyPrint draws an SVG image through the image's
    own state."""
    kept = getattr(_threads, "kept", None)
    if kept is None:
        from weasyprint.text.fonts import FontConfiguration

        kept = _threads.kept = _Kept(FontConfiguration(), {}, {})
    return kept


_IMAGE = re.compile(r'<img\b[^>]*?\bsrc="(data:[^"]*)"')
"""An <img> showing a data: URL (the only kind a print document shows), as templates write it."""


def _load_images(html: str, kept: _Kept) -> None:
    """Load the images `html` shows that this thread does not keep yet through a document
    of those images alone, into the kept image cache. WeasyPrint hands every image it
    loads the layout of the document loading it (an SVG's text is laid out with it), and
    a kept image keeps it: loaded by a game's role cards, it would keep that document,
    every name and role of the deal, in this thread as long as it is kept."""
    import weasyprint

    new = [url for url in dict.fromkeys(_IMAGE.findall(html)) if url not in kept.images]
    if new:
        images = "".join(f'<img src="{url}" alt="">' for url in new)
        loader = weasyprint.HTML(string=f"<body>{images}</body>", url_fetcher=_refuser(), base_url="about:blank")
        loader.render(font_config=kept.fonts, cache=kept.images)


def _stylesheet(css: str) -> Any:
    """`css` parsed once a thread. Given to WeasyPrint as a user stylesheet, not the
    document's own: it still wins over the browser's defaults, and loses to a style
    attribute, as the document's own did (no print template has !important but over a
    QR code's own size)."""
    import weasyprint

    kept = _kept()
    sheet = kept.stylesheets.get(css)
    if sheet is None:
        if len(kept.stylesheets) >= KEPT_STYLESHEETS:
            kept.stylesheets.clear()
        sheet = kept.stylesheets[css] = weasyprint.CSS(
            string=css, font_config=kept.fonts, url_fetcher=_refuser(), base_url="about:blank"
        )
    return sheet


def _refuser() -> Any:
    """A URL fetcher that fetches nothing but the data: URLs the document carries
    (anything else: WeasyPrint warns, and renders without it)."""
    from weasyprint.urls import URLFetcher

    class Refuser(URLFetcher):  # type: ignore[misc]
        def fetch(self, url: str, headers: Any = None) -> Any:
            if url.startswith("data:"):  # what the document carries itself
                return super().fetch(url, headers)
            raise FetchRefused(url)

    return Refuser()


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
    from werewolf.games import links, selectors

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
    verbs = grammar.verbs((slot.card for slot in spec.slots.values()), game.ruleset)
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
    document = render_document(html)
    faces = _faces(document)
    named = {face.name: number for number, face in enumerate(faces)}
    count = sum(1 for name in named if name.startswith("name-"))
    width, height = PAPERS[paper]
    card_width, card_height = width / NOTECARDS_ACROSS, height / NOTECARDS_DOWN
    per_sheet = NOTECARDS_ACROSS * NOTECARDS_DOWN
    words = named["words"]
    layout = []
    for start in range(0, count, per_sheet):
        sheet = []
        for slot, number in enumerate(range(start, min(start + per_sheet, count))):
            row, column = divmod(slot, NOTECARDS_ACROSS)
            x, y = column * card_width * _POINTS, row * card_height * _POINTS
            code = named.get(f"qr-{number}")
            key = "plain" if code is None else "linked"
            frame, own = faces[named[key]], named[f"name-{number}"]
            name_x, name_y = frame.at(f"{key}-name")
            words_x, words_y = frame.at(f"{key}-words")
            sheet.append((named[key], x, y))
            sheet.append((own, x + name_x * _PX, y + name_y * _PX))
            if code is not None:  # over the name, as a positioned box is on the card
                code_x, code_y = frame.at("linked-qr")
                sheet.append((code, x + code_x * _PX, y + code_y * _PX))
            below = max(words_y, name_y + faces[own].height)
            sheet.append((words, x + words_x * _PX, y + below * _PX))
        layout.append(sheet)
    return _compose(document, faces, layout or [[]], width, height)  # no card: a blank sheet


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
    return {"url": _svg_url(svg), "width": width, "height": height}


@dataclass(frozen=True)
class TallyRow:
    seat: int
    name: str


def tally_pdf(game: Any, *, paper: str = "a4") -> bytes | None:
    """The tally sheet of the open vote (a classic day, a Tabula accusation or ballot):
    a row per player who may be named, boxes for the tally marks, the voters to tick off,
    and the votes a strict majority needs where a majority ends the vote. None when the
    open phase is no vote."""
    from werewolf.games import selectors

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
        "voters": [TallyRow(seat, names[seat]) for seat in sorted(spec.slots)],
        "majority": living // 2 + 1 if spec.stage.decisive else None,
        "paper": {"width": PAPERS[paper][0], "height": PAPERS[paper][1]},
        "marks": range(12),
    }
    return render_pdf(render_to_string("print/tally.html", context))


# Score sheets -------------------------------------------------------------------------


SCORING = ("lupusburg", "lupusburg-goals")
"""The rulesets that score, game after game."""
SHEET_GAMES = 4
"""How many games a blank score sheet has room for."""


@dataclass
class ScoreBlock:
    """One game of a series on the score sheet: each player's points by source and the
    running total, or blanks to fill in by hand (`filled` False)."""

    number: int
    rows: list[dict[str, Any]]
    filled: bool


def score_sheet_pdf(game: Any = None, *, ruleset: str = "", players: int = 0, paper: str = "a4") -> bytes:
    """The score sheet of a series: for a game, the games of its series so far filled in
    (points by source, running totals) and room for the next ones; without one, a blank
    sheet for `players` players of `ruleset`."""
    from werewolf.games import lupusburg

    if game is not None:
        ruleset = game.ruleset
        seated = list(game.players.exclude(seat=None).order_by("seat"))
        names = [player.name for player in seated]
        blocks = lupusburg.series_blocks(game, seated)
    else:
        names = ["" for _ in range(players)]
        blocks = []
    while len(blocks) < SHEET_GAMES or not any(not block.filled for block in blocks):
        blocks.append(ScoreBlock(len(blocks) + 1, [{"name": name} for name in names], False))
    context = {
        "game": game,
        "ruleset": ruleset,
        "goals": ruleset == "lupusburg-goals",
        "blocks": blocks,
        "paper": {"width": PAPERS[paper][0], "height": PAPERS[paper][1]},
    }
    return render_pdf(render_to_string("print/score_sheet.html", context))


# The game record ---------------------------------------------------------------------


@dataclass
class RecordPhase:
    """One phase of the record: what happened (every event, secrets included) and the
    card that counted from each seat."""

    phase: Any
    events: list[Any]
    cards: list[tuple[str, Any]]


def record_pdf(game: Any, *, paper: str = "a4") -> bytes | None:
    """After a game, the whole story phase by phase, every card revealed: the roles as
    dealt, then each phase's cards and events. None while the game is not over."""
    context = record_context(game, paper=paper)
    return None if context is None else render_pdf(record_html(context))


def record_context(game: Any, *, paper: str = "a4") -> dict[str, Any] | None:
    """What print/record.html shows of a game, or None while the game is not over."""
    from werewolf.games import selectors
    from werewolf.games.models import Game

    if game.status not in (Game.Status.FINISHED, Game.Status.ENDED):
        return None
    names = selectors.names(game)
    groups = selectors.log(game, engine.MODERATOR, selectors.visible_events(game, engine.MODERATOR))
    phases = []
    for group in groups:
        cards = []
        if group.phase is not None:
            orders = group.phase.current_orders()
            cards = [(names[seat], order) for seat, order in sorted(orders.items())]
        phases.append(RecordPhase(group.phase, group.events, cards))
    state = game.engine_state
    roles = [
        (player.name, engine.roles_of(state, player.seat))
        for player in game.players.exclude(seat=None).order_by("seat")
    ]
    return {
        "game": game,
        "viewer": engine.MODERATOR,
        "names": names,
        "phases": phases,
        "roles": roles,
        "outcome": selectors.outcome_event(game),
        "paper": {"width": PAPERS[paper][0], "height": PAPERS[paper][1]},
        "head": True,
        "numbered": True,
    }


def record_html(context: Mapping[str, Any]) -> str:
    return render_to_string("print/record.html", dict(context))


RECORD_PAGE_ROWS = 40
"""About how many lines of the record (a player's role, a card, an event; a phase's
heading counts three) fill a page."""
RECORD_PART_ROWS = 3 * RECORD_PAGE_ROWS
"""About how much of a large record a worker renders at a time (a part starts a page)."""


def _record_rows(context: Mapping[str, Any]) -> list[int]:
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
        for number, groups in enumerate(_record_part_groups(context))
    ]


def _record_part_groups(context: Mapping[str, Any]) -> list[list[RecordPhase]]:
    """The record's phases in parts of about RECORD_PART_ROWS rows (the first part
    counts the title and the roles), whole phases each, at least one a part."""
    rows = _record_rows(context)
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
    (`print/script/day_<ruleset>.html`, where the ruleset has one), and a grid of players
    and roles to cross off."""
    from werewolf.games import selectors

    state = game.engine_state
    seated = list(game.players.exclude(seat=None).order_by("seat"))
    dealt = [(player.name, engine.roles_of(state, player.seat)) for player in seated]
    roles = [role for _, held in dealt for role in held]
    day = select_template([f"print/script/day_{game.ruleset}.html", "print/script/day.html"])
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
    return render_pdf(render_to_string("print/script.html", context))


# Large documents: rendered by a worker, a sheet at a time, kept by content hash ------

LARGE_SHEETS = 3
"""A document of more sheets than this (role cards, notecards; a record of more pages,
about) renders in a worker, with its progress on a page."""
LARGE = LARGE_SHEETS * PER_SHEET
"""A deck, or a game's role cards, of more cards than this renders in a worker."""
LARGE_NOTECARDS = LARGE_SHEETS * NOTECARDS_ACROSS * NOTECARDS_DOWN
"""A phase's notecards, more of them than this render in a worker."""
LARGE_RECORD = LARGE_SHEETS * RECORD_PAGE_ROWS
"""A game's record of more rows than this (`_record_rows`) renders in a worker."""


def deck_job(ruleset: str, players: int, *, paper: str = "a4", backs: bool = False, pack: bool = False) -> Any:
    """The print job of a deck: one already made for the same content (whoever asked) is
    returned as it is; a small deck is rendered now; a large one is queued for a worker
    (`run_job`), which renders it sheet by sheet so that its page shows the progress."""
    cards = pack_cards(ruleset, players) if pack else deck_cards(ruleset, players)
    params: dict[str, Any] = {
        "ruleset": ruleset,
        "players": players,
        "paper": paper,
        "backs": backs,
        "language": translation.get_language(),
    }
    if pack:
        params["pack"] = True
    return _cards_job("deck", cards, params, f"{'pack' if pack else 'role-cards'}-{ruleset}-{players}.pdf")


def game_job(game: Any, *, paper: str = "a4", backs: bool = False) -> Any:
    """The print job of a started game's role cards (each naming its player), for its
    organiser, as `deck_job` does a deck's: kept by content, a large game's rendered by a
    worker. The cards are kept in the job as dealt now, so the worker prints what was
    hashed whatever the game does meanwhile (a Mythomaniac's new role is a new document).
    The job tells every role: its pages are the game's organiser's only (views)."""
    cards = game_cards(game)
    params: dict[str, Any] = {
        "game": game.pk,
        "ruleset": game.ruleset,
        "options": dict(game.options),
        "title": game.name,
        "cards": [[card.role, card.side, card.player] for card in cards],
        "paper": paper,
        "backs": backs,
        "language": translation.get_language(),
    }
    return _cards_job("game", cards, params, f"role-cards-game-{game.pk}.pdf", scope=game.pk)


def notecards_job(game: Any, *, paper: str = "a4", with_links: bool = False) -> Any:
    """The print job of the open phase's notecards, for the game's organiser (with links,
    each card opens its player's seat): kept by content (the same phase, names, paper and
    links give the same job; the next phase, a new one); more than LARGE_NOTECARDS are
    rendered by a worker, a sheet at a time. None when no phase is open.

    The job keeps each sheet's HTML as made now: the worker prints what was hashed,
    whatever the game does meanwhile."""
    phase, cards, verbs = notecards(game, with_links=with_links)
    if phase is None:
        return None
    html = notecards_html(game, phase, cards, verbs, paper=paper)
    per_sheet = NOTECARDS_ACROSS * NOTECARDS_DOWN
    sheets = [cards[start : start + per_sheet] for start in range(0, len(cards), per_sheet)]
    params: dict[str, Any] = {
        "kind": "notecards",  # rendered as notecards_document_pdf does
        "game": game.pk,
        "phase": phase.pk,
        "paper": paper,
        "links": with_links,
        "language": translation.get_language(),
    }

    def parts() -> list[str]:
        return [notecards_html(game, phase, sheet, verbs, paper=paper) for sheet in sheets]

    return _job(
        "notecards",
        html,
        params,
        f"notecards-game-{game.pk}.pdf",
        total=max(len(sheets), 1),
        large=len(cards) > LARGE_NOTECARDS,
        parts=parts,
        render=lambda: notecards_document_pdf(html, paper=paper),
        scope=game.pk,
    )


def record_job(game: Any, *, paper: str = "a4") -> Any:
    """The print job of a game's record, once the game is over (None before): kept by
    content, for its organiser only (it reveals every card); a record of more than
    LARGE_RECORD rows is rendered by a worker in parts (`record_parts`), its pages
    numbered once joined."""
    context = record_context(game, paper=paper)
    if context is None:
        return None
    params = {"game": game.pk, "paper": paper, "language": translation.get_language(), "numbered": True}
    return _job(
        "record",
        record_html(context),
        params,
        f"record-game-{game.pk}.pdf",
        total=len(_record_part_groups(context)),
        large=sum(_record_rows(context)) > LARGE_RECORD,
        parts=functools.partial(record_parts, context),
        scope=game.pk,
    )


def _cards_job(kind: str, cards: Sequence[RoleCard], params: dict[str, Any], filename: str, scope: Any = "") -> Any:
    """Find or make the job of role `cards` printed as `params` say (see `_job_cards`)."""
    html = role_cards_html(
        cards,
        ruleset=params["ruleset"],
        options=params.get("options"),
        backs=params["backs"],
        language=params["language"],
        title=params.get("title", ""),
    )
    return _job(
        kind,
        f"{html}\n<!-- {_layout(cards, params['backs'], params['paper'])} -->",
        params,
        filename,
        total=len(_chunks(cards)),
        large=len(cards) > LARGE,
        render=lambda: _tile(render_document(html), cards, backs=params["backs"], paper=params["paper"]),
        scope=scope,
    )


def _job(
    kind: str,
    html: str,
    params: dict[str, Any],
    filename: str,
    *,
    total: int,
    large: bool,
    parts: Callable[[], list[str]] | None = None,
    render: Callable[[], bytes] | None = None,
    scope: Any = "",
) -> Any:
    """Find or make the job of the document `html`, kept by its hash: a job already made
    (and not failed) is returned as it is; a small document is rendered now; a large one
    is queued for a worker (`run_job`), with `total` steps to count: the documents
    `parts` returns (kept in the job), or else the role cards' sheets (`_job_cards`).
    `render`: how a small one is rendered, if not `html` as it is.
    `scope`: a game's own documents are hashed with the game, so that two games alike to
    the letter never share a job (each job's pages are its game's organiser's)."""
    import hashlib

    from django.db import IntegrityError, transaction
    from django.utils import timezone

    from werewolf.games.models import PrintJob
    from werewolf.games.queue import after_commit

    content = f"{kind} {scope}\n{html}" if scope != "" else html
    key = hashlib.sha256(content.encode()).hexdigest()
    found = PrintJob.objects.filter(key=key).first()
    if found is not None and found.status != PrintJob.Status.FAILED:
        return found
    if not large:
        pdf = render() if render is not None else render_pdf(html)
        job, _ = PrintJob.objects.update_or_create(
            key=key,
            defaults={
                "kind": kind,
                "params": params,
                "status": PrintJob.Status.DONE,
                "done": total,
                "total": total,
                "pdf": pdf,
                "filename": filename,
                "error": "",
                "finished_at": timezone.now(),
            },
        )
        return job
    if parts is not None:
        params = {**params, "parts": parts()}
    try:
        with transaction.atomic():
            job, _ = PrintJob.objects.update_or_create(
                key=key,
                defaults={
                    "kind": kind,
                    "params": params,
                    "status": PrintJob.Status.QUEUED,
                    "done": 0,
                    "total": total,
                    "filename": filename,
                    "error": "",
                },
            )
            after_commit("tasks.printing.render", job.pk)
    except IntegrityError:  # asked twice at once: the other request queued it
        job = PrintJob.objects.get(key=key)
    return job


def _job_cards(params: dict[str, Any]) -> list[RoleCard]:
    """A job's cards: a game's as kept in the job, a deck's or a pack's made again."""
    if "cards" in params:
        return [RoleCard(role, side, player) for role, side, player in params["cards"]]
    if params.get("pack"):
        return pack_cards(params["ruleset"], params["players"])
    return deck_cards(params["ruleset"], params["players"])


def _chunks(cards: Sequence[RoleCard]) -> list[Sequence[RoleCard]]:
    return [cards[start : start + PER_SHEET] for start in range(0, len(cards), PER_SHEET)] or [cards]


def _job_steps(params: dict[str, Any]) -> Iterator[Callable[[], bytes]]:
    """A queued job's renders, one a step of its progress: each kept part's (notecards,
    a record), or each sheet of role cards."""
    if "parts" in params:
        for part in params["parts"]:
            if params.get("kind") == "notecards":
                yield functools.partial(notecards_document_pdf, part, paper=params["paper"])
            else:
                yield functools.partial(render_pdf, part)
        return
    for chunk in _chunks(_job_cards(params)):
        yield functools.partial(
            role_cards_pdf,
            chunk,
            ruleset=params["ruleset"],
            options=params.get("options"),
            paper=params["paper"],
            backs=params["backs"],
            language=params.get("language"),
            title=params.get("title", ""),
        )


def _number_pages(writer: Any, paper: str) -> None:
    """Number the joined pages "n / N" where print/record.html numbers its own: one
    document of as many pages, bearing the numbers alone, laid over them."""
    import io

    from pypdf import PdfReader

    context = {"paper": {"width": PAPERS[paper][0], "height": PAPERS[paper][1]}, "pages": range(len(writer.pages))}
    numbers = PdfReader(io.BytesIO(render_pdf(render_to_string("print/page_numbers.html", context))))
    for page, number in zip(writer.pages, numbers.pages, strict=True):
        page.merge_page(number)


def run_job(job_id: int) -> bool:
    """Render a queued job part by part (a sheet of cards, a sheet of notecards, a part
    of a record), counting its progress, then join the parts into one PDF. Safe to run
    twice: a job already done, or taken by another worker, is left alone."""
    import io

    from django.utils import timezone
    from pypdf import PdfWriter

    from werewolf.games.models import PrintJob

    taken = PrintJob.objects.filter(pk=job_id, status=PrintJob.Status.QUEUED).update(
        status=PrintJob.Status.RENDERING, done=0
    )
    if not taken:
        return False
    job = PrintJob.objects.get(pk=job_id)
    params = job.params
    try:
        writer = PdfWriter()
        for number, step in enumerate(_job_steps(params), start=1):
            writer.append(io.BytesIO(step()))
            PrintJob.objects.filter(pk=job_id).update(done=number)
        if params.get("numbered"):
            _number_pages(writer, params["paper"])
        out = io.BytesIO()
        writer.write(out)
    except Exception as failure:
        error = f"{type(failure).__name__}: {failure}"
        PrintJob.objects.filter(pk=job_id).update(status=PrintJob.Status.FAILED, error=error)
        raise
    # Done: the parts' HTML has served its turn, and need not be kept beside the PDF.
    kept = {name: value for name, value in params.items() if name != "parts"}
    done = {"status": PrintJob.Status.DONE, "pdf": out.getvalue(), "finished_at": timezone.now(), "params": kept}
    PrintJob.objects.filter(pk=job_id).update(**done)
    return True
