from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('bots', '0002_add_heartbeat_and_holder'),
    ]

    operations = [
        migrations.AddField(
            model_name='botversion',
            name='replay',
            field=models.FileField(blank=True, help_text="the validation game's replay in private storage (owner and staff only)", max_length=300, upload_to='versions/'),
        ),
    ]
