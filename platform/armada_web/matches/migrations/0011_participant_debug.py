# What a seat's bot drew (issue 27: bots draw on the board), stored beside its log.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0010_match_replay_checksums'),
    ]

    operations = [
        migrations.AddField(
            model_name='participant',
            name='debug',
            field=models.FileField(blank=True, help_text='what the bot drew (armada.drawing), gzip JSON in private storage beside its log (owner and staff only); empty when it drew nothing', max_length=300, upload_to='matches/'),
        ),
    ]
