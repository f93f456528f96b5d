"""The uploads' temporary files: in the site's own folder, and swept of what a worker killed
mid-upload left (a reliability trial found 90 MB files in /tmp after two restarts)."""

from __future__ import annotations

import os
import runpy
import stat
import time
import uuid
from pathlib import Path

from django.conf import settings

from armada_web.web import upload_temp

ROOT = Path(__file__).resolve().parents[2]


def test_uploads_wait_in_the_sites_folder_and_stale_ones_are_swept():
    folder = Path(settings.FILE_UPLOAD_TEMP_DIR)
    assert folder == upload_temp.folder(settings.DATA_DIR)  # the site's data folder, not the shared /tmp
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    name = uuid.uuid4().hex
    stale, fresh = folder / f"{name}-a.upload.zip", folder / f"{name}-b.upload.zip"
    try:
        for path in (stale, fresh):
            path.write_bytes(b"PK")
        old = time.time() - upload_temp.STALE_S - 60
        os.utime(stale, (old, old))
        assert upload_temp.sweep(folder) >= 1
        assert not stale.exists() and fresh.exists()  # one still arriving stays
        # the web server's master sweeps when it starts and after every worker ends
        os.utime(fresh, (old, old))
        hooks = runpy.run_path(str(ROOT / "infra" / "gunicorn.conf.py"))
        hooks["child_exit"](None, None)
        assert not fresh.exists()
    finally:
        for path in (stale, fresh):
            path.unlink(missing_ok=True)
