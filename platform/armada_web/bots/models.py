"""Bots and their uploaded versions."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower

from armada_web.games import SPECS
from armada_web.teams.models import Team

#: The games a bot can be written for (the registry's slugs and labels).
Game = models.TextChoices("Game", [(s.slug.upper(), (s.slug, s.label)) for s in SPECS.values()])  # type: ignore[misc,call-overload]


class Bot(models.Model):
    """A competitor's bot for one game; its code comes in versions."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="bots", help_text="empty once the owner deleted their account")
    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="bots",
                             help_text="the team whose members manage it (a personal team: one user)")
    game = models.CharField(max_length=16, choices=Game.choices)
    name = models.CharField(max_length=40, help_text="unique per game (case-insensitive); 3..40 of A-Z a-z 0-9 - _")
    description = models.TextField(blank=True, max_length=2000)
    created = models.DateTimeField(auto_now_add=True)
    active_version = models.ForeignKey("BotVersion", null=True, blank=True, on_delete=models.SET_NULL,
                                       related_name="+", help_text="the version that plays")
    pinned = models.BooleanField(default=False, help_text="the owner chose the active version (no auto-update)")
    retired = models.DateTimeField(null=True, blank=True, help_text="when it stopped playing (history kept)")
    disabled = models.BooleanField(default=False, help_text="staff stopped it from playing")
    disabled_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["game", "name"]
        constraints = [
            models.UniqueConstraint(Lower("name"), "game", name="bot_name_unique_per_game"),
        ]
        # The bot list's order (`/api/bots/`, pages of 50): without it, every page sorts every bot.
        indexes = [models.Index(fields=["game", "name"], name="bot_list_order")]

    def __str__(self) -> str:
        return f"{self.name} ({self.game})"

    @property
    def is_active(self) -> bool:
        """Plays now: its active version is among `BotVersion.objects.playing()` (one query)."""
        return BotVersion.objects.playing().filter(bot=self).exists()


class VersionStatus(models.TextChoices):
    PENDING = "pending", "pending"
    """Uploaded and queued for validation."""
    VALIDATING = "validating", "validating"
    """A worker is validating it in the sandbox now."""
    VALID = "valid", "valid"
    """Passed validation: it may play."""
    INVALID = "invalid", "invalid"
    """Failed validation because of the bot (the detail and log say why)."""
    ERROR = "error", "error"
    """The platform failed to validate it after its retries (Docker down, storage error): not the bot's fault."""


class VersionQuerySet(models.QuerySet["BotVersion"]):
    def playing(self) -> VersionQuerySet:
        """The versions that play: valid, their bot's active version, the bot neither retired nor
        disabled, its owner's account still there and, for a personal team's bot, active (staff untick
        *active* to ban one: an organiser's trial saw a banned account's bot play on and enter a season;
        a shared team's bot stays with the team, as when its creator deletes their account) and its
        team not archived (the one definition the ladder, the league, matchmaking, challenges, season
        entries and revalidation all use; `bots.queries.entry_stopped` says it in words)."""
        return self.filter(Q(bot__owner__is_active=True) | Q(bot__team__personal=False), status=VersionStatus.VALID,
                           bot__active_version=F("pk"), bot__retired__isnull=True, bot__disabled=False,
                           bot__owner__isnull=False, bot__team__archived__isnull=True)

    def of_game(self, game: str) -> VersionQuerySet:
        return self.filter(bot__game=game)


class BotVersion(models.Model):
    """One upload of a bot's code, numbered 1, 2, ... per bot, and its validation."""

    objects = VersionQuerySet.as_manager()

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    archive = models.FileField(upload_to="versions/", max_length=300, blank=True,
                               help_text="the normalised zip in private storage; empty once deleted")
    sha256 = models.CharField(max_length=64, help_text="of the normalised archive: same files, same hash")
    size = models.PositiveIntegerField(help_text="bytes uploaded")
    files = models.PositiveIntegerField(default=0, help_text="files in the archive")
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+", help_text="the team's member who uploaded it (team and staff "
                                    "only); empty for a version from before it was recorded, or once that "
                                    "account was deleted")
    status = models.CharField(max_length=12, choices=VersionStatus.choices, default=VersionStatus.PENDING)
    detail = models.CharField(max_length=500, blank=True, help_text="one line: why invalid or error")
    log = models.TextField(blank=True, help_text="the bot's stderr tail from validation (owner and staff only)")
    replay = models.FileField(upload_to="versions/", max_length=300, blank=True,
                              help_text="the validation game's replay in private storage (owner and staff only)")
    orders = models.JSONField(null=True, blank=True, help_text="Mothership Down: the orders given (MD-11)")
    race_name = models.CharField(max_length=40, blank=True, help_text="the name the bot gave at init (MD-3)")
    engine_version = models.CharField(max_length=40, blank=True, help_text="engine it was validated with")
    resources = models.JSONField(default=dict, blank=True,
                                 help_text="what its validation game used: init_ms, init_budget_ms, memory_peak_mib, "
                                           "memory_limit_mib (bots.logic.resources)")
    attempts = models.PositiveSmallIntegerField(default=0, help_text="validation runs started")
    created = models.DateTimeField(auto_now_add=True)
    queued = models.DateTimeField(null=True, blank=True, help_text="latest time its validation was queued")
    started = models.DateTimeField(null=True, blank=True, help_text="latest validation start")
    heartbeat = models.DateTimeField(null=True, blank=True, help_text="latest sign of life of the worker running it")
    holder = models.CharField(max_length=200, blank=True, help_text="the process running it: host:pid:start time")
    finished = models.DateTimeField(null=True, blank=True, help_text="validation end")

    class Meta:
        ordering = ["bot", "-number"]
        constraints = [models.UniqueConstraint(fields=["bot", "number"], name="version_number_unique_per_bot")]
        indexes = [models.Index(fields=["status", "started"])]

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"

    @property
    def is_finished(self) -> bool:
        return self.status in (VersionStatus.VALID, VersionStatus.INVALID, VersionStatus.ERROR)

    @property
    def validation_seed(self) -> int:
        """The seed of its validation game: its bots get their ARMADA_BOT_SEED from it, as a match's."""
        return int(self.pk)
