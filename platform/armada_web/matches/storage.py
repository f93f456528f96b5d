"""Where a match's files live: the replay (gzip replay v1), each seat's log and each seat's drawings
(`{"turns": [...]}` of armada.drawing, gzip JSON, only when it drew), in private storage.

Names: `matches/<id>/replay-a<attempt>.json.gz`, `matches/<id>/seat-<n>-a<attempt>.log` and
`matches/<id>/seat-<n>-a<attempt>.debug.json.gz`, so a run repeated after a lost worker never
overwrites (or is confused with) an earlier one's files.
A saved replay's size and SHA-256 (`Stored`, of the bytes as the API serves them) are kept on
its match, so the replays' list (the dataset) never reads storage for them.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from armada.replay import replay_gzip, with_bot_names
from armada_web.storage.objectstore import unavailable


@dataclass(frozen=True)
class Stored:
    """A stored replay: its name in storage, its size in bytes and its SHA-256 (hex)."""

    name: str
    size: int
    sha256: str


def digest(data: bytes) -> tuple[int, str]:
    """(size, SHA-256 hex) of a file's bytes."""
    return len(data), hashlib.sha256(data).hexdigest()


def store_replay(match_id: int, attempt: int, replay: dict[str, Any], bots: dict[int, str] | None = None) -> Stored:
    """Store a match's replay, each seat with the site's name of its bot (`bots`: seat -> name, the seat's
    `bot`, replay-format.md: a replay downloaded shows the bots as the site names them, not only as
    they announced themselves); returns its name, size and checksum."""
    if bots:
        replay = with_bot_names(replay, bots)
    data = replay_gzip(replay)
    name = default_storage.save(f"matches/{match_id}/replay-a{attempt}.json.gz", ContentFile(data))
    return Stored(name, *digest(data))


def save_replay(match_id: int, attempt: int, replay: dict[str, Any]) -> str:
    """Store a match's replay; returns the storage's name for it."""
    return store_replay(match_id, attempt, replay).name


def save_log(match_id: int, attempt: int, seat: int, text: str) -> str:
    """Store one seat's stderr log; returns the name."""
    return default_storage.save(f"matches/{match_id}/seat-{seat}-a{attempt}.log",
                                ContentFile(text.encode("utf-8", "replace")))


def save_drawing(match_id: int, attempt: int, seat: int, drawing: dict[str, Any]) -> str:
    """Store one seat's drawings (`{"turns": [...]}`) beside its log; returns the name."""
    data = replay_gzip(drawing)  # the same canonical JSON and gzip as a replay
    return default_storage.save(f"matches/{match_id}/seat-{seat}-a{attempt}.debug.json.gz", ContentFile(data))


def read_drawing(name: str) -> dict[str, Any] | None:
    """A seat's stored drawings, or None when there is no such file or it is damaged; Unavailable
    when the storage does not answer."""
    data = read(name)
    if data is None:
        return None
    try:
        value = json.loads(gzip.decompress(data).decode("utf-8"))
    except (OSError, EOFError, ValueError):
        return None
    return value if isinstance(value, dict) and isinstance(value.get("turns"), list) else None


def read(name: str) -> bytes | None:
    """A stored file's bytes, or None when it is missing; Unavailable when the storage does not answer."""
    if not name:
        return None
    try:
        with default_storage.open(name, "rb") as handle:
            return bytes(handle.read())
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise unavailable(exc) from None


def delete(names: list[str]) -> None:
    """Delete what was saved (best effort: a file left behind is an orphan retention removes)."""
    for name in names:
        if name:
            try:
                default_storage.delete(name)
            except OSError:
                continue
