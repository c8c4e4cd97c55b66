#!/usr/bin/env python3
"""Printing speed: a 24-card deck of role cards (with backs) and a 24-player game's
notecards, each beside a bare WeasyPrint render of as many plain pages in the same run
(one heading and a paragraph a page), and the ratio between them (goal in issue 8:
within 1.5x).

    python benchmarks/printing.py [--repeat 5]

Each figure is the best of --repeat runs, the document and its twins taken in turns, in
wall-clock and in CPU seconds (the CPU figure is the steadier one on a shared machine).
The bare twin is WeasyPrint as it comes (`HTML(string).write_pdf()`, nothing shared
between documents), so that it stays the same yardstick whatever
`printing.layout.render_document` learns (it keeps a thread's fonts, stylesheets and images:
the document's untimed first run warms them, as a worker's first document does). A
second twin, "same words", renders the document's own text (as pypdf reads it back) as
plain paragraphs on as many pages: how much of the cost is the words themselves. Each
document is timed as well with its faces read the other way (`printing.layout.FACES`
"pages": WeasyPrint's documented API alone, a page a face), the way it prints where a
WeasyPrint release lays out its boxes otherwise than `faces_from_boxes` reads them.
"""

from __future__ import annotations

import argparse
import functools
import html
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "werewolf.settings")
os.environ.setdefault("WEREWOLF_VAR_DIR", tempfile.mkdtemp(prefix="werewolf-print-bench-"))


def weasyprint_bare(document: str) -> bytes:
    """WeasyPrint as it comes: a new font configuration, nothing kept between documents."""
    import weasyprint

    from werewolf.printing.layout import refuser

    pdf: bytes = weasyprint.HTML(string=document, url_fetcher=refuser(), base_url="about:blank").write_pdf()
    return pdf


def bare(pages: int) -> bytes:
    line = "A plain line of text. "
    body = "".join(
        f'<section style="page-break-after: always"><h1>Page {page}</h1><p>{line * 20}</p></section>'
        for page in range(pages)
    )
    return weasyprint_bare(f"<!doctype html><html><body>{body}</body></html>")


def same_words(texts: list[str]) -> bytes:
    """The pages' own words, a plain paragraph a line of text, a page a page."""
    body = "".join(
        '<section style="page-break-after: always">'
        + "".join(f"<p>{html.escape(line)}</p>" for line in text.splitlines() if line.strip())
        + "</section>"
        for text in texts
    )
    return weasyprint_bare(f"<!doctype html><html><body>{body}</body></html>")


def timed(run: Callable[[], bytes]) -> tuple[float, float, bytes]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = run()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    import django

    django.setup()
    from io import BytesIO

    from pypdf import PdfReader

    from werewolf.printing import documents, layout
    from werewolf.printing.documents import Notecard

    deck = documents.deck_cards("tabula", 24)

    def deck_pdf() -> bytes:
        return documents.role_cards_pdf(deck, ruleset="tabula", backs=True)

    class Game:  # what the notecards template reads of a game
        name = "Benchmark"

    class Phase:
        kind, number, stage, index = "night", 1, "night", 0

    from werewolf.engine import SLEEP, grammar
    from werewolf.engine.rulesets import tabula

    verbs = grammar.verbs([*tabula.RULESET.cards, SLEEP], "tabula")
    cards = [Notecard(seat, f"Player {seat + 1}") for seat in range(24)]

    def notecards_pdf() -> bytes:
        return documents.notecards_document_pdf(documents.notecards_html(Game, Phase, cards, verbs))

    def as_pages(run: Callable[[], bytes]) -> bytes:
        """`run` with its faces read through WeasyPrint's documented API alone."""
        layout.FACES = "pages"
        try:
            return run()
        finally:
            layout.FACES = "auto"

    for label, run in (("24-card deck with backs", deck_pdf), ("24 notecards", notecards_pdf)):
        pdf = run()  # once, untimed: templates compiled, what a thread keeps warmed
        assert as_pages(run)  # and the other way
        reader = PdfReader(BytesIO(pdf))
        pages, texts = len(reader.pages), [page.extract_text() for page in reader.pages]
        twins: dict[str, Callable[[], bytes]] = {
            "document": run,
            "pages": functools.partial(as_pages, run),
            "bare": functools.partial(bare, pages),
            "words": functools.partial(same_words, texts),
        }
        best = {name: [float("inf"), float("inf")] for name in twins}
        for _ in range(args.repeat):
            for name, twin in twins.items():
                wall, cpu, _ = timed(twin)
                best[name] = [min(best[name][0], wall), min(best[name][1], cpu)]
        (doc_wall, doc_cpu), (pages_wall, pages_cpu), (bare_wall, bare_cpu), (words_wall, words_cpu) = best.values()
        print(f"{label}: {pages} pages")
        print(f"  document              {doc_wall:6.3f} s wall  {doc_cpu:6.3f} s CPU")
        print(f"  bare WeasyPrint       {bare_wall:6.3f} s wall  {bare_cpu:6.3f} s CPU  ({pages} plain pages)")
        print(f"  same words, bare      {words_wall:6.3f} s wall  {words_cpu:6.3f} s CPU")
        print(
            f"  ratio                 {doc_wall / bare_wall:6.2f}x wall  {doc_cpu / bare_cpu:6.2f}x CPU"
            f"   goal: within 1.5x  (same words: {doc_cpu / words_cpu:.2f}x CPU)"
        )
        print(f"  faces a page each     {pages_wall:6.3f} s wall  {pages_cpu:6.3f} s CPU  (documented API alone)")
        print(
            f"  its ratio             {pages_wall / bare_wall:6.2f}x wall  {pages_cpu / bare_cpu:6.2f}x CPU"
            f"   ({pages_cpu / doc_cpu:.2f}x the boxes' CPU)"
        )


if __name__ == "__main__":
    main()
