"""Galaxy ratings per bot version, their history, and the Mothership Down league table."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q
from django.db.models.expressions import CombinedExpression

from armada.ratings import SCORE_SIGMAS

#: The rows a rated game's ladder lists (its playing versions that have played, or that start where
#: their predecessor was: shown there from the start), by score.
ON_LADDER = Q(playing=True) & (Q(games__gt=0) | Q(placed=True))
#: The rows matchmaking chooses from.
RANKED = Q(playing=True, benched=False)


def score_of(mu: str = "mu", sigma: str = "sigma") -> CombinedExpression:
    """The displayed score of the fields `mu` and `sigma` in SQL (`armada.ratings.displayed`)."""
    return F(mu) - SCORE_SIGMAS * F(sigma)


class Rating(models.Model):
    """A Galaxy version's rating (ratings.py) and its ranked record."""

    version = models.OneToOneField("bots.BotVersion", on_delete=models.CASCADE, related_name="rating")
    game = models.CharField(max_length=16, help_text="its bot's game (kept here for the ladder's index)")
    playing = models.BooleanField(default=False, help_text="its version is among BotVersion.objects.playing() "
                                  "(kept by ladder.playing on every change of a bot's playing version)")
    mu = models.FloatField()
    sigma = models.FloatField()
    score = models.GeneratedField(expression=score_of(), output_field=models.FloatField(),
                                  db_persist=True, help_text="the ladder's displayed score, mu - 3 sigma")
    games = models.PositiveIntegerField(default=0, help_text="rated games")
    placed = models.BooleanField(default=False, help_text="started from a predecessor's rating (shown where it was, "
                                 "before its own first game)")
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    faults_in_row = models.PositiveSmallIntegerField(default=0, help_text="ranked games in a row ended by its fault")
    benched = models.BooleanField(default=False, help_text="plays no ranked games (too many faults in a row)")
    benched_reason = models.CharField(max_length=500, blank=True)
    last_played = models.DateTimeField(null=True, blank=True, help_text="latest ranked match made for it")
    due = models.DateTimeField(null=True, blank=True, help_text="matchmaking's seed order: its latest ranked match's "
                               "time less its priority bonus (ladder.logic.matchmaking.mark_played)")
    updated = models.DateTimeField(auto_now=True)

    @property
    def listed(self) -> bool:
        """Does the ladder list it while it plays (`ON_LADDER` without the playing flag): it has games, or
        starts from a predecessor's rating."""
        return self.games > 0 or self.placed

    @property
    def bench_why(self) -> str:
        """Why it is benched, for a page that says "Benched" already: `benched_reason` (as
        `ratings.apply` writes it, and the API gives it) without its leading "benched: " (nor a final full stop)."""
        reason = self.benched_reason.strip().rstrip(".")
        return reason[len("benched:"):].lstrip() if reason.lower().startswith("benched:") else reason

    class Meta:
        indexes = [
            models.Index(fields=["benched"]),
            models.Index(F("game"), F("score").desc(), F("version_id"), condition=ON_LADDER, name="rating_ladder"),
            # matchmaking: the seed order (never played first, then by due), and opponents near in mu
            models.Index(F("game"), F("due"), F("version_id"), condition=RANKED, name="rating_seed_order"),
            models.Index(F("game"), F("mu"), F("version_id"), condition=RANKED, name="rating_near_mu"),
            # the estimates (/status/, bot pages): the candidates still settling, and those never played
            models.Index(F("game"), F("games"), condition=RANKED, name="rating_settling"),
            models.Index(F("game"), F("version_id"), condition=RANKED & Q(last_played__isnull=True),
                         name="rating_never_played"),
        ]

    def __str__(self) -> str:
        return f"rating of version {self.version_id}: {self.mu:.2f} +- {self.sigma:.2f}"


class RatingChange(models.Model):
    """A version's rating after one finished ranked match (the rating history)."""

    # (version, match)'s unique index serves every lookup by version: no index of its own.
    version = models.ForeignKey("bots.BotVersion", on_delete=models.CASCADE, related_name="rating_history",
                                db_index=False)
    match = models.ForeignKey("matches.Match", on_delete=models.CASCADE, related_name="rating_changes")
    mu = models.FloatField()
    sigma = models.FloatField()
    at = models.DateTimeField()
    games = models.PositiveIntegerField(default=0, help_text="the version's rated games with this one (1 = its "
                                        "first): the rating chart picks its points by it")

    class Meta:
        ordering = ["version", "at", "id"]
        constraints = [models.UniqueConstraint(fields=["version", "match"], name="one_change_per_match")]
        indexes = [models.Index(fields=["version", "games"], name="rating_change_nth_game"),
                   # The estimates read the last minutes' changes (ladder.queries.ranked_queue) on every
                   # bot page and /status/: without it, a scan of the season's whole history.
                   models.Index(fields=["at"], name="rating_change_at")]


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
        indexes = [models.Index(fields=["position"], name="league_entry_position")]
        verbose_name_plural = "league entries"

    @property
    def damage_difference(self) -> int:
        return self.damage_dealt - self.damage_taken

    @property
    def wins(self) -> int:
        return self.wins_destruction + self.wins_damage
