"""How a document goes on paper: WeasyPrint's rendering (`render_document`, `render_pdf`),
what a thread keeps from one document to the next (fonts, stylesheets, images), and the
sheets made from a document of faces: each distinct face laid out once, then drawn
wherever it goes on the sheets (`faces`, `compose`, `tile`), with crop marks.

Cards are poker size (63 x 88 mm), nine to a sheet (A4 or Letter) with cut guides and
crop marks; the optional backs follow each sheet of fronts, placed mirrored (each row
read right to left) so that a long-edge duplex print puts every back behind its front.
Nothing is fetched while rendering: the documents are self-contained, and the URL
fetcher refuses everything but the data: URLs they carry.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

from django.template.loader import render_to_string

from werewolf import kept_words

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
"""Sheet sizes in millimetres."""
CARD = (63.0, 88.0)
"""A poker-size card, in millimetres."""
ACROSS, DOWN = 3, 3
PER_SHEET = ACROSS * DOWN


class FetchRefused(Exception):
    """What the URL fetcher says to any fetch: documents embed all they show."""


@dataclass(frozen=True)
class Sheet:
    """A sheet of cards in reading order (None where a slot has no card: after the last
    card, or before it in a mirrored row of backs), fronts or backs."""

    cards: tuple[Hashable | None, ...]
    backs: bool = False


def sheets(cards: Sequence[Hashable], backs: bool) -> list[Sheet]:
    """Sheets of nine, each followed (with `backs`) by its backs sheet, mirrored."""
    out: list[Sheet] = []
    for start in range(0, len(cards), PER_SHEET):
        chunk = list(cards[start : start + PER_SHEET])
        padded: list[Hashable | None] = [*chunk, *([None] * (PER_SHEET - len(chunk)))]
        out.append(Sheet(tuple(padded)))
        if backs:
            mirrored: list[Hashable | None] = []
            for row in range(DOWN):
                mirrored += reversed(padded[row * ACROSS : (row + 1) * ACROSS])
            out.append(Sheet(tuple(mirrored), backs=True))
    return out


def placement(cards: Sequence[Hashable], backs: bool, paper: str) -> str:
    """The paper, and where each face of `role_cards_html` goes, sheet by sheet: what the
    HTML alone does not say (its pages are a card wide whatever the paper; the cards'
    order, and how many of each), so that a job's hash covers it."""
    faces = {card: number for number, card in enumerate(dict.fromkeys(cards))}
    return f"{paper} " + " ".join(
        ",".join("-" if card is None else "b" if sheet.backs else str(faces[card]) for card in sheet.cards)
        for sheet in sheets(cards, backs)
    )


POINTS = 72 / 25.4
"""PDF points a millimetre."""
PX = 0.75
"""PDF points a CSS pixel."""
FACES_PAGE = 2000.0
"""How tall a page of faces may be, in millimetres: a document of faces (role cards,
notecards) stacks them one under the other down pages this tall at most, so that a deck
costs WeasyPrint a page or two, not one a face (much of its cost goes by the page), and
every coordinate stays well inside what any PDF reader takes."""


def tile(html: str, cards: Sequence[Hashable], *, backs: bool, paper: str) -> bytes:
    """The sheets of `cards` (`sheets`) made from the faces of `html` (`role_cards_html`):
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
                x, y = (margin_x + column * CARD[0]) * POINTS, (margin_y + row * CARD[1]) * POINTS
                placed.append((back if sheet.backs else number[card], x, y))
        layout.append(placed)
    marks = _crop_marks(width, height, margin_x, margin_y)
    document, found = faces(html)
    return compose(document, found, layout or [[]], width, height, marks)  # no card: a bare sheet


@dataclass(frozen=True)
class Face:
    """One face of a document of faces: a WeasyPrint page that draws this face alone,
    where it is on that page, and that place (its border box, CSS pixels from the page's
    top left; the page's size)."""

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


FACES = "auto"
"""How `faces` reads the faces of a document, a switch for the tests to run both ways:

- "boxes": laid out once, down a page or two, then each face cut from WeasyPrint's
  laid-out boxes into a page of its own (`faces_from_boxes`). The fast way, but those
  boxes are not WeasyPrint's documented API: another release may build them otherwise.
- "pages": WeasyPrint's documented API only (`faces_from_pages`): each face laid out on
  a page of its own, its place read from the page's anchors. The same faces, drawn the
  same, at the cost of a page each.
- "auto": the boxes, and the pages from the first document whose boxes are not as
  `faces_from_boxes` reads them (`FacesUnread`), with a warning, once a process."""

_unread = ""
"""Why the boxes were not read (FacesUnread), once they were not: then "auto" reads the pages."""

logger = logging.getLogger(__name__)


def faces(html: str) -> tuple[Any, list[Face]]:
    """`html`, a document of faces (every child of its body a face), laid out, and its
    faces in order, each drawn by a page of its own which `compose` draws wherever the
    face goes; read as `FACES` says."""
    global _unread

    if FACES == "boxes" or (FACES == "auto" and not _unread):
        document = render_document(html)
        try:
            return document, faces_from_boxes(document)
        except FacesUnread as unread:
            if FACES == "boxes":
                raise
            _unread = str(unread)
            logger.warning("Printing lays out every face on a page of its own from now on (slower): %s", unread)
    return faces_from_pages(html)


def faces_from_boxes(document: Any) -> list[Face]:
    """The faces of a laid-out `document`: every child of its body, in order, each made
    a page of its own from the page it is on (the same boxes, laid out once; nothing
    else of the page). This leans on WeasyPrint's laid-out boxes (`Page._page_box`,
    `copy_with_children`), not its documented API: boxes not as expected are
    FacesUnread, and `faces` then reads the faces from pages instead."""
    found = []
    for page in document.pages:
        page_box, root, body = _page_boxes(page)
        for face in body.children:
            try:
                from weasyprint.document import Page

                if face.element is body.element:  # an anonymous box: loose text in the body
                    raise ValueError("every child of the body of a document of faces is a face")
                alone = page_box.copy_with_children([root.copy_with_children([body.copy_with_children([face])])])
                place = (face.border_box_x(), face.border_box_y(), face.border_width(), face.border_height())
                found.append(Face(Page(alone), *place, page.width, page.height, face.element.get("id", "")))
            except (AttributeError, ImportError, TypeError) as unread:
                raise _unread_boxes("a face cut from its page", unread) from unread
    return found


def faces_from_pages(html: str) -> tuple[Any, list[Face]]:
    """`html` laid out through WeasyPrint's documented API (`render`, `Page.anchors`),
    each face on a page of its own (a page break before each but the first, `APART`),
    and the faces in order, each its page and its place on it: the anchor of the face's
    id (a face without one is given one, `_named_faces`). WeasyPrint documents an anchor
    as its top left point; it gives the border box's rectangle (left, top, right, bottom),
    whose height places a notecard's words below its name: a release giving the point
    alone is FacesUnread, by name."""
    named, names = _named_faces(html)
    document = render_document(named, apart=True)
    if len(document.pages) != max(len(names), 1):
        raise ValueError(f"{len(names)} faces laid out on {len(document.pages)} pages: a face longer than a page?")
    found = []
    for page, (name, given) in zip(document.pages, names, strict=False):
        try:
            left, top, right, bottom = page.anchors[name]
        except (KeyError, TypeError, ValueError) as unread:
            raise _unread_boxes("a face's anchor", unread) from unread
        found.append(Face(page, left, top, right - left, bottom - top, page.width, page.height, "" if given else name))
    return document, found


APART = "body > * + * { break-before: page }"
"""The stylesheet that lays out each face of a document of faces on a page of its own."""
_FACE_NAME = "werewolf-face-"
"""The id given to a face without one (and a number), for `faces_from_pages` to find it."""


def _named_faces(html: str) -> tuple[str, list[tuple[str, bool]]]:
    """`html` with an id given to each face (child of the body) without one, and each
    face's id in order, with whether it was given one here. ValueError for loose text in
    the body, which would be laid out as a face of its own."""
    reader = _BodyChildren()
    reader.feed(html)
    reader.close()
    if reader.loose:
        raise ValueError("every child of the body of a document of faces is a face")
    starts = [0]  # where each line starts, as the parser counts them (by "\n")
    for text in html.split("\n"):
        starts.append(starts[-1] + len(text) + 1)
    names: list[tuple[str, bool]] = []
    parts, done = [], 0
    for number, ((row, column), tag, name) in enumerate(reader.children):
        if name:
            names.append((name, False))
            continue
        at = starts[row - 1] + column + 1 + len(tag)  # after "<tag"
        parts += [html[done:at], f' id="{_FACE_NAME}{number}"']
        done = at
        names.append((f"{_FACE_NAME}{number}", True))
    return "".join([*parts, html[done:]]), names


class _BodyChildren(HTMLParser):
    """The children of a document's body, read as the print templates write them (every
    element closed but the void ones): where each starts, its tag and its id."""

    VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth: int | None = None
        self.children: list[tuple[tuple[int, int], str, str]] = []
        self.loose = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body" and self.depth is None:
            self.depth = 0
        elif self.depth is not None:
            if self.depth == 0:
                self.children.append((self.getpos(), tag, dict(attrs).get("id") or ""))
            if tag not in self.VOID:
                self.depth += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth == 0:
            self.children.append((self.getpos(), tag, dict(attrs).get("id") or ""))

    def handle_endtag(self, tag: str) -> None:
        if self.depth is not None and tag == "body" and self.depth == 0:
            self.depth = None
        elif self.depth is not None and tag not in self.VOID:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth == 0 and data.strip():
            self.loose = True


class FacesUnread(RuntimeError):
    """A page of faces laid out otherwise than `faces_from_boxes` reads it: WeasyPrint's
    boxes are not its documented API, and another release may build them otherwise."""


def _unread_boxes(what: str, unread: Exception) -> FacesUnread:
    import weasyprint

    return FacesUnread(
        f"WeasyPrint {weasyprint.__version__} laid out {what} otherwise than printing.layout reads it "
        f"(written for WeasyPrint 70): {unread!r}"
    )


def _page_boxes(page: Any) -> tuple[Any, Any, Any]:
    """A laid-out page's box, its root box and its body box, the body alone in the root;
    or FacesUnread naming the WeasyPrint that laid it out, rather than a bare
    AttributeError or "too many values to unpack"."""
    try:
        page_box = page._page_box
        root = page_box.children[0]
        (body,) = root.children
    except (AttributeError, IndexError, TypeError, ValueError) as unread:
        raise _unread_boxes("a page of faces", unread) from unread
    return page_box, root, body


def compose(
    document: Any,
    faces: Sequence[Face],
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
    sheet_size = (width * POINTS, height * POINTS)

    def finish(_document: Any, pdf: Any) -> None:
        pages = [pdf.objects[number] for number in pdf.pages["Kids"][::3]]
        forms, fonts = _faces_as_forms(pdf, pages, faces)
        _drop_pages(pdf, pages)
        _add_sheets(pdf, layout, faces, forms, fonts, sheet_size, marks)

    drawn = [face.page for face in faces] or document.pages[:1]  # no face: a blank page, for its resources
    pdf: bytes = document.copy(drawn).write_pdf(finisher=finish)
    return pdf


def _faces_as_forms(pdf: Any, pages: list[Any], faces: Sequence[Face]) -> tuple[Any, Any]:
    """Each face's page content as a form (an XObject) the sheets draw, with its page's
    resources (WeasyPrint 70 writes one dictionary every page shares, fonts embedded
    once): the forms by name (`Face0`...), and the first page's fonts."""
    import pydyf

    shared = pages[0]["Resources"]
    forms = pydyf.Dictionary()
    for number, face in enumerate(faces):
        stream = pdf.objects[int(pages[number]["Contents"].split()[0])]
        stream.extra.update(
            {
                "Type": "/XObject",
                "Subtype": "/Form",
                # Its whole page: nothing else of the page is drawn, and what flows
                # out of the face (a long name) shows, as it would on a page.
                "BBox": pydyf.Array([0, 0, face.page_width * PX, face.page_height * PX]),
                "Resources": pages[number]["Resources"],
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
    faces: Sequence[Face],
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
            dx = x - face.left * PX
            dy = sheet_height - y - (face.page_height - face.top) * PX
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


def svg_url(svg: str) -> str:
    import base64

    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


@kept_words.register
@functools.lru_cache
def emblem_url(role: str) -> str:
    """A role's emblem (templates/print/emblem.svg) as a data: URL, drawn once a process:
    every card of the role shows the same image."""
    svg = render_to_string("print/emblem.svg", {"role": role})
    return svg_url(" ".join(svg.split()))


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
        f"{a * POINTS:.2f} {(height - b) * POINTS:.2f} m {c * POINTS:.2f} {(height - d) * POINTS:.2f} l"
        for a, b, c, d in lines
    )
    return f"q 0 G {0.2 * POINTS:.3f} w {path} S Q\n".encode()


def render_pdf(html: str) -> bytes:
    """A self-contained HTML document as PDF bytes."""
    pdf: bytes = render_document(html).write_pdf()
    return pdf


def render_document(html: str, *, apart: bool = False) -> Any:
    """A self-contained HTML document laid out by WeasyPrint (its pages, and where each
    element with an id is on them: `anchors`), to write as PDF; `apart`: a document of
    faces, each face on a page of its own (`faces_from_pages`). What does not change
    from one document to the next is kept by this thread (`kept_here`): the fonts found,
    the document's stylesheet parsed (its one <style>, given to WeasyPrint parsed), and
    the images it shows (the emblems, the lines to write on)."""
    import weasyprint

    kept = kept_here()
    before, style, rest = html.partition("<style>")
    css, end, after = rest.partition("</style>")
    stylesheets = []
    if style and end and "<body" not in before and "<style" not in after:  # its one stylesheet
        html = before + after
        stylesheets = [_stylesheet(css)]
    if apart:
        stylesheets.append(_stylesheet(APART))
    if len(kept.images) > KEPT_IMAGES:  # between documents: never one's images mid-render
        kept.images.clear()
    _load_images(html, kept)
    document = weasyprint.HTML(string=html, url_fetcher=refuser(), base_url="about:blank")
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


def kept_here() -> _Kept:
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
        loader = weasyprint.HTML(string=f"<body>{images}</body>", url_fetcher=refuser(), base_url="about:blank")
        loader.render(font_config=kept.fonts, cache=kept.images)


def _stylesheet(css: str) -> Any:
    """`css` parsed once a thread. Given to WeasyPrint as a user stylesheet, not the
    document's own: it still wins over the browser's defaults, and loses to a style
    attribute, as the document's own did (no print template has !important but over a
    QR code's own size)."""
    import weasyprint

    kept = kept_here()
    sheet = kept.stylesheets.get(css)
    if sheet is None:
        if len(kept.stylesheets) >= KEPT_STYLESHEETS:
            kept.stylesheets.clear()
        sheet = kept.stylesheets[css] = weasyprint.CSS(
            string=css, font_config=kept.fonts, url_fetcher=refuser(), base_url="about:blank"
        )
    return sheet


def refuser() -> Any:
    """A URL fetcher that fetches nothing but the data: URLs the document carries
    (anything else: WeasyPrint warns, and renders without it)."""
    from weasyprint.urls import URLFetcher

    class Refuser(URLFetcher):  # type: ignore[misc]
        def fetch(self, url: str, headers: Any = None) -> Any:
            if url.startswith("data:"):  # what the document carries itself
                return super().fetch(url, headers)
            raise FetchRefused(url)

    return Refuser()
