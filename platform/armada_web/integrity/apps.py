from django.apps import AppConfig


class IntegrityConfig(AppConfig):
    name = "armada_web.integrity"
    label = "integrity"
    verbose_name = "Integrity checks"
