"""What the integrity checks keep: each version's code fingerprint, and the findings of every kind
(copied code, behavioural twins, shared accounts, collusion) that staff review (docs/integrity.md)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Fingerprint(models.Model):
    """A version's code fingerprint (`integrity.logic.fingerprints`), computed when its validation
    ends; `scheme` names the normalisation and the k and w it was computed with."""

    version = models.OneToOneField("bots.BotVersion", on_delete=models.CASCADE, primary_key=True,
                                   related_name="fingerprint")
    hashes = models.BinaryField(help_text="the distinct winnowed hashes, sorted, 8 bytes each (little-endian)")
    count = models.PositiveIntegerField(default=0, help_text="how many hashes")
    tokens = models.PositiveIntegerField(default=0, help_text="normalised tokens of the sources")
    text_files = models.JSONField(default=list, blank=True, help_text="files read as text: they did not tokenize")
    unread = models.JSONField(default=list, blank=True, help_text="its .py files cut or left out at the reading "
                              "budget (integrity.fingerprints.SOURCE_BUDGET): not all compared")
    scheme = models.PositiveSmallIntegerField(help_text="integrity.logic.fingerprints.SCHEME when computed")
    computed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"fingerprint of version {self.version_id} ({self.count} hashes)"


class Behaviour(models.Model):
    """A version's behaviour signature (`integrity.logic.probes`): one hash per position of its
    game's probe set, computed after its validation (`integrity.behaviour.probe_version`);
    `digest` names the probe set it answered, so a changed probe set is probed again."""

    version = models.OneToOneField("bots.BotVersion", on_delete=models.CASCADE, primary_key=True,
                                   related_name="behaviour")
    digest = models.CharField(max_length=32, help_text="the probe set's digest when probed")
    hashes = models.BinaryField(help_text="one hash per probe position, 8 bytes each (little-endian); 0: no answer")
    positions = models.PositiveIntegerField(default=0)
    answers = models.BinaryField(blank=True, default=b"",
                                 help_text="its own answers by position (zlib JSON), the evidence; empty: not kept")
    fault = models.CharField(max_length=300, blank=True, help_text="where it failed on the probes, if it did")
    probed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"behaviour of version {self.version_id} ({self.positions} positions)"


class FindingKind(models.TextChoices):
    COPY = "copy", "copied code"
    TWIN = "twin", "behavioural twins"
    ACCOUNTS = "accounts", "shared accounts"
    COLLUSION = "collusion", "thrown games"


class FindingStatus(models.TextChoices):
    OPEN = "open", "open"
    DISMISSED = "dismissed", "dismissed"
    CONFIRMED = "confirmed", "confirmed"


class Finding(models.Model):
    """One suspicion, of any kind, for a season (or, without one, for all of ranked play).

    `key` names what it is about within its kind (a copy: the two bots, `bots:12-34`), so running
    a check again updates its finding (score, subjects, reason, evidence) instead of adding one,
    and keeps the status staff gave it."""

    kind = models.CharField(max_length=12, choices=FindingKind.choices)
    key = models.CharField(max_length=200, help_text="what it is about, unique per kind and season")
    season = models.ForeignKey("seasons.Season", null=True, blank=True, on_delete=models.CASCADE,
                               related_name="findings", help_text="empty: all of ranked play")
    subjects = models.JSONField(default=list, help_text="version ids, usernames or team names, as the kind needs")
    score = models.FloatField(help_text="its strength, 0..1 for a copy (the ranking is by it)")
    reason = models.CharField(max_length=300, help_text="one line for the report")
    evidence = models.JSONField(default=dict, blank=True, help_text="what the report shows (kind-specific)")
    status = models.CharField(max_length=10, choices=FindingStatus.choices, default=FindingStatus.OPEN)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-score", "id"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "key", "season"], condition=Q(season__isnull=False),
                                    name="finding_unique_per_season"),
            models.UniqueConstraint(fields=["kind", "key"], condition=Q(season__isnull=True),
                                    name="finding_unique_in_ranked_play"),
        ]
        indexes = [models.Index(fields=["season", "kind", "-score"], name="finding_ranked")]

    def __str__(self) -> str:
        return f"{self.kind} {self.key} ({self.score:.2f}, {self.status})"

    @property
    def about_versions(self) -> bool:
        """Its subjects are version ids (copies and twins); else usernames (shared accounts, thrown games)."""
        return self.kind in (FindingKind.COPY, FindingKind.TWIN)

    @property
    def targets(self) -> list[tuple[str, str, str]]:
        """What staff may disqualify for it: (the form field, its value, a label) per subject, the
        field "version" for a version id, "username" for an account."""
        if not self.about_versions:
            return [("username", str(name), str(name)) for name in self.subjects]
        named = {v.get("id"): v for v in (self.evidence or {}).get("versions", []) if isinstance(v, dict)}
        found = []
        for version_id in self.subjects:
            facts = named.get(version_id) or {}
            label = (f"{facts['bot']} v{facts['number']} (version id {version_id})"
                     if "bot" in facts and "number" in facts else f"version id {version_id}")
            found.append(("version", str(version_id), label))
        return found


class Target(models.TextChoices):
    """What staff disqualify from a season."""

    VERSION = "version", "a version's entry"
    ACCOUNT = "account", "an account's entries"
    TEAM = "team", "a team's entries"


class Disqualification(models.Model):
    """Staff's decision that a version, an account or a team leaves a season
    (`integrity.actions.disqualify`): its entries left the standings; the account (a team's
    members, present and past) sees it, and its reason, on the season's page.

    One per version, account or team and season (the constraints make a second click count once); names
    are copied, so the row still says whom it was about when the bot or the account is gone."""

    season = models.ForeignKey("seasons.Season", on_delete=models.CASCADE, related_name="disqualifications")
    target = models.CharField(max_length=10, choices=Target.choices)
    version_ref = models.BigIntegerField(null=True, blank=True, help_text="the version's id (target: version)")
    version_label = models.CharField(max_length=100, blank=True, help_text="its bot and number, e.g. `raider v3`")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="disqualifications", help_text="the account (a version's: its owner)")
    username = models.CharField(max_length=150, blank=True)
    team_ref = models.BigIntegerField(null=True, blank=True, help_text="the team's id (target: team)")
    team_name = models.CharField(max_length=40, blank=True, help_text="the team's name at the decision")
    reason = models.CharField(max_length=500, help_text="shown to the account on the season's page")
    finding = models.ForeignKey(Finding, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    entries = models.PositiveIntegerField(default=0, help_text="entries that left the season")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                           related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["season", "version_ref"], condition=Q(target="version"),
                                    name="one_disqualification_per_version"),
            models.UniqueConstraint(fields=["season", "user"], condition=Q(target="account"),
                                    name="one_disqualification_per_account"),
            models.UniqueConstraint(fields=["season", "team_ref"], condition=Q(target="team"),
                                    name="one_disqualification_per_team"),
        ]

    def __str__(self) -> str:
        return f"{self.target} {self.version_label or self.username or self.team_name} out of {self.season_id}"


class AuditAction(models.TextChoices):
    CHECKED = "checked", "ran the checks"
    OPENED = "open", "reopened"
    DISMISSED = "dismissed", "dismissed"
    CONFIRMED = "confirmed", "confirmed"
    DISQUALIFIED = "disqualified", "disqualified"


class AuditEntry(models.Model):
    """One thing staff (or the season's close) did with the report: who, what, when, about which
    finding and subject, with their note. Written by `integrity.actions` only when the action
    changed something, so two clicks at once leave one line."""

    at = models.DateTimeField(auto_now_add=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                           related_name="+", help_text="empty: the site itself (a season's close)")
    by_name = models.CharField(max_length=150, blank=True)
    action = models.CharField(max_length=12, choices=AuditAction.choices)
    season = models.ForeignKey("seasons.Season", null=True, blank=True, on_delete=models.CASCADE,
                               related_name="+")
    finding = models.ForeignKey(Finding, null=True, blank=True, on_delete=models.SET_NULL, related_name="audit")
    subject = models.CharField(max_length=300, blank=True, help_text="what it was about, in words")
    note = models.CharField(max_length=500, blank=True)
    score = models.FloatField(null=True, blank=True,
                              help_text="the finding's score when it was marked (its report's runs change it)")

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.by_name or 'site'} {self.action} {self.subject}"
