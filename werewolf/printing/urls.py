"""The paper's pages. werewolf/urls.py serves them in the games' namespace, beside the
games' own pages, under the names the templates and tests reverse ("games:print_deck",
"games:game_role_cards", ...): the paths and names they always had."""

from django.urls import path

from . import views

urlpatterns = [
    path("p/<str:token>/role-card.pdf", views.seat_role_card, name="seat_role_card"),
    path("games/<int:pk>/print/role-cards.pdf", views.game_role_cards, name="game_role_cards"),
    path("games/<int:pk>/print/notecards.pdf", views.game_notecards, name="game_notecards"),
    path("games/<int:pk>/print/tally.pdf", views.game_tally, name="game_tally"),
    path("games/<int:pk>/print/record.pdf", views.game_record, name="game_record"),
    path("g/<str:key>/replay.pdf", views.replay_pdf, name="replay_pdf"),
    path("games/<int:pk>/print/script.pdf", views.game_script, name="game_script"),
    path("games/<int:pk>/print/score-sheet.pdf", views.game_score_sheet, name="game_score_sheet"),
    path("print/", views.print_deck, name="print_deck"),
    path("print/<str:key>/", views.print_job, name="print_job"),
    path("print/<str:key>/version.json", views.print_job_version, name="print_job_version"),
    path("print/<str:key>/document.pdf", views.print_job_pdf, name="print_job_pdf"),
]
