"""Matches between bot versions and how each seat did (docs/arena.md)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from armada_web.bots.models import Game


class MatchKind(models.TextChoices):
    RANKED = "ranked", "ranked"
    """Chosen by matchmaking; changes the Galaxy ratings."""
    CHALLENGE = "challenge", "challenge"
    """Asked for by a user; unrated."""
    FINALS = "finals", "finals"
    """A game of a season's finals: moves the season's ratings, never the ladder's."""
    EVENT = "event", "event"
    """A game of a private event: counts in the event's table; unrated."""


class MatchStatus(models.TextChoices):
    QUEUED = "queued", "queued"
    """Created and sent to the queue; no worker holds it yet."""
    RUNNING = "running", "running"
    """A worker claimed it and is playing it now."""
    FINISHED = "finished", "finished"
    """Played to the end (a bot's fault is a result too); replay, logs and ratings recorded."""
    FAILED = "failed", "failed"
    """No attempt finished (its workers were lost) after the last attempt: nobody's result."""
    VOID = "void", "void"
    """The platform failed while playing it (Docker, engine, storage): no result, no rating change."""


#: Waiting for a worker or being played.
IN_FLIGHT = (MatchStatus.QUEUED, MatchStatus.RUNNING)
#: Ended with no result: void (the platform's fault) or failed (its workers lost).
ENDED_BADLY = (MatchStatus.VOID, MatchStatus.FAILED)
#: Ended, with or without a result.
ENDED = (MatchStatus.FINISHED, *ENDED_BADLY)


class Result(models.TextChoices):
    WIN = "win", "win"
    DRAW = "draw", "draw"
    LOSS = "loss", "loss"


class Match(models.Model):
    """One game between two bot versions, run by a worker; the database is the queue's truth."""

    game = models.CharField(max_length=16, choices=Game.choices)
    seed = models.BigIntegerField(help_text="the engine's seed (chosen by the server)")
    kind = models.CharField(max_length=12, choices=MatchKind.choices, default=MatchKind.RANKED)
    status = models.CharField(max_length=10, choices=MatchStatus.choices, default=MatchStatus.QUEUED)
    attempts = models.PositiveSmallIntegerField(default=0, help_text="runs started")
    worker = models.CharField(max_length=200, blank=True, help_text="host name of the worker of the latest run")
    host = models.CharField(max_length=100, blank=True, help_text="the worker host of the latest run "
                            "(its ARMADA_HOST_NAME; set at the claim)")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="challenges", help_text="who asked for a challenge")
    created = models.DateTimeField(auto_now_add=True)
    queued = models.DateTimeField(null=True, blank=True, help_text="latest time it was sent to the queue")
    started = models.DateTimeField(null=True, blank=True, help_text="latest run's start")
    heartbeat = models.DateTimeField(null=True, blank=True, help_text="latest sign of life of the worker running it")
    holder = models.CharField(max_length=200, blank=True, help_text="the process running it: host:pid:start time")
    finished = models.DateTimeField(null=True, blank=True, help_text="when it finished, failed or was voided")
    turns = models.PositiveIntegerField(null=True, blank=True)
    outcome = models.JSONField(null=True, blank=True, help_text="the engine's result: winner, outcome, turns, scores")
    replay = models.FileField(upload_to="matches/", max_length=300, blank=True,
                              help_text="gzip replay v1 in private storage")
    replay_size = models.PositiveBigIntegerField(null=True, blank=True,
                                                 help_text="the replay file's bytes as served (empty: not known yet)")
    replay_sha256 = models.CharField(max_length=64, blank=True, help_text="the replay file's SHA-256, hex (as served)")
    engine_version = models.CharField(max_length=40, blank=True, help_text="the engine it ran on (set at the claim)")
    reason = models.CharField(max_length=500, blank=True, help_text="why it is void or failed")

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [
            models.Index(fields=["status", "kind"]), models.Index(fields=["kind", "status", "finished"]),
            # The match list, newest first, filtered by one of its columns (api/matches, pages/matches).
            models.Index(fields=["game", "-id"], name="match_game_newest"),
            models.Index(fields=["kind", "-id"], name="match_kind_newest"),
            models.Index(fields=["kind", "started"], name="match_kind_started"),  # the ranked rate, last hour
            models.Index(fields=["status", "-id"], name="match_status_newest"),
            # The latest finished matches (the home page).
            models.Index(fields=["status", "-finished", "-id"], name="match_status_latest"),
            models.Index(fields=["host", "-id"], name="match_host_newest"),  # the admin's list by host
            # The public replays' list (api/replays: the dataset), newest first, per game.
            models.Index(fields=["game", "-id"], name="match_public_replays_newest",
                         condition=Q(kind="ranked", status="finished") & ~Q(replay="")),
        ]
        verbose_name_plural = "matches"

    def __str__(self) -> str:
        return f"match {self.pk} ({self.game}, {self.kind}, {self.status})"

    @property
    def has_replay(self) -> bool:
        """Finished with its replay kept (retention empties `replay` and leaves the match finished)."""
        return self.status == MatchStatus.FINISHED and bool(self.replay.name)


class Participant(models.Model):
    """One seat of a match: the version that sat there and how it did."""

    # (match, seat)'s unique index serves every lookup by match: no index of its own.
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="participants", db_index=False)
    version = models.ForeignKey("bots.BotVersion", null=True, on_delete=models.SET_NULL, related_name="participations",
                                db_index=False, help_text="empty once the version was deleted")
    bot = models.ForeignKey("bots.Bot", null=True, on_delete=models.SET_NULL, related_name="+", db_index=False,
                            help_text="the version's bot (kept here so a bot's matches are one index range)")
    opponent = models.ForeignKey("bots.Bot", null=True, on_delete=models.SET_NULL, related_name="+", db_index=False,
                                 help_text="the other seat's bot (a pairing's matches are one index range)")
    name = models.CharField(max_length=60, help_text="the bot's name when the match was made")
    seat = models.PositiveSmallIntegerField()
    result = models.CharField(max_length=4, choices=Result.choices, blank=True)
    status = models.CharField(max_length=12, blank=True, help_text="protocol.md status: ok, crashed, timeout, ...")
    detail = models.CharField(max_length=500, blank=True)
    score = models.FloatField(null=True, blank=True, help_text="the game's figure (Galaxy: planets at the end)")
    mu_before = models.FloatField(null=True, blank=True)
    sigma_before = models.FloatField(null=True, blank=True)
    mu_after = models.FloatField(null=True, blank=True)
    sigma_after = models.FloatField(null=True, blank=True)
    expected = models.FloatField(null=True, blank=True, help_text="the rating model's chance, before the game, that "
                                 "this seat wins (rated games; empty before it was kept: computed from the skills)")
    log = models.FileField(upload_to="matches/", max_length=300, blank=True,
                           help_text="the bot's stderr in private storage (owner and staff only)")
    debug = models.FileField(upload_to="matches/", max_length=300, blank=True,
                             help_text="what the bot drew (armada.drawing), gzip JSON in private storage beside "
                             "its log (owner and staff only); empty when it drew nothing")
    timing = models.JSONField(null=True, blank=True,
                              help_text="the seat's time over the match, from its replay's timings when it was "
                              "recorded: {total_ms, max_ms, timeouts} (empty for older matches)")

    class Meta:
        ordering = ["match", "seat"]
        constraints = [models.UniqueConstraint(fields=["match", "seat"], name="one_participant_per_seat")]
        indexes = [
            models.Index(fields=["bot", "-match"], name="seat_bot_newest"),
            models.Index(fields=["bot", "opponent", "-match"], name="seat_pairing_newest"),
            models.Index(fields=["version", "-match"], name="seat_version_newest"),
            # a bot's last faults (few among many games): only the seats that did not end ok
            models.Index(fields=["bot", "-match"], name="seat_faults_newest", condition=~Q(status__in=["ok", ""])),
        ]

    def __str__(self) -> str:
        return f"{self.name} in match {self.match_id} (seat {self.seat})"


class BotRecord(models.Model):
    """A bot's kept counts over its matches, updated in the transactions that make and record them
    (matches.tallies), so no page counts the matches table."""

    bot = models.OneToOneField("bots.Bot", primary_key=True, on_delete=models.CASCADE, related_name="record")
    matches = models.PositiveIntegerField(default=0, help_text="matches made with one of its versions, any status")
    wins = models.PositiveIntegerField(default=0, help_text="finished matches won (ranked and challenges)")
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)

    @property
    def finished(self) -> int:
        return self.wins + self.draws + self.losses


class HeadToHead(models.Model):
    """A bot's finished matches against one opponent bot (kept like BotRecord)."""

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="+", db_index=False)
    opponent = models.ForeignKey("bots.Bot", null=True, on_delete=models.SET_NULL, related_name="+",
                                 help_text="empty once the opponent was deleted (its name stays)")
    opponent_name = models.CharField(max_length=60)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    last_match = models.ForeignKey(Match, null=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["bot", "opponent"], name="one_head_to_head_per_pair")]
        indexes = [models.Index(fields=["bot", "-games", "opponent"], name="head_to_head_most_played")]
