"""A staff edit in the admin writes only the fields its form changed (a reliability review): the
admin saved the whole row it had read, so renaming a season while beat closed it reopened it (and
the next close then failed on its entries' unique constraint at every tick, holding up every later
season), renaming an event while it finished undid the finish, and editing a bot's description
while a new version became its playing one set the old one back. And a season or an event whose
step fails no longer stops beat from moving the others on."""

from __future__ import annotations

from datetime import UTC
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

pytestmark = pytest.mark.django_db


@pytest.fixture
def five(make_user, valid_version):
    return [valid_version(make_user(f"user{n}", email=f"user{n}@example.com"), f"bot{n}") for n in range(5)]


def _split(when):
    return {"0": f"{when:%Y-%m-%d}", "1": f"{when:%H:%M:%S}"}


def test_renaming_a_season_while_beat_closes_it_keeps_it_closed(five, admin_client, monkeypatch):
    from armada_web.seasons import admin as season_admin
    from armada_web.seasons import services
    from armada_web.seasons.models import Entry, Season

    call_command("season", "create", "s1", "--game", "galaxy", "--name", "Spring", stdout=StringIO())
    season = Season.objects.get(slug="s1")
    real_clean = season_admin.SeasonForm.clean

    def clean_while_beat_closes(self):  # beat's tick commits its close while the admin's POST is checked
        services.close_season(season=Season.objects.get(pk=season.pk))
        monkeypatch.setattr(season_admin.SeasonForm, "clean", real_clean)
        return real_clean(self)

    monkeypatch.setattr(season_admin.SeasonForm, "clean", clean_while_beat_closes)
    form = {"name": "Spring (renamed)", "entry_rule": "everyone", "standings-TOTAL_FORMS": "0",
            "standings-INITIAL_FORMS": "0",
            **{f"{field}_{k}": v for field in ("opens", "closes", "ends")
               for k, v in _split(getattr(season, field)).items()}}
    answer = admin_client.post(f"/admin/seasons/season/{season.pk}/change/", form)
    assert answer.status_code == 302, answer.content[:2000]
    season.refresh_from_db()
    assert (season.name, season.state) == ("Spring (renamed)", "closed") and season.closed_at is not None
    assert Entry.objects.filter(season=season).count() == 5


def test_renaming_an_event_while_it_finishes_keeps_it_finished(make_user, admin_client, monkeypatch):
    from armada_web.events import services
    from armada_web.events.models import Event
    from armada_web.web import admin as web_admin

    event = services.create_event(user=make_user("olga"), name="Club", game="galaxy", format="round_robin")
    real_save = web_admin.EditedFieldsOnly.save_model

    def save_after_finish(self, request, obj, form, change):  # beat's tick finishes it during the POST
        services.finish(event=Event.objects.get(pk=obj.pk))
        return real_save(self, request, obj, form, change)

    monkeypatch.setattr(web_admin.EditedFieldsOnly, "save_model", save_after_finish)
    form = {"name": "Club (renamed)", "game": "galaxy", "format": "round_robin", "games_per_pair": "1",
            "max_entrants": "64", "entries-TOTAL_FORMS": "0", "entries-INITIAL_FORMS": "0",
            "withdrawals-TOTAL_FORMS": "0", "withdrawals-INITIAL_FORMS": "0"}
    answer = admin_client.post(f"/admin/events/event/{event.pk}/change/", form)
    assert answer.status_code == 302, answer.content.decode()[:3000]
    event.refresh_from_db()
    assert (event.name, event.state) == ("Club (renamed)", "finished")


def test_editing_a_bots_description_keeps_the_version_that_became_active_meanwhile(make_user, valid_version,
                                                                                     admin_client, monkeypatch):
    from armada_web.bots import services
    from armada_web.bots.models import Bot, BotVersion
    from armada_web.web import admin as web_admin

    first = valid_version(make_user("alice"), "alpha")
    bot = first.bot
    second = services.upload_version(bot=bot, user=bot.owner, filename="main.py", data=b"print(2)\n")
    BotVersion.objects.filter(pk=second.pk).update(status="valid")
    Bot.objects.filter(pk=bot.pk).update(active_version=first)
    real_save = web_admin.EditedFieldsOnly.save_model

    def save_after_activation(self, request, obj, form, change):
        Bot.objects.filter(pk=bot.pk).update(active_version=second)  # validation made v2 the playing one
        return real_save(self, request, obj, form, change)

    monkeypatch.setattr(web_admin.EditedFieldsOnly, "save_model", save_after_activation)
    page = admin_client.get(f"/admin/bots/bot/{bot.pk}/change/")
    form = {k: v for k, v in page.context["adminform"].form.initial.items() if v is not None}
    form.update({"description": "now with comments", "owner": bot.owner_id, "active_version": first.pk,
                 "versions-TOTAL_FORMS": "0", "versions-INITIAL_FORMS": "0"})
    answer = admin_client.post(f"/admin/bots/bot/{bot.pk}/change/", form)
    assert answer.status_code == 302, answer.content.decode()[:3000]
    bot.refresh_from_db()
    assert (bot.description, bot.active_version_id) == ("now with comments", second.pk)


def test_a_season_whose_step_fails_does_not_hold_up_the_next(five, monkeypatch, caplog):
    from django.utils import timezone

    from armada_web.seasons import periodic, services
    from armada_web.seasons.models import Season

    for slug in ("a1", "b2"):
        call_command("season", "create", slug, "--game", "galaxy", "--name", slug, stdout=StringIO())
    Season.objects.update(state="upcoming", opens=timezone.now())
    real_open = services.open_season

    def broken_for_a1(*, season, **kwargs):
        if season.slug == "a1":
            raise RuntimeError("disk on fire")
        return real_open(season=season, **kwargs)

    monkeypatch.setattr(services, "open_season", broken_for_a1)
    done = periodic.tick(workers=1)
    assert done.get("opened") == ["b2"]
    assert Season.objects.get(slug="b2").state == "open" and Season.objects.get(slug="a1").state == "upcoming"
    assert "season a1: its upcoming step failed" in caplog.text


def test_the_admin_changes_no_plan_of_an_event_nor_a_bots_name_team_or_active_version(make_user, valid_version,
                                                                                        admin_client):
    """An organiser's trial: in the admin a running ladder's format could be changed (it finished at
    once), a finished event's game, a bot's active version to another bot's version and a bot's
    name (kept for good). Those are read-only there; their services change them, checked."""
    from armada_web.bots.models import Bot
    from armada_web.events import services

    event = services.create_event(user=make_user("olga"), name="Club", game="galaxy", format="round_robin",
                                  max_entrants=8)
    form = {"name": "Club two", "game": "mothership", "format": "ladder", "games_per_pair": "7",
            "max_entrants": "1", "entries-TOTAL_FORMS": "0", "entries-INITIAL_FORMS": "0",
            "withdrawals-TOTAL_FORMS": "0", "withdrawals-INITIAL_FORMS": "0"}
    assert admin_client.post(f"/admin/events/event/{event.pk}/change/", form).status_code == 302
    event.refresh_from_db()
    assert (event.name, event.game, event.format, event.games_per_pair, event.max_entrants) == \
        ("Club two", "galaxy", "round_robin", 1, 8)
    mine, other = valid_version(make_user("alice"), "alpha"), valid_version(make_user("bob"), "bravo")
    bot = mine.bot
    form = {"description": "edited", "owner": bot.owner_id, "name": "renamed", "active_version": other.pk,
            "versions-TOTAL_FORMS": "0", "versions-INITIAL_FORMS": "0"}
    assert admin_client.post(f"/admin/bots/bot/{bot.pk}/change/", form).status_code == 302
    bot = Bot.objects.get(pk=bot.pk)
    assert (bot.description, bot.name, bot.active_version_id) == ("edited", "alpha", mine.pk)


def _season_form(season, **when):
    return {"name": season.name, "entry_rule": "everyone", "standings-TOTAL_FORMS": "0",
            "standings-INITIAL_FORMS": "0",
            **{f"{field}_{k}": v for field in ("opens", "closes", "ends")
               for k, v in _split(when.get(field, getattr(season, field))).items()}}


def test_an_edit_cannot_move_a_running_seasons_close_or_end_into_the_past(five, admin_client):
    """An organiser's trial: a close typed as 2020 in the admin saved, and beat closed the open
    season within seconds, its entries frozen and its finals begun, with no way back."""
    from datetime import datetime

    from armada_web.seasons import services
    from armada_web.seasons.models import Season

    call_command("season", "create", "s1", "--game", "galaxy", "--name", "Spring", stdout=StringIO())
    season = Season.objects.get(slug="s1")
    assert season.state == "open"
    typo = datetime(2020, 1, 1, tzinfo=UTC)
    answer = admin_client.post(f"/admin/seasons/season/{season.pk}/change/",
                               _season_form(season, opens=datetime(2019, 12, 1, tzinfo=UTC), closes=typo))
    assert answer.status_code == 200
    assert "season s1 is open: it closes in the future, not at 2020-01-01" in answer.content.decode()
    assert Season.objects.get(pk=season.pk).closes == season.closes  # nothing saved

    services.close_season(season=season)
    season.refresh_from_db()
    answer = admin_client.post(f"/admin/seasons/season/{season.pk}/change/", _season_form(season, ends=typo))
    assert "season s1 is closed: it ends in the future, not at 2020-01-01" in answer.content.decode()
    assert Season.objects.get(pk=season.pk).ends == season.ends
    later = {**_season_form(season), "name": "Spring (renamed)"}  # a rename, its dates as they are
    assert admin_client.post(f"/admin/seasons/season/{season.pk}/change/", later).status_code == 302


def test_an_edit_leaves_the_dates_a_season_has_passed_as_they_were(five, admin_client):
    """An organiser's trial: an open season's opening moved into the future saved (its page then read
    "open · opens 18:50"), and a finished season's end, or a closed one's planned close, could still
    be changed. What is past stays; the dates still ahead may change."""
    from datetime import timedelta

    from armada_web.seasons import services
    from armada_web.seasons.models import Season

    call_command("season", "create", "s1", "--game", "galaxy", "--name", "Spring", stdout=StringIO())
    season = Season.objects.get(slug="s1")
    url = f"/admin/seasons/season/{season.pk}/change/"
    answer = admin_client.post(url, _season_form(season, opens=season.closes - timedelta(days=1)))
    assert answer.status_code == 200
    assert "season s1 is open: it has opened already, so its opening stays" in answer.content.decode()
    later = season.closes + timedelta(hours=1)
    assert admin_client.post(url, _season_form(season, closes=later)).status_code == 302  # still ahead
    season.refresh_from_db()
    assert season.closes == later.replace(microsecond=0)
    services.close_season(season=season)
    season.refresh_from_db()
    answer = admin_client.post(url, _season_form(season, closes=season.closes + timedelta(hours=1)))
    assert "season s1 is closed: it has closed already, so its close stays" in answer.content.decode()
    assert admin_client.post(url, _season_form(season, ends=season.ends + timedelta(days=1))).status_code == 302
    services.finish_season(season=Season.objects.get(pk=season.pk))
    season.refresh_from_db()
    answer = admin_client.post(url, _season_form(season, ends=season.ends + timedelta(days=2)))
    assert "season s1 is finished: it has finished already, so its end stays" in answer.content.decode()
    renamed = {**_season_form(season), "name": "Spring (renamed)"}  # its dates as they are: saved
    assert admin_client.post(url, renamed).status_code == 302
    # a review: opened by hand before its time, its opening becomes now (else it read "open, opens tomorrow"
    # and could not be corrected)
    call_command("season", "create", "s2", "--game", "galaxy", "--name", "Early", "--opens", "2099-01-01T00:00:00Z",
                 "--closes", "2099-02-01T00:00:00Z", stdout=StringIO())
    early = services.open_season(season=Season.objects.get(slug="s2"))
    assert early.opens <= timezone.now() and Season.objects.get(slug="s2").opens == early.opens


def test_only_a_season_that_has_not_closed_can_be_deleted(five, admin_client):
    from armada_web.seasons import services
    from armada_web.seasons.models import Season

    call_command("season", "create", "s1", "--game", "galaxy", "--name", "S1", stdout=StringIO())
    call_command("season", "create", "s2", "--game", "galaxy", "--name", "S2", "--opens", "2099-01-01T00:00:00Z",
                 stdout=StringIO())
    closed, upcoming = Season.objects.get(slug="s1"), Season.objects.get(slug="s2")
    assert upcoming.state == "upcoming"
    services.close_season(season=closed)
    assert admin_client.get(f"/admin/seasons/season/{closed.pk}/delete/").status_code == 403
    assert admin_client.post(f"/admin/seasons/season/{closed.pk}/delete/", {"post": "yes"}).status_code == 403
    listing = admin_client.get("/admin/seasons/season/").content.decode()
    assert 'value="delete_selected"' not in listing and 'value="close_now"' in listing
    assert admin_client.post(f"/admin/seasons/season/{upcoming.pk}/delete/", {"post": "yes"}).status_code == 302
    assert list(Season.objects.values_list("slug", flat=True)) == ["s1"]
