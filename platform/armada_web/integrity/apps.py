"""Integrity before prizes (issue 28): copied code, behavioural twins, shared accounts and thrown
games found, ranked and acted on by staff before a season's results are final."""
from django.apps import AppConfig


class IntegrityConfig(AppConfig):
    name = "armada_web.integrity"
    label = "integrity"
    verbose_name = "Integrity checks"

    def ready(self) -> None:
        from armada_web.integrity import receivers  # the registry is ready only now

        receivers.connect()
