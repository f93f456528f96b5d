"""`armada dataset download`'s work: list the site's public replays (`GET /api/replays/`), fetch
the newest ones into a folder with their checksums verified, and write the folder's manifest.

A folder holds `<match>.json.gz` (each replay as the site serves it) and `manifest.jsonl` (one
row of the list per line, plus `"file"`). A file already there whose size and SHA-256 are the
list's is kept; any other (missing, truncated, damaged) is fetched again. A file is written
aside (`.<match>.json.gz.part`) and renamed once verified, and the manifest is replaced whole,
so an interrupted run leaves no partial file and the next run resumes (a run killed outright
may leave a hidden `.part` file: the next run removes it).
"""

from __future__ import annotations

import functools
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import parse_qsl, urlsplit

from armada.cli.client import ApiClient, RemoteError
from armada.cli.common import CliError
from armada.cli.output import Progress
from armada.replay import MANIFEST
from armada.safefile import write_bytes_atomic

LIST_PATH = "/api/replays/"
#: The most rows the list gives per page (`page_size`).
PAGE_SIZE = 200
#: The largest replay file fetched (a 500-turn Galaxy replay is well under 1 MiB compressed).
MAX_REPLAY_BYTES = 64 * 1024 * 1024
#: Tries per file when what arrives is not what the list says (a damaged transfer).
TRIES = 2
ROW_KEYS = ("match", "seed", "players", "scores", "result", "size", "sha256", "url")


@dataclass
class Summary:
    """What a run did: rows listed, files fetched, files already there, bytes fetched."""

    rows: int = 0
    fetched: int = 0
    kept: int = 0
    fetched_bytes: int = 0
    #: With no row listed: the rows of the manifest left in place from an earlier run (0: none).
    earlier_rows: int = 0


def file_name(row: dict[str, Any]) -> str:
    return f"{row['match']}.json.gz"


#: The most a download waits, over the 429s of one request (their Retry-After added up), before it
#: stops and says to run it again (the site's per-minute limits ask for seconds, the dataset's
#: hourly one for minutes).
MAX_WAIT_S = 3600
#: The most 429s of one request that are waited out (a proxy answering `Retry-After: 0` for ever).
MAX_WAITS = 10


def patiently(call: Callable[[], Any], stream: TextIO) -> Any:
    """`call()`, waited out and made again while the site answers 429 with a Retry-After (a trial:
    a download of 1,000 replays stopped at 592 on the site's per-minute limit, though nothing was
    wrong), MAX_WAITS times at most and MAX_WAIT_S in all; past them, or a refusal without a wait,
    says that a run again goes on."""
    waited = 0
    for attempt in range(MAX_WAITS + 1):
        try:
            return call()
        except RemoteError as exc:
            if exc.status != 429:
                raise
            if exc.retry_after is None or waited + exc.retry_after > MAX_WAIT_S or attempt == MAX_WAITS:
                raise RemoteError(f"{exc}; the replays written so far are kept: run the same command again "
                                  "later to go on", status=429) from None
            waited += exc.retry_after
            until = time.strftime("%H:%M:%S", time.localtime(time.time() + exc.retry_after))
            print(f"\narmada: note: the site's request limit: waiting {exc.retry_after} s (until {until}), "
                  "then going on", file=stream, flush=True)
            time.sleep(exc.retry_after + 1)
    raise AssertionError("unreachable")


def _follow(client: ApiClient, url: str) -> Any:
    """GET a `next` link on this server (its path and query only: the token stays with its server)."""
    parts = urlsplit(url)
    return client.request("GET", parts.path, query=dict(parse_qsl(parts.query, keep_blank_values=True)))


def _checked_row(row: Any) -> dict[str, Any]:
    if not isinstance(row, dict) or any(key not in row for key in ROW_KEYS):
        raise RemoteError(f"GET {LIST_PATH} answered a row without {', '.join(ROW_KEYS)}: {str(row)[:80]!r}",
                          exit_code=3)
    if not isinstance(row["match"], int) or isinstance(row["match"], bool) or row["match"] < 1:
        raise RemoteError(f"GET {LIST_PATH} answered a row whose match is not an id: {row['match']!r}", exit_code=3)
    if not isinstance(row["size"], int) or not isinstance(row["sha256"], str) or not isinstance(row["url"], str):
        raise RemoteError(f"GET {LIST_PATH}: match {row['match']}'s size, sha256 or url is malformed", exit_code=3)
    return row


def newest_rows(client: ApiClient, query: dict[str, str], limit: int, stream: TextIO) -> list[dict[str, Any]]:
    """The newest `limit` rows of the list with these filters (fewer when the list is shorter).

    The replays are public: a token the site refuses (revoked, expired) is dropped with a note on
    `stream`, and the download goes on as a visitor's."""
    rows: list[dict[str, Any]] = []
    first = {**query, "page_size": str(min(limit, PAGE_SIZE))}
    try:
        page = patiently(lambda: client.request("GET", LIST_PATH, query=first), stream)
    except RemoteError as exc:
        if exc.status != 401 or not client.token:
            raise
        print(f"armada: note: {exc}; the replays are public, so they are downloaded without it", file=stream)
        client.token = None
        page = patiently(lambda: client.request("GET", LIST_PATH, query=first), stream)
    while True:
        if not isinstance(page, dict) or not isinstance(page.get("results"), list):
            raise RemoteError(f"GET {LIST_PATH}: expected a page of replays, got {str(page)[:80]!r}", exit_code=3)
        rows += [_checked_row(row) for row in page["results"]]
        nxt = page.get("next")
        if len(rows) >= limit or not page["results"] or not isinstance(nxt, str) or not nxt:  # an empty page ends it
            return rows[:limit]
        page = patiently(functools.partial(_follow, client, nxt), stream)


def intact(path: Path, row: dict[str, Any]) -> bool:
    """Whether the file is there with the row's size and SHA-256."""
    try:
        if path.stat().st_size != row["size"]:
            return False
        return hashlib.sha256(path.read_bytes()).hexdigest() == row["sha256"]
    except OSError:
        return False


def fetch(client: ApiClient, row: dict[str, Any], target: Path, stream: TextIO) -> int:
    """Download one replay, verify it, write it into place; returns its size."""
    parts = urlsplit(row["url"])
    query = dict(parse_qsl(parts.query)) or None
    for attempt in range(1, TRIES + 1):
        data = patiently(lambda: client.download(parts.path, query, max_bytes=MAX_REPLAY_BYTES), stream)
        if len(data) == row["size"] and hashlib.sha256(data).hexdigest() == row["sha256"]:
            _write(target, data)
            return len(data)
        if attempt == TRIES:
            raise RemoteError(f"match {row['match']}: the replay received ({len(data)} bytes) is not the one the "
                              f"list describes ({row['size']} bytes, SHA-256 {row['sha256'][:12]}...), "
                              f"{TRIES} times: nothing was kept; run the command again later", exit_code=3)
    raise AssertionError("unreachable")


def write_manifest(folder: Path, rows: list[dict[str, Any]]) -> Path:
    """`manifest.jsonl`: the rows in the list's order (newest first), each with its `file`."""
    text = "".join(json.dumps({**row, "file": file_name(row)}, sort_keys=True) + "\n" for row in rows)
    target = folder / MANIFEST
    _write(target, text.encode("utf-8"))
    return target


def _write(target: Path, data: bytes) -> None:
    """Write a file of the dataset into place (written aside, then renamed); raises CliError when the
    folder cannot take it (a full disk, a folder in the way), the files already written kept."""
    try:
        write_bytes_atomic(target, data, sync=True)
    except OSError as exc:
        raise CliError(f"cannot write {target}: {exc.strerror or exc}; the replays written so far are kept "
                       "and checked, so run the same command again once that is fixed") from exc


def clear_leftovers(folder: Path) -> None:
    """Remove the files a killed run left aside (`.<name>.<random>.part`): never kept, never read."""
    for path in folder.glob(".*.part"):
        if ".json.gz." in path.name or f".{MANIFEST}." in path.name:
            path.unlink(missing_ok=True)


def download(client: ApiClient, query: dict[str, str], limit: int, folder: Path, stream: TextIO) -> Summary:
    """List the newest `limit` rows, fetch what the folder lacks (with a progress bar on `stream`),
    then write the manifest."""
    clear_leftovers(folder)
    rows = newest_rows(client, query, limit, stream)
    summary = Summary(rows=len(rows))
    progress = Progress(len(rows), "replays", stream=stream)
    progress.start()
    for row in rows:
        target = folder / file_name(row)
        if intact(target, row):
            summary.kept += 1
        else:
            summary.fetched_bytes += fetch(client, row, target, stream)
            summary.fetched += 1
        progress.advance()
    progress.finish()
    if not rows:  # nothing matches (filters, or a site without games yet): an earlier run's dataset stays whole
        summary.earlier_rows = _manifest_rows(folder)
        if summary.earlier_rows:
            return summary
    write_manifest(folder, rows)
    return summary


def _manifest_rows(folder: Path) -> int:
    """The rows of the folder's manifest (0 without one, or one that cannot be read)."""
    try:
        return sum(1 for line in (folder / MANIFEST).read_text(encoding="utf-8").splitlines() if line.strip())
    except (OSError, UnicodeDecodeError):
        return 0
