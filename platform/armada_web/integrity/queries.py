"""Reads of the integrity report (staff only: the pages check that before calling): the ranked
findings of a season or of all ranked play, their counts per kind, the audit log, a copy's two
sources side by side, the links to every finding's evidence, and the decisions an account sees
on a season's page."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.urls import NoReverseMatch, reverse

from armada_web.bots.models import BotVersion
from armada_web.integrity import tasks
from armada_web.integrity.copies import scope
from armada_web.integrity.findings import STRONGEST_FIRST
from armada_web.integrity.fingerprints import sources
from armada_web.integrity.logic.report import Line, excerpt
from armada_web.integrity.models import (
    AuditEntry,
    Disqualification,
    Finding,
    FindingKind,
    FindingStatus,
    Fingerprint,
    Target,
)
from armada_web.seasons.models import Entry, Season
from armada_web.teams.models import Membership
from armada_web.web.errors import NotFound
from armada_web.web.roles import is_staff

AUDIT_SHOWN = 100


def findings(*, season: Season | None) -> QuerySet[Finding]:
    """The findings of `season` (None: of all ranked play), the strongest first."""
    return Finding.objects.filter(season=season).select_related("season").order_by(*STRONGEST_FIRST)


def finding(pk: int) -> Finding:
    """One finding; NotFound."""
    found = Finding.objects.select_related("season").filter(pk=pk).first()
    if found is None:
        raise NotFound("no such finding")
    return found


def counts(*, season: Season | None) -> list[dict[str, Any]]:
    """Per kind: its label and how many findings are open, dismissed, confirmed and in all."""
    rows = Finding.objects.filter(season=season).values("kind", "status").annotate(n=Count("id")).order_by()
    table = {kind: {"kind": kind, "label": label, "total": 0, **dict.fromkeys(FindingStatus.values, 0)}
             for kind, label in FindingKind.choices}
    for row in rows:
        table[row["kind"]][row["status"]] = row["n"]
        table[row["kind"]]["total"] += row["n"]
    return list(table.values())


def audit(*, season: Season | None, limit: int = AUDIT_SHOWN) -> list[AuditEntry]:
    """The audit log of `season` (None: of all ranked play), the newest first."""
    return list(AuditEntry.objects.filter(season=season).select_related("finding")[:limit])


def last_run(*, season: Season | None) -> AuditEntry | None:
    """When the checks last ran for `season`, with their counts."""
    return AuditEntry.objects.filter(season=season, action="checked").first()


def run_state(*, season: Season | None) -> dict[str, str]:
    """Whether a run of the checks for `season` goes on now (`{"state": "running"}`) or was sent by
    staff and waits for a worker (`{"state": "sent", "by": name}`); `{"state": ""}` otherwise."""
    state, _, by = tasks.run_state(season.pk if season else None).partition(":")
    return {"state": state, "by": by}


def disqualifications(*, season: Season) -> list[Disqualification]:
    """The season's disqualifications, the newest first."""
    return list(Disqualification.objects.filter(season=season).select_related("by"))


def decisions_seen(*, season: Season, user: Any) -> list[Disqualification]:
    """The disqualifications in `season` that `user` may read: staff every one, a signed-in account
    its own and its teams' (`decisions_for`), anyone else none."""
    if is_staff(user):
        return disqualifications(season=season)
    return decisions_for(season=season, user=user)


def decisions_for(*, season: Season, user: Any) -> list[Disqualification]:
    """The disqualifications in `season` of the signed-in `user` (what its season page shows it):
    its own, and those of every team it is or was in (a team's, or a version's of the team's entry)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return []
    teams = Membership.objects.filter(user_id=user.pk).values("team_id")
    return list(Disqualification.objects.filter(Q(user_id=user.pk) | Q(team_ref__in=teams), season=season))


def team_decided(*, season: Season, team_ref: int) -> bool:
    """Did a disqualification in `season` take the entries of team `team_ref`: the team's own, one
    of its versions', or an account's of a member's (present or past)?"""
    members = Membership.objects.filter(team_id=team_ref).values("user_id")
    return Disqualification.objects.filter(Q(team_ref=team_ref) | Q(target=Target.ACCOUNT, user_id__in=members),
                                           season=season).exists()


def entered_versions(*, season: Season | None) -> set[str]:
    """The season's entered versions as the findings' buttons name them (`version:ID`): a version
    without an entry has nothing to disqualify (its button would only be refused)."""
    if season is None:
        return set()
    return {f"version:{ref}" for ref in Entry.objects.filter(season=season).values_list("version_ref", flat=True)}


def taken_by_decisions(*, season: Season, version_ids: list[int]) -> set[int]:
    """Of `version_ids`, those whose entry an account's or a team's disqualification in `season`
    took: the version's bot is that account's or that team's."""
    decisions = disqualifications(season=season)
    users = {d.user_id for d in decisions if d.target == Target.ACCOUNT and d.user_id}
    teams = {d.team_ref for d in decisions if d.target == Target.TEAM and d.team_ref}
    if not users and not teams:
        return set()
    return {v.pk for v in BotVersion.objects.filter(pk__in=version_ids).select_related("bot")
            if v.bot.owner_id in users or v.bot.team_id in teams}


def decided(*, season: Season | None) -> set[str]:
    """What the season's disqualifications already took, as `field:value` of the findings' buttons
    (`version:ID`, `username:NAME`): such a button shows the decision instead."""
    if season is None:
        return set()
    return {f"version:{d.version_ref}" if d.version_ref else f"username:{d.username}"
            for d in disqualifications(season=season) if d.version_ref or (d.username and not d.team_name)}


def _version_ids(targets: list[tuple[str, str, str]]) -> list[int]:
    return [int(value) for field, value, _label in targets if field == "version" and value.isdigit()]


def settled(*, season: Season | None, targets: list[list[tuple[str, str, str]]], done: set[str]) -> list[bool]:
    """For each finding's `targets` (`season_targets`), whether a subject was disqualified already: by
    its own decision (`done`, from `decided`) or, a version, with its account's or team's (one query
    for them all). Such an open finding says to confirm or dismiss it (an organiser's trial: after
    disqualifying the copier with the form, not the finding's button, its copy findings stayed open
    among the ones to act on)."""
    taken = set() if season is None else taken_by_decisions(
        season=season, version_ids=[v for each in targets for v in _version_ids(each)])
    return [any(f"{field}:{value}" in done for field, value, _label in each)
            or any(v in taken for v in _version_ids(each)) for each in targets]


def season_targets(*, finding: Finding, season: Season | None) -> list[tuple[str, str, str]]:
    """`finding.targets` as a season's buttons offer them: a version without an entry there stands
    for its bot's entered version, if the bot has one (a copy may be shown in a version older than
    the one entered, and disqualifying takes an entry); the rest as they are."""
    targets = finding.targets
    if season is None or not finding.about_versions:
        return targets
    bots = {str(v.get("id")): v.get("bot_id") for v in (finding.evidence or {}).get("versions", [])
            if isinstance(v, dict)}
    entries = {e.bot_ref: e for e in Entry.objects.filter(season=season, bot_ref__in=[b for b in bots.values() if b])}
    entered = {str(e.version_ref) for e in entries.values()}
    found = []
    for kind, value, label in targets:
        bot = bots.get(value)
        entry = entries.get(bot) if isinstance(bot, int) and kind == "version" and value not in entered else None
        if entry is not None:
            value = str(entry.version_ref)
            label = f"{entry.bot_name} v{entry.version_number} (version id {entry.version_ref}, its entry)"
        found.append((kind, value, label))
    return found


@dataclass(frozen=True)
class PartlyRead:
    """A version whose sources were not all fingerprinted: the paths cut or left out."""

    version: BotVersion
    unread: list[str]


def partly_read(*, season: Season | None) -> list[PartlyRead]:
    """The versions the copy check is about (`copies.scope`) whose sources were past the reading
    budget (`Fingerprint.unread`): what the check did not read, where copied code could hide."""
    rows = list(Fingerprint.objects.exclude(unread=[]).select_related("version__bot").order_by("version_id"))
    if not rows:
        return []
    about = set(scope(season))
    return [PartlyRead(row.version, list(row.unread)) for row in rows if row.version_id in about]


@dataclass(frozen=True)
class Link:
    """A link to a piece of evidence."""

    label: str
    url: str


def links(item: Finding) -> list[Link]:
    """The links to a finding's evidence: a copy's side-by-side page (twins': their agreed turns)
    and both versions, a pair's
    matches (their replays are on each match's page), a group's accounts."""
    evidence = item.evidence or {}
    if item.about_versions:
        label = "side by side" if item.kind == FindingKind.COPY else "agreed turns"
        found = [Link(label, reverse("staff-integrity-finding", args=[item.pk]))]
        for version in evidence.get("versions", []):
            if version.get("bot_id") is None:
                continue
            found.append(Link(f"{version.get('bot')} v{version.get('number')}",
                              reverse("bot-version", args=[version.get("bot_id"), version.get("number")])))
        return found
    if item.kind == FindingKind.COLLUSION:
        lost = set(evidence.get("lost", []))
        return [Link(f"#{m}{' (lost)' if m in lost else ''}", reverse("match", args=[m]))
                for m in evidence.get("matches", [])]
    if item.kind == FindingKind.ACCOUNTS:
        return [link for name in item.subjects if (link := _user_link(str(name))) is not None]
    return []


def _user_link(name: str) -> Link | None:
    """The account's page; None for a name no account can have (a deleted owner's placeholder)."""
    try:
        return Link(name, reverse("user", args=[name]))
    except NoReverseMatch:
        return None


@dataclass
class Passage:
    """A matching passage, each side's lines with the matching ones marked."""

    a_file: str
    b_file: str
    a: list[Line] = field(default_factory=list)
    b: list[Line] = field(default_factory=list)
    fingerprints: int = 0


def side_by_side(item: Finding) -> list[Passage]:
    """A copy's matching passages cut from both sources (read again from storage); empty when the
    evidence has none (a source was gone when the check ran) or the sources are gone now."""
    evidence = item.evidence or {}
    found = evidence.get("passages") or []
    versions = evidence.get("versions") or []
    if item.kind != FindingKind.COPY or not found or len(versions) != 2:
        return []
    rows = BotVersion.objects.in_bulk([versions[0]["id"], versions[1]["id"]])
    texts = [sources(rows[v["id"]]) if v["id"] in rows else None for v in versions]
    passages = []
    for passage in found:
        a, b = passage["a"], passage["b"]
        passages.append(Passage(a["file"], b["file"],
                                excerpt((texts[0] or {}).get(a["file"]), a["first"], a["last"]),
                                excerpt((texts[1] or {}).get(b["file"]), b["first"], b["last"]),
                                passage.get("fingerprints", 0)))
    return passages
