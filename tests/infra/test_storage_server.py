"""The moto S3 server fixture: a real HTTP server process that boto3 talks to over loopback."""

from __future__ import annotations

import urllib.request

import pytest


def test_an_object_goes_in_and_comes_back_over_http(s3_bucket, moto_server):
    client = s3_bucket.client()
    client.put_object(Bucket=s3_bucket.name, Key="matches/1/replay-a1.json.gz", Body=b"\x1f\x8breplay")
    got = client.get_object(Bucket=s3_bucket.name, Key="matches/1/replay-a1.json.gz")
    assert got["Body"].read() == b"\x1f\x8breplay"
    listed = client.list_objects_v2(Bucket=s3_bucket.name)
    assert [item["Key"] for item in listed["Contents"]] == ["matches/1/replay-a1.json.gz"]
    # a real server in another process, on loopback: a presigned URL works with plain HTTP
    url = client.generate_presigned_url("get_object", Params={"Bucket": s3_bucket.name,
                                                              "Key": "matches/1/replay-a1.json.gz"})
    assert url.startswith(f"http://127.0.0.1:{moto_server.port}/")
    with urllib.request.urlopen(url, timeout=5) as response:
        assert response.read() == b"\x1f\x8breplay"
    assert moto_server.proc.poll() is None
    assert s3_bucket.env()["ARMADA_S3_ENDPOINT_URL"] == moto_server.endpoint_url


def test_each_test_gets_an_empty_bucket_of_its_own(s3_bucket, moto_server):
    other = moto_server.bucket()
    assert other.name != s3_bucket.name
    assert s3_bucket.client().list_objects_v2(Bucket=s3_bucket.name)["KeyCount"] == 0
    from botocore.exceptions import ClientError

    with pytest.raises(ClientError, match="NoSuchKey"):
        s3_bucket.client().get_object(Bucket=s3_bucket.name, Key="absent")
