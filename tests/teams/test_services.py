"""Teams' rules (issue 26): personal teams, names, join keys, the size limit, leaving, removing,
archiving and restoring; and that membership is what gives a bot's rights, at once."""

from __future__ import annotations

from typing import Any

import pytest

from armada_web.bots import access
from armada_web.bots import services as bots
from armada_web.teams import queries, services
from armada_web.teams.models import Membership, Team
from armada_web.web.errors import Conflict, Forbidden, Invalid, NotFound
from tests.support.fixtures import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def test_every_new_user_has_a_personal_team_of_one(make_user):
    alice = make_user("alice")
    team = services.personal_team(user=alice)
    assert team.personal and team.name == "alice"
    assert [m.user for m in queries.members(team)] == [alice]
    assert Team.objects.filter(personal=True).count() == 1  # made once, at sign-up


def test_a_personal_team_takes_a_suffix_when_a_team_took_the_name_first(make_user):
    services.create_team(user=make_user("alice"), name="Bob")
    assert services.personal_team(user=make_user("bob")).name == "bob-2"


def test_a_bot_goes_to_the_personal_team_by_default_or_to_a_team_of_its_creator(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    assert bots.create_bot(user=alice, name="solo", game="galaxy").team == services.personal_team(user=alice)
    crew = services.create_team(user=alice, name="crew")
    assert bots.create_bot(user=alice, name="shared", game="galaxy", team=crew.pk).team == crew
    with pytest.raises(Forbidden):
        bots.create_bot(user=bob, name="sneaky", game="galaxy", team=crew.pk)


@pytest.mark.parametrize("name", ["ab", "x" * 41, "tab\there", "new\nline", "zero\u200bwidth", " padded", 7])
def test_bad_team_names_are_refused_with_a_message(make_user, name):
    with pytest.raises(Invalid):
        services.create_team(user=make_user("alice"), name=name)
    assert not Team.objects.filter(personal=False).exists()


def test_a_blank_name_is_said_to_be_missing_not_padded():
    from armada_web.teams.logic.names import name_problem

    assert name_problem("   ") == name_problem("") == "a team needs a name"
    assert name_problem(" crew") == "the team's name may not start or end with a space"


def test_team_names_are_unique_whatever_the_case(make_user):
    alice = make_user("alice")
    services.create_team(user=alice, name="Red Fleet")
    with pytest.raises(Conflict, match="taken by another team"):
        services.create_team(user=make_user("bob"), name="red fleet")
    # a trial: creating one's own team again was told "taken by another team"
    with pytest.raises(Conflict, match="you are a member of the team 'Red Fleet' already"):
        services.create_team(user=alice, name="RED FLEET")



@pytest.mark.parametrize(("name", "said"), [
    ("Red  Fleet", "single plain spaces"),  # a page collapses the two spaces
    ("Red\u00a0Fleet", "single plain spaces"),
    ("\uff32ed Fleet", "plain characters: 'Red Fleet'"),  # a full-width R
    ("Red Fle\u0435t", r"mixes alphabets \(Cyrillic, Latin\)"),  # a Cyrillic e
    ("(Deleted Accounts)", "what the site shows for deleted accounts"),  # D-S-9's team, free on a new site
    ("(deleted user)", "what the site shows for deleted accounts"),
    ("(Deleted users)", "what the site shows for deleted accounts"),  # a look-alike (a security review)
])
def test_a_name_that_would_pass_for_another_teams_is_refused(make_user, name, said):
    """A new user's trial made look-alikes of "Red Fleet" that the case-blind uniqueness let through."""
    services.create_team(user=make_user("alice"), name="Red Fleet")
    with pytest.raises(Invalid, match=said):
        services.create_team(user=make_user("bob"), name=name)
    for number, fine in enumerate(("Красный флот", "Ωμέγα 7", "Équipe Rouge", "Team 42")):  # one alphabet each
        services.create_team(user=make_user(f"user{number}"), name=fine)



def test_a_name_written_wholly_in_look_alike_letters_is_refused(make_user):
    """A security trial: "\u0441\u0430\u0445\u0435" (all Cyrillic, one alphabet) was taken beside "caxe" (D-S-34)."""
    alice, bob = make_user("alice"), make_user("bob")
    services.create_team(user=alice, name="caxe")
    # U+0450 is a Cyrillic e with a grave accent
    for name in ("\u0441\u0430\u0445\u0435", "\u0421\u0410\u0425\u0415", "\u0441\u0430\u0445\u0450"):
        with pytest.raises(Conflict, match="reads as 'caxe', another team's name"):
            services.create_team(user=bob, name=name)
    own = services.create_team(user=bob, name="\u0441\u0430\u0445\u0430\u0448")  # a \u0448 has no ASCII reading
    with pytest.raises(Conflict, match="reads as 'caxe'"):
        services.rename_team(user=bob, team=own, name="\u0441\u0430\u0445\u0435")
    other = services.create_team(user=alice, name="\u0420\u0415\u0420\u0415")  # no team "pepe" yet
    lower = "\u0440\u0435\u0440\u0435"
    assert services.rename_team(user=alice, team=other, name=lower).name == lower
    # a review: a new account so named got a personal team that passed for the team
    from armada_web.accounts.services import sign_up

    newcomer = sign_up(username="\u0441\u0430\u0445\u0435", email="", password="a-long-pass-phrase-1")
    assert services.personal_team(user=newcomer).name == "\u0441\u0430\u0445\u0435-2"


@pytest.mark.parametrize("name", ["abc" + "\u030d" * 35, "z\u0336\u0336\u0336\u0336a\u0336l\u0336go",
                                  "Red\u0301\u0300\u0302 Fleet", "Tea\u20dd\u20dd\u20dd"])
def test_a_name_with_stacked_accent_marks_is_refused(make_user, name):
    """A competitor's trial: 35 marks on one letter (U+030D, which no letter has built in, so NFKC
    leaves it) spilled over the rows around the name; "e" + U+0301 was refused only because NFKC
    writes it "é" (D-S-31)."""
    with pytest.raises(Invalid, match=r"the team's name has stacked accent marks \(\d+ on one letter, at most 2"):
        services.create_team(user=make_user("alice"), name=name)
    assert not Team.objects.filter(personal=False).exists()


@pytest.mark.parametrize("name", ["Café", "Équipe Rouge", "\u1eb9\u0301 Yoruba", "\u0e1b\u0e31\u0e4a\u0e21 Thai",
                                  "\u0915\u093c\u094d\u0937 Fleet", "Team 1\ufe0f\u20e3"])
def test_real_writing_keeps_its_marks(make_user, name):
    """Two marks on a letter are what real writing needs at most (a Thai vowel and tone mark,
    Devanagari's nukta and virama, Yoruba's dot and tone, an emoji keycap): such names stay fine."""
    assert services.create_team(user=make_user("alice"), name=name).name == name


@pytest.mark.parametrize("name", ["Red Fleet\ufe0f", "Red\ufe0e Fleet", "Red Fleet\U000e0100", "Red Fleet\u034f",
                                  "Red Fleet\u17b4", "Red Fleet\u180b", "Red Fleet\u1160", "\u1160\u1160\u1160",
                                  "Red Fleet\u2800"])
def test_an_invisible_variation_selector_after_a_letter_is_refused(make_user, name):
    """A review: "Red Fleet" + U+FE0F (which draws a letter no differently) stood beside "Red Fleet"."""
    services.create_team(user=make_user("bob"), name="Red Fleet")
    with pytest.raises(Invalid, match=r"the team's name holds (an invisible variation selector|a character drawn "
                                      r"as nothing) \(U\+"):
        services.create_team(user=make_user("alice"), name=name)
    assert services.create_team(user=make_user("carol"), name="Love \u2764\ufe0f").name == "Love \u2764\ufe0f"

def test_join_needs_the_current_key_and_a_renewed_key_replaces_the_old(make_user):
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    team = services.create_team(user=alice, name="crew")
    with pytest.raises(Forbidden, match="join key"):
        services.join_team(user=bob, team=team, key="wrong")
    old = team.join_key
    services.renew_key(user=alice, team=team)
    with pytest.raises(Forbidden, match="join key"):
        services.join_team(user=bob, team=team, key=old)
    team.refresh_from_db()
    services.join_team(user=bob, team=team, key=team.join_key)
    with pytest.raises(Conflict, match="already"):
        services.join_team(user=bob, team=team, key=team.join_key)
    with pytest.raises(Forbidden):
        services.renew_key(user=carol, team=team)
    assert [m.user for m in queries.members(team)] == [alice, bob]
    services.archive_team(user=alice, team=team)  # a security trial: no key is shown while archived
    team.refresh_from_db()
    kept = team.join_key
    with pytest.raises(Conflict, match="archived: restore it before renewing its join key"):
        services.renew_key(user=alice, team=team)
    team.refresh_from_db()
    assert team.join_key == kept


def test_a_full_team_refuses_a_join(make_user, armada):
    armada(team_max_members=2)
    team = services.create_team(user=make_user("alice"), name="crew")
    services.join_team(user=make_user("bob"), team=team, key=team.join_key)
    with pytest.raises(Conflict, match=r"full.*limit is 2"):
        services.join_team(user=make_user("carol"), team=team, key=team.join_key)
    assert queries.members(team).count() == 2


def test_a_personal_team_takes_no_one_and_cannot_be_left(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    mine = services.personal_team(user=alice)
    with pytest.raises(Conflict, match="personal"):
        services.join_team(user=bob, team=mine, key="")
    with pytest.raises(Conflict, match="personal"):
        services.leave_team(user=alice, team=mine)
    # to anyone else, a member's action on it is not theirs to take: 403, as on any team (an API trial
    # got 409 "a personal team has its one member" before "you are not a member")
    for act in (lambda: services.renew_key(user=bob, team=mine), lambda: services.archive_team(user=bob, team=mine),
                lambda: services.restore_team(user=bob, team=mine),
                lambda: services.remove_member(user=bob, team=mine, username="alice")):
        with pytest.raises(Forbidden, match="another account's personal team"):
            act()
    with pytest.raises(Conflict, match="personal"):  # its own member: the kind of team refuses
        services.archive_team(user=alice, team=mine)


def test_the_last_member_leaves_only_an_archived_team_and_a_former_member_restores_it(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    team = services.create_team(user=alice, name="crew")
    services.join_team(user=bob, team=team, key=team.join_key)
    services.leave_team(user=bob, team=team)
    with pytest.raises(Conflict, match="last member"):
        services.leave_team(user=alice, team=team)
    services.archive_team(user=alice, team=team)
    services.leave_team(user=alice, team=team)
    assert not queries.members(team).exists()
    with pytest.raises(Forbidden):
        services.restore_team(user=make_user("carol"), team=team)
    services.restore_team(user=bob, team=team)  # a former member, not its last one
    team.refresh_from_db()
    assert team.archived is None and [m.user for m in queries.members(team)] == [bob]


def bob_removed_carol_left(make_user: Any) -> tuple[Any, Any, Any, Any]:
    """alice's team "crew": bob joined and was removed by alice, carol joined and left on her own."""
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    team = services.create_team(user=alice, name="crew")
    for user in (bob, carol):
        services.join_team(user=user, team=team, key=team.join_key)
    services.remove_member(user=alice, team=team, username="bob")
    services.leave_team(user=carol, team=team)
    return alice, bob, carol, team


def test_restoring_never_brings_back_a_removed_member_nor_overrides_the_members(make_user):
    """A removed member restoring an archived team took the team back with its new key and its bots'
    sources (a new user's trial): restoring only unarchives for a member; a former member rejoins
    only a team without members, and never after a removal."""
    alice, bob, carol, team = bob_removed_carol_left(make_user)
    services.renew_key(user=alice, team=team)
    services.archive_team(user=alice, team=team)
    with pytest.raises(Forbidden, match="you were removed from this team"):
        services.restore_team(user=bob, team=team)
    with pytest.raises(Forbidden, match="this team has members: one of them can restore it"):
        services.restore_team(user=carol, team=team)  # left on her own, but alice is still in
    team.refresh_from_db()
    assert team.archived is not None and [m.user for m in queries.members(team)] == [alice]
    services.leave_team(user=alice, team=team)  # now nobody is in
    with pytest.raises(Forbidden, match="you were removed"):
        services.restore_team(user=bob, team=team)
    services.restore_team(user=carol, team=team)
    team.refresh_from_db()
    assert team.archived is None and [m.user for m in queries.members(team)] == [carol]
    with pytest.raises(Conflict, match="this team is not archived"):  # not "it has members" (a trial)
        services.restore_team(user=alice, team=team)


def test_a_removal_outlives_the_remover_s_account(make_user, client):
    """A new user's trial: the remover deleted their account, `removed_by` emptied, and the removed
    member, read as one who had left, restored the archived team and read its bots' code."""
    from armada_web.accounts.services import delete_account
    from tests.support.fixtures import PASSWORD

    alice, bob, carol, team = bob_removed_carol_left(make_user)
    services.archive_team(user=alice, team=team)
    delete_account(user=alice, password=PASSWORD)
    with pytest.raises(Forbidden, match="you were removed from this team"):
        services.restore_team(user=bob, team=team)
    assert [(m.user, m.removed) for m in queries.history(team)] == [(None, False), (carol, False), (bob, True)]
    client.force_login(carol)
    page = client.get(f"/teams/{team.pk}/").content.decode()
    assert "removed by a deleted account" in page and page.count(">left<") == 2
    services.restore_team(user=carol, team=team)  # who left on her own may, the team having no members


def test_a_user_is_in_at_most_so_many_shared_teams(make_user, armada):
    """Each team has its own bot limit, so a user creating team after team had bots and games
    without end (a new user's trial made 30 teams and 5 bots in each): ARMADA_TEAMS_PER_USER."""
    armada(teams_per_user=2)
    alice, bob = make_user("alice"), make_user("bob")
    first = services.create_team(user=alice, name="one")
    services.create_team(user=alice, name="two")
    with pytest.raises(Conflict, match=r"you are in 2 teams already \(the limit is 2\): leave one first \(its last "
                                       r"member archives it on its page, then leaves\)"):
        services.create_team(user=alice, name="three")
    third = services.create_team(user=bob, name="bobs")
    with pytest.raises(Conflict, match="the limit is 2"):
        services.join_team(user=alice, team=third, key=third.join_key)
    services.join_team(user=bob, team=first, key=first.join_key)
    services.leave_team(user=alice, team=first)  # room again; the personal team never counts
    services.join_team(user=alice, team=third, key=third.join_key)
    assert not Team.objects.filter(name="three").exists()
    services.create_team(user=make_user("carol"), name="filler")
    services.archive_team(user=bob, team=first)
    services.leave_team(user=bob, team=first)
    with pytest.raises(Conflict, match="the limit is 2"):  # rejoining by restoring counts too
        services.restore_team(user=alice, team=first)


def test_removing_a_member_is_recorded_and_keeps_the_bots(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    team = services.create_team(user=alice, name="crew")
    services.join_team(user=bob, team=team, key=team.join_key)
    bot = bots.create_bot(user=bob, name="bobs", game="galaxy", team=team.pk)
    services.remove_member(user=alice, team=team, username="BOB")
    (gone,) = queries.history(team)
    assert gone.user == bob and gone.removed_by == alice and gone.left is not None
    bot.refresh_from_db()
    assert bot.team == team and bot.retired is None
    with pytest.raises(Forbidden):  # bob is no longer a member: he cannot remove alice back
        services.remove_member(user=bob, team=team, username="alice")
    with pytest.raises(NotFound):
        services.remove_member(user=alice, team=team, username="bob")


def test_removing_a_member_renews_the_join_key_and_leaving_keeps_it(make_user):
    """A removed member rejoined at once with the key they knew and read the team's sources again
    (a new user's trial): a removal renews the key (D-S-21); one who leaves on their own may come
    back with the link they were given."""
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    team = services.create_team(user=alice, name="crew")
    old = team.join_key
    for user in (bob, carol):
        services.join_team(user=user, team=team, key=old)
    services.leave_team(user=carol, team=team)
    team.refresh_from_db()
    assert team.join_key == old
    services.remove_member(user=alice, team=team, username="bob")
    team.refresh_from_db()
    assert team.join_key and team.join_key != old
    with pytest.raises(Forbidden, match="not this team's join key"):
        services.join_team(user=bob, team=team, key=old)
    assert [m.user for m in queries.members(team)] == [alice]
    for missing in ("", None):  # a link without its key (a trial saw "not this team's join key")
        with pytest.raises(Forbidden, match=r"this link has no join key: .* copies from the team's page"):
            services.join_team(user=bob, team=team, key=missing)
    services.join_team(user=carol, team=team, key=team.join_key)  # the new key works


def test_every_member_manages_the_teams_bots_and_a_leaver_loses_it_at_once(make_user):
    alice, bob, stranger = make_user("alice"), make_user("bob"), make_user("stranger")
    team = services.create_team(user=alice, name="crew")
    services.join_team(user=bob, team=team, key=team.join_key)
    bot = bots.create_bot(user=alice, name="shared", game="galaxy", team=team.pk)
    bots.upload_version(bot=bot, user=bob, filename="main.py", data=b"print(1)\n")
    assert access.is_owner(bot=bot, user=bob) and access.can_see_private(user=bob, bot=bot)
    assert not access.can_see_private(user=stranger, bot=bot)
    services.leave_team(user=bob, team=team)
    assert not access.is_owner(bot=bot, user=bob) and not access.can_see_private(user=bob, bot=bot)
    with pytest.raises(Forbidden):
        bots.retire_bot(bot=bot, user=bob)
    bots.retire_bot(bot=bot, user=alice)


def test_one_member_cannot_delete_a_shared_teams_bot_with_versions(make_user, api):
    """D-S-37 (a security trial: a member who joined yesterday deleted a team's bot, its versions and
    its place in every match it played). A bot without versions goes (`armada submit`'s undo); one with
    versions is retired instead, or deleted by the team's last member."""
    from django.test import Client

    from armada_web.bots.models import Bot

    def client_of(user: Any) -> Client:
        browser = Client()
        browser.force_login(user)
        return browser

    alice, bob = make_user("alice"), make_user("bob")
    team = services.create_team(user=alice, name="crew")
    services.join_team(user=bob, team=team, key=team.join_key)
    empty = bots.create_bot(user=alice, name="empty", game="galaxy", team=team.pk)
    bots.delete_bot(bot=empty, user=bob, only_if_empty=True)  # nothing of anyone's is lost
    bot = bots.create_bot(user=alice, name="shared", game="galaxy", team=team.pk)
    bots.upload_version(bot=bot, user=alice, filename="main.py", data=b"print(1)\n")
    answer = api(bob).delete(f"/api/bots/{bot.pk}/")
    assert answer.status_code == 403 and "retire it instead" in answer.json()["detail"]
    with pytest.raises(Forbidden, match="other members manage it too"):
        bots.delete_bot(bot=bot, user=alice)  # its creator neither
    assert Bot.objects.filter(pk=bot.pk).exists() and bot.versions.count() == 1
    browser = client_of(bob)
    assert "Delete…" not in browser.get(f"/bots/{bot.pk}/").content.decode()  # no button the service refuses
    asked = browser.get(f"/bots/{bot.pk}/delete/").content.decode()
    assert 'id="delete-refusal"' in asked and "retire it instead" in asked and 'class="danger"' not in asked
    assert browser.post(f"/bots/{bot.pk}/delete/").status_code == 403 and Bot.objects.filter(pk=bot.pk).exists()
    services.leave_team(user=bob, team=team)  # the last member decides alone
    assert "Delete…" in client_of(alice).get(f"/bots/{bot.pk}/").content.decode()
    assert api(alice).delete(f"/api/bots/{bot.pk}/").status_code == 204
    assert not Bot.objects.filter(pk=bot.pk).exists()
    # (a review) removing the others first opens no way: a team that removed a member keeps its bots
    other = services.create_team(user=alice, name="crew2")
    services.join_team(user=bob, team=other, key=other.join_key)
    kept = bots.create_bot(user=alice, name="kept", game="galaxy", team=other.pk)
    bots.upload_version(bot=kept, user=alice, filename="main.py", data=b"print(2)\n")
    services.remove_member(user=bob, team=other, username="alice")
    answer = api(bob).delete(f"/api/bots/{kept.pk}/")
    assert answer.status_code == 403 and "which removed members" in answer.json()["detail"]
    bots.retire_bot(bot=kept, user=bob)
    assert "it is retired already" in client_of(bob).get(f"/bots/{kept.pk}/delete/").content.decode()
    assert Bot.objects.filter(pk=kept.pk).exists()


def test_an_archived_teams_bots_do_not_play_and_take_no_uploads(make_user, valid_version):
    from armada_web.bots.models import BotVersion

    alice = make_user("alice")
    team = services.create_team(user=alice, name="crew")
    version = valid_version(alice, "solo")
    bot = version.bot
    bot.team = team
    bot.save(update_fields=["team"])
    assert BotVersion.objects.playing().filter(pk=version.pk).exists()
    services.archive_team(user=alice, team=team)
    bot.refresh_from_db()
    assert not BotVersion.objects.playing().filter(pk=version.pk).exists()
    assert access.upload_refusal(bot=bot) is not None
    services.restore_team(user=alice, team=team)
    assert BotVersion.objects.playing().filter(pk=version.pk).exists()


def test_archiving_takes_the_teams_bots_out_of_ranked_play_at_once_and_restoring_brings_them_back(
        make_user, valid_version):
    """The ladder's `Rating.playing` (what matchmaking and the ladder's page read) follows the
    archive in its own transaction, as it follows a retirement: not only at the next repair, ten
    minutes on, while matchmaking went on pairing the archived team's bots."""
    from armada_web.ladder.matchmaking import RatingPool
    from armada_web.ladder.models import Rating

    alice = make_user("alice")
    team = services.create_team(user=alice, name="crew")
    version = valid_version(alice, "solo")
    from armada_web.bots.moves import move_bot

    move_bot(bot=version.bot, user=alice, team=team.pk)
    other = valid_version(make_user("bob"), "rival")
    assert Rating.objects.get(version=version).playing and RatingPool("galaxy").size() == 2
    services.archive_team(user=alice, team=team)
    assert not Rating.objects.get(version=version).playing
    assert RatingPool("galaxy").size() == 1 and Rating.objects.get(version=other).playing
    services.restore_team(user=alice, team=team)
    assert Rating.objects.get(version=version).playing and RatingPool("galaxy").size() == 2


def test_bot_limits_count_per_team(make_user, armada):
    armada(max_bots_per_game=1)
    alice, bob = make_user("alice"), make_user("bob")
    team = services.create_team(user=alice, name="crew")
    services.join_team(user=bob, team=team, key=team.join_key)
    bots.create_bot(user=alice, name="first", game="galaxy", team=team.pk)
    with pytest.raises(Conflict, match="per team"):
        bots.create_bot(user=bob, name="second", game="galaxy", team=team.pk)
    bots.create_bot(user=bob, name="own", game="galaxy")  # bob's personal team has room


def test_memberships_keep_one_current_row_per_user(make_user):
    alice = make_user("alice")
    team = services.create_team(user=alice, name="crew")
    bob = make_user("bob")
    for _ in range(2):
        services.join_team(user=bob, team=team, key=team.join_key)
        services.leave_team(user=bob, team=team)
    assert Membership.objects.filter(team=team, user=bob).count() == 2
    assert not Membership.objects.current().filter(team=team, user=bob).exists()


def test_the_hourly_uploads_count_for_the_team_not_each_member(make_user, armada):
    from armada_web.web.errors import RateLimited

    armada(uploads_per_hour=2)
    alice, bob = make_user("alice"), make_user("bob")
    team = services.create_team(user=alice, name="crew")
    services.join_team(user=bob, team=team, key=team.join_key)
    bot = bots.create_bot(user=alice, name="shared", game="galaxy", team=team.pk)
    bots.upload_version(bot=bot, user=alice, filename="main.py", data=b"x = 1\n")
    bots.upload_version(bot=bot, user=bob, filename="main.py", data=b"x = 2\n")
    with pytest.raises(RateLimited, match="per team"):
        bots.upload_version(bot=bot, user=bob, filename="main.py", data=b"x = 3\n")
    solo = bots.create_bot(user=bob, name="solo", game="galaxy")  # his personal team counts apart
    bots.upload_version(bot=solo, user=bob, filename="main.py", data=b"x = 4\n")


def test_the_hourly_uploads_also_count_for_each_account_over_its_teams(make_user, armada):
    """A security review: the limit per team let one account in 3 teams and its own upload 4 times
    as much (and the site store up to about 200 MiB an upload): each account now counts too."""
    from armada_web.accounts.models import LimitUse
    from armada_web.web.errors import RateLimited

    armada(uploads_per_hour=2)
    alice = make_user("alice")
    crew, other = services.create_team(user=alice, name="crew"), services.create_team(user=alice, name="other")
    shared = bots.create_bot(user=alice, name="shared", game="galaxy", team=crew.pk)
    bots.upload_version(bot=shared, user=alice, filename="main.py", data=b"x = 1\n")
    bots.upload_version(bot=bots.create_bot(user=alice, name="elsewhere", game="galaxy", team=other.pk),
                        user=alice, filename="main.py", data=b"x = 2\n")
    before = LimitUse.objects.count()
    with pytest.raises(RateLimited, match="per hour per account, over all your teams"):
        bots.upload_version(bot=bots.create_bot(user=alice, name="solo", game="galaxy"), user=alice,
                            filename="main.py", data=b"x = 3\n")
    assert LimitUse.objects.count() == before  # the refused upload took no team's use either
    assert shared.versions.count() == 1


def test_the_hourly_challenges_count_for_the_team(make_user, valid_version, armada):
    from armada_web.ladder.challenges import challenge
    from armada_web.web.errors import RateLimited

    armada(challenges_per_hour=1, challenges_per_pair_hour=10)
    queue = armada.current.validation_queue
    armada(matches_queue=queue, challenges_queue=queue)
    alice, bob = make_user("alice"), make_user("bob")
    team = services.create_team(user=alice, name="crew")
    services.join_team(user=bob, team=team, key=team.join_key)
    mine = valid_version(alice, "mine").bot
    mine.team = team
    mine.save(update_fields=["team"])
    rival = valid_version(make_user("rival"), "rival").bot
    challenge(user=alice, bot=mine.pk, opponent=rival.pk)
    with pytest.raises(RateLimited, match="per team"):
        challenge(user=bob, bot=mine.pk, opponent=rival.pk)
    # and per account over its teams (a review): alice's own bot, in her personal team, is refused too
    solo = valid_version(alice, "solo").bot
    with pytest.raises(RateLimited, match="per hour per account, over all your teams"):
        challenge(user=alice, bot=solo.pk, opponent=rival.pk)
    challenge(user=bob, bot=valid_version(bob, "bobs").bot.pk, opponent=rival.pk)  # bob's own: his first


def test_the_bot_page_names_a_bots_team(make_user, client):
    alice = make_user("alice")
    team = services.create_team(user=alice, name="Red Fleet")
    shared = bots.create_bot(user=alice, name="shared", game="galaxy", team=team.pk)
    solo = bots.create_bot(user=alice, name="solo", game="galaxy")
    assert (f'team <a href="/teams/{team.pk}/" id="bot-team" class="team">Red Fleet</a>'
            in client.get(f"/bots/{shared.pk}/").content.decode())
    assert 'id="bot-team"' not in client.get(f"/bots/{solo.pk}/").content.decode()  # a personal team


def test_a_deleted_account_leaves_its_teams_and_frees_its_place(make_user, armada):
    from armada_web.accounts.services import delete_account

    armada(team_max_members=2)
    alice, bob = make_user("alice"), make_user("bob")
    team = services.create_team(user=alice, name="crew")
    services.join_team(user=bob, team=team, key=team.join_key)
    delete_account(user=bob, password=PASSWORD)
    assert [m.user for m in queries.members(team)] == [alice]
    services.join_team(user=make_user("carol"), team=team, key=team.join_key)  # bob's place is free
    assert Membership.objects.filter(team=team, user__isnull=True, left__isnull=False).count() == 1


def test_a_shared_team_left_without_members_by_a_deletion_is_archived(make_user):
    """A competitor's trial: deleting the account of a shared team's last member left the team with
    no members, not archived: no one could restore, rename or archive it, and its old join key
    still let anyone in (and into its history). It is archived, as its last member leaving must
    archive it first; a former member who left on their own may restore it (D-S-21)."""
    from armada_web.accounts.services import delete_account

    dave, erin, stranger = make_user("dave"), make_user("erin"), make_user("stranger")
    solo = services.create_team(user=dave, name="dave solo")
    crew = services.create_team(user=dave, name="dave crew")
    services.join_team(user=erin, team=crew, key=crew.join_key)
    delete_account(user=dave, password=PASSWORD)
    solo.refresh_from_db()
    crew.refresh_from_db()
    assert solo.archived is not None and crew.archived is None  # erin is still in the crew
    with pytest.raises(Conflict, match="archived"):
        services.join_team(user=stranger, team=solo, key=solo.join_key)


@pytest.mark.parametrize("name", ["ab", "x" * 41, "tab\there", "zero\u200bwidth", " padded", 7])
def test_a_rename_follows_the_rules_of_a_new_name(make_user, name):
    team = services.create_team(user=make_user("alice"), name="crew")
    with pytest.raises(Invalid):
        services.rename_team(user=make_user("alice2"), team=team, name=name)
    team.refresh_from_db()
    assert team.name == "crew"


def test_a_member_renames_a_shared_team_keeping_its_bots(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    services.create_team(user=make_user("carol"), name="Red Fleet")
    team = services.create_team(user=alice, name="crew")
    services.join_team(user=bob, team=team, key=team.join_key)
    bot = bots.create_bot(user=alice, name="shared", game="galaxy", team=team.pk)
    with pytest.raises(Conflict, match="taken"):
        services.rename_team(user=bob, team=team, name="red fleet")
    services.rename_team(user=bob, team=team, name="Blue Fleet")
    services.rename_team(user=alice, team=team, name="BLUE fleet")  # its own name in another case
    team.refresh_from_db()
    bot.refresh_from_db()
    assert team.name == "BLUE fleet" and bot.team == team
    with pytest.raises(Conflict, match="taken"):  # the name is its now
        services.create_team(user=make_user("dave"), name="blue fleet")
    services.create_team(user=make_user("erin"), name="crew")  # the old name is free at once


def test_a_rename_is_refused_to_others_and_for_personal_or_archived_teams(make_user):
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    team = services.create_team(user=alice, name="crew")
    services.join_team(user=bob, team=team, key=team.join_key)
    with pytest.raises(Forbidden):
        services.rename_team(user=carol, team=team, name="pirates")
    services.remove_member(user=alice, team=team, username="bob")
    with pytest.raises(Forbidden, match="no longer"):  # a former member
        services.rename_team(user=bob, team=team, name="pirates")
    with pytest.raises(Conflict, match="personal"):
        services.rename_team(user=carol, team=services.personal_team(user=carol), name="carolina")
    services.archive_team(user=alice, team=team)
    with pytest.raises(Conflict, match="archived"):
        services.rename_team(user=alice, team=team, name="pirates")
    team.refresh_from_db()
    assert team.name == "crew"


def test_a_creator_deleting_their_account_leaves_a_shared_teams_bot_with_the_team(make_user, valid_version):
    """D-S-8: the team's bot keeps playing with its code, its longest-serving other member its
    creator now; the creator's personal bot retires with its code gone; so does a bot of a team
    nobody else is in."""
    from armada_web.accounts.services import delete_account
    from armada_web.bots.models import BotVersion

    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    team = services.create_team(user=alice, name="crew")
    services.join_team(user=bob, team=team, key=team.join_key)
    services.join_team(user=carol, team=team, key=team.join_key)
    alone = services.create_team(user=alice, name="solo act")
    shared, personal, lonely = (valid_version(alice, name) for name in ("shared", "mine", "lonely"))
    for version, home in ((shared, team), (lonely, alone)):
        version.bot.team = home
        version.bot.save(update_fields=["team"])
    delete_account(user=alice, password=PASSWORD)
    kept = BotVersion.objects.get(pk=shared.pk)
    assert kept.bot.owner == bob and kept.bot.retired is None and kept.archive.name
    assert BotVersion.objects.playing().filter(pk=shared.pk).exists()
    assert access.is_owner(bot=kept.bot, user=carol) and access.upload_refusal(bot=kept.bot) is None
    for gone in (personal, lonely):
        version = BotVersion.objects.get(pk=gone.pk)
        assert version.bot.retired is not None and version.bot.owner is None and not version.archive.name


def test_an_archived_team_without_members_keeps_its_bots_for_who_may_restore_it(make_user, valid_version):
    """An organiser's trial: bob left, alice archived the team, left, and deleted her account; its bots
    retired with their code gone, and bob, who may restore the team, found them dead. The one who may
    restore it (left on their own) is now their creator; one the team removed never is."""
    from armada_web.accounts.services import delete_account
    from armada_web.bots.models import BotVersion

    alice, bob, dave = make_user("alice"), make_user("bob"), make_user("dave")
    team = services.create_team(user=alice, name="crew")
    for user in (dave, bob):
        services.join_team(user=user, team=team, key=team.join_key)
    shared = valid_version(alice, "shared")
    shared.bot.team = team
    shared.bot.save(update_fields=["team"])
    services.leave_team(user=dave, team=team)  # dave left on his own once, came back, and was removed:
    services.join_team(user=dave, team=team, key=team.join_key)  # never the heir (a review)
    services.remove_member(user=alice, team=team, username="dave")  # joined first, but removed
    services.leave_team(user=bob, team=team)
    services.archive_team(user=alice, team=team)
    services.leave_team(user=alice, team=team)
    delete_account(user=alice, password=PASSWORD)
    kept = BotVersion.objects.get(pk=shared.pk)
    assert kept.bot.owner == bob and kept.bot.retired is None and kept.archive.name
    services.restore_team(user=bob, team=team)
    assert BotVersion.objects.playing().filter(pk=shared.pk).exists()


def test_a_team_archived_by_its_last_members_deletion_takes_its_bots_off_the_ladder(make_user, valid_version):
    """`end_memberships` archives a shared team its last member's deletion leaves empty; as an archive by
    a member does, that takes the team's bots off the ladder and out of matchmaking at once
    (`archive_changed`), not at the next repair. Bob's bot is not retired by alice's deletion (bob may
    restore the team), so only the archive stops it."""
    from armada_web.accounts.services import delete_account
    from armada_web.bots.models import BotVersion
    from armada_web.ladder.models import Rating

    alice, bob = make_user("alice"), make_user("bob")
    team = services.create_team(user=alice, name="crew")
    services.join_team(user=bob, team=team, key=team.join_key)
    shared = valid_version(bob, "shared", team=team.pk)
    assert Rating.objects.get(version=shared).playing
    services.leave_team(user=bob, team=team)  # alice, its last member, stays
    delete_account(user=alice, password=PASSWORD)
    team.refresh_from_db()
    kept = BotVersion.objects.select_related("bot").get(pk=shared.pk)
    assert team.archived is not None and kept.bot.retired is None and kept.bot.owner == bob
    assert not BotVersion.objects.playing().filter(pk=shared.pk).exists()
    assert not Rating.objects.get(version=shared).playing  # the ladder's flag followed the archive


def test_a_join_key_never_starts_with_a_dash(monkeypatch):
    """`armada team join 12 -abc...` read the key as an option (a live test failed on one key in 64):
    a drawn key that starts with "-" is drawn again."""
    drawn = iter(["-wNggWm9-HVQ-pd_hIgn-jte", "--x", "aB-c_d"])
    monkeypatch.setattr(services.secrets, "token_urlsafe", lambda n: next(drawn))
    assert services.new_key() == "aB-c_d"


def test_a_deleted_accounts_personal_team_takes_a_free_name_beside_an_older_one(make_user):
    """Team names are unique: a personal team renamed "(deleted user N)" when its account goes takes
    another free name when a team holds that one already (a test-quality audit: breaking the loop
    went unnoticed)."""
    from armada_web.accounts.services import delete_account

    user = make_user("ozzy")
    own = Team.objects.get(personal=True, memberships__user=user)
    older = Team.objects.create(name=f"(deleted user {own.pk})", personal=True)  # (as an import might leave)
    delete_account(user=user, password=PASSWORD)
    own.refresh_from_db()
    assert own.name != older.name and own.name.startswith(f"(deleted user {own.pk}-") and own.name.endswith(")")
    assert Team.objects.filter(name__iexact=own.name).count() == 1
