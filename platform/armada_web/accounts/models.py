"""API tokens: stored hashed (knox's digest), several per user, each with a name and its last use."""

from __future__ import annotations

from django.db import models
from knox.models import AbstractAuthToken

#: The group that marks demo accounts (`manage.py seed_demo` puts its users in it; staff may add
#: others in the admin): a season's entry rule can keep them out (seasons.entries).
DEMO_GROUP = "demo accounts"


class ApiToken(AbstractAuthToken):
    """A named API token. Only its sha512 digest and a 15-character lookup prefix are stored."""

    id = models.BigAutoField(primary_key=True)
    digest = models.CharField(max_length=128, unique=True, help_text="sha512 of the secret; never the secret itself")
    name = models.CharField(max_length=64, help_text="what the owner calls it, e.g. 'laptop' or 'armada-cli@host'")
    last_used = models.DateTimeField(null=True, blank=True, help_text="last authenticated request (to the minute)")

    class Meta:
        ordering = ["-created"]
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.name} ({self.user})"


class MailPreferences(models.Model):
    """Which e-mails a user gets (all of them until they turn one off on the profile page)."""

    user = models.OneToOneField("auth.User", on_delete=models.CASCADE, related_name="mail_preferences")
    version_failed = models.BooleanField(default=True, help_text="a version of my bot is invalid or in error")
    benched = models.BooleanField(default=True, help_text="a bot of mine was benched")
    season_results = models.BooleanField(default=True, help_text="a season my bot entered has its results")

    class Meta:
        verbose_name_plural = "mail preferences"


class MailStatus(models.TextChoices):
    PENDING = "pending", "to be sent"
    SENDING = "sending", "being sent"
    SENT = "sent", "sent"
    SKIPPED = "skipped", "not sent: the account was closed or lost its address meanwhile"
    FAILED = "failed", "not sent: the mail server refused it for a day"


class SentMail(models.Model):
    """One e-mail, one per user, topic and event (`key`): written in the transaction of the event it
    tells (pending), sent after its commit, and by beat's `send_pending_mail` when that failed or
    when an organiser's command left it to beat (`accounts.mail.left_to_beat`)."""

    user = models.ForeignKey("auth.User", on_delete=models.CASCADE, related_name="+")
    topic = models.CharField(max_length=20)
    key = models.CharField(max_length=100, help_text="what it was about, e.g. version-12-invalid")
    address = models.EmailField(blank=True, help_text="where it goes (empty: the user's confirmed address)")
    subject = models.CharField(max_length=200, blank=True)
    body = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=MailStatus.choices, default=MailStatus.SENT)
    attempts = models.PositiveSmallIntegerField(default=0, help_text="sends tried (the refused ones and the last)")
    made = models.DateTimeField(null=True, blank=True, help_text="when its event happened")
    claimed = models.DateTimeField(null=True, blank=True, help_text="when its last send began")
    sent = models.DateTimeField(null=True, blank=True, help_text="when it was sent (or given up)")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "topic", "key"], name="one_mail_per_event")]
        indexes = [models.Index(fields=["made"], condition=models.Q(status="pending"), name="pending_mail")]
class EmailChange(models.Model):
    """An address a user gave that waits for its confirmation link (accounts.addresses).

    The confirmed address is `User.email`, the only one the site sends to (notifications and
    password resets): an address given at sign-up or on the profile page is kept here until its
    link is opened, and the old confirmed address keeps working until then.
    """

    user = models.OneToOneField("auth.User", on_delete=models.CASCADE, related_name="email_change")
    address = models.EmailField(help_text="the new address, not used until confirmed")
    key = models.CharField(max_length=32, help_text="names this request in its link (a newer request replaces it)")
    requested = models.DateTimeField(help_text="when the link was sent (it expires after accounts.addresses.LINK_DAYS)")

    def __str__(self) -> str:
        return f"{self.user} -> {self.address}"


class LimitCounter(models.Model):
    """What one limit counts for one key (`"user:7"`, `"pair:3-9"`): its row is locked while a
    use is counted, so parallel requests count one after the other (accounts.limits)."""

    action = models.CharField(max_length=32, help_text="what is limited: upload, challenge, challenge-pair, ...")
    key = models.CharField(max_length=100, help_text="whom the limit is per: user:ID, pair:ID-ID")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["action", "key"], name="limit_counter_unique")]

    def __str__(self) -> str:
        return f"{self.action} {self.key}"


class LimitUse(models.Model):
    """One counted use (an upload, a challenge), kept for its limit's window whatever happens to
    what it made (a deleted bot's uploads still count)."""

    counter = models.ForeignKey(LimitCounter, on_delete=models.CASCADE, related_name="uses")
    at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["counter", "at"])]


class SightingKind(models.TextChoices):
    SIGNUP = "signup", "signed up"
    LOGIN = "login", "signed in"
    """A password checked: the site's log-in page or the API's token request."""
    TOKEN = "token", "created an API token"
    TOKEN_USE = "token-use", "used an API token"
    """At most one row per token and address per `accounts.sightings.TOKEN_USE_EVERY`."""


class Sighting(models.Model):
    """An account seen at a client address (as the deployment trusts it, `web.clients`): a sign-up,
    a sign-in, a token created or used. Kept ARMADA_SIGHTINGS_KEEP_DAYS (`prune_storage --apply`);
    read only by the integrity checks (shared accounts) and staff."""

    user = models.ForeignKey("auth.User", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=12, choices=SightingKind.choices)
    address = models.CharField(max_length=45, help_text="the client address, or 'unknown'")
    at = models.DateTimeField()
    token = models.ForeignKey(ApiToken, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                              db_index=False, help_text="the token created or used (empty once revoked)")

    class Meta:
        indexes = [models.Index(fields=["address", "at"]), models.Index(fields=["at"]),
                   models.Index(fields=["token", "address", "at"], name="sighting_token_recent")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.kind} from {self.address} at {self.at:%Y-%m-%d %H:%M}"
