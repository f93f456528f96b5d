"""Account pages: sign up, revoke a token, e-mail settings, delete the account. Log-in, log-out and the password
pages are Django's own views (accounts/urls.py) with our templates; the profile page, which also
lists the user's challenges, is `pages.account_views.profile` (it reads matches, a higher layer)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from armada_web.accounts import services
from armada_web.accounts.forms import DeleteAccountForm, MailForm, SignUpForm
from armada_web.accounts.queries import signed_in
from armada_web.web.errors import DomainError


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("my-bots")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = services.sign_up(username=form.cleaned_data["username"], email=form.cleaned_data.get("email") or "",
                                password=form.cleaned_data["password1"], request=request)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}. Create a bot, or an API token for the CLI.")
        return redirect("my-bots")
    return render(request, "accounts/signup.html", {"form": form})


@login_required
@require_POST
def mail_preferences(request: HttpRequest) -> HttpResponse:
    """Turn e-mail topics on or off (the profile page's checkboxes)."""
    form = MailForm(request.POST)
    if form.is_valid():
        services.set_mail_preferences(user=signed_in(request), **form.cleaned_data)
        messages.success(request, "E-mail settings saved.")
    return redirect("profile")


@login_required
@require_POST
def revoke_token(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        services.revoke_token(user=signed_in(request), token_id=pk)
        messages.success(request, "Token revoked: it no longer works.")
    except DomainError as exc:
        messages.error(request, str(exc))
    return redirect("profile")


@login_required
def delete_account(request: HttpRequest) -> HttpResponse:
    form = DeleteAccountForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = signed_in(request)
        try:
            services.delete_account(user=user, password=form.cleaned_data["password"])
        except DomainError as exc:
            form.add_error("password", str(exc))
        else:
            logout(request)
            messages.success(request, "Your account is deleted; your bots are retired and their code is gone.")
            return redirect("home")
    return render(request, "accounts/delete.html", {"form": form})
