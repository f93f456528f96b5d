"""Account pages: sign up, profile with API tokens, delete the account. Log-in, log-out and
the password pages are Django's own views (accounts/urls.py) with our templates."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from armada_web.accounts import mail, queries, services
from armada_web.accounts.forms import DeleteAccountForm, MailForm, SignUpForm, TokenForm
from armada_web.accounts.queries import signed_in
from armada_web.errors import DomainError

#: Session key holding a just-created token until the profile page has shown it once.
NEW_TOKEN_KEY = "armada-new-token"  # noqa: S105 (a session key, not a secret)


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("my-bots")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = services.sign_up(username=form.cleaned_data["username"], email=form.cleaned_data.get("email") or "",
                                password=form.cleaned_data["password1"])
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}. Create a bot, or an API token for the CLI.")
        return redirect("my-bots")
    return render(request, "accounts/signup.html", {"form": form})


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    """Your account: API tokens (create: the secret is shown once; revoke), links to the rest."""
    form = TokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            token, secret = services.create_token(user=signed_in(request), name=form.cleaned_data["name"])
        except DomainError as exc:
            form.add_error("name", str(exc))
        else:
            # Shown once, on the page this redirect leads to (a reload creates nothing).
            request.session[NEW_TOKEN_KEY] = {"id": token.pk, "secret": secret}
            return redirect("profile")
    new = request.session.pop(NEW_TOKEN_KEY, None) if request.method == "GET" else None
    prefs = mail.preferences(signed_in(request))
    mail_form = MailForm(initial={topic: getattr(prefs, topic) for topic in mail.TOPICS})
    context = {"form": form, "secret": new["secret"] if new else None, "new_id": new["id"] if new else None,
               "tokens": queries.tokens_of(signed_in(request)), "mail_form": mail_form}
    return render(request, "accounts/profile.html", context)


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
