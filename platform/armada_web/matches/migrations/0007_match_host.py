# The worker host that played a match (ARMADA_HOST_NAME, issue 30), and the admin's list by host.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0006_seat_faults_and_kind_started'),
    ]

    operations = [
        migrations.AddField(
            model_name='match',
            name='host',
            field=models.CharField(blank=True, help_text='the worker host of the latest run (its ARMADA_HOST_NAME; set at the claim)', max_length=100),
        ),
        migrations.AddIndex(
            model_name='match',
            index=models.Index(fields=['host', '-id'], name='match_host_newest'),
        ),
    ]
