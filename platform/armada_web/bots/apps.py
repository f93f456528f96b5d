from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "armada_web.bots"
    label = "bots"
    verbose_name = "Bots and versions"

    def ready(self) -> None:
        from armada_web.bots import receivers  # noqa: F401  (connects the receivers)
