"""`GET /api/matches/{id}/`: each seat's `rating` (before, after, expected) for a rated match, checked
against a recomputation with the rating model; null for a challenge; a match counted before the
expected result was kept gets it computed from the kept skills; the schema states the field."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from armada_web.ladder.logic.explain import a_chance
from armada_web.ladder.logic.ratings import Skill, after_game, displayed, initial_rating, win_chance
from tests.ladder.test_recompute_ratings import play

pytestmark = [pytest.mark.django_db]


@pytest.fixture(autouse=True)
def _unconsumed(settings):
    settings.ARMADA = settings.ARMADA.with_(matches_queue=settings.ARMADA.validation_queue)


def skill(data: dict[str, float]) -> Skill:
    assert data["score"] == pytest.approx(data["mu"] - 3 * data["sigma"])
    return Skill(data["mu"], data["sigma"])


def players(match_id: int) -> list[dict]:
    response = APIClient().get(f"/api/matches/{match_id}/")
    assert response.status_code == 200
    return response.json()["players"]


def test_rated_seats_carry_before_after_and_the_expected_result(make_user, valid_version):
    from armada_web.matches.models import Match, Participant

    ann, ben = valid_version(make_user("ann"), "ann-bot"), valid_version(make_user("ben"), "ben-bot")
    play(ann, ben, 1, ("ok", "ok"))
    play(ann, ben, 2, ("ok", "ok"))  # the second game starts from unequal ratings
    second = Match.objects.order_by("-id").first()
    one, two = players(second.pk)
    before = (skill(one["rating"]["before"]), skill(two["rating"]["before"]))
    assert before[0] != before[1] and before[0].mu > initial_rating().mu  # ann won the first game
    after = after_game(before[0], before[1], 2)  # a recomputation with the model
    assert (skill(one["rating"]["after"]), skill(two["rating"]["after"])) == (
        pytest.approx(after[0]), pytest.approx(after[1]))
    assert one["rating"]["expected"] == pytest.approx(win_chance(before[0], before[1]))
    assert one["rating"]["expected"] > 0.5
    assert one["rating"]["expected"] + two["rating"]["expected"] == pytest.approx(1.0)
    assert one["rating_before"] == {"mu": before[0].mu, "sigma": before[0].sigma}  # the older fields stay
    kept = dict(Participant.objects.filter(match=second).values_list("seat", "expected"))
    assert kept == {1: one["rating"]["expected"], 2: two["rating"]["expected"]}
    assert displayed(after[1]) == pytest.approx(two["rating"]["after"]["score"])
    # The line the match page shows, in the API too: ben (seat 2) won from below.
    change = displayed(after[1]) - displayed(before[1])
    assert two["rating"]["explanation"].startswith(f"+{change:.1f}: beat a bot rated ")
    assert two["rating"]["explanation"].endswith(f"this bot had {a_chance(two['rating']['expected'])} of winning")
    assert one["rating"]["explanation"].startswith("-") and ": lost to a bot rated " in one["rating"]["explanation"]


def test_a_match_counted_before_the_expected_result_was_kept(make_user, valid_version):
    from armada_web.matches.models import Match, Participant

    ann, ben = valid_version(make_user("ann"), "ann-bot"), valid_version(make_user("ben"), "ben-bot")
    play(ann, ben, 1, ("ok", "ok"))
    play(ben, ann, None, ("ok", "ok"))
    match = Match.objects.order_by("-id").first()
    kept = players(match.pk)
    Participant.objects.filter(match=match).update(expected=None)  # as an older match has it
    computed = players(match.pk)
    assert [p["rating"]["expected"] for p in computed] == pytest.approx([p["rating"]["expected"] for p in kept])
    assert [(p["rating"]["before"], p["rating"]["after"]) for p in computed] == [
        (p["rating"]["before"], p["rating"]["after"]) for p in kept]


def test_challenges_and_unrated_seats_have_no_rating(make_user, valid_version):
    from armada_web.matches.models import Participant
    from tests.pages.data import recorded_match

    ann, ben = valid_version(make_user("ann"), "ann-bot"), valid_version(make_user("ben"), "ben-bot")
    challenge = recorded_match(ann, ben, 1, kind="challenge")
    assert [p["rating"] for p in players(challenge.pk)] == [None, None]
    ranked = recorded_match(ann, ben, 2)  # recorded, not counted yet: no skills kept
    assert [p["rating"] for p in players(ranked.pk)] == [None, None]
    Participant.objects.filter(match=ranked, seat=1).update(mu_before=25, sigma_before=8, mu_after=24, sigma_after=7)
    assert [p["rating"] for p in players(ranked.pk)] == [None, None]  # one seat's figures alone: unknown


def test_the_schema_states_the_rating():
    schema = APIClient().get("/api/schema/", {"format": "json"}).json()
    components = schema["components"]["schemas"]
    player = components["PlayerWithLog"]["properties"]["rating"]
    ref = next(item["$ref"] for item in player.get("oneOf", player.get("allOf", [player])) if "$ref" in item)
    rating = components[ref.rsplit("/", 1)[1]]
    assert set(rating["properties"]) == {"before", "after", "expected", "explanation"}
    skill_ref = rating["properties"]["before"]["$ref"].rsplit("/", 1)[1]
    assert set(components[skill_ref]["properties"]) == {"mu", "sigma", "score"}


def test_the_ratings_cost_no_query_per_seat(make_user, valid_version, django_assert_max_num_queries):
    ann, ben = valid_version(make_user("ann"), "ann-bot"), valid_version(make_user("ben"), "ben-bot")
    play(ann, ben, 1, ("ok", "ok"))
    from armada_web.matches.models import Match

    match = Match.objects.get()
    client = APIClient()
    client.get(f"/api/matches/{match.pk}/")  # warm: sessions, content types
    with django_assert_max_num_queries(3):  # the match, its seats with their bots: none per seat
        assert all(p["rating"] for p in players(match.pk))


def test_a_forfeit_says_whose_fault_it_was(make_user, valid_version, client):
    """A trial: the crashed seat's line read "-1.5: lost to a bot rated 25 below" and the winner's like
    a huge upset; the line says it was a forfeit, and whose, on the API and the match page alike."""
    from armada_web.matches.models import Match

    ann, ben = valid_version(make_user("ann"), "ann-bot"), valid_version(make_user("ben"), "ben-bot")
    play(ann, ben, 1, ("ok", "crashed"))
    match = Match.objects.order_by("-id").first()
    one, two = players(match.pk)
    assert ": beat a bot rated about the same as this bot by forfeit (the opponent crashed); " in (
        one["rating"]["explanation"])
    assert ": lost to a bot rated about the same as this bot by forfeit (this bot crashed); " in (
        two["rating"]["explanation"])
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert "by forfeit (this bot crashed)" in page and "by forfeit (the opponent crashed)" in page
