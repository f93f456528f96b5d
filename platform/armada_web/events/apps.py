from django.apps import AppConfig


class EventsConfig(AppConfig):
    name = "armada_web.events"
    label = "events"
    verbose_name = "Private events"

    def ready(self) -> None:
        from armada_web.events import receivers  # the registry is ready only now

        receivers.connect()
