from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "armada_web.accounts"
    label = "accounts"
    verbose_name = "Accounts and API tokens"

    def ready(self) -> None:
        from armada_web.accounts import receivers  # noqa: F401  (connects the receivers)
