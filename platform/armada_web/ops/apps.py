from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "armada_web.ops"
    label = "ops"
