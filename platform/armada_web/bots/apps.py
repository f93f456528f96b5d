from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "armada_web.bots"
    label = "bots"
    verbose_name = "Bots and versions"
