"""The bot image: the inputs hash that decides rebuilds, and the image built from it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from armada_sandbox._image import BOT_IMAGE, HASH_LABEL, REPO_ROOT, ImageStatus, input_files, inputs_hash


def copy_inputs(dest: Path) -> None:
    for rel in input_files(REPO_ROOT):
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO_ROOT / rel, target)


def test_hash_follows_every_input(tmp_path):
    copy_inputs(tmp_path)
    base = inputs_hash(tmp_path)
    assert inputs_hash(tmp_path) == base  # stable
    (tmp_path / "sdk/armada/__pycache__").mkdir(exist_ok=True)
    (tmp_path / "sdk/armada/__pycache__/x.pyc").write_bytes(b"junk")
    assert inputs_hash(tmp_path) == base  # bytecode does not count
    dockerfile = tmp_path / "infra/images/bot/Dockerfile"
    dockerfile.write_text(dockerfile.read_text() + "\n# changed\n")
    changed = inputs_hash(tmp_path)
    assert changed != base
    (tmp_path / "sdk/armada/new_module.py").write_text("X = 1\n")
    assert inputs_hash(tmp_path) != changed
    again = inputs_hash(tmp_path)
    (tmp_path / "infra/images/bot/prebuilt.txt").write_text("onnxruntime==0.0.1\n")  # the pinned wheels count
    assert inputs_hash(tmp_path) != again


def test_missing_input_is_a_clear_error(tmp_path):
    copy_inputs(tmp_path)
    (tmp_path / "infra/images/bot/wheels.txt").unlink()
    with pytest.raises(FileNotFoundError, match=r"wheels\.txt"):
        inputs_hash(tmp_path)


def test_status_problem_messages():
    assert "missing" in (ImageStatus(present=False).problem() or "")
    assert "older" in (ImageStatus(present=True, built_hash="a", source_hash="b").problem() or "")
    assert ImageStatus(present=True, built_hash="a", source_hash="a").problem() is None


@pytest.mark.docker
def test_built_image_is_labelled_and_has_the_bot_user(docker_client):
    image = docker_client.images.get(BOT_IMAGE)
    config = image.attrs["Config"]
    assert len(config["Labels"][HASH_LABEL]) == 64
    assert config["User"] == "10001:10001"
    assert "DEBIAN_FRONTEND" not in " ".join(config.get("Env") or [])
    out = docker_client.containers.run(
        BOT_IMAGE, ["python3", "-c", "import armada, numpy, sys; print(sys.version_info[:2], numpy.__name__)"],
        network_mode="none", read_only=True, remove=True, labels={"armada.test": "image"})
    assert out.decode().strip() == "(3, 11) numpy"
    # No compiler and no pip in the image.
    out = docker_client.containers.run(
        BOT_IMAGE, ["sh", "-c", "for c in gcc cc c++ g++ as ld pip pip3 apt-get; do command -v $c; done; true"],
        network_mode="none", remove=True, labels={"armada.test": "image"})
    assert out.decode().split() == ["/usr/bin/apt-get"]
