"""API tokens: stored hashed (knox's digest), several per user, each with a name and its last use."""

from __future__ import annotations

from django.db import models
from knox.models import AbstractAuthToken


class ApiToken(AbstractAuthToken):
    """A named API token. Only its sha512 digest and an 8-character lookup prefix are stored."""

    id = models.BigAutoField(primary_key=True)
    digest = models.CharField(max_length=128, unique=True, help_text="sha512 of the secret; never the secret itself")
    name = models.CharField(max_length=64, help_text="what the owner calls it, e.g. 'laptop' or 'armada-cli@host'")
    last_used = models.DateTimeField(null=True, blank=True, help_text="last authenticated request (to the minute)")

    class Meta:
        ordering = ["-created"]
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.name} ({self.user})"
