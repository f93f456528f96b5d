"""The private files on disk are their owner's alone: a security review read another user's bot
archive, a match's seat log and web.log (a password reset's link) as `nobody`, all 0644 in 0755
folders. Stored files are now 0600 in 0700 folders, and the infra scripts make the data folder 0700."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from django.core.files.base import ContentFile

from armada_web.storage.objectstore import PrivateFileStorage


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_stored_files_and_the_folders_made_for_them_are_the_owners_alone(tmp_path):
    root = tmp_path / "private"
    storage = PrivateFileStorage(location=str(root))
    name = storage.save("versions/8/1-abc.zip", ContentFile(b"PK\x05\x06" + bytes(18)))
    assert name == "versions/8/1-abc.zip"
    assert mode(root / name) == 0o600
    assert [mode(folder) for folder in (root, root / "versions", root / "versions" / "8")] == [0o700] * 3
    again = storage.save("versions/9/2-def.zip", ContentFile(b"x"))  # under an existing folder too
    assert mode(root / again) == 0o600 and mode(root / "versions" / "9") == 0o700
    assert storage.open(name).read().startswith(b"PK")


def test_the_infra_scripts_make_the_data_folder_private(tmp_path):
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    os.chmod(data, 0o755)
    root = Path(__file__).resolve().parents[2]
    subprocess.run(["bash", "-c", ". infra/lib.sh"], cwd=root, check=True, timeout=30,
                   env={**os.environ, "ARMADA_DATA_DIR": str(data)})
    assert mode(data) == 0o700 and (data / "log").is_dir() and (data / "run").is_dir()
