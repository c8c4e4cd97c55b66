"""A game's notecards and its record go the way of its role cards (issue 8): kept by
content in a PrintJob, a large one rendered by a worker (its task run by hand here) with
its progress on the job's page, the job and its PDF for the game's organiser's eyes only.
Every PDF is read back with pypdf."""

from __future__ import annotations

import io
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from pypdf import PdfReader

from werewolf.games import services
from werewolf.games.models import Game, PrintJob
from werewolf.printing import documents, jobs, layout

from .play import NAMES, print_form, seat_roles, started_game
from .test_printing import faces_path, get_role_title, render, text_of  # noqa: F401 (faces_path: both ways)

pytestmark = pytest.mark.django_db(transaction=True)
# Every test here runs both ways a document's faces are read, as test_printing's do
# (`faces_path`, autouse where it is imported).


def fonts_embedded(pdf: bytes) -> bool:
    for page in PdfReader(io.BytesIO(pdf)).pages:
        for font in page["/Resources"]["/Font"].values():
            descriptor = font.get_object()
            fonts = descriptor.get("/DescendantFonts")
            descriptor = (fonts[0].get_object() if fonts else descriptor)["/FontDescriptor"]
            if not any(key in descriptor for key in ("/FontFile", "/FontFile2", "/FontFile3")):
                return False
    return True


def counting_renders(monkeypatch) -> list[tuple[int, ...]]:
    """Each WeasyPrint render from now on, with the progress every job had recorded then."""
    seen: list[tuple[int, ...]] = []
    real = layout.render_document

    def counted(html: str, **how: Any) -> Any:
        seen.append(tuple(PrintJob.objects.order_by("pk").values_list("done", flat=True)))
        return real(html, **how)

    monkeypatch.setattr(layout, "render_document", counted)
    return seen


def page_of(client: Client, url: str) -> str:
    return unescape(client.get(url).content.decode())


def stranger(django_user_model) -> Client:
    other = Client()
    other.force_login(django_user_model.objects.create_user("another", password="correct horse battery"))
    return other


def test_a_big_tables_notecards_print_in_a_worker_for_its_organiser_only(
    organiser, organiser_client: Client, settings, django_user_model, monkeypatch, tmp_path: Path
) -> None:
    settings.WEREWOLF_INLINE_TASKS = False  # the worker's task is run by hand below
    game = started_game(organiser, "Big night", players=24)
    services.substitute_player(game.players.get(seat=5), name="Zoë Città", email="zoe@example.org")
    url = f"/games/{game.pk}/print/notecards.pdf"
    response = organiser_client.get(url)
    job = PrintJob.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/print/{job.key}/"
    assert (job.kind, job.status, job.done, job.total, job.params["game"]) == ("notecards", "queued", 0, 6, game.pk)
    assert len(job.params["parts"]) == 6  # each sheet's document, as hashed
    page = page_of(organiser_client, f"/print/{job.key}/")
    assert "Printing the game's notecards" in page and "Waiting for a worker" in page and "<progress" in page
    assert organiser_client.get(f"/print/{job.key}/document.pdf").status_code == 302  # not yet
    # The same request: the same job.
    assert organiser_client.get(url)["Location"] == f"/print/{job.key}/" and PrintJob.objects.count() == 1
    # Another organiser cannot tell the job is there; nobody logged out gets near it.
    other = stranger(django_user_model)
    for path in ("", "version.json", "document.pdf"):
        assert other.get(f"/print/{job.key}/{path}").status_code == 404
        assert Client().get(f"/print/{job.key}/{path}").status_code == 302
    assert other.get(url).status_code == 404 and PrintJob.objects.count() == 1

    renders = counting_renders(monkeypatch)
    before = organiser_client.get(f"/print/{job.key}/version.json").json()["version"]
    assert jobs.run_job(job.pk) and not jobs.run_job(job.pk)  # once
    assert renders == [(0,), (1,), (2,), (3,), (4,), (5,)]  # a sheet at a time, the progress kept after each
    job.refresh_from_db()
    assert (job.status, job.done, job.total) == ("done", 6, 6) and "parts" not in job.params
    assert organiser_client.get(f"/print/{job.key}/version.json").json()["version"] != before
    page = page_of(organiser_client, f"/print/{job.key}/")
    assert "The game's notecards are ready" in page and "Download the notecards (PDF)" in page
    pdf = organiser_client.get(f"/print/{job.key}/document.pdf")
    assert pdf["Content-Type"] == "application/pdf" and pdf["Cache-Control"] == "private, no-store"
    pages = text_of(pdf.content)
    assert len(pages) == 6 and all(page.count("Write one of:") == 4 for page in pages)
    everything = "\n".join(pages)
    names = list(game.players.order_by("seat").values_list("name", flat=True))
    assert "Zoë Città" in names and all(name in everything for name in names)
    for text in pages:  # each card's name, then the words laid out once and drawn on each
        order = [line for line in text.splitlines() if line in names or line.startswith("Write one of:")]
        assert len(order) == 8 and all(line in names for line in order[::2]), order
        assert all(line.startswith("Write one of:") for line in order[1::2]), order
    assert "Night 1" in everything and "KILL" in everything and "INQUIRE" in everything
    assert not any(get_role_title(role) in everything for role in ("seer", "wolf"))  # alike, whatever the role
    assert fonts_embedded(pdf.content) and len(render(pdf.content, tmp_path)) == 6
    # Asked again: served at once from what was kept, nothing rendered.
    again = organiser_client.get(url)
    assert again.status_code == 200 and again.content == pdf.content and len(renders) == 6
    # Other options, or the next phase: another document, another job.
    assert organiser_client.get(url + "?links=1").status_code == 302 and PrintJob.objects.count() == 2
    assert organiser_client.get(url + "?paper=letter").status_code == 302 and PrintJob.objects.count() == 3
    assert services.resolve_now(game)
    assert organiser_client.get(url).status_code == 302 and PrintJob.objects.count() == 4
    latest = PrintJob.objects.latest("pk")
    assert (latest.kind, latest.params["phase"]) == ("notecards", game.current_phase().pk)


def test_notecards_with_links_in_a_worker_carry_each_seats_code(
    organiser, organiser_client: Client, settings, django_user_model
) -> None:
    """Each notecard's QR code opens its own seat: the job keeps them, and shows them to
    the game's organiser alone."""
    settings.WEREWOLF_INLINE_TASKS = False
    game = started_game(organiser, "Linked", players=13)
    response = organiser_client.get(f"/games/{game.pk}/print/notecards.pdf?links=1")
    job = PrintJob.objects.get()
    assert response.status_code == 302 and (job.total, job.params["links"]) == (4, True)
    assert jobs.run_job(job.pk)
    job.refresh_from_db()
    pages = text_of(bytes(job.pdf))
    assert len(pages) == 4 and "\n".join(pages).count("Or scan the code") == 13
    assert stranger(django_user_model).get(f"/print/{job.key}/document.pdf").status_code == 404


def test_a_small_tables_notecards_are_printed_at_once_and_kept_by_game(
    organiser, organiser_client: Client, django_user_model
) -> None:
    """Up to three sheets are rendered during the request, as a small game's role cards
    are, and kept. Two games alike to the letter (name, seed, players) never share a job:
    each is its own organiser's."""
    game = started_game(organiser, "Twins", players=9)
    first = organiser_client.get(f"/games/{game.pk}/print/notecards.pdf")
    assert first.status_code == 200 and first["Content-Type"] == "application/pdf"
    job = PrintJob.objects.get()
    assert (job.kind, job.status, job.done, job.total) == ("notecards", "done", 3, 3) and "parts" not in job.params
    again = organiser_client.get(f"/games/{game.pk}/print/notecards.pdf")
    assert again.content == first.content and PrintJob.objects.count() == 1
    twin_organiser = django_user_model.objects.create_user("twin", password="correct horse battery")
    twin = started_game(twin_organiser, "Twins", players=9)
    twin_client = Client()
    twin_client.force_login(twin_organiser)
    twins = twin_client.get(f"/games/{twin.pk}/print/notecards.pdf")
    assert twins.status_code == 200 and text_of(twins.content) == text_of(first.content)
    assert PrintJob.objects.count() == 2
    mine = PrintJob.objects.get(params__game=twin.pk)
    assert twin_client.get(f"/print/{mine.key}/").status_code == 200
    assert twin_client.get(f"/print/{job.key}/").status_code == 404
    assert organiser_client.get(f"/print/{mine.key}/").status_code == 404


def finished_big_game(organiser) -> Game:
    """A 24-seat game played to its end by bots, every phase resolved at once."""
    seats = [services.Seating(name, is_bot=True) for name in NAMES]
    game = services.create_game(organiser, name="Long story", seats=seats, options={"wolves": 3, "seers": 1}, seed=7)
    game = services.start_game(game)
    for _ in range(200):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        services.resolve_now(game)
    assert game.status == Game.Status.FINISHED
    return game


PAGE_NUMBER = re.compile(r"^(\d+) / (\d+)$", re.MULTILINE)


def test_a_long_games_record_prints_in_a_worker_in_parts_numbered_as_a_whole(
    organiser, organiser_client: Client, settings, django_user_model, monkeypatch, tmp_path: Path
) -> None:
    running = started_game(organiser, "Not over", players=24)
    settings.WEREWOLF_INLINE_TASKS = False
    assert organiser_client.get(f"/games/{running.pk}/print/record.pdf").status_code == 302  # the dashboard
    assert not PrintJob.objects.exists()  # nothing told before the end
    settings.WEREWOLF_INLINE_TASKS = True  # the bots' game plays itself through
    game = finished_big_game(organiser)
    settings.WEREWOLF_INLINE_TASKS = False
    url = f"/games/{game.pk}/print/record.pdf"
    response = organiser_client.get(url)
    job = PrintJob.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/print/{job.key}/"
    assert (job.kind, job.status, job.done, job.params["game"]) == ("record", "queued", 0, game.pk)
    assert job.total == len(job.params["parts"]) >= 4
    page = page_of(organiser_client, f"/print/{job.key}/")
    assert "Printing the game's record" in page and "Waiting for a worker" in page
    assert organiser_client.get(url)["Location"] == f"/print/{job.key}/" and PrintJob.objects.count() == 1
    other = stranger(django_user_model)
    for path in ("", "version.json", "document.pdf"):
        assert other.get(f"/print/{job.key}/{path}").status_code == 404
        assert Client().get(f"/print/{job.key}/{path}").status_code == 302
    assert other.get(url).status_code == 404

    renders = counting_renders(monkeypatch)
    assert jobs.run_job(job.pk) and not jobs.run_job(job.pk)
    parts = job.total
    assert renders == [(done,) for done in range(parts)] + [(parts,)]  # each part, then the page numbers
    job.refresh_from_db()
    assert (job.status, job.done) == ("done", parts) and "parts" not in job.params
    assert "The game's record is ready" in page_of(organiser_client, f"/print/{job.key}/")
    pdf = organiser_client.get(f"/print/{job.key}/document.pdf").content
    pages = text_of(pdf)
    total = len(pages)
    assert total > parts
    assert numbered(pages)  # once each, as one document
    everything = "\n".join(pages)
    assert everything.count("The record of") == 1 and everything.count("The roles as dealt") == 1
    for player in game.players.all():
        assert player.name in everything
    roles = seat_roles(game)
    assert get_role_title("seer") in everything and get_role_title("wolf") in everything and len(roles) == 24
    for phase in game.phases.all():
        assert f"{phase.kind.capitalize()} {phase.number}" in everything
    # The same story, word for word, as the record rendered in one go tells it (but where
    # its pages break: a table's head is repeated on the next page).
    whole = "\n".join(text_of(documents.record_pdf(game)))
    assert words(everything) == words(whole)
    assert fonts_embedded(pdf) and len(render(pdf, tmp_path)) == total
    # Asked again: from what was kept; on other paper, another job.
    rendered = len(renders)
    again = organiser_client.get(url)
    assert again.status_code == 200 and again.content == pdf and len(renders) == rendered
    assert organiser_client.get(url + "?paper=letter").status_code == 302 and PrintJob.objects.count() == 2


def numbered(pages: list[str]) -> bool:
    """Whether each page bears its number out of all of them, "n / N", and no other."""
    return [PAGE_NUMBER.findall(text) for text in pages] == [
        [(str(n), str(len(pages)))] for n in range(1, len(pages) + 1)
    ]


def words(text: str) -> list[str]:
    """The words of a record's text, less its page numbers, its list bullets (read back
    where they please) and the heads of its tables (each page a table runs on has one)."""
    plain = " ".join(PAGE_NUMBER.sub("", text).replace("•", " ").split())
    for head in ("Player The card that counted", "Player Role"):
        plain = plain.replace(head, " ")
    return plain.split()


def test_a_short_games_record_is_printed_at_once_and_kept(organiser, organiser_client: Client) -> None:
    from .test_game_flow import play_whole_game

    game = play_whole_game(organiser_client, 4, check=False)
    first = organiser_client.get(f"/games/{game.pk}/print/record.pdf")
    assert first.status_code == 200 and first["Content-Type"] == "application/pdf"
    job = PrintJob.objects.get()
    assert (job.kind, job.status, job.total, job.params["game"]) == ("record", "done", 1, game.pk)
    pages = text_of(first.content)
    assert numbered(pages)
    again = organiser_client.get(f"/games/{game.pk}/print/record.pdf")
    assert again.content == first.content and PrintJob.objects.count() == 1
    assert sum(documents.record_rows(documents.record_context(game))) <= jobs.LARGE_RECORD


def test_a_deck_and_a_games_cards_on_letter_are_not_the_a4_ones(organiser, organiser_client: Client) -> None:
    """The paper is no part of the faces' HTML (the sheets are made from the faces), so
    the job's content says it: a deck, or a game's role cards, asked on Letter after A4
    is a job of its own and comes on Letter sheets."""

    def size(pdf: bytes) -> tuple[float, float]:
        box = PdfReader(io.BytesIO(pdf)).pages[0].mediabox
        return round(float(box.width) / 72 * 25.4, 1), round(float(box.height) / 72 * 25.4, 1)

    sizes = {}
    for paper in ("a4", "letter"):
        response = organiser_client.post("/print/", print_form(ruleset="classic", players="8", paper=paper))
        assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
        sizes[paper] = size(response.content)
    assert sizes == {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
    game = started_game(organiser, "Letter table", players=9)
    for paper, expected in (("a4", (210.0, 297.0)), ("letter", (215.9, 279.4))):
        response = organiser_client.get(f"/games/{game.pk}/print/role-cards.pdf?paper={paper}")
        assert response.status_code == 200 and size(response.content) == expected, paper
    assert PrintJob.objects.count() == 4
