"""Event pages: the events a user may see, a new event, an event's page (its table, matches, the
invite link and the invited teams for its owner, entering a bot with the invite or as an invited
team, withdrawing it, starting and ending it). Thin: the rules are
events.services', what a user may do comes from events.access as data."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.forms import CharField, DateTimeField, Form
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from armada_web.accounts.queries import signed_in
from armada_web.events import queries, services
from armada_web.events.access import actions, can_see, enterable_bots, is_member, may_enter
from armada_web.events.models import EventState
from armada_web.games import spec
from armada_web.pages.errors import form_error, refusals_go_to
from armada_web.pages.event_forms import EntryForm, EventEditForm, EventForm, InvitationForm
from armada_web.pages.pager import pager
from armada_web.web.errors import DomainError, Invalid
from armada_web.web.paging import keyed_page, page_number


def _event_page(slug: str) -> str:
    return reverse("event", args=[slug])


def _visible_or_404(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """An action on an event the user may not see (a private one they are not in) is the 404 of a
    missing event, before any refusal would redirect to its page and so tell that it exists."""
    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, slug: str, **kwargs: Any) -> HttpResponse:
        queries.visible_event(user=request.user, slug=slug)  # NotFound: the site's 404 page
        return view(request, *args, slug=slug, **kwargs)
    return wrapped


#: The session's key of the names an invitation form sent that were refused (shown again, not retyped).
INVITE_DRAFT = "event-invite-draft"
#: The session's key of a change of the event that was refused (shown again in its form, not retyped).
EDIT_DRAFT = "event-edit-draft"
#: Events a page of /events/.
EVENTS_PER_PAGE = 50


def _keep_draft(request: HttpRequest, key: str, slug: str, form: Form) -> None:
    """What `form` sent, kept in the session for the event's page to show again (each field as long as it reads)."""
    request.session[key] = {"slug": slug, **{
        name: request.POST.get(name, "")[:getattr(field, "max_length", None) or 200]
        for name, field in form.fields.items()
        if isinstance(field, CharField | DateTimeField) and name in request.POST}}


def _draft(request: HttpRequest, key: str, slug: str) -> dict[str, str]:
    """What a refused form of this event sent (see `_keep_draft`), once."""
    draft = request.session.get(key)
    if not isinstance(draft, dict) or draft.get("slug") != slug:  # (another event's stays for its page)
        return {}
    del request.session[key]
    return {k: v for k, v in draft.items() if k != "slug" and isinstance(v, str)}


def events(request: HttpRequest) -> HttpResponse:
    shown = queries.visible_events(request.user)
    page = keyed_page(shown.values_list("pk", flat=True), lambda ids: shown.filter(pk__in=ids),
                      page_number(request.GET.get("page")), EVENTS_PER_PAGE, key=lambda e: e.pk)
    return render(request, "events/list.html", {"events": page.rows, "pager": pager(request, page)})


@login_required
def new_event(request: HttpRequest) -> HttpResponse:
    """A new event: the form parses, `services.create_event` says what is wrong (the input stays in the form)."""
    form = EventForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            event = services.create_event(user=signed_in(request), **form.cleaned_data)
        except DomainError as exc:
            return render(request, "events/new.html", {"form": form}, status=form_error(form, exc))
        messages.success(request, f"Event {event.name} created. Send members its invite link.")
        return redirect("event", slug=event.slug)
    return render(request, "events/new.html", {"form": form}, status=400 if form.is_bound else 200)


def event(request: HttpRequest, slug: str) -> HttpResponse:
    invite = request.GET.get("invite", "")[:64]
    found = queries.visible_event(user=request.user, slug=slug, invite=invite)
    member = is_member(user=request.user, event=found)
    can = actions(user=request.user, event=found)  # (the owner's controls: exactly those the services take)
    owner = can.owner
    edit_draft = _draft(request, EDIT_DRAFT, found.slug) if owner else {}
    bots = enterable_bots(user=request.user, event=found, invite=invite)
    offered = may_enter(user=request.user, event=found, invite=invite)  # with a bot the form, else how to get one
    can_enter = offered and bool(bots)
    invite_url = request.build_absolute_uri(f"{_event_page(found.slug)}?invite={found.invite}") if owner else ""
    context = {
        "event": found, "game": spec(found.game), "table": queries.table(found),
        "never_started": queries.never_started(found),
        "recent": queries.recent_games(found, user=request.user),
        "played": (played := queries.games_played(found)), "skipped": queries.games_done(found) - played,
        "skip_reasons": queries.skip_reasons(found),
        "waiting": queries.waiting(found),
        "owner": owner, "member": member, "invite_url": invite_url,
        "entry_form": EntryForm(bots=bots, initial={"invite": invite}) if can_enter else None,
        "actions": can,
        "edit_form": EventEditForm(event=found, draft=edit_draft) if can.edit else None, "edit_open": bool(edit_draft),
        "withdrawable": queries.withdrawable(found, user=request.user),
        "invited": queries.invited_teams(found),
        "invitation_form": InvitationForm(initial=_draft(request, INVITE_DRAFT, found.slug)) if can.invite else None,
        "needs_bot": offered and not bots,
        "sign_in": not request.user.is_authenticated and bool(invite) and found.state == EventState.OPEN,
    }
    return render(request, "events/event.html", context)


@login_required
@require_POST
def enter(request: HttpRequest, slug: str) -> HttpResponse:
    invite = request.POST.get("invite", "")[:64]
    # NotFound (the 404 page) for a private event the user is not in and has no code of, as for no event
    found = queries.visible_event(user=request.user, slug=slug, invite=invite)
    try:
        entry = services.enter(user=signed_in(request), event=found, bot_id=request.POST.get("bot", ""),
                               invite=invite)
    except DomainError as exc:  # shown on the event's page, the invite kept so it still shows
        messages.error(request, str(exc))
        return redirect(f"{_event_page(found.slug)}?{urlencode({'invite': invite})}" if invite else
                        _event_page(found.slug))
    messages.success(request, f"{entry.bot_name} is entered.")
    return redirect("event", slug=found.slug)


def _event_form(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """An event page's POST form: signed in, the event visible (else 404), a refusal shown on its page."""
    return login_required(require_POST(_visible_or_404(refusals_go_to(_event_page)(view))))


@_event_form
def start(request: HttpRequest, slug: str) -> HttpResponse:
    found = services.start_event(user=signed_in(request), event=queries.event(slug))
    messages.success(request, f"{found.name} has started: its matches are on their way.")
    return redirect("event", slug=found.slug)


@_event_form
def invite(request: HttpRequest, slug: str) -> HttpResponse:
    form = InvitationForm(request.POST)
    found = queries.event(slug)
    try:
        if not form.is_valid():  # (a field past its length: said, not left out)
            raise Invalid("; ".join(f"{name}: {' '.join(str(e) for e in errors)}"
                                    for name, errors in form.errors.items()))
        services.invite_teams(user=signed_in(request), event=found, team_names=form.names("teams"),
                              users=form.names("users"))
    except DomainError:  # the names come back in the form with the message, to correct one
        _keep_draft(request, INVITE_DRAFT, found.slug, form)
        raise
    messages.success(request, "Invited: their members see the event and enter one of their team's bots.")
    return redirect("event", slug=found.slug)


@_event_form
def renew_invite(request: HttpRequest, slug: str) -> HttpResponse:
    found = services.renew_invite(user=signed_in(request), event=queries.event(slug))
    messages.success(request, "The invite link is new: the old one no longer works.")
    return redirect("event", slug=found.slug)


@_event_form
def uninvite(request: HttpRequest, slug: str) -> HttpResponse:
    found = queries.event(slug)
    services.uninvite(user=signed_in(request), event=found, team_id=request.POST.get("team", ""))
    hidden = "no longer see the event (unless a bot of their team is entered)"
    if found.state == EventState.OPEN:
        said = ": that team's members enter only with the invite link" + ("" if found.public else f" and {hidden}")
    else:  # (entries are closed: what is left of an invitation is seeing a private event)
        said = "" if found.public else f": that team's members {hidden}"
    messages.success(request, f"The invitation is taken back{said}.")
    return redirect("event", slug=found.slug)


@_event_form
def withdraw(request: HttpRequest, slug: str) -> HttpResponse:
    found = queries.event(slug)
    services.withdraw(user=signed_in(request), event=found, bot_id=request.POST.get("bot", ""))
    if not can_see(user=request.user, event=found):  # (one who entered a private event by its link only)
        messages.success(request, f"The entry is withdrawn: you are no longer in {found.name}.")
        return redirect("events")
    messages.success(request, "The entry is withdrawn.")
    return redirect("event", slug=found.slug)


@_event_form
def end(request: HttpRequest, slug: str) -> HttpResponse:
    if request.POST.get("confirm") != "yes":  # (the browser asks for the box; a bare POST is refused too)
        raise Invalid("tick the box to confirm: ending an event cannot be undone")
    found = services.end_event(user=signed_in(request), event=queries.event(slug))
    messages.success(request, f"{found.name} has ended: its table is final.")
    return redirect("event", slug=found.slug)


@_event_form
def edit(request: HttpRequest, slug: str) -> HttpResponse:
    found = queries.event(slug)
    form = EventEditForm(request.POST, event=found)
    try:
        if not form.is_valid():  # (a date not read, a name far too long: said in the message)
            raise Invalid("; ".join(f"{name}: {' '.join(str(e) for e in errors)}"
                                    for name, errors in form.errors.items()))
        changed = services.edit_event(user=signed_in(request), event=found, **form.changes())
    except DomainError:  # what was typed comes back in the form with the message, to correct it
        _keep_draft(request, EDIT_DRAFT, found.slug, form)
        raise
    messages.success(request, f"{changed.name} is changed.")
    return redirect("event", slug=changed.slug)
