from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "armada_web.matches"
    label = "matches"
    verbose_name = "Matches"
