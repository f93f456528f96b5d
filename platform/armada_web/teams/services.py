"""Team writes: create, rename, join, leave, remove a member, renew the join key, archive and restore.

Every function is keyword-only, takes the acting user and raises an `armada_web.web.errors`
error with a message for the user. Each change of members locks the team's row first, so the
size limit holds under parallel joins and two members removing each other at once end with one
of them removed, never both (the second is refused: they are no longer a member); a rename takes
the same lock, so two renames at once end with one name and a removed member cannot rename."""

from __future__ import annotations

import re
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from armada_web.teams.access import is_member, restore_refusal
from armada_web.teams.logic.names import DELETED_USER, name_problem
from armada_web.teams.models import Membership, Team
from armada_web.teams.signals import archive_changed, membership_changing
from armada_web.web.errors import Conflict, DomainError, Forbidden, Invalid, NotFound
from armada_web.web.inputs import USERNAME_PATTERN, parse_id
from armada_web.web.logic.text import ascii_skeleton


def new_key() -> str:
    """A fresh join key (the secret of a team's join link). It never starts with "-": a shell
    command line such as `armada team join 12 KEY` would read such a key as an option."""
    while (key := secrets.token_urlsafe(18)).startswith("-"):
        continue
    return key


def get_team(*, team_id: Any) -> Team:
    """The team of id `team_id`, else NotFound."""
    found = Team.objects.filter(pk=parse_id(team_id, what="team's id")).first()
    if found is None:
        raise NotFound(f"no team with id {team_id}")
    return found


def personal_team(*, user: Any) -> Team:
    """`user`'s personal team (made now when missing): named after them, or with a suffix when a
    team took that name first, or one it reads as (a review: signing up "\u0441\u0430\u0445\u0435" beside the
    team "caxe" made a team that passed for it)."""
    found = Team.objects.filter(personal=True, memberships__user_id=user.pk).first()
    if found is not None:
        return found
    base = user.get_username()[:30]
    names = [base if n == 0 else f"{base}-{n + 1}" for n in range(100)] + [f"{base[:20]}-{secrets.token_hex(4)}"]
    for name in names:
        if Team.objects.filter(name__iexact=name).exists() or _read_as_taken(name):
            continue
        try:
            with transaction.atomic():
                team = Team.objects.create(name=name, personal=True)
                Membership.objects.create(team=team, user=user)
            return team
        except IntegrityError:  # a team took the name since (a review: a 500 at sign-up): the next one
            continue
    raise Conflict(f"no free name for {base}'s personal team: try again")  # pragma: no cover


def personal_teams(*, users: list[tuple[int, str]]) -> dict[int, int]:
    """Personal teams for many new users at once (user id, username), in bulk: user id -> team id
    (for rows written straight into tables, e.g. devdata's scale seed, where no signal fires)."""
    taken = {n.lower() for n in Team.objects.values_list("name", flat=True)}
    names: dict[int, str] = {}
    for pk, username in users:
        name, n = username[:30], 1
        while name.lower() in taken:
            n += 1
            name = f"{username[:30]}-{n}"
        taken.add(name.lower())
        names[pk] = name
    out: dict[int, int] = {}
    pairs = list(names.items())
    for start in range(0, len(pairs), 1000):
        chunk = pairs[start:start + 1000]
        Team.objects.bulk_create([Team(name=name, personal=True) for _pk, name in chunk])
        made = dict(Team.objects.filter(personal=True, name__in=[name for _pk, name in chunk])
                    .values_list("name", "pk"))
        Membership.objects.bulk_create([Membership(team_id=made[name], user_id=pk) for pk, name in chunk])
        out.update({pk: made[name] for pk, name in chunk})
    return out




def end_memberships(*, user: Any) -> int:
    """`user` is deleting their account: each of their memberships ends now (the rows stay, as the
    teams' history, without the user), so a team's count of members stays right; their personal
    team is renamed "(deleted user ID)". A shared team left
    without members is archived, as its last member leaving must archive it first: its bots stop
    playing and its join key no longer works (a former member may restore it, D-S-21)."""
    with transaction.atomic():
        current = Membership.objects.current().filter(user_id=user.pk)
        shared = list(current.filter(team__personal=False).values_list("team_id", flat=True))
        # The teams' locks first, in id order, then the memberships: the order of a leave or a
        # removal (a team's lock, then its membership row), so neither waits on the other for good.
        teams = [_locked(team) for team in Team.objects.filter(pk__in=shared).order_by("pk")]
        now = timezone.now()
        # its personal team no longer bears the name (a new account may take it, and the results it
        # keeps must not seem that account's: a trial)
        for own in Team.objects.filter(personal=True, memberships__in=current):
            name = f"{DELETED_USER[:-1]} {own.pk})"  # "(deleted user 17)": team names are unique
            while Team.objects.filter(name__iexact=name).exclude(pk=own.pk).exists():  # (an older team's name)
                name = f"{name[:-1]}-{secrets.token_hex(2)})"
            Team.objects.filter(pk=own.pk).update(name=name)
        ended = current.update(left=now)
        for locked in teams:
            if locked.archived is None and not Membership.objects.current().filter(team=locked).exists():
                locked.archived = now
                locked.save(update_fields=["archived"])
                archive_changed.send(sender=Team, team=locked)
    return ended


def create_team(*, user: Any, name: Any) -> Team:
    """A new team with `user` as its first member and a join key."""
    problem = name_problem(name)
    if problem:
        raise Invalid(problem)
    same = Team.objects.filter(name__iexact=name).first()
    if same is not None:
        if is_member(user=user, team_id=same.pk):  # a second `team create` of one's own team (a trial)
            raise Conflict(f"you are a member of the team {same.name!r} already: it needs no creating")
        raise Conflict(f"the name {name!r} is taken by another team; choose another")
    _refuse_lookalike(name)
    try:
        with transaction.atomic():
            _check_user_room(user)
            team = Team.objects.create(name=name, join_key=new_key())
            Membership.objects.create(team=team, user=user)
    except IntegrityError:  # the same name created at the same moment
        raise Conflict(f"the name {name!r} is taken by another team; choose another") from None
    return team


def rename_team(*, user: Any, team: Team, name: Any) -> Team:
    """A member renames the team (same rules as a new team's name; None keeps the name, after the
    same checks, as a PATCH without it). Refused for a personal team, whose name follows its user,
    and for an archived one (restore it first)."""
    problem = None if name is None else name_problem(name)
    if problem:
        raise Invalid(problem)
    taken = Conflict(f"the name {name!r} is taken by another team; choose another")
    try:
        with transaction.atomic():
            locked = _locked(team)
            if not is_member(user=user, team_id=locked.pk):
                raise Forbidden("only a member of this team can rename it (you are not, or no longer, a member)")
            if locked.personal:
                raise Conflict("a personal team is named after its user: create a team to choose a name")
            if locked.archived is not None:
                raise Conflict("this team is archived: restore it before renaming it")
            if name is None:
                return locked
            if Team.objects.filter(name__iexact=name).exclude(pk=locked.pk).exists():
                raise taken
            _refuse_lookalike(name, exclude=locked.pk)
            if locked.name != name:
                locked.name = name
                locked.save(update_fields=["name"])
    except IntegrityError:  # another team took the name at the same moment
        raise taken from None
    return locked


def _refuse_lookalike(name: str, *, exclude: int | None = None) -> None:
    """Conflict when `name` is not ASCII and reads as another team's ASCII name ("\u0441\u0430\u0445\u0435", all
    Cyrillic, beside "caxe": `ascii_skeleton`, D-S-34)."""
    skeleton = _read_as_taken(name, exclude=exclude)
    if skeleton:
        raise Conflict(f"the name {name!r} reads as {skeleton!r}, another team's name; choose another")


def _read_as_taken(name: str, *, exclude: int | None = None) -> str:
    """The ASCII name of another team that `name` reads as (`ascii_skeleton`), or ""."""
    skeleton = ascii_skeleton(name)
    if not skeleton:
        return ""
    same = Team.objects.filter(name__iexact=skeleton)
    return skeleton if (same.exclude(pk=exclude) if exclude is not None else same).exists() else ""


def _locked(team: Team) -> Team:
    """The team's row, locked for this transaction: FOR NO KEY UPDATE, so that rows referring to it
    being written meanwhile (a season's close writing entries, a bot made) do not wait for it,
    which would deadlock with a join waiting for that season (issue 26)."""
    return Team.objects.select_for_update(no_key=True).get(pk=team.pk)


def _check_changeable(team: Team, *, acting: Any = None) -> None:
    """A personal team cannot change its members or state (409); to someone who is not its member
    and is `acting` on it (a member's action: 403 for any team), it is not theirs to change (403)."""
    if team.personal:
        if acting is not None and not is_member(user=acting, team_id=team.pk):
            raise Forbidden("this is another account's personal team: only its member acts on it")
        raise Conflict("a personal team has its one member for good: create a team to play with others")


def join_team(*, user: Any, team: Team, key: Any) -> Team:
    """`user` joins `team` with its join key; the size limit is counted under the team's lock."""
    with transaction.atomic():
        locked = _locked(team)
        _check_join(user=user, team=locked, key=key)
        Membership.objects.create(team=locked, user=user)
    return locked


def join_refusal(*, user: Any, team: Team, key: Any) -> DomainError | None:
    """What `join_team` would refuse now, or None: the join link's page says it before the click."""
    return _refusal(_check_join, user=user, team=team, key=key)


def _check_join(*, user: Any, team: Team, key: Any) -> None:
    """`join_team`'s rules: the key, the team's state, its room and the user's, the seasons' rules."""
    _check_changeable(team)
    if key is None or key == "":
        raise Forbidden("this link has no join key: a team is joined with the join link a member copies from "
                        "the team's page (it ends in ?key=...)")
    # compared as bytes: compare_digest refuses a str with non-ASCII characters (a TypeError, a 500)
    if (not isinstance(key, str) or not team.join_key
            or not secrets.compare_digest(key.encode(errors="replace"), team.join_key.encode())):
        raise Forbidden("that is not this team's join key (a renewed key replaces the old one); "
                        "ask a member for the current join link")
    if team.archived is not None:
        raise Conflict("this team is archived; a former member can restore it")
    if Membership.objects.current().filter(team=team, user_id=user.pk).exists():
        raise Conflict("you are already a member of this team")
    _check_room(team)
    _check_user_room(user)
    _changing(team, user.pk, "join")


def _check_user_room(user: Any) -> None:
    """(In a transaction.) Conflict when `user` is in as many shared teams as the site allows
    (`ARMADA_TEAMS_PER_USER`): each team has its own bot limit, so unbounded teams would be
    unbounded bots and games for one person. Counted under the user's row lock."""
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    limit = settings.ARMADA.teams_per_user
    count = Membership.objects.current().filter(user_id=user.pk, team__personal=False).count()
    if count >= limit:
        raise Conflict(f"you are in {count} teams already (the limit is {limit}): leave one first (its last "
                       "member archives it on its page, then leaves)")


def _changing(team: Team, user_id: int, change: str) -> None:
    """Ask the apps above whether the change may happen (they raise to refuse it: seasons' rules)."""
    membership_changing.send(sender=Team, team=team, user_id=user_id, change=change)


def _check_room(team: Team) -> None:
    limit = settings.ARMADA.team_max_members
    count = Membership.objects.current().filter(team=team).count()
    if count >= limit:
        raise Conflict(f"this team is full: it has {count} members (the limit is {limit})")


def _end(*, team: Team, user_id: int) -> None:
    Membership.objects.current().filter(team=team, user_id=user_id).update(left=timezone.now())


def leave_team(*, user: Any, team: Team) -> Team:
    """`user` leaves `team`; its last member may leave only once the team is archived."""
    with transaction.atomic():
        locked = _locked(team)
        _check_leave(user=user, team=locked)
        _end(team=locked, user_id=user.pk)
    return locked


def leave_refusal(*, user: Any, team: Team) -> DomainError | None:
    """What `leave_team` would refuse now, or None: the confirmation page says it before the click."""
    return _refusal(_check_leave, user=user, team=team)


def _check_leave(*, user: Any, team: Team) -> None:
    """`leave_team`'s rules: the team's kind, a member, not its last while it plays, the seasons' rules."""
    _check_changeable(team)
    if not is_member(user=user, team_id=team.pk):
        raise Conflict("you are not a member of this team")
    others = Membership.objects.current().filter(team=team).exclude(user_id=user.pk).count()
    if others == 0 and team.archived is None:
        raise Conflict("you are this team's last member: hand it on (someone joins with the join link) "
                       "or archive it before you leave")
    _changing(team, user.pk, "leave")


def _refusal(check: Any, **arguments: Any) -> DomainError | None:
    """The DomainError `check(**arguments)` raises (in a transaction of its own, changing nothing), or None."""
    try:
        with transaction.atomic():
            check(**arguments)
    except DomainError as exc:
        return exc
    return None


def member_to_remove(*, user: Any, team: Team, username: Any) -> str:
    """The username (as the site spells it) that `remove_member` would remove now, or its refusal
    raised: the confirmation page asks with what the click will do."""
    with transaction.atomic():
        target = _check_remove(user=user, team=team, username=username)
        return target.user.username if target.user else str(username)  # (found by its user's name)


def _check_remove(*, user: Any, team: Team, username: Any) -> Membership:
    """`remove_member`'s rules: the team's kind, the remover a member, the name one of another
    member, the seasons' rules; the membership to end."""
    _check_changeable(team, acting=user)
    if not is_member(user=user, team_id=team.pk):
        raise Forbidden("only a member of this team can remove a member")
    if not isinstance(username, str) or not username:
        raise Invalid("give the username of the member to remove")
    if not re.fullmatch(USERNAME_PATTERN, username):  # (a NUL would be a database error, a 500)
        raise Invalid(f"{username[:40]!r} is not a username (letters, digits and @ . + - _)")
    target = Membership.objects.current().select_related("user").filter(
        team=team, user__username__iexact=username).first()
    if target is None:
        raise NotFound(f"{username!r} is not a member of this team")
    if target.user_id == user.pk:
        raise Invalid("to take yourself out of the team, leave it")
    _changing(team, target.user_id or 0, "remove")
    return target


def remove_member(*, user: Any, team: Team, username: Any) -> Team:
    """A member removes another member (recorded in the team's history; bots and results stay).
    The join key is renewed in the same transaction: the removed member knew it and would
    otherwise rejoin at once with it (D-S-21). Leaving on one's own keeps the key."""
    with transaction.atomic():
        locked = _locked(team)
        target = _check_remove(user=user, team=locked, username=username)
        # `removed` stays when the remover's account goes (removed_by then empties): still a removal
        Membership.objects.filter(pk=target.pk).update(left=timezone.now(), removed=True, removed_by=user)
        if locked.join_key:
            locked.join_key = new_key()
            locked.save(update_fields=["join_key"])
    return locked


def renew_key(*, user: Any, team: Team) -> Team:
    """A member replaces the join key: the old join link stops working."""
    with transaction.atomic():
        locked = _locked(team)
        _check_changeable(locked, acting=user)
        if not is_member(user=user, team_id=locked.pk):
            raise Forbidden("only a member of this team can renew its join key")
        if locked.archived is not None:  # (no key is shown while archived: access.shows_join_key, a trial)
            raise Conflict("this team is archived: restore it before renewing its join key")
        locked.join_key = new_key()
        locked.save(update_fields=["join_key"])
    return locked


def archive_team(*, user: Any, team: Team) -> Team:
    """A member archives the team: its bots stop playing (the apps above follow in this
    transaction: `signals.archive_changed`), its history and results stay."""
    with transaction.atomic():
        locked = _locked(team)
        _check_archive(user=user, team=locked)
        if locked.archived is None:  # (archived already: nothing to do, the same click twice counts once)
            locked.archived = timezone.now()
            locked.save(update_fields=["archived"])
            archive_changed.send(sender=Team, team=locked)  # its bots stop playing now, not at a repair
    return locked


def archive_refusal(*, user: Any, team: Team) -> DomainError | None:
    """What the confirmation page says instead of asking: `archive_team`'s refusal, or that the
    team is archived already (the click would change nothing); None when it may be archived."""
    if team.archived is not None and is_member(user=user, team_id=team.pk):
        return Conflict("this team is archived already: its bots do not play")
    return _refusal(_check_archive, user=user, team=team)


def _check_archive(*, user: Any, team: Team) -> None:
    """`archive_team`'s rules: the team's kind, the archiver a member, the seasons' rules (an entered
    team plays its season to the results)."""
    _check_changeable(team, acting=user)
    if not is_member(user=user, team_id=team.pk):
        raise Forbidden("only a member of this team can archive it")
    if team.archived is None:
        _changing(team, user.pk, "archive")


def restore_team(*, user: Any, team: Team) -> Team:
    """A member restores an archived team; a team without members, a former member who left on
    their own, who rejoins it (`access.restore_refusal`)."""
    with transaction.atomic():
        locked = _locked(team)
        _check_changeable(locked, acting=user)
        if locked.archived is None:  # (first: a former member is told that, not that it has members)
            raise Conflict("this team is not archived")
        refusal = restore_refusal(user=user, team_id=locked.pk)
        if refusal:
            raise Forbidden(refusal)
        if not is_member(user=user, team_id=locked.pk):
            _check_room(locked)
            _check_user_room(user)
            _changing(locked, user.pk, "join")
            Membership.objects.create(team=locked, user=user)
        locked.archived = None
        locked.save(update_fields=["archived"])
        archive_changed.send(sender=Team, team=locked)
    return locked
