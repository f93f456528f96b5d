"""Staff: API tokens, the e-mails (read only: pending, sent, failed); users are Django's own
admin (untick "active" to disable one), whose add and change forms apply sign-up's
`check_username` too (no username of only dots, none mixing alphabets)."""

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from armada_web.accounts import services
from armada_web.accounts.forms import ThrottledAdminLoginForm
from armada_web.accounts.models import ApiToken, SentMail
from armada_web.web.admin import EditedFieldsOnly, ModelAdmin
from armada_web.web.errors import Invalid

admin.site.login_form = ThrottledAdminLoginForm  # the admin's log-in counts failures as the site's does


def _checked(username: str) -> str:
    try:
        return services.check_username(username=username)
    except Invalid as exc:
        raise ValidationError(str(exc), code="invalid") from None


class CheckedUserCreationForm(AdminUserCreationForm):
    def clean_username(self) -> str:
        return _checked(super().clean_username())


class CheckedUserChangeForm(UserChangeForm):
    def clean_username(self) -> str:
        username: str = self.cleaned_data["username"]
        # an older account keeps its name (made before the rule): only a new name is checked
        return _checked(username) if "username" in self.changed_data else username


class CheckedUserAdmin(EditedFieldsOnly, UserAdmin):  # type: ignore[misc]
    add_form = CheckedUserCreationForm
    form: type[forms.ModelForm] = CheckedUserChangeForm


admin.site.unregister(User)
admin.site.register(User, CheckedUserAdmin)


@admin.register(ApiToken)
class ApiTokenAdmin(ModelAdmin):
    list_display = ["name", "user", "created", "last_used", "token_key"]
    list_filter = ["created", "last_used"]
    search_fields = ["name", "user__username"]
    readonly_fields = ["digest", "token_key", "created", "last_used", "user", "expiry"]
    fields = ["user", "name", "token_key", "created", "last_used", "expiry", "digest"]

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False  # tokens are created by their owner (the secret is shown to them once)


@admin.register(SentMail)
class SentMailAdmin(ModelAdmin):
    """The outbox (accounts.mail), read only: what was sent, what waits for the mail server (beat
    sends it again every minute) and what was given up after its refusals."""

    list_display = ["made", "user", "topic", "key", "status", "attempts", "sent"]
    list_filter = ["status", "topic"]
    search_fields = ["user__username", "key"]
    fields = readonly_fields = ("user", "address", "topic", "key", "subject", "body", "status", "attempts", "made",
                                "claimed", "sent")

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False  # (a deleted row would let the same event mail its member again)
