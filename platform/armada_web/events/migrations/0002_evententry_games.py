from django.db import migrations


class Migration(migrations.Migration):
    """An event entry's count of games is `games`, as on every other side a game is counted for."""

    dependencies = [("events", "0001_events_entries_games")]

    operations = [migrations.RenameField(model_name="evententry", old_name="played", new_name="games")]
