from django.urls import path

from . import calendar_views, lab, replay_views, standby_views, views

urlpatterns = [
    path("", views.home, name="home"),
    # A seat's pages first: they are what a game asks most (a post, the poll for news),
    # and Django tries the patterns in order. None of the others starts with "p/" but a
    # seat's role card, among the paper's pages (werewolf/printing/urls.py, after these).
    path("p/<str:token>/", views.seat, name="seat"),
    path("p/<str:token>/version.json", views.seat_version, name="seat_version"),
    path("p/<str:token>/talk/", views.seat_talk, name="seat_talk"),
    path("p/<str:token>/talk/mail/", views.seat_talk_mail, name="seat_talk_mail"),
    path("p/<str:token>/display/", views.seat_display, name="seat_display"),
    path("p/<str:token>/away/", calendar_views.seat_away, name="seat_away"),
    path("games/new/", views.create, name="create"),
    path("games/demo/", views.demo, name="demo"),
    path("games/lab/", lab.view, name="lab"),
    path("games/<int:pk>/", views.dashboard, name="dashboard"),
    path("games/<int:pk>/edit/", views.edit, name="edit"),
    path("games/<int:pk>/delete/", views.delete, name="delete"),
    path("games/<int:pk>/seats/<int:seat>/card/", views.seat_card, name="seat_card"),
    path("games/<int:pk>/cards/", views.paper_cards, name="paper_cards"),
    path("games/<int:pk>/seats/<int:seat>/substitute/", views.substitute, name="substitute"),
    path("games/<int:pk>/export.json", views.export, name="export"),
    path("games/<int:pk>/calendar/", calendar_views.game_calendar, name="game_calendar"),
    path("characters/", views.characters, name="characters"),
    path("characters/new/", views.character_edit, name="character_new"),
    path("characters/<int:pk>/", views.character_edit, name="character_edit"),
    path("characters/<int:pk>/delete/", views.character_delete, name="character_delete"),
    path("g/<str:key>/projector/", views.projector, name="projector"),
    path("g/<str:key>/replay/", replay_views.replay_page, name="replay"),
    path("games/<int:pk>/replay/private/", replay_views.replay_private, name="replay_private"),
    path("join/<str:key>/", views.join, name="join"),
    path("join/confirm/<str:token>/", views.join_confirm, name="join_confirm"),
    path("games/<int:pk>/signup/", views.dashboard_signup, name="dashboard_signup"),
    path("games/<int:pk>/standbys/", standby_views.dashboard_standbys, name="dashboard_standbys"),
    path("standby/<str:token>/", standby_views.standby_page, name="standby"),
    path("games/<int:pk>/join-code/", views.join_code, name="join_code"),
    path("games/<int:pk>/talk/", views.dashboard_talk, name="dashboard_talk"),
    path("g/<str:key>/", views.public, name="public"),
    path("g/<str:key>/version.json", views.public_version, name="public_version"),
]
