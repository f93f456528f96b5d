"""Account forms: sign-up with an optional e-mail, a log-in form that counts failures."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm, SetPasswordForm, UserCreationForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from armada_web.accounts import throttles


class SignUpForm(UserCreationForm):
    email = forms.EmailField(required=False, help_text="optional; only used to reset your password")

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")


class ThrottledLoginForm(AuthenticationForm):
    """Django's log-in form behind the per-address and per-username failure limits."""

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username") or ""
        refusal = throttles.login_refusal(self.request, username)
        if refusal:
            raise ValidationError(refusal, code="throttled")
        try:
            return super().clean()
        except ValidationError:
            throttles.record_failure(self.request, username)
            raise


class TokenForm(forms.Form):
    name = forms.CharField(max_length=64, help_text="what you will call it, e.g. 'laptop'")


class DeleteAccountForm(forms.Form):
    password = forms.CharField(widget=forms.PasswordInput, help_text="your password, to confirm")

    def __init__(self, user: User, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise ValidationError("wrong password")
        return password


class ResetPasswordForm(SetPasswordForm):
    """The new password of a reset (the account may have been taken over): every API token is revoked."""

    def save(self, commit: bool = True) -> Any:
        user = super().save(commit=commit)
        if commit:
            user.auth_token_set.all().delete()
        return user
