from django.apps import AppConfig


class LadderConfig(AppConfig):
    name = "armada_web.ladder"
    label = "ladder"
    verbose_name = "Ladders, ratings and the league"

    def ready(self) -> None:
        from armada_web.ladder import receivers  # the registry is ready only now

        receivers.connect()
