"""A warm slot's code: files every uid may read are hard-linked (a cached version of 100 MiB costs
no copy), others copied and made readable, the originals never changed (no Docker)."""

from __future__ import annotations

import os
from pathlib import Path

from armada_sandbox.warm import copy_code


def test_readable_files_are_linked_and_private_ones_copied_without_touching_the_original(tmp_path: Path) -> None:
    source, target = tmp_path / "cached", tmp_path / "slot"
    (source / "weights").mkdir(parents=True)
    (source / "main.py").write_text("print(1)\n")
    (source / "weights" / "model.bin").write_bytes(b"w" * 1000)
    os.chmod(source / "weights" / "model.bin", 0o444)
    os.chmod(source / "main.py", 0o600)  # a developer's own file (armada play --sandbox docker)
    target.mkdir()
    copy_code(source, target)
    model, main = target / "weights" / "model.bin", target / "main.py"
    assert model.stat().st_ino == (source / "weights" / "model.bin").stat().st_ino  # linked
    assert main.stat().st_ino != (source / "main.py").stat().st_ino and main.read_text() == "print(1)\n"
    assert oct(main.stat().st_mode & 0o777) == "0o644" and oct((source / "main.py").stat().st_mode & 0o777) == "0o600"
    assert oct(model.stat().st_mode & 0o777) == "0o444"
