from django.apps import AppConfig


class PagesConfig(AppConfig):
    name = "armada_web.pages"
    label = "pages"
