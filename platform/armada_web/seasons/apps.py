from django.apps import AppConfig


class SeasonsConfig(AppConfig):
    name = "armada_web.seasons"
    label = "seasons"
    verbose_name = "Seasons and finals"

    def ready(self) -> None:
        from armada_web.seasons import receivers  # the registry is ready only now

        receivers.connect()
