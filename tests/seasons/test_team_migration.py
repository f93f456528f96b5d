"""The data steps of seasons 0003 and events 0003 (issue 26), run on rows as they were before them:
existing season entries, final standings and event entries name their bot's team (its owner's
personal team since the teams' migration) and its members; nothing else changes. (The functions
are run with the current models, which hold the same fields: migrating the whole graph back and
forth costs some 20 s.)"""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

pytestmark = pytest.mark.django_db

seasons_0003 = importlib.import_module("armada_web.seasons.migrations.0003_season_team_rules_entry_teams")
events_0003 = importlib.import_module("armada_web.events.migrations.0003_event_invitations_entry_teams")


def test_old_entries_and_standings_name_their_team_and_keep_everything_else(make_user, valid_version):
    from armada_web.events.models import Event, EventEntry
    from armada_web.seasons.models import Entry, Standing
    from armada_web.seasons.services import create_season

    ann = make_user("ann")
    bot = valid_version(ann, "ann-bot").bot
    season = create_season(slug="old", game="galaxy", name="Old")
    Entry.objects.create(season=season, version_ref=7, version_number=1, bot=bot, bot_ref=bot.pk,
                         bot_name="ann-bot", owner=ann, seed=1, place=1)
    Standing.objects.create(season=season, place=1, bot_ref=bot.pk, bot_name="ann-bot", owner=ann, version_ref=7,
                            version_number=1, score=3.5, games=4)
    Standing.objects.create(season=season, place=2, bot_ref=999, bot_name="gone-bot", owner=None, version_ref=8,
                            version_number=1, score=1.0, games=4)
    event = Event.objects.create(slug="ev", name="Ev", game="galaxy", owner=ann, format="round_robin",
                                 max_entrants=4, invite="x")
    EventEntry.objects.create(event=event, bot=bot, bot_ref=bot.pk, bot_name="ann-bot", owner=ann)

    seasons_0003.name_teams(apps, None)
    events_0003.name_teams(apps, None)
    entry = Entry.objects.get()
    assert (entry.team_id, entry.team_ref, entry.team_name, entry.members) == (bot.team_id, bot.team_id, "ann",
                                                                               ["ann"])
    first, gone = Standing.objects.order_by("place")
    assert (first.team_ref, first.team_name, first.members) == (bot.team_id, "ann", ["ann"])
    assert (first.score, first.games, first.place, first.bot_ref) == (3.5, 4, 1, bot.pk)
    assert (gone.team_ref, gone.team_name, gone.members) == (None, "", [])  # its bot is gone: no team to name
    event_entry = EventEntry.objects.get()
    assert (event_entry.team_id, event_entry.team_name, event_entry.bot_id) == (bot.team_id, "ann", bot.pk)
