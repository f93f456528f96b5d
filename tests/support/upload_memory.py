"""The web worker's peak memory while it takes one upload, measured in a process of its own.

`measure(size, folder)` writes a bot zip of about `size` bytes (main.py and a model file of
noise) as a multipart request body into `folder`, then runs this module as a child process: a
fresh site process (Django set up, the tables made from the models in a SQLite
database of its own, a user, a token and a Galaxy bot) that sends the body through the site's WSGI
application, `POST /api/bots/{id}/versions/` as `armada submit` does, reading it from the file
as a server would from its socket. The child prints its peak resident memory before the request
and after it (`resource.getrusage`, ru_maxrss). Used by tests/bots/test_upload_memory.py and
bench/learning.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

BOUNDARY = "armada-upload-memory-boundary"
REPO = Path(__file__).resolve().parents[2]
MAIN = b"import os\nprint(os.path.getsize('model.bin'))\n"


@dataclass(frozen=True)
class Measured:
    """One child's answer: the HTTP status, the archive's size, peak RSS (KiB) before and after."""

    status: int
    stored_bytes: int
    before_kib: int
    peak_kib: int
    detail: str


def write_body(size: int, folder: Path) -> Path:
    """A multipart body holding `bot.zip`: main.py and `model.bin` (noise, stored), `size` bytes in all."""
    archive = folder / f"bot-{size}.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_STORED) as out:
        out.writestr("main.py", MAIN)
        left = max(size - 512, 1)  # the zip's headers take the rest
        with out.open(zipfile.ZipInfo("model.bin", date_time=(2026, 1, 1, 0, 0, 0)), "w", force_zip64=False) as dest:
            while left > 0:
                chunk = os.urandom(min(left, 1 << 20))
                dest.write(chunk)
                left -= len(chunk)
    body = folder / f"body-{size}.bin"
    with open(body, "wb") as out, open(archive, "rb") as source:
        out.write(f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="bot.zip"\r\n'
                  "Content-Type: application/zip\r\n\r\n".encode())
        while chunk := source.read(1 << 20):
            out.write(chunk)
        out.write(f"\r\n--{BOUNDARY}--\r\n".encode())
    archive.unlink()
    return body


def measure(size: int, folder: Path, extra_env: dict[str, str] | None = None) -> Measured:
    """Upload a bot of about `size` bytes through a fresh site process; its peak memory. `extra_env`:
    more of the site's settings (a bucket's, to store the version in S3)."""
    body = write_body(size, folder)
    # Its own SQLite database in `folder`: never the suite's (under CI, PostgreSQL's test_armada,
    # which a second child or the suite itself may be using).
    inherited = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "ARMADA_SQLITE_PATH")}
    env = {**inherited, "PYTHONPATH": os.pathsep.join(str(REPO / p) for p in ("sdk", "sandbox", "platform", "")),
           "DJANGO_SETTINGS_MODULE": "armada_web.settings", "ARMADA_DATA_DIR": str(folder / "site"),
           "CACHE_URL": "locmem://", "DEBUG": "true", **(extra_env or {})}
    try:
        done = subprocess.run([sys.executable, "-m", "tests.support.upload_memory", str(body)], env=env, cwd=REPO,
                              capture_output=True, text=True, timeout=300, check=False)
    finally:
        body.unlink()
    if done.returncode != 0:
        raise RuntimeError(f"the upload process failed ({done.returncode}): {done.stderr[-2000:]}")
    return Measured(**json.loads(done.stdout.strip().splitlines()[-1]))


def _peak_kib() -> int:
    import resource

    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def _child(body: Path) -> None:
    """The site process: set up, then one upload through the WSGI application (see the module)."""
    import django
    from django.conf import settings

    django.setup()
    settings.DATABASES["default"]["TEST"] = {**settings.DATABASES["default"].get("TEST", {}), "MIGRATE": False}
    from django.test.utils import setup_databases

    setup_databases(verbosity=0, interactive=False, aliases={"default"})
    from django.contrib.auth.models import User

    from armada_web.accounts.services import create_token
    from armada_web.bots import services
    from armada_web.bots.models import BotVersion
    from armada_web.wsgi import application

    services.queue_validation = lambda version_id: None  # no broker here: the upload is what is measured
    user = User.objects.create_user(username="uploader", password="not-used-here-1234")
    _token, secret = create_token(user=user, name="memory")
    bot = services.create_bot(user=user, name="modeller", game="galaxy")
    answer: list[str] = []
    with open(body, "rb") as stream:
        environ = {"REQUEST_METHOD": "POST", "PATH_INFO": f"/api/bots/{bot.pk}/versions/", "QUERY_STRING": "",
                   "SERVER_NAME": "localhost", "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1",
                   "HTTP_HOST": "localhost", "REMOTE_ADDR": "127.0.0.1", "HTTP_AUTHORIZATION": f"Token {secret}",
                   "CONTENT_TYPE": f"multipart/form-data; boundary={BOUNDARY}",
                   "CONTENT_LENGTH": str(body.stat().st_size), "wsgi.input": stream, "wsgi.url_scheme": "http",
                   "wsgi.errors": sys.stderr, "wsgi.version": (1, 0), "wsgi.multithread": False,
                   "wsgi.multiprocess": True, "wsgi.run_once": False}
        before = _peak_kib()
        chunks = application(environ, lambda status, headers, exc_info=None: answer.append(status))
        detail = b"".join(chunks).decode("utf-8", "replace")
    version = BotVersion.objects.filter(bot=bot).first()
    print(json.dumps({"status": int(answer[0].split()[0]), "stored_bytes": version.archive.size if version else 0,
                      "before_kib": before, "peak_kib": _peak_kib(), "detail": detail[:300]}))


if __name__ == "__main__":
    _child(Path(sys.argv[1]))
