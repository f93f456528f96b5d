from django.apps import AppConfig


class TeamsConfig(AppConfig):
    name = "armada_web.teams"
    label = "teams"
    verbose_name = "Teams"

    def ready(self) -> None:
        from armada_web.teams import receivers  # noqa: F401  (connects the receivers)
