"""A removal kept as its own flag: `removed_by` empties when the remover deletes their account, and
the removal (which bars restoring the team, D-S-21) must stay."""

from django.conf import settings
from django.db import migrations, models


def mark_removals(apps, schema_editor):
    Membership = apps.get_model("teams", "Membership")
    Membership.objects.filter(removed_by__isnull=False).update(removed=True)


class Migration(migrations.Migration):

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("teams", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="membership",
            name="removed",
            field=models.BooleanField(default=False, help_text="the team removed them (else they left, or are in it)"),
        ),
        migrations.AlterField(
            model_name="membership",
            name="removed_by",
            field=models.ForeignKey(blank=True, help_text="the member who removed them (empty: they left, or the "
                                                          "remover deleted their account)", null=True,
                                    on_delete=models.deletion.SET_NULL, related_name="+", to=settings.AUTH_USER_MODEL),
        ),
        migrations.RunPython(mark_removals, migrations.RunPython.noop),
    ]
