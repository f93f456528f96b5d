"""Bots belong to teams: every user gets a personal team of one and their bots move to it.

Ids, names, versions, ratings and matches are untouched (only the new `team` column is filled).
Bots whose owner deleted their account (retired, no owner) go to one archived team without
members, "(deleted accounts)" (taken before anyone can create a team; docs/site-decisions.md D-S-9)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.models import OuterRef, Subquery
from django.utils import timezone

ORPHANS = "(deleted accounts)"


def personal_teams(apps, schema_editor):
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    Team = apps.get_model("teams", "Team")
    Membership = apps.get_model("teams", "Membership")
    Bot = apps.get_model("bots", "Bot")
    taken = {name.lower() for name in Team.objects.values_list("name", flat=True)}
    has_one = set(Membership.objects.filter(team__personal=True).values_list("user_id", flat=True))
    users = list(User.objects.exclude(pk__in=has_one).order_by("pk").values_list("pk", "username"))
    names = []
    for _pk, username in users:
        base = username[:30]
        name, n = base, 1
        while name.lower() in taken:
            n += 1
            name = f"{base}-{n}"
        taken.add(name.lower())
        names.append(name)
    for start in range(0, len(users), 1000):
        chunk = list(zip(users[start:start + 1000], names[start:start + 1000]))
        Team.objects.bulk_create([Team(name=name, personal=True) for _user, name in chunk])
        made = dict(Team.objects.filter(personal=True, name__in=[name for _user, name in chunk])
                    .values_list("name", "pk"))
        Membership.objects.bulk_create([Membership(team_id=made[name], user_id=pk) for (pk, _u), name in chunk])
    personal = Membership.objects.filter(user_id=OuterRef("owner_id"), team__personal=True).values("team_id")[:1]
    Bot.objects.filter(team__isnull=True, owner__isnull=False).update(team_id=Subquery(personal))
    if Bot.objects.filter(team__isnull=True).exists():
        orphans = Team.objects.create(name=ORPHANS, personal=False, archived=timezone.now())
        Bot.objects.filter(team__isnull=True).update(team_id=orphans.pk)


class Migration(migrations.Migration):

    dependencies = [
        ('bots', '0004_add_version_resources'),
        ('teams', '0001_initial'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='bot',
            name='team',
            field=models.ForeignKey(help_text='the team whose members manage it (a personal team: one user)', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='bots', to='teams.team'),
        ),
        migrations.RunPython(personal_teams, migrations.RunPython.noop, elidable=False),
    ]
