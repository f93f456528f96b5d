"""Object storage on a live site (the in-process checks: tests/storage/test_object_storage.py): with
ARMADA_S3_BUCKET set, uploads, validation, a match and retention go through an S3-compatible bucket
(moto's standalone server over real HTTP on loopback) under the same names as in the local folder,
and reach users only through the site's own permission checks."""

from __future__ import annotations

import gzip
import io
import json
import re
import urllib.error
import urllib.request
import zipfile

import pytest

from tests.live.test_matches_live import wait_match
from tests.live.test_validation_live import call, token_for, upload, wait_for
from tests.storage.test_object_storage import keys, use_bucket

pytestmark = [pytest.mark.docker, pytest.mark.redis]


@pytest.mark.slow
def test_uploads_validation_a_match_and_retention_through_the_bucket(live_site_factory, s3_bucket, settings,
                                                                      monkeypatch, armada, tmp_path):
    from armada.botspec import starter_file
    from armada_web.bots.models import BotVersion
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    use_bucket(settings, monkeypatch, s3_bucket)
    site = live_site_factory(env=s3_bucket.env())
    alice, bob = token_for(site, "alice"), token_for(site, "bob")
    source = starter_file("greedy", "galaxy").read_bytes()
    mine = upload(site, alice, "galaxy", "alpha", "main.py", source)
    theirs = upload(site, bob, "galaxy", "bravo", "main.py", starter_file("random", "galaxy").read_bytes())
    for token, version in ((alice, mine), (bob, theirs)):
        assert wait_for(site, token, version["id"], ("valid", "invalid", "error"))["status"] == "valid"
    first, second = BotVersion.objects.get(pk=mine["id"]), BotVersion.objects.get(pk=theirs["id"])
    # the archives are objects under today's names; nothing went to the local folder
    assert re.fullmatch(rf"versions/{first.bot_id}/1-[0-9a-f]{{16}}\.zip", first.archive.name)
    assert {first.archive.name, second.archive.name} <= set(keys(s3_bucket))
    assert not (tmp_path / "private" / "versions").exists()

    match = create_match(game="galaxy", first=first, second=second, kind="ranked", seed=11)
    done = wait_match(match.pk, ("finished", "void", "failed"), 240)
    assert done.status == "finished", (done.reason, site.log("worker-matches")[-3000:])
    expected = {f"matches/{match.pk}/replay-a1.json.gz", f"matches/{match.pk}/seat-1-a1.log",
                f"matches/{match.pk}/seat-2-a1.log"}
    assert expected <= set(keys(s3_bucket))
    assert done.replay.name == f"matches/{match.pk}/replay-a1.json.gz"

    # the replay is public, through the site
    with urllib.request.urlopen(f"{site.url}/api/matches/{match.pk}/replay/", timeout=30) as response:
        replay = json.loads(gzip.decompress(response.read()))
    assert replay["steps"] and replay["game"] == "galaxy"
    # each seat's log: its owner sees it, the other player and anonymous visitors do not
    _status, seen = call(site, "GET", f"/api/matches/{match.pk}/", alice)
    logs = {p["seat"]: p.get("log") for p in seen["players"]}
    assert logs[1] is not None and logs[2] is None
    _status, anonymous = call(site, "GET", f"/api/matches/{match.pk}/")
    assert all("log" not in p for p in anonymous["players"])
    # the source: its owner downloads the stored zip; anyone else gets a 404
    request = urllib.request.Request(f"{site.url}/api/versions/{first.pk}/source/",
                                     headers={"Authorization": f"Token {alice}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        archive = response.read()
    stored = s3_bucket.client().get_object(Bucket=s3_bucket.name, Key=first.archive.name)["Body"].read()
    assert archive == stored and zipfile.ZipFile(io.BytesIO(archive)).read("main.py") == source
    assert call(site, "GET", f"/api/versions/{first.pk}/source/", bob)[0] == 404
    assert call(site, "GET", f"/api/versions/{first.pk}/source/")[0] == 404
    # the bucket itself gives nothing to a request without credentials, and the storage has no URLs
    for key in (first.archive.name, f"matches/{match.pk}/seat-1-a1.log"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{s3_bucket.endpoint_url}/{s3_bucket.name}/{key}", timeout=10)
        assert refused.value.code == 403
    from django.core.files.storage import default_storage

    with pytest.raises(ValueError, match="no URLs"):
        default_storage.url(first.archive.name)
    # /healthz's storage check reaches the bucket
    _status, health = call(site, "GET", "/healthz")
    assert health["checks"]["storage"]["ok"] and s3_bucket.name in health["checks"]["storage"]["detail"]

    # retention lists the bucket: an object no row names is an orphan, pruned; the match's stay
    from armada_web.matches import retention

    s3_bucket.client().put_object(Bucket=s3_bucket.name, Key=f"matches/{match.pk}/replay-a9.json.gz", Body=b"x")
    armada(orphan_grace_s=0)
    plan = retention.plan()
    assert [(item.name, item.why) for item in plan.items] == [(f"matches/{match.pk}/replay-a9.json.gz", "orphan")]
    assert retention.prune(todo=plan) == (1, 1)
    assert f"matches/{match.pk}/replay-a9.json.gz" not in keys(s3_bucket)
    assert expected <= set(keys(s3_bucket))
    # a challenge past its keeping time: its replay and logs leave the bucket, the row stays
    challenge = create_match(game="galaxy", first=first, second=second, kind="challenge", seed=12)
    assert wait_match(challenge.pk, ("finished", "void", "failed"), 240).status == "finished"
    armada(unranked_keep_days=0)
    assert retention.prune(todo=retention.plan())[0] == 3
    assert not [k for k in keys(s3_bucket) if k.startswith(f"matches/{challenge.pk}/")]
    assert Match.objects.get(pk=challenge.pk).status == "finished"
