"""Staff: API tokens (users are Django's own admin: untick "active" to disable one)."""

from django.contrib import admin

from armada_web.accounts.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "created", "last_used", "token_key"]
    list_filter = ["created", "last_used"]
    search_fields = ["name", "user__username"]
    readonly_fields = ["digest", "token_key", "created", "last_used", "user", "expiry"]
    fields = ["user", "name", "token_key", "created", "last_used", "expiry", "digest"]

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False  # tokens are created by their owner (the secret is shown to them once)
