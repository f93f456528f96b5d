"""The status page: queues, recent matches by kind and status, waits, workers (staff: problems)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from armada_web.games.specs import spec
from armada_web.ladder.queries import new_version_estimates
from armada_web.matches.status import status
from armada_web.web.roles import is_staff


def status_page(request: HttpRequest) -> HttpResponse:
    """Staff also see the problems (`staff` in the template comes from `pages.context.site`)."""
    estimates = [(spec(slug), eta) for slug, eta in new_version_estimates().items()]  # each game by its name
    return render(request, "pages/status.html", {"status": status(staff=is_staff(request.user)),
                                                      "estimates": estimates})
