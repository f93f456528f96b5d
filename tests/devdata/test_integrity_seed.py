"""`seed_integrity` on a small scale seed: every Galaxy version gets stored sources, the accounts
their sightings, a closed season its entries, and the integrity report finds what was planted."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_the_layer_is_stored_like_real_uploads_and_the_report_finds_what_was_planted():
    from armada_web.accounts.models import Sighting
    from armada_web.bots.models import BotVersion
    from armada_web.devdata.scale.seed import seed_scale
    from armada_web.devdata.scale.suspects import Sizes, seed_integrity
    from armada_web.integrity.checks import run_checks
    from armada_web.integrity.fingerprints import sources
    from armada_web.integrity.models import Fingerprint
    from armada_web.seasons.models import Season

    seed_scale(bots=24, matches=1500, races=0, seed=5, replays=0)
    planted = seed_integrity(seed=3, sizes=Sizes(copies=3, identical=1, accounts=60, schools=1, twins=2, throwers=1))
    versions = BotVersion.objects.filter(bot__game="galaxy")
    assert versions.exclude(archive="").count() == versions.count() == planted.counts["versions with sources"]
    version = versions.filter(status="valid").first()
    assert "def " in sources(version)["main.py"]
    assert Sighting.objects.values("user").distinct().count() == planted.counts["accounts"] == 60
    season = Season.objects.get(slug="scale")
    assert season.entries.count() == planted.counts["entries"] > 0
    assert len(planted.copies) == 4 and len(planted.twins) == 2 and len(planted.thrown) == 1

    found = run_checks(season=season)
    assert Fingerprint.objects.count() == versions.count()
    copies = {tuple(sorted(f.evidence["versions"][i]["bot_id"] for i in (0, 1))) for f in found if f.kind == "copy"}
    assert {tuple(sorted(pair)) for pair in planted.copies} <= copies
    groups = [set(f.subjects) for f in found if f.kind == "accounts"]
    assert all(any(set(twin) <= group for group in groups) for twin in planted.twins)
    thrown = [f.evidence["bots"] for f in found if f.kind == "collusion"]
    assert [list(planted.thrown[0])] == thrown
