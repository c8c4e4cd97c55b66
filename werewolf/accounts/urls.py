from django.urls import path

from . import views

app_name = "accounts"

urlpatterns = [
    path("profile/", views.profile, name="profile"),
    path("invitations/", views.invitations_page, name="invitations"),
    path("invitation/<str:key>/", views.invitation, name="invitation"),
    path("delete/", views.delete_account, name="delete"),
    path("games/<int:pk>/co-organisers/", views.co_organisers, name="co_organisers"),
]
