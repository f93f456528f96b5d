"""Account forms: sign-up with an optional e-mail, a log-in form that counts failures."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm, UserCreationForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from armada_web.accounts import mail, services
from armada_web.web.errors import Invalid, RateLimited


class SignUpForm(UserCreationForm):
    """Django's sign-up checks (a free username, the password validators) and
    `accounts.services.check_username`; `accounts.services.sign_up` writes."""

    email = forms.EmailField(required=False, help_text="optional; used once you confirm it (we send a link), "
                             "for password resets and the e-mails you choose")

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def clean_username(self) -> str:
        username = super().clean_username()
        if not username:  # Django refused it already (a taken name: it gives None then): its message says so
            return username
        try:
            return services.check_username(username=username)
        except Invalid as exc:
            raise ValidationError(str(exc), code="invalid") from None


class ThrottledLoginForm(AuthenticationForm):
    """Django's log-in form, checking the password through the service (and its failure limits)."""

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username") or ""
        password = self.cleaned_data.get("password") or ""
        try:
            self.user_cache = services.check_password(request=self.request, username=username, password=password,
                                                      sign_in=False)
        except RateLimited as exc:
            raise ValidationError(str(exc), code="throttled") from None
        except Invalid:
            raise self.get_invalid_login_error() from None
        self.confirm_login_allowed(self.user_cache)  # (the admin's: staff only) before it counts as a sign-in
        services.signed_in(request=self.request, user=self.user_cache)
        return self.cleaned_data


class ThrottledAdminLoginForm(ThrottledLoginForm, AdminAuthenticationForm):
    """The admin's log-in form (staff only, as Django's), counted as the site's log-in is (a security
    trial guessed the admin's password 340 times uncounted)."""


class ThrottledPasswordChangeForm(PasswordChangeForm):
    """Django's password change, the old password checked through `services.confirm_password`."""

    def __init__(self, user: Any, *args: Any, request: Any = None, **kwargs: Any) -> None:
        super().__init__(user, *args, **kwargs)
        self.request = request

    def clean_old_password(self) -> str:
        old_password = self.cleaned_data.get("old_password") or ""
        try:
            services.confirm_password(request=self.request, user=self.user, password=old_password)
        except RateLimited as exc:
            raise ValidationError(str(exc), code="throttled") from None
        except Invalid:
            raise ValidationError(self.error_messages["password_incorrect"], code="password_incorrect") from None
        return old_password


class TokenForm(forms.Form):
    name = forms.CharField(max_length=64, help_text="what you will call it, e.g. 'laptop'")
    password = forms.CharField(strip=False, label="Your password",
                               widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
                               help_text="to confirm it is you: a token acts as you until it is revoked")


class DeleteAccountForm(forms.Form):
    password = forms.CharField(widget=forms.PasswordInput, help_text="your password, to confirm")


class MailForm(forms.Form):
    """The e-mails a user gets (accounts.mail.TOPICS), each a checkbox."""

    version_failed = forms.BooleanField(required=False, label=mail.TOPICS["version_failed"].capitalize())
    benched = forms.BooleanField(required=False, label=mail.TOPICS["benched"].capitalize())
    season_results = forms.BooleanField(required=False, label=mail.TOPICS["season_results"].capitalize())


class EmailForm(forms.Form):
    """A new e-mail address for the account (used once its link is confirmed: accounts.addresses)."""

    email = forms.CharField(max_length=254, label="New e-mail address", strip=True,
                            widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    password = forms.CharField(required=False, strip=False, label="Your password",
                               widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
                               help_text="to confirm it is you: the address receives password resets")
