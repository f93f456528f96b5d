"""An organiser's trial of seasons and finals: `season finals --dry-run` shows a plan and when it
would be done without starting it; finals that would run past the season's end are refused before
anything starts (the command and the admin), unless `--past-end`, while beat's start at the close
is not; the admin says per season what "Begin the finals" did; and a season finished before any
finals game stores its entries' frozen (closing) ratings, not the finals' start ratings."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management.base import CommandError
from django.utils import timezone

from tests.support.seasons_helpers import queued, record_result, season_command

pytestmark = pytest.mark.django_db


def _closed(slug: str, ends_in: timedelta | None = None) -> None:
    from armada_web.seasons.models import Season

    season_command("create", slug, "--game", "galaxy", "--name", f"Season {slug}")
    season_command("close", slug)
    if ends_in is not None:
        Season.objects.filter(slug=slug).update(ends=timezone.now() + ends_in)


def _nothing_started(slug: str) -> None:
    from armada_web.matches.models import Match
    from armada_web.seasons.models import Entry, FinalsGame, Season

    season = Season.objects.get(slug=slug)
    assert season.state == "closed" and season.stages is None and season.matches_total == 0
    assert not FinalsGame.objects.filter(season=season).exists()
    assert not Match.objects.filter(kind="finals").exists()
    assert not Entry.objects.filter(season=season, mu__isnull=False).exists()  # no finals ratings started


def test_a_dry_run_prints_the_plan_and_its_outlook_and_starts_nothing(five, armada):
    _closed("s1", ends_in=timedelta(hours=1))
    line = season_command("finals", "s1", "--stages", "3", "--games", "1000", "--dry-run")
    assert "\n" not in line
    assert line.startswith("season s1 (dry run, nothing started) would play its finals: 5 entries, 3 stages of "
                           "1000 games per entry, ")
    assert "at about 30 s a match on the 1 worker, done about " in line
    assert ("WARNING: that would take every match worker until it is done (ranked play and events wait), and it "
            "is after the season's end") in line
    assert line.endswith("; starting them needs --past-end")
    _nothing_started("s1")
    fits = season_command("finals", "s1", "--stages", "1", "--games", "2", "--dry-run")
    assert fits.startswith("season s1 (dry run, nothing started) would play its finals: 5 entries, 1 stage of 2 "
                           "games per entry, 5 matches; at about 30 s a match on the 1 worker, done about ")
    # (an organiser's trial) on one match worker, `make up`'s, the finals' share is that worker: they take it
    assert "WARNING: that would take every match worker" in fits and "--past-end" not in fits
    armada(match_workers=2)
    fits = season_command("finals", "s1", "--stages", "1", "--games", "2", "--dry-run")
    assert "5 matches; at about 30 s a match on all 2 workers, done about " in fits
    assert "WARNING" not in fits and "--past-end" not in fits
    _nothing_started("s1")
    with pytest.raises(CommandError, match="--stages must be a whole number"):  # refused as the start would be
        season_command("finals", "s1", "--stages", "0", "--dry-run")
    season_command("finish", "s1")
    with pytest.raises(CommandError, match="season s1 is finished: only an open or a closed season can be previewed"):
        season_command("finals", "s1", "--dry-run")


def test_an_open_season_is_previewed_as_if_it_closed_now_and_nothing_moves(five):
    """An organiser's trial: `--dry-run` refused an open season, and beat starts the settings' plan at the
    close at once, so a plan could only be chosen by closing the season by hand first."""
    from armada_web.seasons.models import Entry, Season

    season_command("create", "o1", "--game", "galaxy", "--name", "Open")
    line = season_command("finals", "o1", "--stages", "1", "--games", "2", "--dry-run")
    assert line.startswith("season o1 (dry run, nothing started, as if it closed now) would play its finals: 5 "
                           "entries, 1 stage of 2 games per entry, 5 matches; at about 30 s a match on the 1 "
                           "worker, done about ")
    season = Season.objects.get(slug="o1")
    assert season.state == "open" and not Entry.objects.filter(season=season).exists()  # nothing frozen
    with pytest.raises(CommandError, match="season o1 is open: only a closed season can be given its finals"):
        season_command("finals", "o1", "--stages", "1", "--games", "2")  # starting still needs the close


def test_a_dry_run_of_a_season_that_would_finish_at_once_says_so(make_user, valid_version):
    from armada_web.seasons.models import Season

    valid_version(make_user("solo"), "lonely")
    _closed("g1")
    line = season_command("finals", "g1", "--dry-run")
    assert line == ("season g1 (dry run, nothing started) would finish at once: its 1 entry is too few for finals "
                    "(at least 2)")
    season = Season.objects.get(slug="g1")
    assert season.state == "closed" and not season.standings.exists()
    season_command("create", "m1", "--game", "mothership", "--name", "Down")  # (no race in its league)
    season_command("close", "m1")
    line = season_command("finals", "m1", "--dry-run")
    assert line == ("season m1 (dry run, nothing started) would finish at once: the league of its 0 entries is "
                    "its result")
    assert Season.objects.get(slug="m1").state == "closed"


def test_finals_past_the_season_s_end_are_refused_unless_past_end(five):
    """The trial: 12,000 matches started, then a warning that they ran past the end."""
    from armada_web.seasons.models import Season

    _closed("s1", ends_in=timedelta(hours=1))
    ends = Season.objects.get(slug="s1").ends
    with pytest.raises(CommandError) as refused:
        season_command("finals", "s1", "--stages", "3", "--games", "1000")
    said = str(refused.value)
    assert "\n" not in said
    assert said.startswith("season s1's finals (") and " would be done about " in said
    assert f"after the season's end ({ends:%Y-%m-%d %H:%M} UTC)" in said
    assert "nothing started: pass fewer --stages or --games" in said and said.endswith(
        "or `--past-end` to start them anyway")
    _nothing_started("s1")
    line = season_command("finals", "s1", "--stages", "3", "--games", "1000", "--past-end")
    assert line.startswith("season s1 is in its finals: 5 entries, 3 stages of 1000 games per entry")
    assert "after the season's end" in line
    assert Season.objects.get(slug="s1").state == "finals"
    # a plan that fits starts without it, as before
    _closed("s2")
    assert season_command("finals", "s2", "--stages", "1", "--games", "2").startswith("season s2 is in its finals")


def test_beat_starts_the_settings_plan_at_the_close_even_past_the_end(five):
    """Beat is not refused: the default plan by the organiser's own times, finishing at `ends`."""
    from armada_web.seasons import periodic, services
    from armada_web.seasons.models import Season
    from armada_web.seasons.queries import finals_outlook

    now = timezone.now()
    services.create_season(slug="b1", game="galaxy", name="Beat", closes=now + timedelta(hours=1),
                           ends=now + timedelta(hours=1, minutes=2))
    assert periodic.tick(now=now + timedelta(hours=1, seconds=1), workers=1) == {"closed": ["b1"], "finals": ["b1"]}
    season = Season.objects.get(slug="b1")
    assert season.state == "finals"
    assert "after the season's end" in finals_outlook(season, now=now + timedelta(hours=1, seconds=1))


def _admin_messages(answer) -> list[str]:
    return [str(m) for m in answer.context["messages"]]


def test_the_admin_says_per_season_what_beginning_the_finals_did(five, admin_client):
    from armada_web.seasons.models import Season

    _closed("g1")
    season_command("create", "m1", "--game", "mothership", "--name", "Down")
    season_command("close", "m1")
    _closed("late", ends_in=timedelta(minutes=1))  # the settings' plan: past its end
    chosen = list(Season.objects.filter(slug__in=["g1", "m1", "late"]).values_list("pk", flat=True))
    answer = admin_client.post("/admin/seasons/season/", {"action": "finals_now", "_selected_action": chosen},
                               follow=True)
    said = _admin_messages(answer)
    states = dict(Season.objects.values_list("slug", "state"))
    assert states == {"g1": "finals", "m1": "finished", "late": "closed"}
    assert "Season m1 finished at once: the league of its 0 entries is its result (nothing to play)." in said
    assert any(m.startswith("Season g1 is in its finals: 5 entries, ") for m in said)
    assert any(m.startswith("season late's finals (") and "`--past-end` to start them anyway" in m for m in said)
    assert not any("season(s)" in m for m in said)  # (it said "1 season(s) in their finals." of one finished)


def test_the_admin_says_a_season_of_one_entry_finished_at_once(make_user, valid_version, admin_client):
    from armada_web.seasons.models import Season

    valid_version(make_user("solo"), "lonely")
    _closed("g1")
    answer = admin_client.post("/admin/seasons/season/", {"action": "finals_now",
                                                          "_selected_action": [Season.objects.get().pk]}, follow=True)
    assert _admin_messages(answer) == ["Season g1 finished at once: its 1 entry is too few for finals (at least 2); "
                                       "its standings are stored."]


def _ladder(slug: str, values: dict[str, tuple[float, float]]) -> None:
    """The entries' ratings at the close (as frozen from the ladder), by bot name."""
    from armada_web.seasons.models import Entry

    for name, (mu, sigma) in values.items():
        assert Entry.objects.filter(season__slug=slug, bot_name=name).update(ladder_mu=mu, ladder_sigma=sigma) == 1


def _stored(slug: str) -> list[tuple[str, float, int]]:
    from armada_web.seasons.models import Standing

    return [(s.bot_name, s.score, s.games) for s in Standing.objects.filter(season__slug=slug).order_by("place")]


@pytest.mark.parametrize("start", ["ladder", "prior"])
def test_a_season_of_one_entry_stores_its_frozen_score(start, make_user, valid_version, armada):
    """The trial: mu 11.90, sigma 2.08 at the close (5.66), stored as 2.70 (the finals' start sigma 3.07)."""
    from armada_web.seasons.models import Entry

    armada(finals_start=start)
    valid_version(make_user("solo"), "lonely")
    _closed("g1")
    _ladder("g1", {"lonely": (11.90, 2.08)})
    assert season_command("finals", "g1").startswith("season g1 is finished")
    assert _stored("g1") == [("lonely", round(11.90 - 3 * 2.08, 3), 0)]
    entry = Entry.objects.get(season__slug="g1")
    assert (entry.ladder_mu, entry.ladder_sigma, entry.mu, entry.sigma) == (11.90, 2.08, None, None)


def test_a_season_finished_by_hand_before_any_finals_game_stores_the_frozen_scores(make_user, valid_version):
    """Two entries, the finals begun and finished by hand before their first game: the scores and
    the order at the close (steady 14 - 3 x 1 = 11.0 before bold 16.7 - 3 x 2 = 10.7), not the
    finals' start ratings' (sigma raised by 2.25: bold 7.67 before steady 6.61)."""
    from armada_web.seasons import periodic
    from armada_web.seasons.models import Entry

    valid_version(make_user("steady"), "steady")
    valid_version(make_user("bold"), "bold")
    _closed("g1")
    _ladder("g1", {"steady": (14.0, 1.0), "bold": (16.7, 2.0)})
    season_command("finals", "g1", "--stages", "1", "--games", "2")
    periodic.tick(workers=1)
    assert queued("finals")  # its games waiting, none played
    season_command("finish", "g1")
    assert _stored("g1") == [("steady", 11.0, 0), ("bold", round(16.7 - 6.0, 3), 0)]
    assert not Entry.objects.filter(season__slug="g1", mu__isnull=False).exists()


def test_once_a_finals_game_is_played_the_standings_are_the_finals_ratings(make_user, valid_version):
    from armada_web.seasons import periodic
    from armada_web.seasons.entries import skill_of
    from armada_web.seasons.logic.finals import score
    from armada_web.seasons.models import Entry

    valid_version(make_user("steady"), "steady")
    valid_version(make_user("bold"), "bold")
    _closed("g1")
    _ladder("g1", {"steady": (14.0, 1.0), "bold": (16.7, 2.0)})
    season_command("finals", "g1", "--stages", "1", "--games", "2")
    periodic.tick(workers=1)
    assert record_result(queued("finals")[0], 1) == "finished"
    season_command("finish", "g1")
    entries = {e.bot_name: e for e in Entry.objects.filter(season__slug="g1")}
    assert all(e.mu is not None and e.games == 1 for e in entries.values())
    stored = _stored("g1")
    assert {name: value for name, value, _ in stored} == {
        name: round(score(skill_of(e)), 3) for name, e in entries.items()}
    assert stored[0][1] != 11.0  # not the close's


def test_finals_are_forecast_sharing_the_workers_with_another_seasons(five):
    """An organiser's trial: a season's finals begun while another season's ran on the one worker were
    forecast as if alone, and ran past the season's end with 188 of 300 matches played. They take turns
    on the workers: each other season's finals cost at most as much as this one's own work."""
    from armada_web.seasons import services
    from armada_web.seasons.models import Season

    _closed("big")
    _closed("small")
    now = timezone.now()
    alone = services.preview_finals(season=Season.objects.get(slug="small"), stages=1, games=4, now=now).forecast
    assert alone is not None and alone.others == 0
    season_command("finals", "big", "--stages", "3", "--games", "1000", "--past-end")
    shared = services.preview_finals(season=Season.objects.get(slug="small"), stages=1, games=4, now=now).forecast
    assert shared is not None and shared.others == 1
    assert (shared.done - now) / (alone.done - now) == pytest.approx(2.0, rel=0.01)  # big's work ≫ small's
    Season.objects.filter(slug="small").update(ends=now + (alone.done - now) * 1.5)  # fits alone, not shared
    with pytest.raises(CommandError) as refused:
        season_command("finals", "small", "--stages", "1", "--games", "4")
    assert "shared with 1 other season's finals) would be done about" in str(refused.value)
    _nothing_started("small")


def test_a_season_whose_end_cut_its_finals_says_so(five, client):
    """The same trial: the finished season's page gave no sign that its finals had stopped at stage 4 of 6."""
    from armada_web.seasons import periodic, services
    from armada_web.seasons.models import Season

    _closed("cut", ends_in=timedelta(hours=1))
    season_command("finals", "cut", "--stages", "2", "--games", "4")
    periodic.tick(workers=1)
    season = Season.objects.get(slug="cut")
    total = season.matches_total
    match = queued("finals")[0]
    record_result(match, winner=1)
    services.finish_season(season=season)
    html = client.get("/seasons/cut/").content.decode()
    assert (f"The finals were cut short when the organisers finished the season: {total - 1} of their {total} "
            "matches were not played (stage 1 of 2 reached)") in html  # by hand, an hour before its end
    Season.objects.filter(slug="cut").update(ends=timezone.now() - timedelta(minutes=1))
    assert "cut short by the end of the season" in client.get("/seasons/cut/").content.decode()
    _closed("whole")
    season_command("finals", "whole", "--stages", "1", "--games", "1")
    while Season.objects.get(slug="whole").state == "finals":
        periodic.tick(workers=1)
        for waiting in queued("finals"):
            record_result(waiting, winner=1)
    assert 'id="finals-cut"' not in client.get("/seasons/whole/").content.decode()
    # a review: a disqualification after the finish takes its games away, which is no cut
    whole = Season.objects.get(slug="whole")
    services.withdraw_entries(season=whole, version_ref=whole.entries.first().version_ref)
    assert 'id="finals-cut"' not in client.get("/seasons/whole/").content.decode()
