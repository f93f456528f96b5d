"""The pages' one place for the domain's errors (armada_web.web.errors): how a refusal is shown.

- In a form: `form_error` puts the message on the form and gives the status to answer with.
- From an action (a POST button): `refusals_go_to` shows the message on the page it redirects to.
- Anywhere else: `DomainErrorMiddleware` answers with the site's 404 page for NotFound, or a page
  with the message and the error's status.
- A bug (an exception nobody handled): `server_error`, the site's 500 handler, gives the request
  an id, shown on the page (or in the API's JSON) and carried by the line Django logs for it
  (armada_web.runtime.logs), so a visitor's report finds the traceback. Django's technical pages never
  show with DEBUG off: 400, 403, 404 and 500 are the site's own templates.
- A POST-only address opened with GET (a 405, which Django answers with an empty body, shown by
  a browser as "This page isn't working"): `MethodNotAllowedPage` answers the site's page naming
  the button that does it; under /api/ the JSON 405 stays.
- A request body larger than its address takes (`BodyLimit`, before anything reads it): 413.
- Django's own answers (the 400, 403, 404 and 500 handlers, and a refused CSRF token,
  `csrf_failure`): the site's pages, and under /api/ JSON `{"detail": ...}` with the same status,
  like every API error (what a view outside DRF answers there is made JSON by
  `armada_web.api.errors.JsonErrors`).
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.forms import Form
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, UnreadablePostError
from django.shortcuts import redirect, render
from django.template import loader
from django.urls import NoReverseMatch, Resolver404, reverse
from django.views import csrf, defaults

from armada_web.storage.archives import check_request_size
from armada_web.web.errors import DomainError, NotFound, TooLarge, http_status
from armada_web.web.inputs import body_expired, body_limit, declared_length, leave_unread, upload_view


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


#: The methods whose body a view reads.
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class BodyLimit:
    """Middleware: refuse a request whose declared body is larger than its view takes
    (`web.inputs.body_limit`), with 413, before anything reads it. Its `process_view` runs before
    the CSRF middleware's, which reads a form's whole body (a file part to a temporary file) to find
    the token: without it a client could make any form's address read and store gigabytes. The
    answer to a form's address goes at once, its body unread; an upload's refusal is read to its
    end (within `web.inputs.DRAIN_S`) and dropped, so an uploader sees the message. A body that
    did not arrive in time (`web.inputs.PacedInput`) is a 408, whoever met the failed read."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if body_expired(request):  # whatever the view or the CSRF check made of the failed read
            return self._late(request)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """A body that did not arrive in time (`web.inputs.PacedInput`): 408."""
        return self._late(request) if isinstance(exception, UnreadablePostError) else None

    @staticmethod
    def _late(request: HttpRequest) -> HttpResponse:
        message = "the request's body did not arrive in time: send it again"
        answer = (JsonResponse({"detail": message}, status=408) if _api(request)
                  else render(request, "pages/refused.html", {"message": message}, status=408))
        return leave_unread(answer)  # type: ignore[return-value]

    def process_view(self, request: HttpRequest, view: Callable[..., Any], args: Any, kwargs: Any
                     ) -> HttpResponse | None:
        if "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower() and request.method in BODY_METHODS:
            # Django reads a body by its Content-Length only: a chunked one read as empty, and an API
            # trial's bot was refused with "name: This field is required" (a proxy such as nginx
            # sends the length on; a client streaming its body does not)
            message = ("send the request's body with a Content-Length header: this site does not read a body "
                       "sent in chunks (Transfer-Encoding: chunked)")
            refused = (JsonResponse({"detail": message}, status=411) if _api(request)
                       else render(request, "pages/refused.html", {"message": message}, status=411))
            # (left unread: Django reads a body by its Content-Length alone, so none of it could be drained)
            return leave_unread(refused)  # type: ignore[return-value]
        length = declared_length(request)
        if length <= body_limit(view, signed_in=False):  # a form's: no need to read the session
            return None
        limit = body_limit(view, signed_in=_api(request) or request.user.is_authenticated)
        if length <= limit:
            return None
        message = f"request too large: its body is {length:,} bytes, and this address takes at most {limit:,}"
        if upload_view(view):
            try:  # the upload's own refusal, with the sizes and how to shrink a bot
                check_request_size(content_length=length)
            except TooLarge as exc:
                message = str(exc)
        back = {}
        if upload_view(view) and "pk" in kwargs:  # back to the bot, whose page has the upload form (a trial)
            back = {"back": reverse("bot", kwargs={"pk": kwargs["pk"]}), "back_name": "Back to the bot"}
        answer = (JsonResponse({"detail": message}, status=413) if _api(request)
                  else render(request, "pages/refused.html", {"message": message, **back}, status=413))
        if not upload_view(view):  # nobody sends a form that large: answer at once, read nothing of it
            leave_unread(answer)
        return answer


# A POST-only address of the pages: the button that does it, the page it is on (a URL name taking
# the address's own arguments, or None for the home page) and that page's name.
BUTTONS: dict[str, tuple[str, str | None, str]] = {
    "logout": ("the Log out button at the top of every page", None, "the home page"),
    "challenge": ("a Challenge button on a bot's page or a ladder", None, "the home page"),
    "team-key": ("the Renew the key button", "team", "the team's page"),
    "team-rename": ("the Rename the team button", "team", "the team's page"),
    "team-restore": ("the Restore the team button", "team", "the team's page"),
    "bot-active": ("a version's Make active button", "bot", "the bot's page"),
    "bot-move": ("the Move button", "bot", "the bot's page"),
    "event-enter": ("the Enter button", "event", "the event's page"),
    "event-start": ("the Start the event button", "event", "the event's page"),
    "event-invite": ("the Invite button", "event", "the event's page"),
    "event-invite-renew": ("the Renew the link button", "event", "the event's page"),
    "event-uninvite": ("a Take back button", "event", "the event's page"),
    "event-withdraw": ("a Withdraw button", "event", "the event's page"),
    "event-end": ("the End the event now button", "event", "the event's page"),
    "event-edit": ("the Change the event form", "event", "the event's page"),
}


class MethodNotAllowedPage:
    """A 405 outside /api/ (a POST-only address opened with GET): the site's page saying which
    button does it, instead of Django's empty body; the Allow header stays."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code != 405 or _api(request) or response.content:
            return response
        match = request.resolver_match
        url_name = (match.url_name or "") if match else ""
        button, name, label = BUTTONS.get(url_name, ("its button", None, "the home page"))
        try:
            page = reverse(name, kwargs=match.kwargs) if name and match else reverse("home")
        except NoReverseMatch:
            page, label = reverse("home"), "the home page"
        answer = render(request, "405.html", {"button": button, "page": page, "page_name": label}, status=405)
        if response.has_header("Allow"):
            answer["Allow"] = response["Allow"]
        return answer


def server_error(request: HttpRequest) -> HttpResponse:
    """The 500 handler: the site's page (JSON under /api/) with an id the log line carries too.
    Rendered without the request's context: whatever broke (the database) is not needed."""
    error_id = uuid.uuid4().hex[:12]
    request.armada_error_id = error_id  # type: ignore[attr-defined]
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": f"server error {error_id}: the server failed; try again later and quote "
                                       "this id when you report it", "error_id": error_id}, status=500)
    return HttpResponse(loader.get_template("500.html").render({"error_id": error_id}), status=500)


def _api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: the site's "Form expired" page; under /api/ a JSON 403 saying what to send."""
    if _api(request):
        return JsonResponse({"detail": f"CSRF Failed: {reason} A signed-in browser session sends the csrftoken "
                                       "cookie's value in the X-CSRFToken header; other clients use an API token "
                                       "(Authorization: Token ...)"}, status=403)
    return csrf.csrf_failure(request, reason)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The 404 handler: the site's page; under /api/ JSON."""
    if _api(request):
        detail = f"no such API path: {request.path}" if isinstance(exception, Resolver404) else "not found"
        return JsonResponse({"detail": detail}, status=404)
    return defaults.page_not_found(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The 403 handler: the site's page; under /api/ JSON."""
    if _api(request):
        return JsonResponse({"detail": str(exception) or "you may not do this"}, status=403)
    return defaults.permission_denied(request, exception)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The 400 handler (a suspicious request): the site's page; under /api/ JSON, saying no more."""
    if _api(request):
        return JsonResponse({"detail": "bad request"}, status=400)
    return defaults.bad_request(request, exception)
