"""Challenges everywhere: by name or id through the API (answering with the match's page), a
Challenge button on ladder rows and bot pages exactly when the service would accept it, and the
user's challenges on their profile page."""

from __future__ import annotations

import re

import pytest

from armada_web.bots.models import Bot
from armada_web.ladder import challenges
from armada_web.matches.models import Match
from armada_web.web.errors import Forbidden, Invalid, NotFound

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-test-password-42"


@pytest.fixture(autouse=True)
def _unconsumed_queues(armada):
    armada(challenges_queue=armada.current.validation_queue, matches_queue=armada.current.validation_queue)


def test_the_api_takes_names_or_ids_and_answers_with_the_matchs_page(api, arena):
    client = api(arena.alice)
    done = client.post("/api/challenges/", {"bot": "ALPHA", "opponent": "beta"}, format="json")
    assert done.status_code == 201, done.json()
    body = done.json()
    assert body["page"] == f"/matches/{body['id']}/" and body["url"] == f"http://testserver/matches/{body['id']}/"
    assert body["kind"] == "challenge" and {p["bot"]["name"] for p in body["players"]} == {"alpha", "beta"}
    by_id = client.post("/api/challenges/", {"bot": arena.alpha.bot_id, "opponent": str(arena.beta.bot_id)},
                        format="json")
    assert by_id.status_code == 201, by_id.json()
    missing = client.post("/api/challenges/", {"bot": "alpha", "opponent": "nobody-here"}, format="json")
    assert missing.status_code == 404 and missing.json()["detail"] == "no bot named 'nobody-here'"
    theirs = client.post("/api/challenges/", {"bot": "beta", "opponent": "alpha"}, format="json")
    assert theirs.status_code == 403
    assert theirs.json()["detail"] == "not your bot: challenge with one of your own bots"
    league = client.post("/api/challenges/", {"bot": "alpha", "opponent": "glass"}, format="json")
    assert league.status_code == 400 and "Mothership Down bot" in league.json()["detail"]
    junk = client.post("/api/challenges/", {"bot": ["alpha"], "opponent": "beta"}, format="json")
    assert junk.status_code == 400 and "id (a number) or its name" in junk.json()["detail"]
    schema = client.get("/api/schema/?format=json").json()
    fields = schema["components"]["schemas"]["Challenge"]["properties"]
    assert {"page", "url", "id", "players"} <= set(fields)


def test_a_name_held_in_two_games_means_the_users_own_or_the_same_games_bot(arena, valid_version):
    valid_version(arena.bob, "alpha", game="mothership", orders=None)  # bob's Mothership bot, also "alpha"
    valid_version(arena.alice, "beta", game="mothership", orders=None)  # alice's Mothership bot, also "beta"
    assert challenges.find_bot("alpha", "bot", user=arena.alice).pk == arena.alpha.bot_id
    assert challenges.find_bot("beta", "opponent", game="galaxy").pk == arena.beta.bot_id
    match = challenges.challenge(user=arena.alice, bot="alpha", opponent="beta")
    assert {p.version.bot_id for p in match.participants.all()} == {arena.alpha.bot_id, arena.beta.bot_id}
    with pytest.raises(NotFound):
        challenges.find_bot(99999, "bot")
    with pytest.raises(Invalid):
        challenges.challenge(user=arena.alice, bot="alpha", opponent="alpha")
    with pytest.raises(Forbidden):
        challenges.challenge(user=arena.bob, bot=arena.alpha.bot_id, opponent="beta")


def test_challengers_are_exactly_the_bots_the_service_accepts(arena, valid_version, make_user, armada,
                                                              django_assert_max_num_queries):
    second = valid_version(arena.alice, "second")
    others = [valid_version(make_user(f"user{k}"), f"rival{k}").bot for k in range(6)]
    Bot.objects.filter(pk=others[0].pk).update(disabled=True)
    targets = list(Bot.objects.filter(pk__in=[arena.alpha.bot_id, arena.beta.bot_id, arena.race_b.bot_id,
                                              *[b.pk for b in others]]))
    with django_assert_max_num_queries(4):
        offers = challenges.challengers(user=arena.alice, opponents=targets)
    names = {Bot.objects.get(pk=pk).name: sorted(b.name for b in bots) for pk, bots in offers.items()}
    assert names["beta"] == ["alpha", "second"]
    assert names["alpha"] == ["second"]  # not itself
    assert "glass" not in names and "rival0" not in names  # no challenges in a league; disabled cannot play
    for target in targets:  # the offer is the service's own answer, bot by bot
        for mine in (arena.alpha.bot, second.bot):
            accepted = mine.pk in {b.pk for b in offers.get(target.pk, [])}
            try:
                challenges.check(user=arena.alice, bot=mine, opponent=target,
                                 playing={b.pk for b in Bot.objects.all() if b.is_active},
                                 counts=challenges.Counts(0, 0))
            except Exception:
                assert not accepted
            else:
                assert accepted
    armada(challenges_per_pair_hour=1)
    challenges.challenge(user=arena.alice, bot="alpha", opponent="beta")
    assert [b.name for b in challenges.challengers(user=arena.alice, opponents=targets)[arena.beta.bot_id]] \
        == ["second"]  # that pair used its hour
    armada(challenges_per_hour=1)
    assert challenges.challengers(user=arena.alice, opponents=targets) == {}
    assert challenges.challengers(user=None, opponents=targets) == {}


def test_buttons_on_ladder_rows_and_bot_pages_queue_the_match_and_show_it(client, arena):
    anonymous = client.get("/ladder/galaxy/").content.decode()
    assert "Challenge" not in anonymous
    client.login(username="alice", password=PASSWORD)
    ladder = client.get("/ladder/galaxy/").content.decode()
    assert ladder.count('class="challenge"') == 1  # beta's row; not on alpha's own row
    beta_row = ladder[ladder.index(f'<tr id="bot-{arena.beta.bot_id}">'):]
    assert re.search(rf'<input type="hidden" name="opponent" value="{arena.beta.bot_id}"><input type="hidden" '
                     rf'name="bot" value="{arena.alpha.bot_id}"><button type="submit"', beta_row)
    # the one bot that may challenge now is named on the button, not only in its tooltip (a trial: a bot
    # held back by a limit left the other bot's bare "Challenge", which then challenged with it unseen)
    assert "Challenge with alpha</button>" in beta_row[:beta_row.index("</tr>")]
    page = client.get(f"/bots/{arena.beta.bot_id}/").content.decode()
    assert "Challenge with alpha" in page
    assert 'id="challenge"' not in client.get(f"/bots/{arena.alpha.bot_id}/").content.decode()
    response = client.post("/challenges/", {"bot": arena.alpha.bot_id, "opponent": arena.beta.bot_id}, follow=True)
    match = Match.objects.get(kind="challenge")
    assert response.redirect_chain == [(f"/matches/{match.pk}/", 302)]
    shown = response.content.decode()
    assert f"Challenge queued: match #{match.pk}" in shown and 'http-equiv="refresh"' in shown
    assert "refreshes itself until it is played" in shown
    refused = client.post("/challenges/", {"bot": arena.beta.bot_id, "opponent": arena.alpha.bot_id}, follow=True)
    assert refused.redirect_chain == [(f"/bots/{arena.alpha.bot_id}/", 302)]
    assert "Challenge refused: not your bot" in refused.content.decode()
    assert client.get("/challenges/").status_code == 405
    # an opponent deleted meanwhile (or no such bot): its page is a 404 that left the message for a
    # later page (a competitor's trial); the home page says it
    gone = client.post("/challenges/", {"bot": arena.alpha.bot_id, "opponent": 999999}, follow=True)
    assert gone.redirect_chain == [("/", 302)] and gone.status_code == 200
    assert "Challenge refused: no bot with id 999999" in gone.content.decode()


def test_the_profile_lists_my_challenges(client, arena):
    mine = challenges.challenge(user=arena.alice, bot="alpha", opponent="beta")
    client.login(username="alice", password=PASSWORD)
    html = client.get("/accounts/profile/").content.decode()
    section = html[html.index('id="challenges"'):]
    assert f'href="/matches/{mine.pk}/"' in section and ">beta<" in section
    client.login(username="bob", password=PASSWORD)
    other = client.get("/accounts/profile/").content.decode()
    assert f'href="/matches/{mine.pk}/"' not in other[other.index('id="challenges"'):]


def test_a_bot_held_back_by_a_limit_stays_offered_disabled_with_why_and_when(client, arena, valid_version, armada):
    armada(challenges_per_pair_hour=1)
    client.login(username="alice", password=PASSWORD)
    challenges.challenge(user=arena.alice, bot="alpha", opponent="beta")
    page = client.get(f"/bots/{arena.beta.bot_id}/").content.decode()
    form = page[page.index('id="challenge"'):page.index("</form>", page.index('id="challenge"'))]
    assert "Challenge with alpha</button>" in form and "<button type=\"submit\" disabled>" in form
    assert re.search(r"Challenge limit reached for this pair: 1 per hour; try again at \d\d:\d\d UTC "
                     r"\(in about (59|60) minutes\)\.", form)
    second = valid_version(arena.alice, "second")  # another bot: still free against beta
    page = client.get(f"/bots/{arena.beta.bot_id}/").content.decode()
    form = page[page.index('id="challenge"'):page.index("</form>", page.index('id="challenge"'))]
    assert f'<option value="{arena.alpha.bot_id}" disabled>alpha (not now)</option>' in form
    assert f'<option value="{second.bot_id}">second</option>' in form
    assert '<button type="submit">Challenge</button>' in form
    assert "alpha: Challenge limit reached for this pair" in form
    offered = challenges.choices(user=arena.alice, opponents=[arena.beta.bot])[arena.beta.bot_id]
    assert [(c.bot.name, bool(c.refusal)) for c in offered] == [("alpha", True), ("second", False)]
    assert [b.name for b in challenges.challengers(user=arena.alice, opponents=[arena.beta.bot])[arena.beta.bot_id]] \
        == ["second"]
    # the account's own limit too (an organiser's trial: the form offered a bot the service then refused)
    armada(challenges_per_pair_hour=10, challenges_per_hour=2)
    challenges.challenge(user=arena.alice, bot="second", opponent="beta")  # her second this hour
    from armada_web.teams.services import create_team

    crewed = valid_version(arena.alice, "crewed").bot  # a bot of another team of hers: its team's hour is free
    crewed.team = create_team(user=arena.alice, name="crew")
    crewed.save(update_fields=["team"])
    offered = {c.bot.name: c.refusal for c in challenges.choices(user=arena.alice, opponents=[arena.beta.bot])[
        arena.beta.bot_id]}
    assert "per hour per account, over all your teams; try again at" in offered["crewed"], offered
