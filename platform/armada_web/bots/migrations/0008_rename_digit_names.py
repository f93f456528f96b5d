"""Bot names of digits alone are refused since 2026-12-06 (`bots.logic.names`: they read as a bot's
id in `armada challenge` and the match list's filter); a bot already named so becomes NAME-bot
(NAME-bot-ID when that is taken in its game), so every name follows the one rule."""

from django.db import migrations


def rename(apps, schema_editor):  # type: ignore[no-untyped-def]
    Bot = apps.get_model("bots", "Bot")
    for bot in Bot.objects.filter(name__regex=r"^[0-9]+$"):
        taken = {name.lower() for name in Bot.objects.filter(game=bot.game).values_list("name", flat=True)}
        name, tries = f"{bot.name[:36]}-bot", 0
        while name.lower() in taken:  # NAME-ID-bot, then NAME-ID-2-bot, ...
            tries += 1
            tail = f"-{bot.pk}" + (f"-{tries}" if tries > 1 else "") + "-bot"
            name = f"{bot.name[:40 - len(tail)]}{tail}"
        bot.name = name
        bot.save(update_fields=["name"])


class Migration(migrations.Migration):
    dependencies = [("bots", "0007_bot_list_order")]
    operations = [migrations.RunPython(rename, migrations.RunPython.noop)]
