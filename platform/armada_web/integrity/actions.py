"""What staff do with the report (issue 28): run the checks now, mark a finding dismissed, confirmed
or open again, and disqualify a version or an account from a season. Each action is written to the audit log
(`AuditEntry`: who, what, when, the finding and subject, the note) only when it changed
something, under a row lock (the finding's, or the season's), so two staff clicking at once
count once: the second waits for the first and finds nothing left to do. The unique constraints
on `Disqualification` hold that even without the lock. A disqualification is told to the apps
above (`signals.disqualified`: the notifications app mails the teams and owners of the entries
it withdrew).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from armada_web.integrity import tasks
from armada_web.integrity.models import (
    AuditAction,
    AuditEntry,
    Disqualification,
    Finding,
    FindingStatus,
    Target,
)
from armada_web.integrity.queries import decisions_for, team_decided
from armada_web.integrity.signals import disqualified
from armada_web.seasons.models import BEFORE_CLOSE, Entry, Season, state_said
from armada_web.seasons.services import withdraw_entries
from armada_web.teams.logic.names import DELETED_USER
from armada_web.teams.models import Team
from armada_web.web.errors import Conflict, Forbidden, Invalid, NotFound
from armada_web.web.inputs import shown_text_problem, storable
from armada_web.web.roles import is_staff

NOTE_MAX = 500


def _staff(user: Any) -> User:
    if not (isinstance(user, User) and is_staff(user)):
        raise Forbidden("only staff act on the integrity report")
    return user


def run_checks_now(*, season: Season | None, by: Any) -> None:
    """Send a run of every check for `season` (None: all of ranked play) to the periodic queue, by
    staff `by` (the audit log's line of the run names them). Conflict while a run of them goes on,
    or while one sent is still waiting for a worker: its results are on their way."""
    staff = _staff(by)
    scope = f"{season.name}'s checks" if season else "The checks of all ranked play"
    season_id = season.pk if season else None
    if tasks.running(season_id):
        raise Conflict(f"{scope} are running now: the report shows their results when they end.")
    if not tasks.send_checks_now(season_id, ran_by=staff.get_username()):
        raise Conflict(f"{scope} were sent already and wait for a worker: the report shows their results "
                       "when they end.")


def _note(note: Any, *, required: bool = False, what: str = "a note") -> str:
    """A note or a reason on one line (runs of white space become one space). Refused: none when
    `required`, a NUL (the database refuses it), another control character (an escape: it acts on
    a terminal), a text direction mark or override (it turns the text after it around: the words
    after the reason on the season's page, or the reason itself), more than NOTE_MAX characters."""
    text = " ".join(note.split()) if isinstance(note, str) else ""
    if required and not text:
        raise Invalid("say why: the account sees this reason on the season's page")
    problem = shown_text_problem(text, what=what)
    if problem:
        raise Invalid(problem)
    if len(text) > NOTE_MAX:
        raise Invalid(f"{what} has at most {NOTE_MAX} characters (this one has {len(text)})")
    return text


def _subject(finding: Finding) -> str:
    return f"{finding.kind} {', '.join(str(s) for s in finding.subjects)}"[:300]


def set_status(*, finding_id: int, status: Any, by: Any, note: Any = "") -> bool:
    """Mark finding `finding_id` `status` (open, dismissed or confirmed) for staff `by`; True when
    it changed (and was logged), False when it had that status already. NotFound, Invalid, or
    Forbidden for anyone but staff."""
    staff = _staff(by)
    if status not in FindingStatus.values:
        raise Invalid(f"a finding is {', '.join(FindingStatus.values)}"
                      + (f", not {status!r}" if status not in (None, "") else ": choose one"))
    text = _note(note)
    with transaction.atomic():
        finding = Finding.objects.select_for_update().filter(pk=finding_id).first()
        if finding is None:
            raise NotFound("no such finding (the checks may have dropped it since)")
        if finding.status == status:
            return False
        finding.status = status
        finding.save(update_fields=["status", "updated"])
        AuditEntry.objects.create(by=staff, by_name=staff.get_username(), action=status, season=finding.season,
                                  finding=finding, subject=_subject(finding), note=text, score=finding.score)
    return True


def disqualify(*, season: Season, by: Any, reason: Any, version_id: int | None = None,
               username: str | None = None, team: str | None = None,
               finding_id: int | None = None) -> tuple[Disqualification, bool]:
    """Disqualify version `version_id` (its entry), account `username` (all its entries) or the
    team named `team` (all the entries it made at the close, whatever it is called now) from
    `season` for staff `by`, saying `reason` (the account, or the team's members present and past,
    see it on the season's page); the entries leave the standings, which are recomputed
    (`seasons.services.withdraw_entries`). Returns the decision and whether it is new: a second
    call (or click) returns the first's and changes nothing. Invalid without a reason or without
    exactly one target; NotFound when the target has no entry in the season; Conflict before the
    season's close; Forbidden for non-staff."""
    staff = _staff(by)
    text = _note(reason, required=True, what="a reason")
    given = sum(target is not None for target in (version_id, username, team))
    if given != 1:
        raise Invalid(f"disqualify one of a version, an account or a team ({given} given)")
    if any(name is not None and (not isinstance(name, str) or not storable(name)) for name in (username, team)):
        raise Invalid("give the account's username or the team's name: no name holds a NUL character")
    if team is not None:
        return _disqualify_team(season=season, staff=staff, reason=text, name=team, finding_id=finding_id)
    with transaction.atomic():
        locked = _closed(Season.objects.select_for_update().get(pk=season.pk))
        finding = Finding.objects.filter(pk=finding_id).first() if finding_id is not None else None
        if version_id is not None:
            done = Disqualification.objects.filter(season=locked, target=Target.VERSION, version_ref=version_id).first()
            if done is not None:
                return done, False
            entry = Entry.objects.filter(season=locked, version_ref=version_id).select_related("owner").first()
            if entry is None:
                raise NotFound(f"version id {version_id} has no entry in season {locked.slug}")
            # its team too (team_ref), so every member present and past reads why the entry left
            decision = Disqualification(season=locked, target=Target.VERSION, version_ref=version_id,
                                        version_label=f"{entry.bot_name} v{entry.version_number}",
                                        user=entry.owner, username=entry.owner.get_username() if entry.owner else "",
                                        team_ref=entry.team_ref)
            entrants = _entrants(season=locked, version_ref=version_id)
            count = withdraw_entries(season=locked, version_ref=version_id)
        else:
            user = User.objects.filter(username=username).first()
            if user is None:
                raise NotFound(f"no account named {username}")
            done = Disqualification.objects.filter(season=locked, target=Target.ACCOUNT, user=user).first()
            if done is not None:
                return done, False
            decision = Disqualification(season=locked, target=Target.ACCOUNT, user=user, username=user.get_username())
            entrants = _entrants(season=locked, owner_id=user.pk)
            count = withdraw_entries(season=locked, owner_id=user.pk)
            if count == 0:
                earlier = decisions_for(season=locked, user=user)  # its own, its teams' (what its page shows)
                why = ": what it entered was disqualified already" if earlier else ""
                raise NotFound(f"{user.get_username()} has no entry {'left ' if earlier else ''}in season "
                               f"{locked.slug}{why}")
        decision.reason, decision.finding, decision.entries, decision.by = text, finding, count, staff
        decision.save()
        _audit(decision)
        _confirm_by(decision)
        disqualified.send(sender=Disqualification, decision=decision, entrants=entrants)
    return decision, True


def disqualify_preview(*, season: Season, by: Any, reason: Any, version_id: int | None = None,
                       username: str | None = None, team: str | None = None,
                       finding_id: int | None = None) -> tuple[Disqualification, bool]:
    """What `disqualify` would decide, with its refusals, and nothing done: it runs and is rolled
    back (its mails, audit lines and cancelled games with it; work after the commit is never
    started). A staff page asks to confirm with it, since a disqualification is final."""
    with transaction.atomic():
        decision, new = disqualify(season=season, by=by, reason=reason, version_id=version_id, username=username,
                                   team=team, finding_id=finding_id)
        transaction.set_rollback(True)
    if new:
        decision.pk = None  # (its row was rolled back)
    return decision, new


def _entrants(*, season: Season, **target: int) -> list[tuple[int | None, int | None]]:
    """Each entry of `season` a disqualification of `target` withdraws: its (team id, owner id)."""
    return list(Entry.objects.filter(season=season, **target).values_list("team_ref", "owner_id"))


def _audit(decision: Disqualification) -> None:
    """The audit log's line of a new disqualification."""
    staff, count = decision.by, decision.entries
    assert staff is not None
    what = decision.version_label or decision.username or decision.team_name
    AuditEntry.objects.create(by=staff, by_name=staff.get_username(), action=AuditAction.DISQUALIFIED,
                              season=decision.season, finding=decision.finding,
                              subject=f"{decision.get_target_display()}: {what} ({count} entr"
                                      f"{'y' if count == 1 else 'ies'} left season {decision.season.slug})",
                              note=decision.reason)


def _confirm_by(decision: Disqualification) -> None:
    """A disqualification made from an open finding confirms it (logged as its own line): staff
    acted on it, so the report no longer lists it among the open ones (an organiser's trial)."""
    if decision.finding_id is None or decision.by is None:
        return
    finding = Finding.objects.select_for_update().filter(pk=decision.finding_id).first()
    if finding is None or finding.status != FindingStatus.OPEN:
        return
    finding.status = FindingStatus.CONFIRMED
    finding.save(update_fields=["status", "updated"])
    what = decision.version_label or decision.username or decision.team_name
    AuditEntry.objects.create(by=decision.by, by_name=decision.by.get_username(), action=AuditAction.CONFIRMED,
                              season=decision.season, finding=finding, subject=_subject(finding),
                              score=finding.score, note=f"by disqualifying {what}: {decision.reason}"[:NOTE_MAX])


def _closed(season: Season) -> Season:
    """`season`, once closed; Conflict before: its entries are made at the close (docs/integrity.md)."""
    if season.state in BEFORE_CLOSE:
        raise Conflict(f"season {season.slug} is {state_said(season.state)}: its entries are made at its close, "
                       "so there is nothing to disqualify before it (the checks run at the close)")
    return season


def _disqualify_team(*, season: Season, staff: User, reason: str, name: str,
                     finding_id: int | None) -> tuple[Disqualification, bool]:
    """`disqualify` of a team: found by its name now, or by the name it entered under."""
    wanted = name.strip()
    with transaction.atomic():
        locked = _closed(Season.objects.select_for_update().get(pk=season.pk))
        finding = Finding.objects.filter(pk=finding_id).first() if finding_id is not None else None
        team_ref = Team.objects.filter(name__iexact=wanted).values_list("pk", flat=True).first()
        entries = Entry.objects.filter(season=locked, team_ref__isnull=False)
        entry = entries.filter(team_ref=team_ref).first() or entries.filter(team_name__iexact=wanted).first()
        team_ref = entry.team_ref if entry is not None else team_ref
        done = Disqualification.objects.filter(season=locked, target=Target.TEAM, team_ref=team_ref).first() \
            if team_ref is not None else None
        if done is not None:
            return done, False
        if entry is None or entry.team_ref is None:
            if team_ref is not None and team_decided(season=locked, team_ref=team_ref):  # (an organiser's trial)
                raise NotFound(f"the team {wanted} has no entry left in season {locked.slug}: what it entered "
                               "was disqualified already")
            raise NotFound(f"no team named {wanted} has an entry in season {locked.slug}")
        entrants = _entrants(season=locked, team_ref=entry.team_ref)
        count = withdraw_entries(season=locked, team_ref=entry.team_ref)
        decision = Disqualification.objects.create(
            season=locked, target=Target.TEAM, team_ref=entry.team_ref, team_name=entry.team_name or wanted,
            reason=reason, finding=finding, entries=count, by=staff)
        _audit(decision)
        _confirm_by(decision)
        disqualified.send(sender=Disqualification, decision=decision, entrants=entrants)
    return decision, True


def forget_member(*, user: Any) -> int:
    """`user` is deleting their account: their disqualifications no longer name them (a new account
    may take the name; the decisions must not seem its own). Returns the decisions changed."""
    return Disqualification.objects.filter(user_id=user.pk).update(username=DELETED_USER)
