"""A version's disqualification names its entry's team (`team_ref`), so the team's members see it,
not only the member who made the bot: filled in for the decisions taken before."""

from django.db import migrations


def name_teams(apps, schema_editor):
    Disqualification = apps.get_model("integrity", "Disqualification")
    Entry = apps.get_model("seasons", "Entry")
    for decision in Disqualification.objects.filter(target="version", team_ref__isnull=True).iterator():
        team_ref = (Entry.objects.filter(season_id=decision.season_id, version_ref=decision.version_ref)
                    .values_list("team_ref", flat=True).first())
        if team_ref is not None:
            Disqualification.objects.filter(pk=decision.pk).update(team_ref=team_ref)


class Migration(migrations.Migration):

    dependencies = [
        ("integrity", "0005_audit_score"),
        ("seasons", "0004_season_withdrawn"),
    ]

    operations = [migrations.RunPython(name_teams, migrations.RunPython.noop)]
