"""A version's disqualification names its entry's team (`team_ref`), so the team's members see it,
not only the member who made the bot: filled in for the decisions taken before, from the version's
bot's team (the disqualification deleted the entry itself; a bot moves only from its personal team
to a shared one, so that is the entry's team or the one it went on to)."""

from django.db import migrations


def name_teams(apps, schema_editor):
    Disqualification = apps.get_model("integrity", "Disqualification")
    BotVersion = apps.get_model("bots", "BotVersion")
    for decision in Disqualification.objects.filter(target="version", team_ref__isnull=True).iterator():
        team_ref = BotVersion.objects.filter(pk=decision.version_ref).values_list("bot__team_id", flat=True).first()
        if team_ref is not None:
            Disqualification.objects.filter(pk=decision.pk).update(team_ref=team_ref)


class Migration(migrations.Migration):

    dependencies = [
        ("integrity", "0005_audit_score"),
        ("bots", "0007_bot_list_order"),
    ]

    operations = [migrations.RunPython(name_teams, migrations.RunPython.noop)]
