"""Private events: a user's own small competition among invited members' bots (docs/seasons.md)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from armada_web.bots.models import Game


class EventFormat(models.TextChoices):
    ROUND_ROBIN = "round_robin", "round robin"
    """Every pair of entries plays `games_per_pair` games, sides alternating; finished when all are played."""
    LADDER = "ladder", "ladder"
    """Games paired by the ladder's matchmaking among the entries until `ends`."""


class EventState(models.TextChoices):
    OPEN = "open", "open"
    """Taking entries; its owner starts it (or it starts at `starts`)."""
    RUNNING = "running", "running"
    """Its matches are being played; the table updates as each is recorded."""
    FINISHED = "finished", "finished"
    """Its table is frozen."""


class Event(models.Model):
    """An event: its owner, game, format, times, visibility and invite code."""

    slug = models.SlugField(max_length=60, unique=True)
    name = models.CharField(max_length=100)
    game = models.CharField(max_length=16, choices=Game.choices)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                              related_name="events_owned")
    format = models.CharField(max_length=12, choices=EventFormat.choices)
    games_per_pair = models.PositiveSmallIntegerField(null=True, blank=True, help_text="round robin")
    starts = models.DateTimeField(null=True, blank=True, help_text="starts by itself then (else its owner starts it)")
    ends = models.DateTimeField(null=True, blank=True, help_text="ladder: required; the table is frozen then")
    public = models.BooleanField(default=False, help_text="anyone may see it (else its members only)")
    max_entrants = models.PositiveSmallIntegerField()
    invite = models.CharField(max_length=40, help_text="the code of its invite link")
    state = models.CharField(max_length=10, choices=EventState.choices, default=EventState.OPEN)
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    games_total = models.PositiveIntegerField(default=0, help_text="round robin: games planned")
    last_sent = models.DateTimeField(null=True, blank=True, help_text="when a match of it was last sent")

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["state"]), models.Index(fields=["owner", "created"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.slug}, {self.state})"


class EventEntry(models.Model):
    """A member's bot in an event and its line of the table (names copied: they outlive the bot and the owner)."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="entries")
    bot = models.ForeignKey("bots.Bot", null=True, on_delete=models.SET_NULL, related_name="event_entries")
    bot_ref = models.BigIntegerField()
    bot_name = models.CharField(max_length=60)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                              related_name="event_entries")
    team = models.ForeignKey("teams.Team", null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="event_entries",
                             help_text="the bot's team when it entered (one bot per team)")
    team_name = models.CharField(max_length=40, blank=True)
    version = models.ForeignKey("bots.BotVersion", null=True, on_delete=models.SET_NULL, related_name="+",
                                help_text="the version that plays (its bot's playing one when the event starts)")
    created = models.DateTimeField(auto_now_add=True)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    points = models.PositiveIntegerField(default=0, help_text="3 a win, 1 a draw")
    mu = models.FloatField(default=25.0, help_text="ladder format: the event's own rating, for pairing only")
    sigma = models.FloatField(default=25.0 / 3)
    last_played = models.DateTimeField(null=True, blank=True)
    place = models.PositiveIntegerField(null=True, blank=True, help_text="its place when the event finished")

    class Meta:
        ordering = ["event", "created", "id"]
        verbose_name_plural = "event entries"
        constraints = [models.UniqueConstraint(fields=["event", "bot_ref"], name="one_entry_per_bot_per_event"),
                       models.UniqueConstraint(fields=["event", "owner"], name="one_entry_per_member")]

    def __str__(self) -> str:
        return f"{self.bot_name} in {self.event_id}"


class EventWithdrawal(models.Model):
    """An entry withdrawn before its event started (`services.withdraw`): who withdrew which bot, and
    when it had entered (its use of the member's entries per day stays counted in `accounts.limits`)."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="withdrawals")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+",
                              help_text="who had entered the bot")
    bot_ref = models.BigIntegerField()
    bot_name = models.CharField(max_length=60)
    entered = models.DateTimeField()
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+",
                           help_text="who withdrew it (its team's member or the event's owner)")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["event", "created", "id"]
        indexes = [models.Index(fields=["owner", "entered"])]

    def __str__(self) -> str:
        return f"{self.bot_name} withdrawn from {self.event_id}"


class EventInvitation(models.Model):
    """A team the event's owner invited: its members see the event and enter a bot of the team
    without the invite code (a user is invited as their personal team)."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="invitations")
    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="event_invitations")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["event", "created", "id"]
        constraints = [models.UniqueConstraint(fields=["event", "team"], name="one_invitation_per_team")]

    def __str__(self) -> str:
        return f"{self.team_id} invited to {self.event_id}"


class EventGame(models.Model):
    """A game of an event (planned in a round robin, made as it goes in a ladder) and its match."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="games")
    number = models.PositiveIntegerField(help_text="its order in the event's plan")
    first = models.ForeignKey(EventEntry, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(EventEntry, on_delete=models.CASCADE, related_name="+")
    match = models.OneToOneField("matches.Match", null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="event_game", help_text="the latest match made for it")
    tries = models.PositiveSmallIntegerField(default=0)
    counted = models.BooleanField(default=False)
    skipped = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["event", "number"]
        constraints = [models.UniqueConstraint(fields=["event", "number"], name="one_event_game_per_number")]

    @property
    def done(self) -> bool:
        return self.counted or bool(self.skipped)
