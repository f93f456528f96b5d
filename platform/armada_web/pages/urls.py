"""The site's pages (fixed paths: /, /ladder/..., /matches/{id}/, /bots/..., /sdk/, /docs/...,
/seasons/..., /events/..., /status/, /staff/integrity/...; /rules/... redirects to /docs/...)."""

from django.urls import path

from armada_web.games import SPECS, Ranking
from armada_web.pages import (
    bot_views,
    challenge_views,
    event_views,
    integrity_views,
    ladder_views,
    match_views,
    season_views,
    status_views,
    views,
)
from armada_web.web import inputs  # noqa: F401  (registers the <id:> and <username:> converters)

urlpatterns = [
    path("", views.home, name="home"),
    *[path(f"ladder/{slug}/", ladder_views.table_view(slug), name=f"ladder-{slug}") for slug in SPECS],
    *[p for game in SPECS.values() if game.ranking is Ranking.LEAGUE for p in (
        path(f"ladder/{game.slug}/<id:bot_id>/", ladder_views.race, name="race"),
        path(f"ladder/{game.slug}/<id:a>/<id:b>/", ladder_views.battle, name="battle"),
    )],
    path("matches/", match_views.match_list, name="matches"),
    path("matches/<id:pk>/", match_views.match_page, name="match"),
    path("challenges/", challenge_views.challenge_view, name="challenge"),
    path("users/<username:username>/", views.user_page, name="user"),
    path("sdk/", views.sdk_page, name="sdk"),
    path("sdk/<str:filename>", views.sdk_wheel, name="sdk-wheel"),
    path("docs/", views.docs_index, name="docs"),
    path("docs/<slug:slug>/", views.doc_page, name="doc"),
    path("rules/<slug:slug>/", views.old_rules_page, name="rules"),
    path("my/bots/", bot_views.my_bots, name="my-bots"),
    path("bots/new/", bot_views.new_bot, name="new-bot"),
    path("bots/<id:pk>/", bot_views.bot_page, name="bot"),
    path("bots/<id:pk>/upload/", bot_views.upload, name="bot-upload"),
    path("bots/<id:pk>/active/", bot_views.set_active, name="bot-active"),
    path("bots/<id:pk>/retire/", bot_views.retire, name="bot-retire"),
    path("bots/<id:pk>/delete/", bot_views.delete, name="bot-delete"),
    path("bots/<id:pk>/versions/<id:number>/", bot_views.version_page, name="bot-version"),
    path("bots/<id:pk>/versions/<id:number>/source/", bot_views.version_source, name="bot-version-source"),
    path("seasons/", season_views.seasons, name="seasons"),
    path("seasons/<slug:slug>/", season_views.season, name="season"),
    path("events/", event_views.events, name="events"),
    path("events/new/", event_views.new_event, name="new-event"),
    path("events/<slug:slug>/", event_views.event, name="event"),
    path("events/<slug:slug>/enter/", event_views.enter, name="event-enter"),
    path("events/<slug:slug>/start/", event_views.start, name="event-start"),
    path("events/<slug:slug>/invite/", event_views.invite, name="event-invite"),
    path("status/", status_views.status_page, name="status"),
    path("staff/integrity/", integrity_views.report, name="staff-integrity"),
    path("staff/integrity/disqualify/", integrity_views.disqualify, name="staff-integrity-disqualify"),
    path("staff/integrity/<id:pk>/", integrity_views.finding, name="staff-integrity-finding"),
    path("staff/integrity/<id:pk>/mark/", integrity_views.mark, name="staff-integrity-mark"),
]
