"""Every bot has a team now (0003 filled the column): it may not be empty any more.
A migration of its own: PostgreSQL refuses to alter a table with the data changes of the same
transaction still pending."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('bots', '0005_bot_team_personal_teams'),
    ]

    operations = [
        migrations.AlterField(
            model_name='bot',
            name='team',
            field=models.ForeignKey(help_text='the team whose members manage it (a personal team: one user)', on_delete=django.db.models.deletion.PROTECT, related_name='bots', to='teams.team'),
        ),
    ]
