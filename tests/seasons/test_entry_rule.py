"""A season's entry rule (docs/seasons.md, "Who may enter"): which bots the close takes as entries
under each rule (everyone by default, not staff or demo accounts, invited accounts only), demo
accounts known by their mark and not by their name, the rule set by `manage.py season` and the
admin, refused with the reason when it cannot apply, and fixed once the season has closed."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

pytestmark = pytest.mark.django_db


def season_command(*args: str) -> str:
    out = StringIO()
    call_command("season", *args, stdout=out)
    return out.getvalue().strip()


@pytest.fixture
def people(make_user, valid_version):
    """A Galaxy bot each: two ordinary users, a staff one, a superuser, a marked demo account, and an
    unmarked user whose name only looks like a demo one's."""
    from armada_web.accounts.services import mark_demo

    users = {
        "ann": make_user("ann"),
        "ben": make_user("ben"),
        "stella": make_user("stella", is_staff=True),
        "root": make_user("root", is_staff=True, is_superuser=True),
        "carol": make_user("carol"),
        "demo-lookalike": make_user("demo-lookalike"),
    }
    mark_demo(user=users["carol"])
    for name, user in users.items():
        valid_version(user, f"{name}-bot")
    return users


def entered(slug: str) -> set[str]:
    from armada_web.seasons.models import Entry

    return set(Entry.objects.filter(season__slug=slug).values_list("bot_name", flat=True))


def test_the_default_rule_is_everyone_and_takes_every_playing_bot(people):
    from armada_web.seasons.models import Season

    line = season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    assert line.endswith("; entry: everyone")
    assert Season.objects.get(slug="s1").entry_rule == "everyone"
    assert season_command("close", "s1") == "season s1 is closed with 6 entries frozen"
    assert entered("s1") == {f"{name}-bot" for name in people}


def test_not_staff_or_demo_leaves_out_staff_superusers_and_marked_demo_accounts(people):
    from armada_web.seasons.models import Entry

    line = season_command("create", "s1", "--game", "galaxy", "--name", "Spring", "--entry", "not-staff-or-demo")
    assert line.endswith("; entry: everyone but staff and demo accounts")
    assert season_command("close", "s1") == "season s1 is closed with 3 entries frozen"
    # the look-alike is an ordinary account: a name proves nothing
    assert entered("s1") == {"ann-bot", "ben-bot", "demo-lookalike-bot"}
    assert sorted(Entry.objects.filter(season__slug="s1").values_list("seed", flat=True)) == [1, 2, 3]


def test_invited_only_takes_the_invited_accounts_bots_and_leaves_the_others_out(people):
    line = season_command("create", "s1", "--game", "galaxy", "--name", "Spring", "--entry", "invited",
                          "--invite", "ann", "--invite", "stella", "--invite", "ann")
    assert line.endswith("; entry: invited accounts only (2 invited)")
    season_command("close", "s1")
    assert entered("s1") == {"ann-bot", "stella-bot"}  # ben was not invited; staff enter when invited


def test_a_mothership_season_applies_the_rule_to_the_league(make_user, valid_version):
    from armada_web.accounts.services import mark_demo

    for name in ("ann", "ben", "carol"):
        user = make_user(name)
        valid_version(user, f"{name}-race", game="mothership", orders={"probe": 1}, starter="balanced")
        if name == "carol":
            mark_demo(user=user)
    season_command("create", "m1", "--game", "mothership", "--name", "Down", "--entry", "not-staff-or-demo")
    assert season_command("close", "m1") == "season m1 is closed with 2 entries frozen"
    assert entered("m1") == {"ann-race", "ben-race"}


def test_the_rule_is_changed_before_the_close_and_applied_at_it(people):
    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    assert season_command("entry", "s1", "--entry", "invited", "--invite", "ben") == \
        "season s1: entry: invited accounts only (1 invited)"
    assert season_command("entry", "s1", "--entry", "invited", "--invite", "carol") == \
        "season s1: entry: invited accounts only (1 invited)"  # the list is replaced, not added to
    season_command("close", "s1")
    assert entered("s1") == {"carol-bot"}


@pytest.mark.parametrize(("args", "reason"), [
    (["--entry", "invited"], "needs at least one invited account"),
    (["--entry", "invited", "--invite", "nobody"], "no account named nobody"),
    (["--invite", "ann"], "invited accounts are for an invited-only season"),
    (["--entry", "not-staff-or-demo", "--invite", "ann"], "invited accounts are for an invited-only season"),
])
def test_a_rule_that_cannot_apply_is_refused_with_the_reason(people, args, reason):
    from armada_web.seasons.models import Season

    with pytest.raises(CommandError, match=reason):
        season_command("create", "s9", "--game", "galaxy", "--name", "x", *args)
    assert not Season.objects.filter(slug="s9").exists()
    season_command("create", "s1", "--game", "galaxy", "--name", "Spring")
    with pytest.raises(CommandError, match=reason):
        season_command("entry", "s1", *(args if "--entry" in args else ["--entry", "everyone", *args]))
    assert Season.objects.get(slug="s1").entry_rule == "everyone"


def test_the_rule_is_fixed_once_the_season_has_closed(people):
    from armada_web.seasons.models import Season

    season_command("create", "s1", "--game", "galaxy", "--name", "Spring", "--entry", "not-staff-or-demo")
    season_command("close", "s1")
    with pytest.raises(CommandError, match="season s1 is closed: its entries are frozen"):
        season_command("entry", "s1", "--entry", "everyone")
    assert Season.objects.get(slug="s1").entry_rule == "not-staff-or-demo"
    assert len(entered("s1")) == 3


def test_the_service_keeps_the_default_for_callers_that_do_not_say(people):
    """Beat, older callers and the seasons made before the rule existed: everyone, unchanged."""
    from armada_web.seasons import services

    season = services.create_season(slug="s1", game="galaxy", name="Spring")
    assert season.entry_rule == "everyone" and not season.invited_users.exists()
    services.close_season(season=season)
    assert len(entered("s1")) == 6


ADMIN_FORM = {"slug": "adm", "name": "Admin's", "game": "galaxy", "opens_0": "2026-01-01", "opens_1": "00:00:00",
              "closes_0": "2099-01-01", "closes_1": "00:00:00", "ends_0": "2100-01-01", "ends_1": "00:00:00",
              "cuts": "[]", "standings-TOTAL_FORMS": "0", "standings-INITIAL_FORMS": "0"}


def test_the_admin_chooses_the_rule_and_its_invited_accounts(people, admin_client):
    from armada_web.seasons.models import Season

    answer = admin_client.post("/admin/seasons/season/add/", {**ADMIN_FORM, "entry_rule": "invited"})
    assert answer.status_code == 200 and "needs at least one invited account" in answer.content.decode()
    answer = admin_client.post("/admin/seasons/season/add/", {**ADMIN_FORM, "entry_rule": "everyone",
                                                              "invited_users": [people["ann"].pk]})
    assert answer.status_code == 200 and "invited accounts are for an invited-only season" in answer.content.decode()
    assert not Season.objects.exists()
    answer = admin_client.post("/admin/seasons/season/add/", {**ADMIN_FORM, "entry_rule": "invited",
                                                              "invited_users": [people["ann"].pk, people["ben"].pk]})
    assert answer.status_code == 302, answer.context["adminform"].form.errors if answer.context else answer
    season = Season.objects.get(slug="adm")
    assert season.state == "open" and season.entry_rule == "invited"
    assert set(season.invited_users.values_list("username", flat=True)) == {"ann", "ben"}

    change = f"/admin/seasons/season/{season.pk}/change/"
    edit = {k: v for k, v in ADMIN_FORM.items() if k not in ("slug", "game")}
    answer = admin_client.post(change, {**edit, "name": "Renamed", "entry_rule": "not-staff-or-demo"})
    assert answer.status_code == 302, answer.context["adminform"].form.errors if answer.context else answer
    season.refresh_from_db()
    assert (season.name, season.entry_rule, season.invited_users.count()) == ("Renamed", "not-staff-or-demo", 0)

    admin_client.post("/admin/seasons/season/", {"action": "close_now", "_selected_action": [season.pk]})
    assert entered("adm") == {"ann-bot", "ben-bot", "demo-lookalike-bot"}
    page = admin_client.get(change).content.decode()
    assert 'name="entry_rule"' not in page and "everyone but staff and demo accounts" in page  # read-only now
    admin_client.post(change, {**edit, "name": "Renamed", "entry_rule": "everyone"})
    season.refresh_from_db()
    assert season.entry_rule == "not-staff-or-demo"


def test_the_admin_leaves_out_the_rule_and_gets_everyone(people, admin_client):
    from armada_web.seasons.models import Season

    answer = admin_client.post("/admin/seasons/season/add/", ADMIN_FORM)
    assert answer.status_code == 302
    assert Season.objects.get(slug="adm").entry_rule == "everyone"
