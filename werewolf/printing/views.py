"""The organiser's and the players' paper: thin views over `documents` and `jobs`, every
game's document behind the one gate (`werewolf.games.access`): "not yours" is 404, as
"not there" is. Their URL names stay in the games' namespace ("games:game_role_cards",
"games:print_job", ...; werewolf/urls.py), which the templates reverse."""

from __future__ import annotations

import re

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from werewolf.games import access, links
from werewolf.games.forms import PrintDeckForm
from werewolf.games.models import Game, PrintJob
from werewolf.games.views import link_error, public_game, speak

from . import documents, jobs, layout


def _organised(request: HttpRequest, pk: int) -> Game:
    """The game a document is about, if this visitor may look at it (`access`); else 404."""
    return access.game_for(request.user, pk, access.Action.VIEW)


def _pdf(pdf: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_http_methods(["GET", "POST"])
def print_deck(request: HttpRequest) -> HttpResponse:
    """Role cards for any ruleset and table size, no game needed."""
    form = PrintDeckForm(request.POST or None, organiser=request.user)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        if data.get("document") == "score_sheet":
            pdf = documents.score_sheet_pdf(ruleset=data["ruleset"], players=data["players"], paper=data["paper"])
            return _pdf(pdf, f"score-sheet-{data['ruleset']}-{data['players']}.pdf")
        pack = data.get("document") == "pack"
        job = jobs.deck_job(
            data["ruleset"],
            data["players"],
            options=data["options"],
            paper=data["paper"],
            backs=data["backs"],
            pack=pack,
        )
        if job.status == PrintJob.Status.DONE:
            return _pdf(job.document, job.filename)
        return redirect("games:print_job", key=job.key)
    return render(request, "games/print_deck.html", {"form": form}, status=400 if form.errors else 200)


def _print_job(request: HttpRequest, key: str) -> PrintJob:
    if not re.fullmatch(r"[0-9a-f]{64}", key):
        raise Http404
    return access.print_job_for(request.user, get_object_or_404(PrintJob, key=key))


@login_required
@require_http_methods(["GET"])
def print_job(request: HttpRequest, key: str) -> HttpResponse:
    """A large document being printed: its progress, updated in place, then the link."""
    job = _print_job(request, key)
    game = job.params.get("game") if job.kind != "deck" else None
    context = {"job": job, "version": f"{job.status}:{job.done}", "game": game}
    return render(request, "games/print_job.html", context)


@login_required
@require_GET
def print_job_version(request: HttpRequest, key: str) -> JsonResponse:
    job = _print_job(request, key)
    return JsonResponse({"version": f"{job.status}:{job.done}"})


@login_required
@require_GET
def print_job_pdf(request: HttpRequest, key: str) -> HttpResponse:
    job = _print_job(request, key)
    if job.status != PrintJob.Status.DONE:
        return redirect("games:print_job", key=key)
    return _pdf(job.document, job.filename)


@login_required
@require_http_methods(["GET"])
def game_role_cards(request: HttpRequest, pk: int) -> HttpResponse:
    """A started game's role cards, each naming its player: for the organiser to hand
    out at the table."""
    game = _organised(request, pk)
    speak(request, game)  # the game's documents are in its players' language
    if game.status == Game.Status.DRAFT:
        return redirect("games:dashboard", pk=pk)
    # Kept by content, as a deck is: asked again, served from the job; a large game's
    # cards are printed by a worker, their progress on the job's page.
    job = jobs.game_job(game, paper=_paper(request), backs=request.GET.get("backs") == "1")
    if job.status == PrintJob.Status.DONE:
        return _pdf(job.document, job.filename)
    return redirect("games:print_job", key=job.key)


def _paper(request: HttpRequest) -> str:
    paper = request.GET.get("paper", "a4")
    return paper if paper in layout.PAPERS else "a4"


@login_required
@require_http_methods(["GET"])
def game_notecards(request: HttpRequest, pk: int) -> HttpResponse:
    """The open phase's notecards, all alike whatever the role; with `links=1`, each with
    a QR code of its player's own page (hand each to its player only)."""
    game = _organised(request, pk)
    speak(request, game)  # the game's documents are in its players' language
    if game.current_phase() is None:
        return redirect("games:dashboard", pk=pk)
    # Kept by content, as role cards are: a large table's are printed by a worker.
    job = jobs.notecards_job(game, paper=_paper(request), with_links=request.GET.get("links") == "1")
    return _job_response(job, pk)


def _job_response(job: PrintJob | None, pk: int) -> HttpResponse:
    """A game's document: the PDF when it is ready, else the job's page with its progress
    (or the dashboard, if there is no such document now)."""
    if job is None:
        return redirect("games:dashboard", pk=pk)
    if job.status == PrintJob.Status.DONE:
        return _pdf(job.document, job.filename)
    return redirect("games:print_job", key=job.key)


@login_required
@require_http_methods(["GET"])
def game_tally(request: HttpRequest, pk: int) -> HttpResponse:
    """The tally sheet of the open vote."""
    game = _organised(request, pk)
    speak(request, game)  # the game's documents are in its players' language
    pdf = documents.tally_pdf(game, paper=_paper(request))
    if pdf is None:
        return redirect("games:dashboard", pk=pk)
    return _pdf(pdf, f"tally-game-{game.pk}.pdf")


@login_required
@require_http_methods(["GET"])
def game_score_sheet(request: HttpRequest, pk: int) -> HttpResponse:
    """The score sheet of a game that scores: its series so far, and room for the next."""
    game = _organised(request, pk)
    speak(request, game)  # the game's documents are in its players' language
    if not game.capabilities.scores:
        return redirect("games:dashboard", pk=pk)
    return _pdf(documents.score_sheet_pdf(game, paper=_paper(request)), f"score-sheet-game-{game.pk}.pdf")


@login_required
@require_http_methods(["GET"])
def game_script(request: HttpRequest, pk: int) -> HttpResponse:
    """The moderator's script for a started game: the night's calls for the roles dealt,
    and the table to cross off."""
    game = _organised(request, pk)
    speak(request, game)  # the game's documents are in its players' language
    if game.status == Game.Status.DRAFT:
        return redirect("games:dashboard", pk=pk)
    return _pdf(documents.script_pdf(game, paper=_paper(request)), f"script-game-{game.pk}.pdf")


@login_required
@require_http_methods(["GET"])
def game_record(request: HttpRequest, pk: int) -> HttpResponse:
    """After the game: the whole story, every card revealed."""
    game = _organised(request, pk)
    speak(request, game)  # the game's documents are in its players' language
    # Only once the game is over (no job before); a long game's by a worker.
    return _job_response(jobs.record_job(game, paper=_paper(request)), pk)


@require_http_methods(["GET"])
def replay_pdf(request: HttpRequest, key: str) -> HttpResponse:
    """The replay on paper: the game's record (every card, every event, the roles as
    dealt), for whoever may open the replay (`access.replay_for`: its organisers, and once
    it is over its players and the public, unless the organiser keeps it private)."""
    game = access.replay_for(request.user, public_game(key))
    speak(request, game)  # the game's documents are in its players' language
    job = jobs.record_job(game, paper=_paper(request))
    if job is None:  # a game not over yet, which only its organisers reach: no record yet
        return redirect("games:replay", key=key)
    if job.status == PrintJob.Status.DONE:
        return _pdf(job.document, job.filename)
    if access.may(request.user, game, access.Action.VIEW):
        return redirect("games:print_job", key=job.key)
    # A long game's record, printed by a worker: its job's pages are its organisers'.
    return render(request, "games/replay_printing.html", {"game": game})


@require_http_methods(["GET"])
def seat_role_card(request: HttpRequest, token: str) -> HttpResponse:
    """A player's own role card, and nobody else's."""
    try:
        player = links.player_for(token)
    except links.LinkError as problem:
        return link_error(request, problem)  # as the seat's own pages answer
    game = player.game
    if game.status == Game.Status.DRAFT or player.seat is None:
        return redirect("games:seat", token=token)
    cards = documents.game_cards(game, seats=[player.seat])
    pdf = documents.role_cards_pdf(
        cards, ruleset=game.ruleset, options=dict(game.options), title=game.name, language=game.language
    )
    return _pdf(pdf, "my-role-card.pdf")
