"""Galaxy ratings per bot version, their history, and the Mothership Down league table."""

from __future__ import annotations

from django.db import models


class Rating(models.Model):
    """A Galaxy version's rating (openskill, ratings.py) and its ranked record."""

    version = models.OneToOneField("bots.BotVersion", on_delete=models.CASCADE, related_name="rating")
    mu = models.FloatField()
    sigma = models.FloatField()
    games = models.PositiveIntegerField(default=0, help_text="rated games")
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    faults_in_row = models.PositiveSmallIntegerField(default=0, help_text="ranked games in a row ended by its fault")
    benched = models.BooleanField(default=False, help_text="plays no ranked games (too many faults in a row)")
    benched_reason = models.CharField(max_length=500, blank=True)
    last_played = models.DateTimeField(null=True, blank=True, help_text="latest ranked match made for it")
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["benched"])]

    def __str__(self) -> str:
        return f"rating of version {self.version_id}: {self.mu:.2f} +- {self.sigma:.2f}"

    @property
    def score(self) -> float:
        """The ladder's displayed score, mu - 3 sigma."""
        return self.mu - 3 * self.sigma


class RatingChange(models.Model):
    """A version's rating after one finished ranked match (the rating history)."""

    version = models.ForeignKey("bots.BotVersion", on_delete=models.CASCADE, related_name="rating_history")
    match = models.ForeignKey("matches.Match", on_delete=models.CASCADE, related_name="rating_changes")
    mu = models.FloatField()
    sigma = models.FloatField()
    at = models.DateTimeField()

    class Meta:
        ordering = ["version", "at", "id"]
        constraints = [models.UniqueConstraint(fields=["version", "match"], name="one_change_per_match")]


class LeagueEntry(models.Model):
    """A race's line in the Mothership Down league (MD-10): sums over its battles with every other race."""

    version = models.OneToOneField("bots.BotVersion", on_delete=models.CASCADE, related_name="league_entry")
    position = models.PositiveIntegerField(default=0)
    played = models.PositiveIntegerField(default=0)
    points = models.PositiveIntegerField(default=0)
    wins_destruction = models.PositiveIntegerField(default=0)
    wins_damage = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    damage_dealt = models.PositiveIntegerField(default=0)
    damage_taken = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["position"]
        verbose_name_plural = "league entries"

    @property
    def damage_difference(self) -> int:
        return self.damage_dealt - self.damage_taken

    @property
    def wins(self) -> int:
        return self.wins_destruction + self.wins_damage
