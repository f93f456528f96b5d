"""Seasons: a game's competition with a deadline, its frozen entries, the finals' games and the
final standings (docs/seasons.md)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from armada_web.bots.models import Game


class SeasonState(models.TextChoices):
    UPCOMING = "upcoming", "upcoming"
    """Created; opens at `opens`."""
    OPEN = "open", "open"
    """The ladder as every day; each bot's active version at `closes` becomes its entry."""
    CLOSED = "closed", "closed"
    """The entries are frozen; new versions still validate but enter nothing."""
    FINALS = "finals", "finals"
    """The frozen entries play the staged finals (a rated game)."""
    FINISHED = "finished", "finished"
    """The final standings are stored and never change."""


#: The states before a season's close: no entries yet, its entry and team rules may still change,
#: and it may be deleted.
BEFORE_CLOSE = (SeasonState.UPCOMING, SeasonState.OPEN)


def state_said(state: str) -> str:
    """A season's state as a sentence says it: "season s1 is closed", "... is in its finals"."""
    return "in its finals" if state == SeasonState.FINALS else str(state)


class EntryRule(models.TextChoices):
    """Whose bots a season's close takes as entries (seasons.entries.admitted)."""

    EVERYONE = "everyone", "everyone"
    """Every playing bot (the default)."""
    NOT_STAFF_OR_DEMO = "not-staff-or-demo", "everyone but staff and demo accounts"
    """Not the bots of staff (is_staff or is_superuser) or of demo accounts (accounts.DEMO_GROUP)."""
    INVITED = "invited", "invited accounts only"
    """Only the bots of the accounts in `invited_users` (a list of teams may join it later)."""


class Season(models.Model):
    """A season of one game: open, closed at `closes`, finals until `ends`, then its results for good."""

    slug = models.SlugField(max_length=50, unique=True)
    name = models.CharField(max_length=100)
    game = models.CharField(max_length=16, choices=Game.choices)
    opens = models.DateTimeField()
    closes = models.DateTimeField()
    ends = models.DateTimeField(help_text="the finals finish by then; at this time the standings are final")
    state = models.CharField(max_length=10, choices=SeasonState.choices, default=SeasonState.UPCOMING)
    entry_rule = models.CharField(max_length=20, choices=EntryRule.choices, default=EntryRule.EVERYONE,
                                  help_text="whose bots enter at the close; fixed once it has closed")
    invited_users = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="invited_seasons",
                                           help_text="the accounts whose bots may enter (rule: invited only)")
    # Its team rules (seasons.team_rules), fixed once it has closed.
    team_max_members = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="an entered team has at most this many members (empty: the site's limit)")
    one_team_per_person = models.BooleanField(
        default=False, help_text="a person is in at most one of the teams that enter")
    # The finals' plan, fixed when they start (the settings' defaults or `season finals --stages --games`).
    stages = models.PositiveSmallIntegerField(null=True, blank=True)
    games = models.PositiveSmallIntegerField(null=True, blank=True, help_text="games per entry per stage")
    cuts = models.JSONField(default=list, blank=True, help_text="fraction cut after each stage (the last repeats)")
    keep_min = models.PositiveSmallIntegerField(null=True, blank=True)
    start = models.CharField(max_length=10, blank=True, help_text="where finals ratings started: ladder or prior")
    stage = models.PositiveSmallIntegerField(default=0, help_text="the stage being played (0 before the finals)")
    round = models.PositiveSmallIntegerField(default=0, help_text="the round of that stage being played")
    matches_total = models.PositiveIntegerField(default=0, help_text="matches the whole finals play")
    withdrawn = models.PositiveIntegerField(
        default=0, help_text="entries withdrawn after the close (disqualified): their games left the finals' count")
    finals_workers = models.PositiveSmallIntegerField(default=1, help_text="match workers the finals take now")
    finals_cut = models.PositiveIntegerField(
        default=0, help_text="finals matches the finish left unplayed (counted then: a later disqualification "
                             "takes its games away)")
    left_out = models.JSONField(
        default=list, blank=True, help_text='the bots its team rules left out at the close, "BOT (TEAM)" each')
    created = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    finals_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-opens", "-id"]
        indexes = [models.Index(fields=["state"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.slug}, {self.state})"


class Entry(models.Model):
    """A bot's frozen version in a season (taken at the close) and its finals record.

    The names are copied, so the row still says who it was when the bot or its owner is gone.
    """

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="entries")
    version = models.ForeignKey("bots.BotVersion", null=True, on_delete=models.SET_NULL, related_name="+",
                                help_text="empty once the version was deleted")
    version_ref = models.BigIntegerField(help_text="the version's id")
    version_number = models.PositiveIntegerField()
    bot = models.ForeignKey("bots.Bot", null=True, on_delete=models.SET_NULL, related_name="season_entries")
    bot_ref = models.BigIntegerField(help_text="the bot's id")
    bot_name = models.CharField(max_length=60)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    team = models.ForeignKey("teams.Team", null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="season_entries", help_text="the bot's team at the close")
    team_ref = models.BigIntegerField(null=True, blank=True, help_text="the team's id")
    team_name = models.CharField(max_length=40, blank=True)
    members = models.JSONField(default=list, blank=True, help_text="the team's members' usernames at the close "
                               "(frozen until the results are final)")
    seed = models.PositiveIntegerField(help_text="its place at the close (ladder or league), 1 first")
    ladder_mu = models.FloatField(null=True, blank=True)
    ladder_sigma = models.FloatField(null=True, blank=True)
    ladder_games = models.PositiveIntegerField(default=0)
    points = models.IntegerField(null=True, blank=True, help_text="Mothership Down: league points among the entries")
    mu = models.FloatField(null=True, blank=True, help_text="the finals rating")
    sigma = models.FloatField(null=True, blank=True)
    games = models.PositiveIntegerField(default=0, help_text="finals games (league: battles)")
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    stage = models.PositiveSmallIntegerField(default=1, help_text="the last finals stage it plays in")
    place = models.PositiveIntegerField(null=True, blank=True, help_text="its final place (set as the season ends)")

    class Meta:
        ordering = ["season", "seed"]
        verbose_name_plural = "entries"
        constraints = [models.UniqueConstraint(fields=["season", "bot_ref"], name="one_entry_per_bot")]

    def __str__(self) -> str:
        return f"{self.bot_name} v{self.version_number} in {self.season_id}"


class FinalsGame(models.Model):
    """One planned game of the finals (stage, round, seats) and the match that plays it."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="finals_games")
    stage = models.PositiveSmallIntegerField()
    round = models.PositiveSmallIntegerField()
    first = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+")
    match = models.OneToOneField("matches.Match", null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="finals_game", help_text="the latest match made for it")
    tries = models.PositiveSmallIntegerField(default=0, help_text="matches made for it (a void one is made again)")
    counted = models.BooleanField(default=False, help_text="its result moved the two finals ratings")
    skipped = models.CharField(max_length=200, blank=True, help_text="why it will never be played")

    class Meta:
        ordering = ["season", "stage", "round", "id"]
        indexes = [models.Index(fields=["season", "stage", "round"])]

    @property
    def done(self) -> bool:
        return self.counted or bool(self.skipped)


class Standing(models.Model):
    """A line of a finished season's final standings: written once, never changed.

    Only plain copies (ids, names, figures): a bot, version or ratings changed or deleted later
    leave it as it is; a deleted owner leaves `owner` empty, shown as a placeholder name.
    """

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="standings")
    place = models.PositiveIntegerField()
    bot_ref = models.BigIntegerField()
    bot_name = models.CharField(max_length=60)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    team_ref = models.BigIntegerField(null=True, blank=True, help_text="the entry's team's id")
    team_name = models.CharField(max_length=40, blank=True)
    members = models.JSONField(default=list, blank=True, help_text="the team's members' usernames, as entered")
    version_ref = models.BigIntegerField()
    version_number = models.PositiveIntegerField()
    score = models.FloatField(help_text="Galaxy: the finals rating mu - 3 sigma; Mothership Down: league points")
    games = models.PositiveIntegerField()
    stage = models.PositiveSmallIntegerField(default=1, help_text="the last finals stage it played in")

    class Meta:
        ordering = ["season", "place"]
        constraints = [models.UniqueConstraint(fields=["season", "place"], name="one_standing_per_place")]

    def __str__(self) -> str:
        return f"{self.place}. {self.bot_name} ({self.season_id})"

    def save(self, *args: object, **kwargs: object) -> None:
        if self.pk is not None and not kwargs.get("force_insert"):
            raise ValueError("a final standing is never changed")
        super().save(*args, **kwargs)  # type: ignore[arg-type]
