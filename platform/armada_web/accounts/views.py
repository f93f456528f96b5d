"""Account pages: sign up, revoke a token, the e-mail address (its change and confirmation link) and
settings, delete the account. Log-in (with accounts.devices' cookie), log-out and the password pages
are Django's own views (accounts/urls.py) with our templates; the profile page, which also lists the
user's challenges, is `pages.account_views.profile` (it reads matches, a higher layer)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth import views as auth
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from armada_web.accounts import addresses, devices, services
from armada_web.accounts.forms import DeleteAccountForm, EmailForm, MailForm, SignUpForm, ThrottledPasswordChangeForm
from armada_web.accounts.queries import signed_in
from armada_web.web.errors import DomainError, http_status
from armada_web.web.links import site_address

#: The session's key for a refused new e-mail address, shown again in the profile page's field (a
#: refusal redirects there: a wrong password, a mistyped address must not make the user type it again).
EMAIL_DRAFT = "email-change-typed"
EMAIL_DRAFT_MAX = 1000


def _site(request: HttpRequest) -> str:
    """What a mailed link starts with (`web.links.site_address`: ARMADA_SITE_URL, else the request's host)."""
    return site_address(request)


class LogIn(auth.LoginView):
    """Django's log-in page; a sign-in marks the browser as one the account uses (accounts.devices: its
    failed passwords are counted apart from a stranger's under the same name)."""

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        devices.remember(response=response, user=form.get_user())
        return response


class PasswordReset(auth.PasswordResetView):
    """Django's reset, its link on the site's address as every mail's (`web.links.site_address`),
    not on whatever host the request named."""

    def form_valid(self, form: Any) -> HttpResponse:
        try:
            services.take_password_reset(request=self.request, address=form.cleaned_data["email"])
        except DomainError as exc:
            form.add_error("email", str(exc))
            return self.render_to_response(self.get_context_data(form=form), status=http_status(exc))
        self.extra_email_context = {**(self.extra_email_context or {}), "site": site_address(self.request)}
        return super().form_valid(form)


class PasswordChange(auth.PasswordChangeView):
    """Django's password change, the old password counted as a log-in attempt is (`confirm_password`)."""

    form_class = ThrottledPasswordChangeForm

    def get_form_kwargs(self) -> dict[str, Any]:
        return {**super().get_form_kwargs(), "request": self.request}

    def form_valid(self, form: Any) -> HttpResponse:
        """The browser stays signed in, so it stays the account's (accounts.devices: a new password
        ends every other browser's mark)."""
        response = super().form_valid(form)
        devices.remember(response=response, user=form.user)
        return response


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("my-bots")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        email = form.cleaned_data.get("email") or ""
        try:
            user = services.sign_up(username=form.cleaned_data["username"], email=email,
                                    password=form.cleaned_data["password1"], request=request, site=_site(request))
        except DomainError as exc:  # (above the fields: the sign-up limit is no field's; the address's say so)
            form.add_error(None, str(exc))
            return render(request, "accounts/signup.html", {"form": form}, status=http_status(exc))
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}. Create a bot, or an API token for the CLI.")
        if email:
            messages.info(request, f"A link to confirm {email} is on its way: open it to get e-mails.")
        response = redirect("my-bots")
        devices.remember(response=response, user=user)  # (signed in here: LogIn's mark)
        return response
    return render(request, "accounts/signup.html", {"form": form})


@login_required
@require_POST
def change_email(request: HttpRequest) -> HttpResponse:
    """Add or change the account's address (the profile page's field): a link goes to it."""
    form = EmailForm(request.POST)
    typed = request.POST.get("email", "")[:EMAIL_DRAFT_MAX]
    if not form.is_valid():
        problems = [str(problem) for problem in form.errors.get("email", [])] or ["Give an e-mail address."]
        messages.error(request, f"New e-mail address: {' '.join(problems)}")
        request.session[EMAIL_DRAFT] = typed  # the profile page's field shows it again, to correct
        return redirect("profile")
    try:
        change = services.change_email(request=request, user=signed_in(request), address=form.cleaned_data["email"],
                                       password=form.cleaned_data["password"], site=_site(request))
    except DomainError as exc:
        messages.error(request, f"New e-mail address: {exc}")
        request.session[EMAIL_DRAFT] = typed
    else:
        if change is None:
            messages.info(request, "That is your address already: nothing to confirm.")
        else:
            messages.success(request, f"A link to confirm {change.address} is on its way (it works for "
                                      f"{addresses.LINK_DAYS} days); your address changes when you open it.")
    return redirect("profile")


@login_required
@require_POST
def cancel_email(request: HttpRequest) -> HttpResponse:
    """Drop the address that waits for its link (the link stops working)."""
    if addresses.cancel_change(user=signed_in(request)):
        messages.success(request, "The new address is dropped; its link no longer works.")
    return redirect("profile")


@require_http_methods(["GET", "HEAD", "POST"])
def confirm_email(request: HttpRequest, token: str) -> HttpResponse:
    """A mailed link: GET shows the address and a Confirm button, only the POST confirms (a mail
    scanner fetching the link changes nothing). A bad, expired or used link gets a page saying so."""
    try:
        link = addresses.confirm(token=token) if request.method == "POST" else addresses.read_link(token=token)
    except DomainError as exc:
        return render(request, "accounts/message.html", {"title": "This link does not work", "message": str(exc)},
                      status=http_status(exc))
    if request.method == "POST" or link.change is None:
        return render(request, "accounts/message.html", {
            "title": "E-mail address confirmed",
            "message": f"{link.address} is the e-mail address of {link.user.username}: "
                       "notifications and password resets go there."})
    return render(request, "accounts/confirm_email.html", {"link": link})


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
            services.delete_account(user=user, password=form.cleaned_data["password"], request=request)
        except DomainError as exc:
            form.add_error("password", str(exc))
        else:
            logout(request)
            messages.success(request, "Your account is deleted; your own bots are retired and their code is gone "
                                      "(your teams keep theirs).")
            return redirect("home")
    return render(request, "accounts/delete.html", {"form": form})
