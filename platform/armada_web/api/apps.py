from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "armada_web.api"
    label = "api"
    verbose_name = "REST API"

    def ready(self) -> None:
        from armada_web.api import schema  # noqa: F401  (registers the OpenAPI extension)
