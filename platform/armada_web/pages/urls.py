"""The site's public pages (fixed paths: /, /ladder/..., /matches/{id}/, /sdk/, /rules/...)."""

from django.urls import path

from armada_web.pages import ladder_views, match_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("ladder/galaxy/", ladder_views.galaxy, name="ladder-galaxy"),
    path("ladder/mothership/", ladder_views.mothership, name="ladder-mothership"),
    path("ladder/mothership/<int:bot_id>/", ladder_views.race, name="race"),
    path("ladder/mothership/<int:a>/<int:b>/", ladder_views.pairing, name="pairing"),
    path("matches/<int:pk>/", match_views.match_page, name="match"),
    path("users/<str:username>/", views.user_page, name="user"),
    path("sdk/", views.sdk_page, name="sdk"),
    path("sdk/<str:filename>", views.sdk_wheel, name="sdk-wheel"),
    path("rules/<slug:slug>/", views.doc_page, name="rules"),
]
