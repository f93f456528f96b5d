from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "armada_web.ops"
    label = "ops"

    def ready(self) -> None:
        from armada_web.ops import checks  # noqa: F401 (registers the system checks)
