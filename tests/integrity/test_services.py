"""The shared-accounts and thrown-games checks on the database (integrity.accounts_links,
integrity.collusion): what the site recorded read back as findings."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.fixtures import PASSWORD

pytestmark = pytest.mark.django_db

_numbers = itertools.count(1)


def bot(owner, name):
    from armada_web.bots.models import Bot, BotVersion
    from armada_web.teams.services import personal_team

    b = Bot.objects.create(owner=owner, team=personal_team(user=owner), game="galaxy", name=name)
    version = BotVersion.objects.create(bot=b, number=1, sha256=f"{next(_numbers):064x}", size=10, status="valid")
    return b, version


def play(first, second, winner, skills=((25.0, 2.0), (25.0, 2.0)), kind="ranked"):
    """A finished match of versions `first` and `second` won by seat `winner` (None: a draw), with
    each seat's rating before it (None: not kept)."""
    from armada_web.matches.models import Match, Participant

    match = Match.objects.create(game="galaxy", seed=1, kind=kind, status="finished", finished=timezone.now())
    for seat, (version, skill) in enumerate(zip((first, second), skills, strict=True), start=1):
        result = "draw" if winner is None else "win" if winner == seat else "loss"
        other = second if seat == 1 else first
        Participant.objects.create(match=match, seat=seat, version=version, bot=version.bot, opponent=other.bot,
                                   name=version.bot.name,
                                   result=result, status="ok", mu_before=skill[0] if skill else None,
                                   sigma_before=skill[1] if skill else None)
    return match


def test_two_accounts_signed_up_from_one_address_are_found(client):
    from armada_web.integrity.accounts_links import shared_accounts

    for name, address in (("ann", "198.51.100.20"), ("ann2", "198.51.100.20"), ("bea", "203.0.113.30")):
        client.post("/accounts/signup/", {"username": name, "email": "", "password1": PASSWORD,
                                          "password2": PASSWORD}, REMOTE_ADDR=address)
        client.post("/accounts/logout/")
    (finding,) = shared_accounts()
    assert finding.kind == "accounts" and finding.subjects == ("ann", "ann2") and finding.score >= 0.5
    assert "198.51.100.20" in finding.reason
    assert finding.evidence["links"][0]["kind"] == "address"


def test_a_loopback_address_and_a_staff_account_tie_nobody(client, make_user):
    # At a local event (`make up`) every account was seen from 127.0.0.1 and all were linked, the
    # organiser's staff account too.
    from armada_web.accounts.models import Sighting
    from armada_web.integrity.accounts_links import shared_accounts

    now = timezone.now()
    for name, address in (("ivy", "127.0.0.1"), ("ivy2", "127.0.0.1"), ("jon", "::1"), ("jon2", "::1"),
                          ("kim", "127.0.1.1"), ("kim2", "::ffff:127.0.0.1")):
        Sighting.objects.create(user=make_user(name), kind="login", address=address, at=now)
    for name in ("lou", "lou2"):
        client.post("/accounts/signup/", {"username": name, "email": "", "password1": PASSWORD,
                                          "password2": PASSWORD}, REMOTE_ADDR="127.0.0.1")
        client.post("/accounts/logout/")
    assert shared_accounts(weak=True) == []
    organiser = make_user("org", is_staff=True)
    chief = make_user("chief", is_superuser=True, email="mo@gmail.com")
    make_user("mo", email="m.o@gmail.com")
    for user in (organiser, chief, *(make_user(n) for n in ("nia", "oto"))):
        Sighting.objects.create(user=user, kind="login", address="198.51.100.40", at=now)
    (finding,) = shared_accounts(weak=True)  # the two competitors; no staff account tied to anyone
    assert finding.subjects == ("nia", "oto") and "198.51.100.40" in finding.reason


def test_a_school_network_alone_is_below_the_report_and_e_mails_are_normalised(make_user):
    from armada_web.accounts.models import Sighting
    from armada_web.integrity.accounts_links import shared_accounts

    now = timezone.now()
    pupils = [make_user(f"pupil{i:02}") for i in range(30)]
    Sighting.objects.bulk_create(Sighting(user=u, kind="login", address="192.0.2.50", at=now - timedelta(minutes=i))
                                 for i, u in enumerate(pupils))
    assert shared_accounts() == []
    (weak,) = shared_accounts(weak=True)
    assert len(weak.subjects) == 30 and weak.score < 0.5 and "weak on its own" in weak.reason
    make_user("cleo", email="Cleo.Park@gmail.com")
    make_user("cleo2", email="cleopark+alt@googlemail.com")
    make_user("cleo3", email="cleo.park@example.org")
    (strong,) = shared_accounts()
    assert strong.subjects == ("cleo", "cleo2") and strong.score == 0.9


def test_identical_uploads_link_their_owners_but_a_starter_does_not(make_user):
    from armada_web.bots.models import BotVersion
    from armada_web.integrity.accounts_links import shared_accounts, starter_hashes

    dan, eve, fay = make_user("dan"), make_user("eve"), make_user("fay")
    (_, dv), (_, ev), (_, fv) = bot(dan, "dans"), bot(eve, "eves"), bot(fay, "fays")
    BotVersion.objects.filter(pk__in=[dv.pk, ev.pk]).update(sha256="ab" * 32)
    starter = sorted(starter_hashes())[0]
    assert len(starter_hashes()) >= 4
    BotVersion.objects.create(bot=fv.bot, number=2, sha256=starter, size=1, status="valid")
    BotVersion.objects.create(bot=dv.bot, number=2, sha256=starter, size=1, status="valid")
    (finding,) = shared_accounts()
    assert finding.subjects == ("dan", "eve") and "identical" in finding.reason
    (link,) = finding.evidence["links"]
    assert link["detail"].startswith("eves v1 of eve is identical (sha256 abababababab) to dans v1 of dan")  # as pages


def test_only_groups_with_an_entrant_count_for_a_season(make_user):
    from armada_web.integrity.accounts_links import shared_accounts
    from armada_web.seasons.models import Entry, Season

    make_user("gil", email="gil@gmail.com")
    make_user("gil2", email="g.i.l@gmail.com")
    hal = make_user("hal", email="hal@gmail.com")
    make_user("hal2", email="hal+2@gmail.com")
    now = timezone.now()
    season = Season.objects.create(slug="s1", name="S1", game="galaxy", opens=now - timedelta(days=3),
                                   closes=now + timedelta(days=3), ends=now + timedelta(days=9), state="open")
    b, v = bot(hal, "hals")
    Entry.objects.create(season=season, version=v, version_ref=v.pk, version_number=1, bot=b, bot_ref=b.pk,
                         bot_name=b.name, owner=hal, seed=1)
    assert [f.subjects for f in shared_accounts()] == [("gil", "gil2"), ("hal", "hal2")]
    assert [f.subjects for f in shared_accounts(season=season)] == [("hal", "hal2")]


def test_a_planted_thrower_in_ranked_play_is_found_with_its_matches(make_user):
    from armada_web.integrity.collusion import thrown_games

    owners = [make_user(name) for name in ("ivan", "jade", "kim", "lou")]
    (_, strong), (_, weak), (_, c), (_, d) = (bot(o, f"{o.username}bot") for o in owners)
    thrown = [play(strong, weak, 2, ((32.0, 1.5), (19.0, 1.5))).pk for _ in range(6)]
    thrown += [play(weak, strong, 1, ((19.0, 1.5), (32.0, 1.5))).pk for _ in range(4)]
    for i in range(10):  # honest play between two bots rated alike
        play(c, d, 1 + i % 2, ((25.0, 1.5), (25.5, 1.5)))
    play(strong, c, None)
    (finding,) = thrown_games()
    assert finding.kind == "collusion" and finding.subjects == ("ivan", "jade")
    assert finding.evidence["lost"] == sorted(thrown) and finding.evidence["losses"] == 10
    assert finding.evidence["expected"] < 1 and finding.evidence["p_value"] < 1e-6
    assert finding.evidence["adjusted"] <= 0.01 and finding.score >= 0.99
    assert "ivanbot (ivan) lost 10 of 10 decisive games to jadebot (jade) where their ratings" in finding.reason
    assert " losses (p = " in finding.reason  # a count of losses, not a chance


def test_a_season_tests_its_ranked_play_and_its_finals_and_old_seats_use_current_ratings(make_user):
    from armada_web.integrity.collusion import thrown_games
    from armada_web.ladder.models import Rating
    from armada_web.matches.models import Match
    from armada_web.seasons.models import Entry, FinalsGame, Season

    mia, ned = make_user("mia"), make_user("ned")
    (_, strong), (_, weak) = bot(mia, "miabot"), bot(ned, "nedbot")
    now = timezone.now()
    season = Season.objects.create(slug="s2", name="S2", game="galaxy", opens=now - timedelta(days=10),
                                   closes=now - timedelta(days=1), ends=now + timedelta(days=6), state="finals")
    entries = [Entry.objects.create(season=season, version=v, version_ref=v.pk, version_number=1, bot=v.bot,
                                    bot_ref=v.bot.pk, bot_name=v.bot.name, owner=v.bot.owner, seed=n)
               for n, v in enumerate((strong, weak), start=1)]
    finals = []
    for n in range(8):
        match = play(strong, weak, 2, ((31.0, 1.0), (20.0, 1.0)), kind="finals")
        FinalsGame.objects.create(season=season, stage=1, round=n + 1, first=entries[0], second=entries[1],
                                  match=match, counted=True)
        finals.append(match.pk)
    before = play(strong, weak, 2, ((31.0, 1.0), (20.0, 1.0)))  # ranked, but made before the season opened
    Match.objects.filter(pk=before.pk).update(created=now - timedelta(days=20))
    Rating.objects.create(version=strong, game="galaxy", mu=31.0, sigma=1.0)
    Rating.objects.create(version=weak, game="galaxy", mu=20.0, sigma=1.0)
    old = play(strong, weak, 2, (None, None))  # ranked, in the season, no rating before kept
    Match.objects.filter(pk=old.pk).update(created=now - timedelta(days=5))
    (finding,) = thrown_games(season=season)
    assert finding.subjects == ("mia", "ned")
    assert finding.evidence["matches"] == [*finals, old.pk] and finding.evidence["rated_from_current"] == [old.pk]
    assert thrown_games(season=season, alpha=1e-20) == []  # p is about 1e-13


def test_a_season_closed_by_hand_tests_no_ranked_game_made_after_its_close(make_user):
    """Closed by hand before its planned close (the organiser's trial): the ladder plays on, and
    those games are no season's; a report on a finished season stays as it was."""
    from armada_web.integrity.collusion import thrown_games
    from armada_web.matches.models import Match
    from armada_web.seasons.models import Season

    mia, ned = make_user("mia"), make_user("ned")
    (_, strong), (_, weak) = bot(mia, "miabot"), bot(ned, "nedbot")
    now = timezone.now()
    season = Season.objects.create(slug="s3", name="S3", game="galaxy", opens=now - timedelta(days=10),
                                   closes=now + timedelta(days=5), ends=now + timedelta(days=9), state="finished",
                                   closed_at=now - timedelta(days=3))
    inside, after = [], []
    for n in range(8):
        for made, days in ((inside, 4), (after, 1)):
            match = play(strong, weak, 2, ((31.0, 1.0), (20.0, 1.0)))
            Match.objects.filter(pk=match.pk).update(created=now - timedelta(days=days, minutes=n))
            made.append(match.pk)
    (finding,) = thrown_games(season=season)
    assert sorted(finding.evidence["matches"]) == sorted(inside)


def test_a_bot_losing_to_everyone_is_one_finding_against_the_field(make_user, monkeypatch):
    """An organiser's trial: the ladder's second bot lost every finals game, 3 to 12 to each of four
    entries, and the report had nothing (each pair's p-value, its rating falling after each loss,
    stayed above alpha / K, K counting the season's every pair). Its finals games together are
    tested against the field: one finding naming its owner alone, stored under `bots:ID>*`. Here
    a strict alpha stands for the trial's large K: none of its pairs is flagged. The same games as
    ranked play are no field test's (a ladder's many games make small honest misses significant)."""
    from armada_web.integrity import checks
    from armada_web.integrity.collusion import thrown_games
    from armada_web.integrity.models import Finding
    from armada_web.matches.models import Match
    from armada_web.seasons.models import Entry, FinalsGame, Season

    owners = [make_user(name) for name in ("dave", "alice", "bob", "carol", "mallory")]
    (dave_bot, version), *others = (bot(o, f"{o.username}bot") for o in owners)
    now = timezone.now()
    season = Season.objects.create(slug="f1", name="F1", game="galaxy", opens=now - timedelta(days=10),
                                   closes=now - timedelta(days=1), ends=now + timedelta(days=6), state="finals")
    entries = {v.pk: Entry.objects.create(season=season, version=v, version_ref=v.pk, version_number=1, bot=v.bot,
                                          bot_ref=v.bot.pk, bot_name=v.bot.name, owner=v.bot.owner, seed=n)
               for n, v in enumerate([version, *(v for _, v in others)], start=1)}
    order = [other for n, (_, other) in enumerate(others) for _ in range(3 + 3 * (n % 2))]  # 3 or 6 each
    order = order[::2] + order[1::2]
    lost = []
    for i, other in enumerate(order):
        mu = max(25.0, 37.0 - 2.0 * len(lost))  # its rating falls as it loses, as a finals rating does
        first, second = (other, version) if i % 2 else (version, other)
        match = play(first, second, 1 if i % 2 else 2, ((25.0, 2.5), (mu, 2.5)) if i % 2 else ((mu, 2.5), (25.0, 2.5)),
                     kind="finals")
        FinalsGame.objects.create(season=season, stage=1, round=i + 1, first=entries[first.pk],
                                  second=entries[second.pk], match=match, counted=True)
        lost.append(match.pk)
    (finding,) = thrown_games(season=season, alpha=1e-4)
    assert finding.subjects == ("dave",) and finding.evidence["bots"] == [dave_bot.pk]
    assert finding.evidence["losses"] == finding.evidence["games"] == len(lost) == 18
    assert sorted(finding.evidence["lost"]) == sorted(lost)
    assert finding.reason.startswith("davebot (dave) lost 18 of its 18 decisive games, against every bot it met, "
                                     "where its ratings predicted ")
    # at the site's alpha in this small family two of its pairs are flagged too; it lost to the rest of
    # the field as well, so the field's finding stays beside them, and each pair's says the partner may
    # be innocent (an organiser's trial: the partners alone were named, offered for disqualification)
    found = {f.subjects: f for f in thrown_games(season=season)}
    assert set(found) == {("dave",), ("dave", "alice"), ("dave", "bob")}
    assert found[("dave", "alice")].reason.endswith(
        "; davebot also lost more than its ratings predicted to the rest of the field (its finding against the "
        "field): it may be losing to everyone, not to alicebot alone")
    Match.objects.update(kind="ranked")  # the same games as ranked play: pairs only
    assert thrown_games(alpha=1e-4) == []
    Match.objects.update(kind="finals")
    monkeypatch.setattr(checks, "thrown_games", lambda season: thrown_games(season=season, alpha=1e-4))
    checks.run_checks(season=season, ran_by="test")
    stored = Finding.objects.get(kind="collusion")
    assert stored.key == f"bots:{dave_bot.pk}>*" and stored.subjects == ["dave"]
    assert [t[:2] for t in stored.targets] == [("username", "dave")]
