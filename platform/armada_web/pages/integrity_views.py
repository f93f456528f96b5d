"""The staff's integrity report (issue 28): `/staff/integrity/` ranks every finding of a season (or
of all ranked play) with its reason and links to its evidence, the counts per kind, the
disqualifications and the audit log; `/staff/integrity/<id>/` shows one finding (a copy's two
sources side by side); POST buttons run the checks now, mark a finding or disqualify a version or
an account (`integrity.actions`). Everyone but active staff, anonymous included, gets the 404 page: the
report's existence is not shown either."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.dateparse import parse_datetime
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_POST

from armada_web.integrity import actions, queries
from armada_web.seasons import queries as season_queries
from armada_web.seasons.models import Season, SeasonState
from armada_web.web.errors import DomainError
from armada_web.web.inputs import parse_id
from armada_web.web.roles import is_staff

View = Callable[..., HttpResponse]


def staff_only(view: View) -> View:
    """404 for anyone but active staff (never a login page: nothing tells the report exists).
    The CSRF check comes after it: the middleware's would answer a button posted without a token
    with its 403 page before the view ran, and tell anyone that the URL exists."""
    checked = csrf_protect(never_cache(view))

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        user = request.user
        if not is_staff(user):
            raise Http404("no such page")
        return checked(request, *args, **kwargs)
    return csrf_exempt(wrapped)  # exempt from the middleware only: `checked` runs the same check


def _season(slug: str | None) -> Season | None:
    return season_queries.season(slug) if slug else None


def _report_url(slug: str | None = None, **_: Any) -> str:
    url = reverse("staff-integrity")
    return f"{url}?{urlencode({'season': slug})}" if slug else url


def _back(request: HttpRequest) -> str:
    """The page a button was pressed on: a finding's own page (its form says `from=finding`), else the
    report of its season (the whole report when that season is gone)."""
    finding_id = request.POST.get("finding") or ""
    if request.POST.get("from") == "finding" and finding_id.isdigit():
        return reverse("staff-integrity-finding", args=[int(finding_id)])
    slug = request.POST.get("season") or None
    known = slug is not None and Season.objects.filter(slug=slug).exists()
    return _report_url(slug if known else None)


#: The session key of a refused form (a disqualification, a finding's note), shown again filled in
#: (nothing typed is lost).
DRAFT = "integrity-draft"


def _keep_draft(request: HttpRequest, error: DomainError | None, *, finding: int | None = None) -> None:
    """Keep a refused form for the report's next showing, with why it was refused (shown beside it:
    the page scrolls to the form, away from the message at its top): a disqualification's finding,
    subject and reason, or the note typed to mark finding `finding`. Without an error: a
    disqualification being confirmed, kept for its Cancel."""
    post = request.POST
    if finding is not None:
        request.session[DRAFT] = {"finding": str(finding), "field": "note", "value": "", "reason": "",
                                  "note": post.get("note", ""), "error": str(error)}
        return
    field = next((name for name in ("version", "username", "team") if post.get(name)), "")
    request.session[DRAFT] = {"finding": post.get("finding", ""), "field": field, "value": post.get(field, ""),
                              "reason": post.get("reason", ""), "error": str(error) if error else ""}


@staff_only
def report(request: HttpRequest) -> HttpResponse:
    season = _season(request.GET.get("season") or None)
    done, entered = queries.decided(season=season), queries.entered_versions(season=season)
    found = [(f, queries.season_targets(finding=f, season=season)) for f in queries.findings(season=season)]
    settled = queries.settled(season=season, targets=[targets for _f, targets in found], done=done)
    rows = [{"finding": f, "links": queries.links(f), "targets": targets, "settled": was_settled}
            for (f, targets), was_settled in zip(found, settled, strict=True)]
    context = {"season": season, "seasons": season_queries.seasons(), "rows": rows,
               "counts": queries.counts(season=season), "last_run": queries.last_run(season=season),
               "run": queries.run_state(season=season),
               "audit": queries.audit(season=season),
               "disqualified": queries.disqualifications(season=season) if season else [],
               "done": done, "entered": entered,
               "partly_read": queries.partly_read(season=season),
               "draft": request.session.pop(DRAFT, None)}
    return render(request, "integrity/report.html", context)


@staff_only
def finding(request: HttpRequest, pk: int) -> HttpResponse:
    item = queries.finding(pk)
    context = {"item": item, "links": queries.links(item), "passages": queries.side_by_side(item),
               "versions": [_dated(v) for v in (item.evidence or {}).get("versions", [])], "season": item.season,
               "done": (done := queries.decided(season=item.season)),
               "entered": queries.entered_versions(season=item.season),
               "targets": (targets := queries.season_targets(finding=item, season=item.season)),
               "settled": queries.settled(season=item.season, targets=[targets], done=done)[0],
               "draft": request.session.pop(DRAFT, None), "from_finding": True}
    return render(request, "integrity/finding.html", context)


@staff_only
@require_POST
def mark(request: HttpRequest, pk: int) -> HttpResponse:
    status = request.POST.get("status")
    try:
        changed = actions.set_status(finding_id=pk, status=status, by=request.user, note=request.POST.get("note", ""))
    except DomainError as exc:  # back to the report it came from, the note typed kept in its form
        messages.error(request, str(exc))
        _keep_draft(request, exc, finding=pk)
        return redirect(_back(request))
    messages.success(request, f"Finding {pk} marked {status}." if changed else f"Finding {pk} was {status} already.")
    return redirect(_back(request))


@staff_only
@require_POST
def run(request: HttpRequest) -> HttpResponse:
    slug = request.POST.get("season") or None
    try:
        season = _season(slug)
        actions.run_checks_now(season=season, by=request.user)
    except DomainError as exc:
        messages.error(request, str(exc))
        return redirect(_back(request))
    messages.success(request, f"{season.name + chr(39) + 's checks' if season else 'The checks of all ranked play'} "
                              "were sent to run: the report shows their results when they end (reload it).")
    return redirect(_report_url(season.slug if season else None))


#: The fields of a disqualification's form, carried through its confirmation page.
DISQUALIFY_FIELDS = ("season", "finding", "from", "version", "username", "team", "reason")


@staff_only
@require_POST
def disqualify(request: HttpRequest) -> HttpResponse:
    """A disqualification is final, so a form's first POST shows what it would do and asks again
    (an organiser's trial: a finding's button, pressed by mistake, acted at once); the confirmation
    page POSTs the same fields with `confirmed=yes`."""
    back = reverse("staff-integrity")  # a refusal goes back to the season's report when there is one
    try:
        season = season_queries.season(request.POST.get("season") or "")
        back = _report_url(season.slug)
        finding_id = parse_id(request.POST["finding"], what="finding") if request.POST.get("finding") else None
        version = request.POST.get("version")
        version_id = parse_id(version, what="version") if version else None
        username = request.POST.get("username") or None
        team = request.POST.get("team") or None
        reason = request.POST.get("reason")
        act = actions.disqualify if request.POST.get("confirmed") == "yes" else actions.disqualify_preview
        decision, new = act(season=season, by=request.user, reason=reason, version_id=version_id,
                            username=username, team=team, finding_id=finding_id)
        if new and act is actions.disqualify_preview:
            _keep_draft(request, None)  # Cancel shows the form as it was sent
            return _confirm_disqualify(request, season, decision)
        request.session.pop(DRAFT, None)
    except DomainError as exc:
        messages.error(request, str(exc))
        _keep_draft(request, exc)
        return redirect(_back(request) if request.POST.get("from") == "finding" else back)
    what = decision.version_label or decision.username or f"team {decision.team_name}"
    messages.success(request, f"{what} disqualified from {season.name}: {decision.entries} entr"
                              f"{'y' if decision.entries == 1 else 'ies'} left the standings." if new
                     else f"{what} was disqualified from {season.name} already.")
    return redirect(_report_url(season.slug))


def _confirm_disqualify(request: HttpRequest, season: Season, decision: Any) -> HttpResponse:
    """The page asking to confirm `decision` (a preview: `actions.disqualify_preview`)."""
    hidden = {name: request.POST[name] for name in DISQUALIFY_FIELDS if request.POST.get(name)}
    what = (f"{decision.version_label} (version id {decision.version_ref})" if decision.version_label
            else f"the account {decision.username}" if decision.username else f"the team {decision.team_name}")
    entries = f"{decision.entries} entr{'y' if decision.entries == 1 else 'ies'}"
    then = {str(SeasonState.FINISHED): ": its final standings are written again without them, and the entrants "
                                  "whose place moves are mailed their new one",
            str(SeasonState.FINALS): ": its finals play on without them, their queued games cancelled"
            }.get(str(season.state), "")
    finding = request.POST.get("finding") or ""
    spot = (f"#finding-{finding}" if finding.isdigit() and request.POST.get("from") != "finding"
            else "" if finding else "#disqualify-form")
    return render(request, "pages/confirm.html", {
        "heading": f"Disqualify {what} from {season.name}?", "button": f"Disqualify {what}", "danger": True,
        "cancel": _back(request) + spot, "hidden": {**hidden, "confirmed": "yes"}, "lines": [
            f"The reason, which its entrants read on the season page and in their mail: {decision.reason}",
            f"{entries} would leave the season{then}.",
            "This is final: a disqualification cannot be undone."]})


def _dated(version: Any) -> Any:
    """A version of a finding's evidence with its upload time as a datetime (kept as ISO text), so
    the page shows it as the site shows times."""
    if not isinstance(version, dict) or not isinstance(version.get("uploaded"), str):
        return version
    return {**version, "uploaded": parse_datetime(version["uploaded"]) or version["uploaded"]}
