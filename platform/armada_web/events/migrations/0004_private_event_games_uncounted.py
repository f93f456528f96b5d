"""A private event's matches leave the bots' kept records (matches.tallies): what earlier
versions counted of them (each seat's match, its finished result, the head-to-head row's
game) is taken back, so the public bot pages no longer tell them."""

from django.db import migrations
from django.db.models import F, Q

COLUMNS = {"win": "wins", "draw": "draws", "loss": "losses"}


def uncount_private_games(apps, schema_editor):
    Match = apps.get_model("matches", "Match")
    Participant = apps.get_model("matches", "Participant")
    BotRecord = apps.get_model("matches", "BotRecord")
    HeadToHead = apps.get_model("matches", "HeadToHead")
    shown = Match.objects.filter(kind="event", event_game__event__public=True).values("pk")
    private = Match.objects.filter(kind="event").exclude(pk__in=shown).values("pk")
    seats = Participant.objects.filter(match_id__in=private, bot_id__isnull=False)
    touched = set()
    for seat in seats.select_related("match").order_by("bot_id", "match_id"):
        BotRecord.objects.filter(bot_id=seat.bot_id, matches__gt=0).update(matches=F("matches") - 1)
        column = COLUMNS.get(seat.result)
        if seat.match.status != "finished" or column is None:
            continue
        BotRecord.objects.filter(Q(bot_id=seat.bot_id) & Q(**{f"{column}__gt": 0})).update(
            **{column: F(column) - 1})
        if seat.opponent_id is not None:
            touched.add((seat.bot_id, seat.opponent_id))
            HeadToHead.objects.filter(Q(bot_id=seat.bot_id, opponent_id=seat.opponent_id, games__gt=0)
                                      & Q(**{f"{column}__gt": 0})).update(games=F("games") - 1,
                                                                         **{column: F(column) - 1})
    HeadToHead.objects.filter(last_match_id__in=private).update(last_match=None)
    for bot_id, opponent_id in touched:  # a pair that met only in private events has no row
        HeadToHead.objects.filter(bot_id=bot_id, opponent_id=opponent_id, games=0).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("events", "0003_event_invitations_entry_teams"),
        ("matches", "0011_participant_debug"),
    ]

    operations = [migrations.RunPython(uncount_private_games, migrations.RunPython.noop)]
