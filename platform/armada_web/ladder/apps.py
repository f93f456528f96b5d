from django.apps import AppConfig


class LadderConfig(AppConfig):
    name = "armada_web.ladder"
    label = "ladder"
    verbose_name = "Ladders, ratings and the league"
