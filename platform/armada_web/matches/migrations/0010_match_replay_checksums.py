# A replay's size and SHA-256 as served (issue 25: the replays dataset), filled when it is saved
# (older matches: once, when first listed or downloaded), and the public replays' list index.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0009_participant_timing'),
    ]

    operations = [
        migrations.AddField(
            model_name='match',
            name='replay_sha256',
            field=models.CharField(blank=True, help_text="the replay file's SHA-256, hex (as served)", max_length=64),
        ),
        migrations.AddField(
            model_name='match',
            name='replay_size',
            field=models.PositiveBigIntegerField(blank=True, help_text="the replay file's bytes as served (empty: not known yet)", null=True),
        ),
        migrations.AddIndex(
            model_name='match',
            index=models.Index(condition=models.Q(('kind', 'ranked'), ('status', 'finished'), models.Q(('replay', ''), _negated=True)), fields=['game', '-id'], name='match_public_replays_newest'),
        ),
    ]
