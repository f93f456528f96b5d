from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "armada_web.ops"
    label = "ops"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from armada_web.ops import checks  # noqa: F401 (registers the system checks)
        from armada_web.ops.dbfile import owner_only

        connection_created.connect(owner_only, dispatch_uid="armada-sqlite-owner-only")
