"""Print jobs: a document kept by the hash of its content (whoever asks for the same one
gets the same job), rendered during the request when small, else queued for a worker
(tasks/printing.py) that renders it a part at a time (a sheet of cards, a sheet of
notecards, a part of a record), counting its progress, and joins the parts (pypdf),
numbering a record's pages once joined."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import timezone, translation

from werewolf.games.models import Game, PrintJob
from werewolf.games.queue import after_commit

from . import layout
from .documents import (
    NOTECARDS_ACROSS,
    NOTECARDS_DOWN,
    RECORD_PAGE_ROWS,
    RoleCard,
    deck,
    game_cards,
    notecards,
    notecards_document_pdf,
    notecards_html,
    record_context,
    record_html,
    record_part_groups,
    record_parts,
    record_rows,
    role_cards_html,
    role_cards_pdf,
)
from .layout import PAPERS, PER_SHEET

LARGE_SHEETS = 3
"""A document of more sheets than this (role cards, notecards; a record of more pages,
about) renders in a worker, with its progress on a page."""
LARGE = LARGE_SHEETS * PER_SHEET
"""A deck, or a game's role cards, of more cards than this renders in a worker."""
LARGE_NOTECARDS = LARGE_SHEETS * NOTECARDS_ACROSS * NOTECARDS_DOWN
"""A phase's notecards, more of them than this render in a worker."""
LARGE_RECORD = LARGE_SHEETS * RECORD_PAGE_ROWS
"""A game's record of more rows than this (`record_rows`) renders in a worker."""


def deck_job(
    ruleset: str,
    players: int,
    *,
    options: dict[str, Any] | None = None,
    paper: str = "a4",
    backs: bool = False,
    pack: bool = False,
) -> PrintJob:
    """The print job of a deck, as a game of `players` with `options` deals it
    (`documents.deck`, as `print_cards` prints it): one already made for the same content
    (whoever asked) is returned as it is; a small deck is rendered now; a large one is
    queued for a worker (`run_job`), which renders it sheet by sheet so that its page
    shows the progress."""
    cards, chosen = deck(ruleset, players, options, pack=pack)
    params: dict[str, Any] = {
        "ruleset": ruleset,
        "players": players,
        "options": chosen,
        "paper": paper,
        "backs": backs,
        "language": translation.get_language(),
    }
    if pack:
        params["pack"] = True
    return _cards_job("deck", cards, params, f"{'pack' if pack else 'role-cards'}-{ruleset}-{players}.pdf")


def game_job(game: Game, *, paper: str = "a4", backs: bool = False) -> PrintJob:
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


def notecards_job(game: Game, *, paper: str = "a4", with_links: bool = False) -> PrintJob | None:
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


def record_job(game: Game, *, paper: str = "a4") -> PrintJob | None:
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
        total=len(record_part_groups(context)),
        large=sum(record_rows(context)) > LARGE_RECORD,
        parts=functools.partial(record_parts, context),
        scope=game.pk,
    )


def _cards_job(
    kind: str, cards: Sequence[RoleCard], params: dict[str, Any], filename: str, scope: Any = ""
) -> PrintJob:
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
        f"{html}\n<!-- {layout.placement(cards, params['backs'], params['paper'])} -->",
        params,
        filename,
        total=len(_chunks(cards)),
        large=len(cards) > LARGE,
        render=lambda: layout.tile(html, cards, backs=params["backs"], paper=params["paper"]),
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
) -> PrintJob:
    """Find or make the job of the document `html`, kept by its hash: a job already made
    (and not failed) is returned as it is; a small document is rendered now; a large one
    is queued for a worker (`run_job`), with `total` steps to count: the documents
    `parts` returns (kept in the job), or else the role cards' sheets (`_job_cards`).
    `render`: how a small one is rendered, if not `html` as it is.
    `scope`: a game's own documents are hashed with the game, so that two games alike to
    the letter never share a job (each job's pages are its game's organiser's)."""

    content = f"{kind} {scope}\n{html}" if scope != "" else html
    key = hashlib.sha256(content.encode()).hexdigest()
    found = PrintJob.objects.filter(key=key).first()
    if found is not None and found.status != PrintJob.Status.FAILED:
        return found
    if not large:
        pdf = render() if render is not None else layout.render_pdf(html)
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
    return deck(params["ruleset"], params["players"], params.get("options"), pack=bool(params.get("pack")))[0]


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
                yield functools.partial(layout.render_pdf, part)
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
    numbers = PdfReader(io.BytesIO(layout.render_pdf(render_to_string("print/page_numbers.html", context))))
    for page, number in zip(writer.pages, numbers.pages, strict=True):
        page.merge_page(number)


def run_job(job_id: int) -> bool:
    """Render a queued job part by part (a sheet of cards, a sheet of notecards, a part
    of a record), counting its progress, then join the parts into one PDF. Safe to run
    twice: a job already done, or taken by another worker, is left alone."""
    import io

    from pypdf import PdfWriter

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
