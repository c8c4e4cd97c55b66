#!/usr/bin/env python3
"""Printing speed: a 24-card deck of role cards and a 24-player game's notecards, each
beside a bare WeasyPrint render of as many plain pages in the same run (one heading and
a paragraph a page), and the ratio between them (goal in issue 8: within 1.5x).

    python benchmarks/printing.py [--repeat 3]

Each figure is the best of --repeat runs, the document and its bare twin taken in turns.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "werewolf.settings")
os.environ.setdefault("WEREWOLF_VAR_DIR", tempfile.mkdtemp(prefix="werewolf-print-bench-"))


def bare(pages: int) -> bytes:
    from werewolf.printing import render_pdf

    line = "A plain line of text. "
    body = "".join(
        f'<section style="page-break-after: always"><h1>Page {page}</h1><p>{line * 20}</p></section>'
        for page in range(pages)
    )
    return render_pdf(f"<!doctype html><html><body>{body}</body></html>")


def timed(run) -> tuple[float, bytes]:
    started = time.perf_counter()
    out = run()
    return time.perf_counter() - started, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import django

    django.setup()
    from io import BytesIO

    from pypdf import PdfReader

    from werewolf import printing
    from werewolf.printing import Notecard

    deck = printing.deck_cards("tabula", 24)

    def deck_pdf() -> bytes:
        return printing.role_cards_pdf(deck, ruleset="tabula", backs=True)

    class Game:  # what the notecards template reads of a game
        name = "Benchmark"

    class Phase:
        kind, number, stage, index = "night", 1, "night", 0

    from werewolf.engine import SLEEP
    from werewolf.engine.rulesets import tabula
    from werewolf.mail import grammar

    verbs = grammar.verbs([*tabula.RULESET.cards, SLEEP], "tabula")
    cards = [Notecard(seat, f"Player {seat + 1}") for seat in range(24)]

    def notecards_pdf() -> bytes:
        from django.template.loader import render_to_string

        width, height = printing.PAPERS["a4"]
        context = {
            "game": Game,
            "phase": Phase,
            "sheets": [cards[start : start + 4] for start in range(0, len(cards), 4)],
            "verbs": verbs,
            "names": [card.name for card in cards],
            "paper": {"width": width, "height": height},
            "card": {"width": width / 2, "height": height / 2},
            "lines": range(8),
        }
        return printing.render_pdf(render_to_string("print/notecards.html", context))

    for label, run in (("24-card deck with backs", deck_pdf), ("24 notecards", notecards_pdf)):
        best_doc = best_bare = float("inf")
        for _ in range(args.repeat):
            seconds, pdf = timed(run)
            pages = len(PdfReader(BytesIO(pdf)).pages)
            best_doc = min(best_doc, seconds)
            bare_seconds, _ = timed(lambda pages=pages: bare(pages))
            best_bare = min(best_bare, bare_seconds)
        print(f"{label}: {pages} pages")
        print(f"  document          {best_doc:7.3f} s")
        print(f"  bare WeasyPrint   {best_bare:7.3f} s  ({pages} plain pages)")
        print(f"  ratio             {best_doc / best_bare:7.2f}x   goal: within 1.5x")


if __name__ == "__main__":
    main()
