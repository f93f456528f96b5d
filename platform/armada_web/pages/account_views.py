"""Your account's page (/accounts/profile/): API tokens (create: the secret is shown once; revoke), your
challenges, your e-mail address and settings, links to the rest. In pages because it lists matches (a
layer above accounts)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from armada_web.accounts import addresses, mail, queries, services
from armada_web.accounts.forms import EmailForm, MailForm, TokenForm
from armada_web.accounts.queries import signed_in
from armada_web.accounts.views import EMAIL_DRAFT
from armada_web.matches.queries import challenges_by
from armada_web.teams.queries import teams_of
from armada_web.web.errors import DomainError

#: Session key holding a just-created token until the profile page has shown it once.
NEW_TOKEN_KEY = "armada-new-token"  # noqa: S105 (a session key, not a secret)


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    """Your account: your teams, API tokens (create: the secret is shown once; revoke), links to the rest."""
    form = TokenForm(request.POST or None, auto_id="token_%s")  # (ids apart from the e-mail form's)
    if request.method == "POST" and form.is_valid():
        try:
            token, secret = services.create_own_token(request=request, user=signed_in(request),
                                                      name=form.cleaned_data["name"],
                                                      password=form.cleaned_data["password"])
        except DomainError as exc:
            form.add_error(None, str(exc))
        else:
            # Shown once, on the page this redirect leads to (a reload creates nothing).
            request.session[NEW_TOKEN_KEY] = {"id": token.pk, "secret": secret}
            return redirect("profile")
    new = request.session.pop(NEW_TOKEN_KEY, None) if request.method == "GET" else None
    prefs = mail.preferences(signed_in(request))
    mail_form = MailForm(initial={topic: getattr(prefs, topic) for topic in mail.TOPICS})
    context = {"form": form, "secret": new["secret"] if new else None, "new_id": new["id"] if new else None,
               "tokens": queries.tokens_of(signed_in(request)), "challenges": challenges_by(signed_in(request)),
               "mail_form": mail_form,
               "email_form": EmailForm(initial={"email": request.session.pop(EMAIL_DRAFT, "")}),
               "email_pending": addresses.pending(user=signed_in(request)), "teams": teams_of(user=signed_in(request)),
               "site_url": request.build_absolute_uri("/").rstrip("/")}
    return render(request, "accounts/profile.html", context)
