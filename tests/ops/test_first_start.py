"""What compose's one-shot `migrate` service makes on start (infra/compose.yml, docs/deploy.md):

- `manage.py ensure_bucket` (ARMADA_S3_CREATE_BUCKET=true), against moto's standalone S3 server
  over real HTTP: a missing bucket is created, an existing one is left as it is (its objects
  too), an unreachable endpoint is a CommandError naming the bucket, the endpoint and the reason;
  with local files there is nothing to create.
- `manage.py ensure_superuser` (DJANGO_SUPERUSER_*): the staff account made once; an existing one
  is not an error and keeps its password; an ordinary account of that name is never made staff.
"""

from __future__ import annotations

import io
import uuid
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from tests.support.localsite import free_port


def use_bucket(settings: Any, monkeypatch: Any, bucket: Any, *, name: str, endpoint_url: str | None = None,
               region: str | None = None) -> None:
    """Point this process's storage at bucket `name` of `bucket`'s server (as settings.py does)."""
    for key, value in bucket.env().items():
        monkeypatch.setenv(key, value)
    if region:
        monkeypatch.setenv("AWS_DEFAULT_REGION", region)
    settings.STORAGES = {**settings.STORAGES, "default": {
        "BACKEND": "armada_web.storage.objectstore.PrivateS3Storage",
        "OPTIONS": {"bucket_name": name, "endpoint_url": endpoint_url or bucket.endpoint_url, "timeout_s": 3}}}


def run(command: str) -> str:
    out = io.StringIO()
    call_command(command, stdout=out)
    return out.getvalue()


def bucket_names(bucket: Any) -> set[str]:
    return {entry["Name"] for entry in bucket.client().list_buckets()["Buckets"]}


@pytest.mark.parametrize("region", ["us-east-1", "eu-west-1"])
def test_a_missing_bucket_is_created_and_then_left_as_it_is(region, s3_bucket, settings, monkeypatch):
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    name = f"armada-new-{uuid.uuid4().hex[:10]}"
    use_bucket(settings, monkeypatch, s3_bucket, name=name, region=region)
    assert name not in bucket_names(s3_bucket)
    out = run("ensure_bucket")
    assert out.strip() == f"object storage bucket {name!r} at {s3_bucket.endpoint_url}: created"
    assert name in bucket_names(s3_bucket)
    default_storage.save("versions/1/1-abc.zip", ContentFile(b"kept"))  # the site writes into it
    # again (every start): nothing changes, the object stays
    assert run("ensure_bucket").strip().endswith(": exists, unchanged")
    with default_storage.open("versions/1/1-abc.zip", "rb") as handle:
        assert handle.read() == b"kept"
    location = s3_bucket.client().get_bucket_location(Bucket=name).get("LocationConstraint")
    assert (location or "us-east-1") == region


def test_an_existing_bucket_is_unchanged(s3_bucket, settings, monkeypatch):
    s3_bucket.client().put_object(Bucket=s3_bucket.name, Key="matches/1/replay-a1.json.gz", Body=b"replay")
    use_bucket(settings, monkeypatch, s3_bucket, name=s3_bucket.name)
    before = bucket_names(s3_bucket)
    assert run("ensure_bucket").strip() == (f"object storage bucket {s3_bucket.name!r} at {s3_bucket.endpoint_url}: "
                                            "exists, unchanged")
    assert bucket_names(s3_bucket) == before
    listed = s3_bucket.client().list_objects_v2(Bucket=s3_bucket.name)["Contents"]
    assert [entry["Key"] for entry in listed] == ["matches/1/replay-a1.json.gz"]


def test_an_unreachable_store_is_a_command_error_naming_the_bucket_and_the_endpoint(s3_bucket, settings,
                                                                                    monkeypatch):
    endpoint = f"http://127.0.0.1:{free_port()}"
    use_bucket(settings, monkeypatch, s3_bucket, name="armada-nowhere", endpoint_url=endpoint)
    with pytest.raises(CommandError) as raised:
        run("ensure_bucket")
    message = str(raised.value)
    assert "'armada-nowhere'" in message and endpoint in message, message
    assert "Could not connect to the endpoint URL" in message, message


def test_with_local_files_there_is_no_bucket_to_create(settings):
    out = run("ensure_bucket")
    location = settings.STORAGES["default"]["OPTIONS"]["location"]
    assert out.strip() == f"local folder {location}: no ARMADA_S3_BUCKET, no bucket to create"


# -- the staff account ---------------------------------------------------------------------------

def staff_env(monkeypatch: Any, username: str = "organiser", password: str = "first-password-1234",
              email: str = "org@example.org") -> None:
    monkeypatch.setenv("DJANGO_SUPERUSER_USERNAME", username)
    monkeypatch.setenv("DJANGO_SUPERUSER_EMAIL", email)
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", password)


@pytest.mark.django_db
def test_the_staff_account_is_made_once_and_then_left_as_it_is(monkeypatch):
    from django.contrib.auth.models import User

    staff_env(monkeypatch)
    assert run("ensure_superuser").strip() == "staff account 'organiser': created"
    user = User.objects.get(username="organiser")
    assert user.is_staff and user.is_superuser and user.email == "org@example.org"
    assert user.check_password("first-password-1234")
    user.set_password("changed-on-the-site-5678")
    user.save()
    # every later start: not an error, and the password changed since is kept
    staff_env(monkeypatch, password="first-password-1234")
    assert run("ensure_superuser").strip() == "staff account 'organiser': exists, unchanged"
    assert User.objects.filter(username="organiser").count() == 1
    assert User.objects.get(username="organiser").check_password("changed-on-the-site-5678")


@pytest.mark.django_db
def test_an_ordinary_account_of_that_name_is_never_made_staff(monkeypatch, make_user):
    from django.contrib.auth.models import User

    make_user("organiser")
    staff_env(monkeypatch)
    assert "not made staff" in run("ensure_superuser")
    user = User.objects.get(username="organiser")
    assert not user.is_staff and not user.is_superuser


@pytest.mark.django_db
def test_without_a_username_nothing_is_made_and_without_a_password_the_variable_is_named(monkeypatch):
    from django.contrib.auth.models import User

    monkeypatch.delenv("DJANGO_SUPERUSER_USERNAME", raising=False)
    assert run("ensure_superuser").strip() == "no DJANGO_SUPERUSER_USERNAME: no staff account to make"
    staff_env(monkeypatch, password="")
    with pytest.raises(CommandError, match="DJANGO_SUPERUSER_PASSWORD"):
        run("ensure_superuser")
    assert not User.objects.exists()


@pytest.mark.django_db
def test_a_weak_staff_password_is_refused_with_the_rules_of_a_sign_up(monkeypatch):
    """An organiser's trial: DJANGO_SUPERUSER_PASSWORD=1 made the staff account of a public site
    (a token came back for it), while a sign-up's password must pass the site's password rules."""
    from django.contrib.auth.models import User

    staff_env(monkeypatch, password="1")
    with pytest.raises(CommandError, match=r"DJANGO_SUPERUSER_PASSWORD for the staff account 'organiser' is "
                                           r"refused: .*too short"):
        run("ensure_superuser")
    staff_env(monkeypatch, password="organiser")  # its own name
    with pytest.raises(CommandError, match="too similar to the username"):
        run("ensure_superuser")
    assert not User.objects.exists()
