"""The pages' one place for the domain's errors (armada_web.web.errors): how a refusal is shown.

- In a form: `form_error` puts the message on the form and gives the status to answer with.
- From an action (a POST button): `refusals_go_to` shows the message on the page it redirects to.
- Anywhere else: `DomainErrorMiddleware` answers with the site's 404 page for NotFound, or a page
  with the message and the error's status.
- A bug (an exception nobody handled): `server_error`, the site's 500 handler, gives the request
  an id, shown on the page (or in the API's JSON) and carried by the line Django logs for it
  (armada_web.runtime.logs), so a visitor's report finds the traceback. Django's technical pages never
  show with DEBUG off: 400, 403, 404 and 500 are the site's own templates.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.forms import Form
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template import loader

from armada_web.web.errors import DomainError, NotFound, http_status


def form_error(form: Form, error: DomainError, field: str | None = None) -> int:
    """Show `error` on `form` (on `field`, or the whole form); returns the HTTP status to answer with."""
    form.add_error(field, str(error))
    return http_status(error)


def refusals_go_to(target: Callable[..., str]) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Decorate an action view: a refusal becomes an error message on the page `target(**kwargs)`
    names (a URL), where the user sees it after the redirect."""
    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            try:
                return view(request, *args, **kwargs)
            except DomainError as exc:
                messages.error(request, str(exc))
                return redirect(target(**kwargs))
        return wrapped
    return decorate


class DomainErrorMiddleware:
    """A refusal no view handled: the 404 page for NotFound, else the message with its status."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, DomainError) or request.path.startswith("/api/"):
            return None
        if isinstance(exception, NotFound):
            raise Http404(str(exception))
        return render(request, "pages/refused.html", {"message": str(exception)}, status=http_status(exception))


def server_error(request: HttpRequest) -> HttpResponse:
    """The 500 handler: the site's page (JSON under /api/) with an id the log line carries too.
    Rendered without the request's context: whatever broke (the database) is not needed."""
    error_id = uuid.uuid4().hex[:12]
    request.armada_error_id = error_id  # type: ignore[attr-defined]
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": f"server error {error_id}: the server failed; try again later and quote "
                                       "this id when you report it", "error_id": error_id}, status=500)
    return HttpResponse(loader.get_template("500.html").render({"error_id": error_id}), status=500)
