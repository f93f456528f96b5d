"""The host folder of the work folders (`armada_sandbox.folders.sandbox_root`, default
`$TMPDIR/armada-sandbox`) is used only when it is this process's own: in a temporary folder every
local user writes, another user could make it first and read or swap what bots mount. No Docker."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from armada_sandbox.folders import FolderNotPrivate, code_folder, sandbox_root


@pytest.fixture
def shared_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary folder like /tmp (sticky, writable by all) that `tempfile` gives out."""
    os.chmod(tmp_path, 0o1777)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_the_root_is_made_traverse_only_and_used(shared_tmp: Path):
    with code_folder() as code:
        assert code.parent.parent == shared_tmp / "armada-sandbox"
    assert oct((shared_tmp / "armada-sandbox").stat().st_mode & 0o777) == "0o711"


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_a_root_another_user_made_first_is_refused_naming_its_owner(shared_tmp: Path):
    root = shared_tmp / "armada-sandbox"
    root.mkdir(mode=0o777)
    os.chmod(root, 0o777)
    os.chown(root, 65534, 65534)
    with pytest.raises(FolderNotPrivate, match=r"armada-sandbox: it is owned by uid 65534 \(\w+\), not by this "
                                               r"process's uid 0 \(root\).*TMPDIR"):
        sandbox_root()
    assert oct(root.stat().st_mode & 0o777) == "0o777"  # left as found, and nothing made in it
    with pytest.raises(FolderNotPrivate), code_folder():
        pass
    assert list(root.iterdir()) == []


def test_a_root_that_is_a_symbolic_link_is_refused(shared_tmp: Path):
    (shared_tmp / "theirs").mkdir()
    (shared_tmp / "armada-sandbox").symlink_to(shared_tmp / "theirs")
    with pytest.raises(FolderNotPrivate, match="armada-sandbox: it is a symbolic link"):
        sandbox_root()
    assert list((shared_tmp / "theirs").iterdir()) == []


@pytest.mark.parametrize("kind", ["file", "dangling link"])
def test_a_root_that_is_no_folder_is_refused_with_the_same_advice(shared_tmp: Path, kind: str):
    root = shared_tmp / "armada-sandbox"
    if kind == "file":
        root.write_text("x")
    else:
        root.symlink_to(shared_tmp / "nowhere")
    expected = "it is not a folder" if kind == "file" else "it is a symbolic link"
    with pytest.raises(FolderNotPrivate, match=f"armada-sandbox: {expected}.*TMPDIR"):
        sandbox_root()
