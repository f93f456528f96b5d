"""Teams and their memberships: the unit that owns bots (every user has a personal team of one)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower


class Team(models.Model):
    """People who manage bots together; a personal team has exactly its user, for good."""

    name = models.CharField(max_length=40, help_text="unique (case-insensitive); no control characters")
    personal = models.BooleanField(default=False, help_text="a user's own team of one, made at sign-up")
    join_key = models.CharField(max_length=64, blank=True, help_text="the secret of the join link (members renew it)")
    archived = models.DateTimeField(null=True, blank=True, help_text="when it was archived (history kept)")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(Lower("name"), name="team_name_unique")]

    def __str__(self) -> str:
        return self.name


class MembershipQuerySet(models.QuerySet["Membership"]):
    def current(self) -> MembershipQuerySet:
        """Memberships not ended (the member is in the team now)."""
        return self.filter(left__isnull=True)

    def members(self) -> MembershipQuerySet:
        """The members now (memberships not ended, of accounts not deleted), in the order they joined."""
        return self.current().filter(user__isnull=False).order_by("joined", "id")


class Membership(models.Model):
    """A user in a team from `joined` until `left` (kept after: the team's history)."""

    objects = MembershipQuerySet.as_manager()

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                             related_name="memberships", help_text="empty once the user deleted their account")
    joined = models.DateTimeField(auto_now_add=True)
    left = models.DateTimeField(null=True, blank=True)
    removed = models.BooleanField(default=False, help_text="the team removed them (else they left, or are in it)")
    removed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+", help_text="the member who removed them (empty: they left, "
                                                               "or the remover deleted their account)")

    class Meta:
        ordering = ["team", "joined", "id"]
        constraints = [models.UniqueConstraint(fields=["team", "user"], condition=Q(left__isnull=True),
                                               name="one_current_membership")]
        indexes = [models.Index(fields=["user", "left"])]

    def __str__(self) -> str:
        return f"{self.user} in {self.team}"
