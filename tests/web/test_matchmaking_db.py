"""Matchmaking with rows: the queue is kept at its target depth, never two bots of one owner,
only playable versions (active, valid, not benched), sides alternate, a new version's placement."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _unconsumed(settings):
    settings.ARMADA = settings.ARMADA.with_(matches_queue=settings.ARMADA.validation_queue)


def seats(match_id):
    from armada_web.matches.models import Participant

    return {p.seat: p.version for p in Participant.objects.filter(match_id=match_id).select_related("version__bot")}


def test_the_queue_is_kept_at_its_depth_and_owners_never_meet_themselves(make_user, valid_version):
    from armada_web.ladder.matchmaking import fill_queue
    from armada_web.matches.models import Match

    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    for owner, names in ((alice, ["aa1", "aa2"]), (bob, ["bb1"]), (carol, ["cc1", "cc2"])):
        for name in names:
            valid_version(owner, name)
    made = fill_queue(workers=2)
    assert len(made) == 4
    assert fill_queue(workers=2) == []  # 4 queued: the depth for 2 workers
    for match_id in made:
        s = seats(match_id)
        assert s[1].bot.owner_id != s[2].bot.owner_id
    Match.objects.filter(pk__in=made[:3]).update(status="finished")
    assert len(fill_queue(workers=2)) == 3
    assert fill_queue(workers=0) == []


def test_only_playable_versions_are_picked(make_user, valid_version):
    from armada_web.bots import services
    from armada_web.ladder.matchmaking import fill_queue, ranked_versions
    from armada_web.ladder.models import Rating

    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    a = valid_version(alice, "alpha")
    b = valid_version(bob, "bravo")
    c = valid_version(carol, "charlie")
    Rating.objects.filter(version=b).update(mu=25, sigma=8, benched=True, benched_reason="faults")
    services.retire(bot=c.bot)
    assert [v.pk for v in ranked_versions("galaxy")] == [a.pk]
    assert fill_queue(workers=1) == []  # one playable bot cannot play


def test_sides_alternate_between_games_of_a_pairing(make_user, valid_version):
    from armada_web.ladder.matchmaking import fill_queue
    from armada_web.matches.models import Match

    a = valid_version(make_user("alice"), "alpha")
    b = valid_version(make_user("bob"), "bravo")
    firsts = []
    for _ in range(2):
        made = fill_queue(workers=1)
        assert len(made) == 2
        firsts += [seats(match_id)[1].pk for match_id in made]
        Match.objects.update(status="finished")
    assert firsts in ([a.pk, b.pk] * 2, [b.pk, a.pk] * 2)


def test_a_new_version_starts_from_its_predecessor(make_user, valid_version):
    from armada_web.bots import services
    from armada_web.bots.models import BotVersion
    from armada_web.ladder import rating_updates, ratings
    from armada_web.ladder.models import Rating

    owner = make_user("alice")
    old = valid_version(owner, "alpha")
    Rating.objects.filter(version=old).update(mu=31.0, sigma=2.0, games=40)
    newer = services.upload_version(bot=old.bot, user=owner, filename="main.py", data=b"print('v2')\n")
    BotVersion.objects.filter(pk=newer.pk).update(status="valid")
    row = rating_updates.ensure_rating(BotVersion.objects.get(pk=newer.pk))
    start = ratings.placement_start(ratings.Skill(31.0, 2.0))
    assert (row.mu, row.sigma, row.games) == (pytest.approx(start.mu), pytest.approx(start.sigma), 0)
