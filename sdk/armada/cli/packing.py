"""What `armada submit` uploads for a BOT: a .py file or a .zip as is, a folder zipped, a starter's file.

A folder becomes a zip with `main.py` at its root, leaving out `__pycache__`, `.git`,
hidden files and folders and `*.pyc`; a symbolic link anywhere in it is refused (the site
refuses links in an archive). The zip is `armada.archive.normalised_zip`'s, the writer of the
site's stored archive too, so the same code always gives the same bytes.
"""

from __future__ import annotations

import io
import os
import re
import stat
import sys
import zipfile
from pathlib import Path

from armada.archive import normalised_zip
from armada.botspec import (
    BUILTIN_PREFIX,
    ENTRY,
    MAX_UNCOMPRESSED_BYTES,
    MAX_ZIP_BYTES,
    MAX_ZIP_ENTRIES,
    BotSpecError,
    resolve_bot,
    starter_file,
)
from armada.cli import botinfo
from armada.cli.client import Upload
from armada.cli.common import CliError
from armada.sizes import MIB, human_size, with_bytes
from armada.stack import running_files, server_has

#: How to make a version smaller (docs/bots-environment.md, "Model files").
SHRINK = ("shrink it: export the model to ONNX (torch.onnx.export, with dynamo=False on PyTorch 2.5 and "
          "later) and quantise it (float16, or int8 with "
          "onnxruntime.quantization.quantize_dynamic), and leave training data and checkpoints out of the folder")

_SKIPPED_DIRS = ("__pycache__",)
#: A replay `armada dataset download` wrote (armada.cli.datasets.file_name).
_REPLAY_FILE = re.compile(r"[0-9]+\.json\.gz")
_SKIPPED_SUFFIXES = (".pyc", ".pyo")


def skipped(name: str, is_dir: bool) -> bool:
    """True for what a folder's zip leaves out: hidden names (.git too), __pycache__, compiled files."""
    if name.startswith("."):
        return True
    if is_dir:
        return name in _SKIPPED_DIRS
    return name.endswith(_SKIPPED_SUFFIXES)


def folder_files(folder: Path) -> list[tuple[str, Path]]:
    """(name in the zip, file) for every file kept from `folder`, sorted; raises CliError for a link."""
    kept: list[tuple[str, Path]] = []
    for current, dirs, files in os.walk(folder, followlinks=False):
        here = Path(current)
        for name in sorted(dirs + files):
            path = here / name
            if path.is_symlink():
                if skipped(name, is_dir=name in dirs):
                    continue
                raise CliError(f"{path}: is a symbolic link; the site refuses links in a bot, "
                               "copy the file into the folder instead")
            if name in dirs:
                continue
            mode = path.lstat().st_mode
            if skipped(name, is_dir=False):
                continue
            if not stat.S_ISREG(mode):
                raise CliError(f"{path}: not a regular file (a bot folder holds only files and folders)")
            name_in_zip = path.relative_to(folder).as_posix()
            if not _utf8(name_in_zip):  # a zip names its files in UTF-8 (a trial: a traceback)
                shown = os.fsencode(path).decode("utf-8", "backslashreplace")
                raise CliError(f"{shown}: its name is not UTF-8 text, which a zip cannot hold: rename it")
            kept.append((name_in_zip, path))
        dirs[:] = sorted(d for d in dirs if not skipped(d, is_dir=True) and not (here / d).is_symlink())
    return sorted(kept)


def _utf8(name: str) -> bool:
    """Whether a file name read from the disk is UTF-8 text (not bytes carried as surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def zip_folder(folder: Path) -> bytes:
    """The folder as the site expects it: a zip with main.py at its root; raises CliError."""
    files = folder_files(folder)
    if (ENTRY, folder / ENTRY) not in files:
        raise CliError(f"{folder}: folder has no {ENTRY}")
    if len(files) > MAX_ZIP_ENTRIES:
        raise CliError(f"{folder}: {len(files)} files to send (limit {MAX_ZIP_ENTRIES}); "
                       "leave data out of the bot folder")
    for line in dataset_notes(folder, files):
        print(f"armada: note: {line}", file=sys.stderr)
    sizes = {name: _file_size(path) for name, path in files}
    if sum(sizes.values()) > MAX_UNCOMPRESSED_BYTES:  # told before anything is read or sent
        held = sum(sizes.values())
        largest = ", ".join(f"{name} ({human_size(size)})"
                            for name, size in sorted(sizes.items(), key=lambda item: (-item[1], item[0]))[:3])
        raise CliError(f"{folder}: its files hold {with_bytes(held)} and a version unpacks to at "
                       f"most {with_bytes(MAX_UNCOMPRESSED_BYTES)}; nothing was "
                       f"sent; its largest files: {largest}. To fit, {SHRINK} (`armada docs bots-environment`, "
                       f"\"Model files\")")
    total = 0
    contents: dict[str, bytes] = {}
    for name, path in files:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CliError(f"cannot read {path}: {exc.strerror or exc}") from exc
        total += len(data)
        if total > MAX_UNCOMPRESSED_BYTES:
            raise CliError(f"{folder}: more than {MAX_UNCOMPRESSED_BYTES} bytes of files to send")
        contents[name] = botinfo.as_sent(data) if name == botinfo.INFO_FILE else data
    return normalised_zip(contents)


def dataset_notes(folder: Path, files: list[tuple[str, Path]]) -> list[str]:
    """A line per downloaded dataset (`armada dataset download`'s manifest.jsonl) inside the bot's
    folder: it would be sent with the bot, as part of every version (a bot may carry data files
    of its own on purpose, so this is a note, not a refusal)."""
    lines = []
    for name, path in files:
        if path.name != "manifest.jsonl":
            continue
        where = name.rpartition("/")[0]
        # the manifest and the replays beside it (`<match>.json.gz`), not the bot's own files there
        inside = [p for n, p in files
                  if n.rpartition("/")[0] == where and (p == path or _REPLAY_FILE.fullmatch(p.name))]
        size = sum(p.stat().st_size for p in inside)
        lines.append(f"{folder / where if where else folder} holds a downloaded dataset ({len(inside)} files, "
                     f"{size:,} bytes), part of the upload; keep replays outside the bot's folder")
    return lines


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from exc


def largest_files(data: bytes, count: int = 3) -> list[tuple[str, int]]:
    """The `count` members of a zip taking the most room in it (name, compressed bytes), largest
    first: what to look at when a version is too large; [] for what is not a zip."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = [(info.filename, info.compress_size) for info in archive.infolist() if not info.is_dir()]
    except (zipfile.BadZipFile, OSError, ValueError):
        return []
    return sorted(members, key=lambda member: (-member[1], member[0]))[:count]


#: The largest zip `armada submit` reads to send (a site's own limit, per game, may pass MAX_ZIP_BYTES).
SEND_MAX_BYTES = 1024 * MIB


def _read(path: Path, limit: int = MAX_ZIP_BYTES) -> bytes:
    size = _file_size(path)
    if size > limit:
        raise CliError(f"{path}: {size} bytes, too large to send (limit {limit})")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from exc


def entry_problem(script: Path) -> str:
    """What keeps the bot's entry file from starting at all (empty, or not Python the interpreter can
    read), said as the site's validation would find it, before an upload and a validation are spent
    on it; "" when it compiles. (Compiled with this Python: the site's is 3.11.)"""
    try:
        source = script.read_bytes()
    except OSError as exc:
        return f"cannot read {script.name}: {exc.strerror or exc}"
    if not source.strip():
        return f"{script.name} is empty: a bot's {ENTRY} runs a Bot (armada new makes one)"
    try:
        compile(source, script.name, "exec", dont_inherit=True)
    except SyntaxError as exc:
        where = f", line {exc.lineno}" if exc.lineno else ""
        return (f"{script.name}{where}: {exc.msg} (a SyntaxError: the bot could not start; "
                f"python -m py_compile {script.name} shows it)")
    except ValueError as exc:  # null bytes (3.11)
        return f"{script.name}: {exc} (the bot could not start)"
    return ""


def bot_upload(spec: str, game: str) -> Upload:
    """The upload for BOT `spec` (the forms of `armada play`), checked locally first; raises CliError.

    A zip past what `armada play` unpacks here (MAX_ZIP_BYTES) is not checked here: the site's own
    limit for the game decides (`submit.check_size` says the sizes, the limit and how to shrink)."""
    path = Path(spec).expanduser()
    if path.suffix.lower() == ".zip" and path.is_file() and _file_size(path) > MAX_ZIP_BYTES:
        return Upload(path.name, _read(path, SEND_MAX_BYTES), "application/zip")
    try:
        source = resolve_bot(spec, game)  # the same checks and messages as `armada play`
        try:
            problem = entry_problem(Path(source.script))
        finally:
            source.close()
        if problem:
            raise CliError(f"{problem}; nothing was sent")
        if spec.startswith(BUILTIN_PREFIX):
            return Upload(ENTRY, _read(starter_file(spec[len(BUILTIN_PREFIX):], game)), "text/x-python")
    except BotSpecError as exc:
        raise CliError(str(exc)) from exc
    if path.is_dir():
        return Upload(f"{path.resolve().name or 'bot'}.zip", zip_folder(path), "application/zip")
    if path.suffix.lower() == ".zip":
        return Upload(path.name, _read(path), "application/zip")
    beside = [p.relative_to(path.parent) for p in running_files(path)[1:]]
    # (a module the server has under the same name, `random.py` or an `armada/` checkout beside it,
    # only shadows it here: the file alone runs with the server's)
    beside = [p for p in beside if not server_has(p.parts[0].removesuffix(".py"))]
    if beside:  # `armada play` runs the folder, the site would run the file alone
        names = f"{', '.join(p.as_posix() for p in beside[:3])}{' and more' if len(beside) > 3 else ''}"
        folder = path.parent.as_posix() or "."
        instead = (f"submit the folder instead (armada submit {folder})" if path.name == ENTRY else
                   f"put them in a bot folder with {path.name} as its {ENTRY}, and submit that folder")
        raise CliError(f"{spec} imports {names} from its folder, which uploading the file alone leaves out: "
                       f"{instead}; nothing was sent")
    return Upload(path.name, _read(path), "text/x-python")
