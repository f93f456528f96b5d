"""Bot pages."""

from django.urls import path

from armada_web.bots import views

urlpatterns = [
    path("my/bots/", views.my_bots, name="my-bots"),
    path("bots/new/", views.new_bot, name="new-bot"),
    path("bots/<int:pk>/", views.bot_page, name="bot"),
    path("bots/<int:pk>/upload/", views.upload, name="bot-upload"),
    path("bots/<int:pk>/active/", views.set_active, name="bot-active"),
    path("bots/<int:pk>/retire/", views.retire, name="bot-retire"),
    path("bots/<int:pk>/delete/", views.delete, name="bot-delete"),
    path("bots/<int:pk>/versions/<int:number>/", views.version_page, name="bot-version"),
    path("bots/<int:pk>/versions/<int:number>/source/", views.version_source, name="bot-version-source"),
]
