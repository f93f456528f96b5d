from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "armada_web.notifications"
    label = "notifications"
    verbose_name = "E-mail notifications"

    def ready(self) -> None:
        from armada_web.notifications import receivers  # the registry is ready only now

        receivers.connect()
