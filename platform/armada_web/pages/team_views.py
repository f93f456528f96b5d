"""Team pages: a team (members, bots with their places, seasons, its history; for its members the
join link and the buttons), a new team, the join link's page, and the members' actions as POST
forms. Thin: the rules are `teams.services` (and `bots.moves`), refusals are shown by `pages.errors`."""

from __future__ import annotations

import re

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from armada_web.accounts.queries import signed_in
from armada_web.bots import queries as bot_queries
from armada_web.ladder.queries import places_of
from armada_web.pages.errors import form_error, refusals_go_to
from armada_web.pages.pager import pager
from armada_web.pages.team_forms import TeamForm
from armada_web.seasons.queries import placements_of_team
from armada_web.teams import queries, services
from armada_web.teams.access import is_member, restore_refusal, shows_join_key, was_member
from armada_web.teams.logic.names import NAME_MAX
from armada_web.teams.models import Team
from armada_web.web.errors import DomainError, Forbidden, http_status
from armada_web.web.paging import keyed_page, page_number

TEAM_BOTS = 50
HISTORY = 50
#: The session's key for a refused rename's name, shown again in the team page's field.
RENAME_DRAFT = "team-rename-typed"


def _team_page(pk: int) -> str:
    return reverse("team", args=[pk])


def join_link(request: HttpRequest, team: Team) -> tuple[list[str], str]:
    """The join link a member hands on: the join page's address cut after each "/" (where a phone's
    line may break, never inside a word), and the query with the team's current key (a phone shows
    the key on a line of its own, never scrolled out of sight)."""
    page = request.build_absolute_uri(reverse("team-join", args=[team.pk]))
    return [part for part in re.split(r"(?<=[^/]/)(?!/)", page) if part], f"?key={team.join_key}"


def team_page(request: HttpRequest, pk: int) -> HttpResponse:
    """A team: members, bots (paged) with their places, their seasons, who left or was removed; for
    a member also the join link and the buttons (rename, renew the key, remove, leave, archive), for a
    former member of an archived team the restore button."""
    team = services.get_team(team_id=pk)
    draft = request.session.pop(RENAME_DRAFT, None) if RENAME_DRAFT in request.session else None
    number = page_number(request.GET.get("page"))
    bots = keyed_page(queries.bots_of_team(team).values_list("pk", flat=True),
                      lambda ids: bot_queries.bots().filter(pk__in=ids), number, TEAM_BOTS, key=lambda b: b.pk)
    rows = sorted(bots.rows, key=lambda b: (b.retired is not None, b.game, b.name.lower()))
    places = places_of(rows)
    member = is_member(user=request.user, team_id=team.pk)
    shared = not team.personal
    former = shared and was_member(user=request.user, team_id=team.pk)
    context = {
        "team": team, "member": member, "members": list(queries.members(team)),
        "history": list(queries.history(team)[:HISTORY]) if member or former else [],  # the team's own record
        "bots": [(b, places.get(b.pk)) for b in rows], "pager": pager(request, bots),
        "results": placements_of_team(team.pk),
        "join_link": (join_link(request, team) if team.join_key and shows_join_key(user=request.user, team=team)
                      else None),
        "can_change": member and shared,
        "rename_typed": draft["name"] if isinstance(draft, dict) and draft.get("team") == pk else None,
        "can_restore": former and team.archived is not None
        and not restore_refusal(user=request.user, team_id=team.pk),
        "max_members": settings.ARMADA.team_max_members,
    }
    return render(request, "teams/team.html", context)


@login_required
def new_team(request: HttpRequest) -> HttpResponse:
    """Create a team: you are its first member, and its page shows the join link to hand on."""
    form = TeamForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            team = services.create_team(user=signed_in(request), name=form.cleaned_data["name"])
        except DomainError as exc:
            return render(request, "teams/new_team.html", {"form": form}, status=form_error(form, exc, "name"))
        messages.success(request, f"Team {team.name} created. Hand its join link to the others.")
        return redirect("team", pk=team.pk)
    return render(request, "teams/new_team.html", {"form": form}, status=400 if form.is_bound else 200)


@login_required
def join(request: HttpRequest, pk: int) -> HttpResponse:
    """The join link's page: GET asks to confirm, POST joins with the link's key."""
    team = services.get_team(team_id=pk)
    key = request.POST.get("key", "") if request.method == "POST" else request.GET.get("key", "")
    context = {"team": team, "key": key[:200], "members": list(queries.members(team)),
               "member": is_member(user=request.user, team_id=team.pk)}
    if request.method != "POST":
        refused = (services.join_refusal(user=request.user, team=team, key=key)
                   if request.user.is_authenticated and not context["member"] else None)
        if refused is not None:  # said before the click: a wrong or renewed key, a full or archived team
            return render(request, "teams/join.html", {**context, "error": str(refused), "refused": True},
                          status=http_status(refused))
        return render(request, "teams/join.html", context)
    try:
        services.join_team(user=signed_in(request), team=team, key=key)
    except DomainError as exc:
        return render(request, "teams/join.html", {**context, "error": str(exc)}, status=http_status(exc))
    messages.success(request, f"You joined the team {team.name}: its bots are yours to manage too.")
    return redirect("team", pk=team.pk)


@login_required
@require_POST
@refusals_go_to(_team_page)
def renew_key(request: HttpRequest, pk: int) -> HttpResponse:
    services.renew_key(user=signed_in(request), team=services.get_team(team_id=pk))
    messages.success(request, "The join key is renewed: the old join link no longer works.")
    return redirect("team", pk=pk)


@login_required
@require_POST
@refusals_go_to(_team_page)
def rename(request: HttpRequest, pk: int) -> HttpResponse:
    typed = request.POST.get("name", "")
    try:
        team = services.rename_team(user=signed_in(request), team=services.get_team(team_id=pk), name=typed)
    except DomainError:  # the team's page shows the refusal, with the name typed in its field
        request.session[RENAME_DRAFT] = {"team": pk, "name": typed[:NAME_MAX * 4]}
        raise
    messages.success(request, f"The team is now named {team.name}.")
    return redirect("team", pk=pk)


def _confirm(request: HttpRequest, team: Team, *, heading: str, lines: list[str], button: str,
             hidden: dict[str, str] | None = None) -> HttpResponse:
    """The page asking a member to confirm an action (GET); its button POSTs to the same address."""
    if not is_member(user=request.user, team_id=team.pk):
        raise Forbidden("only a member of this team can do this (you are not, or no longer, a member)")
    return render(request, "pages/confirm.html", {"heading": heading, "lines": lines, "button": button,
                                                  "danger": True, "hidden": hidden or {},
                                                  "cancel": _team_page(team.pk)})


def _refuse(refusal: DomainError | None) -> None:
    """Raise what the click would be refused with (`refusals_go_to` shows it on the team's page)."""
    if refusal is not None:
        raise refusal


@login_required
@require_http_methods(["GET", "POST"])
@refusals_go_to(_team_page)
def leave(request: HttpRequest, pk: int) -> HttpResponse:
    """GET asks to confirm, POST leaves."""
    if request.method != "POST":
        team = services.get_team(team_id=pk)
        _refuse(services.leave_refusal(user=request.user, team=team))
        return _confirm(request, team, heading=f"Leave the team {team.name}?", button="Leave the team", lines=[
            "You stop being a member now: the team's bots, their code and logs are no longer yours to see "
            "or manage. Its bots, matches and results stay with the team.",
            "To come back you need the team's join link from a member."])
    team = services.leave_team(user=signed_in(request), team=services.get_team(team_id=pk))
    messages.success(request, f"You left the team {team.name}; its bots stay with it.")
    return redirect("team", pk=pk)


@login_required
@require_http_methods(["GET", "POST"])
@refusals_go_to(_team_page)
def remove(request: HttpRequest, pk: int) -> HttpResponse:
    """GET (?username=) asks to confirm, POST removes the member."""
    if request.method != "POST":
        team = services.get_team(team_id=pk)
        member = services.member_to_remove(user=request.user, team=team, username=request.GET.get("username", ""))
        return _confirm(request, team, heading=f"Remove {member} from {team.name}?", button=f"Remove {member}",
                        hidden={"username": member}, lines=[
            f"{member} stops being a member now: the team's bots, their code and logs are no longer theirs "
            "to see or manage. Their bots, matches and results stay with the team.",
            "The join key is renewed, so the join link they know stops working; hand the new one to "
            "whoever still has to join. This cannot be undone: only the new join link brings them back."])
    username = request.POST.get("username", "")
    services.remove_member(user=signed_in(request), team=services.get_team(team_id=pk), username=username)
    messages.success(request, f"{username} is no longer a member (their bots, matches and results stay). "
                              "The join key is renewed: the old join link no longer works.")
    return redirect("team", pk=pk)


@login_required
@require_http_methods(["GET", "POST"])
@refusals_go_to(_team_page)
def archive(request: HttpRequest, pk: int) -> HttpResponse:
    """GET asks to confirm, POST archives."""
    if request.method != "POST":
        team = services.get_team(team_id=pk)
        _refuse(services.archive_refusal(user=request.user, team=team))
        return _confirm(request, team, heading=f"Archive the team {team.name}?", button="Archive the team",
                        lines=["Its bots stop playing now: no more ladder matches, challenges or season games. "
                               "Its matches, ratings, results and history stay.",
                               "A member can restore it later; the bots play again once it is restored."])
    services.archive_team(user=signed_in(request), team=services.get_team(team_id=pk))
    messages.success(request, "The team is archived: its bots stop playing, its history and results stay.")
    return redirect("team", pk=pk)


@login_required
@require_POST
@refusals_go_to(_team_page)
def restore(request: HttpRequest, pk: int) -> HttpResponse:
    services.restore_team(user=signed_in(request), team=services.get_team(team_id=pk))
    messages.success(request, "The team is restored: its bots may play again.")
    return redirect("team", pk=pk)
