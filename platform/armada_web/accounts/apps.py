from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "armada_web.accounts"
    label = "accounts"
    verbose_name = "Accounts and API tokens"
