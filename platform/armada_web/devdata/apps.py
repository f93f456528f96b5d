from django.apps import AppConfig


class DevdataConfig(AppConfig):
    name = "armada_web.devdata"
    label = "devdata"
