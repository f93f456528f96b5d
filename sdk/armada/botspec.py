"""Turning a bot spec from the command line into code on disk (`resolve_bot`).

A spec is one of: a path to a Python file (usually `main.py`; its folder is the bot's code),
a folder holding `main.py`, a `.zip` holding `main.py` at its top or inside its single top
folder, or `builtin:NAME` for a starter bot of the game (copied as `main.py` into a
temporary folder). Zips are checked before anything is
extracted (the central directory's size from the end records before it is read, paths,
symlinks, entry count, sizes, compression ratio) and extracted into a
temporary folder that `BotSource.close()` removes.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import stat
import struct
import sys
import tempfile
import unicodedata
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from armada.sizes import human_size, with_bytes

if TYPE_CHECKING:
    from armada.referee.process_bot import ProcessBot

#: Games a spec can be resolved for.
GAMES: tuple[str, ...] = ("galaxy", "mothership")
#: The file a bot folder or zip must hold.
ENTRY = "main.py"
#: Zip limits: a bot is its source files and its model files (the site's default limits: a
#: version of up to 100 MiB, 200 MiB unpacked); past the ratio a zip is a bomb, whatever its size.
MAX_ZIP_BYTES = 100 * 1024 * 1024
MAX_ZIP_ENTRIES = 1000
MAX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024
MAX_COMPRESSION_RATIO = 100
#: What to do about a zip of too many entries.
FEWER_FILES = ("leave data (replays, checkpoints) out of the bot's folder, or pack many small files into one "
               "(a .npz, or an archive the bot reads itself)")
#: What every file system a bot is unpacked on holds (ext4, overlayfs, tmpfs: NAME_MAX 255 bytes;
#: a whole path well under PATH_MAX, 4096, with room for the folder it is unpacked into).
MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 1024
#: The most a zip's central directory may hold per entry allowed: its fixed 46 bytes, a name
#: (MAX_PATH_BYTES and some: "./", a folder's "/") and room for extra fields and a comment.
MAX_RECORD_BYTES = 46 + 2 * MAX_PATH_BYTES + 4096
#: Folders some zip tools add that are never part of the bot.
_IGNORED_TOP = ("__MACOSX",)
#: How a starter bot is named on the command line: `builtin:greedy`.
BUILTIN_PREFIX = "builtin:"
_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")


class BotSpecError(ValueError):
    """A bot spec could not be turned into runnable code; the message says why."""


class UnpackedTooLarge(BotSpecError):
    """A zip whose files unpack to more than the limit (the message names its largest files)."""


@dataclass(frozen=True)
class ZipLimits:
    """What `check_zip` accepts; the site passes stricter values than the CLI's defaults
    (the module constants, read when a ZipLimits is made)."""

    max_zip_bytes: int = field(default_factory=lambda: MAX_ZIP_BYTES)
    max_entries: int = field(default_factory=lambda: MAX_ZIP_ENTRIES)
    max_uncompressed_bytes: int = field(default_factory=lambda: MAX_UNCOMPRESSED_BYTES)
    max_ratio: int | None = field(default_factory=lambda: MAX_COMPRESSION_RATIO)  # None: no ratio test
    #: Names free of direction marks, invisible and C1 control characters (_HIDDEN_CATEGORIES); False
    #: checks C0 controls and DEL only: the rule stored archives were accepted under before, so a
    #: version uploaded then still unpacks.
    plain_names: bool = True


@dataclass
class BotSource:
    """A bot's code on disk: run `entry` (a file name) inside `code_dir`; `label` names it for people."""

    code_dir: str
    entry: str
    label: str
    #: Given as a `.py` file: the bot is that file (and what it imports), not its whole folder.
    single_file: bool = False
    #: Unpacked from a zip: the zip as given and the code folder's path inside it (`inner/`, or ""),
    #: so that messages name the zip's member, not the temporary copy.
    archive: str | None = None
    archive_dir: str = ""
    _tmp: tempfile.TemporaryDirectory[str] | None = field(default=None, repr=False, compare=False)

    @property
    def script(self) -> str:
        """Full path of the entry file."""
        return os.path.join(self.code_dir, self.entry)

    def shown_path(self, name: str) -> str:
        """File `name` of the bot's folder as messages name it: `bot.zip: inner/armada.json` for a
        zip's, else its path."""
        if self.archive is not None:
            return f"{self.archive}: {self.archive_dir}{name}"
        return os.path.join(self.code_dir, name)

    def process_connection(self, label: str | None = None) -> ProcessBot:
        """A `ProcessBot` running the entry with this interpreter, in the bot's folder."""
        from armada.referee.process_bot import ProcessBot

        return ProcessBot([sys.executable, self.script], cwd=self.code_dir, label=label or self.label)

    def close(self) -> None:
        """Remove the temporary copy of a zip or starter (nothing to do for other specs)."""
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> BotSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _temp_dir(prefix: str) -> tempfile.TemporaryDirectory[str]:
    """A temporary folder readable by other users: a sandboxed bot runs under its own uid."""
    tmp = tempfile.TemporaryDirectory(prefix=prefix)
    os.chmod(tmp.name, 0o755)  # noqa: S103  (bot code only; the container user must read it)
    return tmp


def starters_dir(game: str) -> Path:
    """Folder of the starter bots of `game`."""
    return Path(__file__).resolve().parent / "starters" / game


def builtin_names(game: str) -> list[str]:
    """Names usable as `builtin:NAME` for `game`, sorted."""
    folder = starters_dir(game)
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.py") if not p.name.startswith("_"))


def check_game(game: str) -> None:
    if game not in GAMES:
        raise BotSpecError(f"unknown game {game!r}; choose one of: {', '.join(GAMES)}")


def resolve_bot(spec: str, game: str) -> BotSource:
    """The code behind `spec` for `game`; raises BotSpecError with a clear message."""
    check_game(game)
    if not spec or not spec.strip():
        raise BotSpecError("empty bot spec; give a main.py, a folder, a .zip or builtin:NAME")
    if spec.startswith(BUILTIN_PREFIX):
        return _resolve_builtin(spec[len(BUILTIN_PREFIX):], game)
    path = Path(spec).expanduser()
    if path.is_dir():
        return _resolve_folder(path)
    if path.is_file():
        if path.suffix.lower() == ".zip":
            return extract_zip(path)
        if path.suffix == ".py":
            return BotSource(str(path.resolve().parent), path.name, _label_for_file(path), single_file=True)
        raise BotSpecError(f"{spec}: not a bot; give a .py file, a folder holding {ENTRY}, a .zip or builtin:NAME")
    if path.exists():
        raise BotSpecError(f"{spec}: not a regular file or folder")
    raise BotSpecError(f"{spec}: no such file or folder (a bot is a .py file, a folder, a .zip or builtin:NAME)")


def starter_file(name: str, game: str) -> Path:
    """The file of starter bot `name` of `game`; raises BotSpecError listing the available names."""
    names = builtin_names(game)
    if name not in names:
        available = ", ".join(f"builtin:{n}" for n in names) or "none installed"
        raise BotSpecError(f"no starter bot {name!r} for {game}; available: {available}")
    return starters_dir(game) / f"{name}.py"


def starter_class(name: str, game: str) -> type:
    """The `Bot` class of starter `name` of `game`, to play in this process (an in-process opponent,
    a probe, a seeded replay); BotSpecError listing the available names, as `starter_file`."""
    starter_file(name, game)
    return importlib.import_module(f"armada.starters.{game}.{name}").Bot


def _resolve_builtin(name: str, game: str) -> BotSource:
    """A copy of the starter as main.py in a temporary folder.

    Run in place, a starter named like a standard module (`random.py`) would shadow that
    module for everything its process imports; as main.py it runs exactly like a submission.
    """
    source = starter_file(name, game)
    tmp = _temp_dir(f"armada-{name}-")
    try:
        shutil.copyfile(source, Path(tmp.name) / ENTRY)
        os.chmod(Path(tmp.name) / ENTRY, 0o644)
    except OSError as exc:
        tmp.cleanup()
        raise BotSpecError(f"cannot copy starter bot {name!r}: {exc}") from exc
    return BotSource(tmp.name, ENTRY, f"{BUILTIN_PREFIX}{name}", _tmp=tmp)


def _resolve_folder(path: Path) -> BotSource:
    if not (path / ENTRY).is_file():
        raise BotSpecError(f"{path}: folder has no {ENTRY}")
    resolved = path.resolve()
    return BotSource(str(resolved), ENTRY, resolved.name or str(resolved))


def _label_for_file(path: Path) -> str:
    resolved = path.resolve()
    if path.name == ENTRY and resolved.parent.name:
        return resolved.parent.name
    return resolved.stem


# --- zips ---------------------------------------------------------------------------------


def _member_parts(name: str) -> list[str]:
    """Path parts of a zip member name; raises BotSpecError for absolute or escaping names."""
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        raise BotSpecError(f"unsafe zip: entry {name!r} has an absolute path")
    parts = [p for p in re.split(r"[/\\]", name) if p not in ("", ".")]
    if ".." in parts:
        raise BotSpecError(f"unsafe zip: entry {name!r} points outside the archive ('..')")
    return parts


#: The characters no member name may hold (ZipLimits.plain_names): controls (below 32, DEL, the C1
#: controls such as U+009B, an escape to a terminal), format characters (the direction marks that turn
#: the text around them, so `gpj.\u202eexe.txt` reads as `gpj.txt.exe`; zero-width spaces), surrogates,
#: line and paragraph separators; but the zero-width joiner and non-joiner, which Persian words and
#: emoji sequences hold.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_JOINERS = frozenset("\u200c\u200d")


def _hidden(c: str, plain_names: bool) -> bool:
    if not plain_names:
        return ord(c) < 32 or ord(c) == 127
    return c not in _JOINERS and unicodedata.category(c) in _HIDDEN_CATEGORIES


def _check_name(name: str, parts: list[str], plain_names: bool = True) -> None:
    """Refuse a member name that would not unpack as itself on every machine: a part over
    MAX_NAME_BYTES, a path over MAX_PATH_BYTES (UTF-8), a hidden character (`_hidden`), an unencodable one."""
    shown = name if len(name) <= 80 else name[:77] + "..."
    hidden = next((c for c in name if _hidden(c, plain_names)), None)
    if hidden is not None:
        raise BotSpecError(f"zip entry {shown!r} has a control character in its name (U+{ord(hidden):04X}: "
                           "control, direction and invisible characters are refused)")
    try:
        sizes = [len(part.encode("utf-8")) for part in parts]
    except UnicodeEncodeError:
        raise BotSpecError(f"zip entry {shown!r} has a name that is not valid text") from None
    if max(sizes, default=0) > MAX_NAME_BYTES:
        raise BotSpecError(f"zip entry {shown!r} has a name part of {max(sizes)} bytes "
                           f"(at most {MAX_NAME_BYTES}, what file systems hold)")
    if sum(sizes) + len(sizes) > MAX_PATH_BYTES:
        raise BotSpecError(f"zip entry {shown!r} has a path of {sum(sizes) + len(sizes) - 1} bytes "
                           f"(at most {MAX_PATH_BYTES})")


def _twin_key(parts: tuple[str, ...]) -> str:
    """How a case-insensitive, normalising file system (macOS, Windows) sees a path."""
    return unicodedata.normalize("NFC", "/".join(parts)).casefold()


def _check_tree(members: list[tuple[zipfile.ZipInfo, list[str]]]) -> None:
    """Refuse members that cannot all be unpacked side by side: the same path twice, a file where
    another entry needs a folder, two paths that differ only in case or Unicode normalisation."""
    files: set[tuple[str, ...]] = set()
    folders: set[tuple[str, ...]] = set()
    for info, parts in members:
        path = tuple(parts)
        if not info.is_dir():
            if path in files:
                raise BotSpecError(f"zip holds {'/'.join(path)!r} twice")
            files.add(path)
        else:
            folders.add(path)
        folders.update(path[:n] for n in range(1, len(path)))
    clashes = sorted(files & folders)
    if clashes:
        raise BotSpecError(f"zip holds {'/'.join(clashes[0])!r} both as a file and as a folder")
    seen: dict[str, tuple[str, ...]] = {}
    for path in sorted(files | folders):
        twin = seen.setdefault(_twin_key(path), path)
        if twin != path:
            raise BotSpecError(f"zip holds {'/'.join(twin)!r} and {'/'.join(path)!r}, which differ only in "
                               "upper/lower case (or Unicode form): one would overwrite the other on macOS "
                               "and Windows; rename one")


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


_END = struct.Struct("<4s4H2LH")  # the end of central directory record
_END64_LOCATOR = struct.Struct("<4sLQL")
_END64 = struct.Struct("<4sQ2H2L4Q")
_RECORD_BYTES = 46  # a central directory record's fixed part (its three lengths at 28)


def _end_records(handle: IO[bytes], archive_bytes: int) -> tuple[int, int, int]:
    """(entries, central directory bytes, where the directory ends) as `zipfile.ZipFile` reads them
    (its `_EndRecData`: the end record, a zip64 one before it when its locator is there)."""
    tail_start = max(archive_bytes - (1 << 16) - _END.size, 0)
    handle.seek(tail_start)
    tail = handle.read(archive_bytes - tail_start)
    if tail[-_END.size:-_END.size + 4] == b"PK\x05\x06" and tail[-2:] == b"\0\0":
        at = len(tail) - _END.size
    else:
        at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _END.size:
        raise zipfile.BadZipFile("File is not a zip file")
    fields = _END.unpack_from(tail, at)
    entries, dir_size, end_at = fields[4], fields[5], tail_start + at
    if end_at >= _END64_LOCATOR.size:
        handle.seek(end_at - _END64_LOCATOR.size)
        locator = handle.read(_END64_LOCATOR.size)
        if locator[:4] == b"PK\x06\x07":
            return _zip64_record(handle, end_at - _END64_LOCATOR.size, _END64_LOCATOR.unpack(locator)[2])
    return entries, dir_size, end_at


def _zip64_record(handle: IO[bytes], locator_at: int, declared_at: int) -> tuple[int, int, int]:
    """(entries, directory bytes, where the directory ends) of a zip64 end record, which must be the
    plain one right before its locator, right after the directory: Python versions read a record
    with extensible data, or one the locator puts elsewhere, differently, so none is accepted."""
    at = locator_at - _END64.size
    if at < 0:
        raise BotSpecError("unsafe zip: its zip64 end record is missing")
    handle.seek(at)
    fields = _END64.unpack(handle.read(_END64.size))
    if fields[0] != b"PK\x06\x06" or fields[1] != _END64.size - 12 or fields[9] + fields[8] != declared_at:
        raise BotSpecError("unsafe zip: its zip64 end record is not the plain one right after its central "
                           "directory (extensible data or a moved record); zip the folder again with a common tool")
    return fields[7], fields[8], at


def check_directory(handle: IO[bytes], archive_bytes: int, limits: ZipLimits | None = None) -> None:
    """Refuse a zip whose central directory is past what `limits.max_entries` entries need, from
    its end records, before `zipfile.ZipFile` reads the whole directory into memory (BotSpecError;
    BadZipFile when there is no end record). Reads at most the last 64 KiB and the directory."""
    limits = limits or ZipLimits()
    entries, dir_size, dir_end = _end_records(handle, archive_bytes)
    if entries > limits.max_entries:
        raise BotSpecError(f"zip has too many entries: {entries} (limit {limits.max_entries}); {FEWER_FILES}")
    bound = limits.max_entries * MAX_RECORD_BYTES
    if dir_size > bound:
        raise BotSpecError(f"zip's central directory is too large: {dir_size} bytes for at most "
                           f"{limits.max_entries} entries (limit {bound})")
    if dir_size > dir_end:
        raise zipfile.BadZipFile("the zip's central directory starts before the file")
    handle.seek(dir_end - dir_size)
    directory = handle.read(dir_size)
    handle.seek(0)
    count = at = 0
    while at + _RECORD_BYTES <= len(directory) and directory[at:at + 4] == b"PK\x01\x02":
        count += 1
        if count > limits.max_entries:
            raise BotSpecError(f"zip has too many entries: more than {limits.max_entries} in its central "
                               f"directory (limit {limits.max_entries})")
        name, extra, comment = struct.unpack_from("<3H", directory, at + 28)
        at += _RECORD_BYTES + name + extra + comment


def open_zip(handle: IO[bytes], archive_bytes: int, limits: ZipLimits | None = None) -> zipfile.ZipFile:
    """`zipfile.ZipFile(handle)` once `check_directory` accepts its end records (a seekable file)."""
    check_directory(handle, archive_bytes, limits)
    return zipfile.ZipFile(handle)


def check_zip(archive: zipfile.ZipFile, archive_bytes: int,
              limits: ZipLimits | None = None) -> list[tuple[zipfile.ZipInfo, list[str]]]:
    """Validate every entry before extraction; returns the members to extract with their path parts.

    Every member accepted unpacks as itself beside the others on any file system a bot runs on
    (name lengths, no file where a folder must be, no case or normalisation twins)."""
    limits = limits or ZipLimits()
    if archive_bytes > limits.max_zip_bytes:
        raise BotSpecError(f"zip too large: {archive_bytes} bytes (limit {limits.max_zip_bytes})")
    infos = archive.infolist()
    if len(infos) > limits.max_entries:
        raise BotSpecError(f"zip has too many entries: {len(infos)} (limit {limits.max_entries}); {FEWER_FILES}")
    members = []
    total = 0
    compressed = 0
    for info in infos:
        parts = _member_parts(info.filename)
        _check_name(info.filename, parts, limits.plain_names)
        if _is_symlink(info):
            raise BotSpecError(f"unsafe zip: entry {info.filename!r} is a symbolic link")
        if info.flag_bits & 0x1:
            raise BotSpecError(f"zip entry {info.filename!r} is encrypted")
        if not parts or parts[0] in _IGNORED_TOP:
            continue
        total += info.file_size
        compressed += info.compress_size
        members.append((info, parts))
    if total > limits.max_uncompressed_bytes:
        largest = sorted(members, key=lambda member: (-member[0].file_size, member[0].filename))[:3]
        raise UnpackedTooLarge(
            f"zip too large when extracted: {with_bytes(total)}, over the limit of "
            f"{with_bytes(limits.max_uncompressed_bytes)}; its largest files: "
            + ", ".join(f"{info.filename} ({human_size(info.file_size)})" for info, _parts in largest))
    if limits.max_ratio is not None and total > 0 and total > limits.max_ratio * max(compressed, 1):
        ratio = total / max(compressed, 1)
        most = max(members, key=lambda member: member[0].file_size - member[0].compress_size)[0]  # (the bytes saved)
        raise BotSpecError(
            f"zip looks like a zip bomb: compression ratio {ratio:.0f} (limit {limits.max_ratio}); most of it is "
            f"{most.filename} ({most.file_size:,} bytes packed into {most.compress_size:,}): data that repetitive is "
            "best made by the bot at init, or kept compressed in the folder by the bot itself "
            "(numpy.savez_compressed, gzip)")
    _check_tree(members)
    return members


def find_entry_dir(members: list[tuple[zipfile.ZipInfo, list[str]]]) -> list[str]:
    """Path parts of the folder holding main.py: [] (top) or [single top folder]; else says what was found."""
    files = {tuple(parts) for info, parts in members if not info.is_dir()}
    if (ENTRY,) in files:
        return []
    tops = {parts[0] for _info, parts in members}
    if len(tops) == 1:
        top = next(iter(tops))
        if (top, ENTRY) in files:
            return [top]
    raise BotSpecError(_no_entry_message(members, files, tops))


def _listed(names: list[str], limit: int = 5) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _no_entry_message(members: list[tuple[zipfile.ZipInfo, list[str]]], files: set[tuple[str, ...]],
                      tops: set[str]) -> str:
    """Why a zip has no usable main.py, naming what it does hold."""
    if not members:
        return "the zip is empty"
    if not files:
        return "the zip holds only empty folders, no main.py"
    folders = sorted({parts[0] for parts in files if len(parts) > 1}
                     | {parts[0] for info, parts in members if info.is_dir()})
    top_names = sorted(f"{t}/" if t in folders else t for t in tops)
    found = sorted("/".join(parts) for parts in files if parts[-1] == ENTRY)
    if found:
        where = f"{ENTRY} found at {_listed(found)}"
        if len(tops) > 1 and all(len(f.split("/")) == 2 for f in found):
            return (f"{where}, but the zip has {len(tops)} entries at its top ({_listed(top_names)}): "
                    f"{ENTRY} must be at the top, or inside a single top folder with nothing beside it")
        return f"{where}: it must be at the top or directly inside the single top folder"
    if len(tops) == 1 and folders:
        return f"the zip has no {ENTRY}: neither at its top nor in its single top folder {folders[0]}/"
    if len(folders) > 1:
        listed = _listed([f + "/" for f in folders])
        return f"the zip has {len(folders)} top folders ({listed}) and no {ENTRY} at its top"
    return f"the zip has no {ENTRY} at its top (it holds {_listed(top_names)})"


def _extract(archive: zipfile.ZipFile, members: list[tuple[zipfile.ZipInfo, list[str]]], dest: Path) -> None:
    """Write members under dest, counting real bytes (headers can lie)."""
    budget = MAX_UNCOMPRESSED_BYTES
    for info, parts in members:
        target = dest.joinpath(*parts)
        if info.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        written = 0
        with archive.open(info) as src, open(target, "wb") as out:
            while chunk := src.read(64 * 1024):
                written += len(chunk)
                budget -= len(chunk)
                if written > info.file_size or budget < 0:
                    raise BotSpecError(f"zip entry {info.filename!r} extracts to more than it declares")
                out.write(chunk)
    # Readable by a sandboxed bot's own uid whatever the umask; nothing executable.
    for folder, dirs, files in os.walk(dest):
        for name in dirs:
            os.chmod(os.path.join(folder, name), 0o755)  # noqa: S103
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)


def extract_zip(path: Path) -> BotSource:
    """Check and extract a bot zip into a temporary folder owned by the returned BotSource."""
    size = path.stat().st_size
    if size > MAX_ZIP_BYTES:
        raise BotSpecError(f"{path}: zip too large: {size} bytes (limit {MAX_ZIP_BYTES})")
    label = path.stem if _NAME_RE.fullmatch(path.stem) else "bot"
    try:
        with open(path, "rb") as handle, open_zip(handle, size) as archive:
            members = check_zip(archive, size)
            entry_dir = find_entry_dir(members)
            tmp = _temp_dir("armada-bot-")
            try:
                _extract(archive, members, Path(tmp.name))
            except BaseException:
                tmp.cleanup()
                raise
    except zipfile.BadZipFile as exc:
        raise BotSpecError(f"{path}: not a valid zip file ({exc})") from exc
    except BotSpecError as exc:
        raise BotSpecError(f"{path}: {exc}") from exc
    except (OSError, RuntimeError, zipfile.LargeZipFile, ValueError, EOFError) as exc:
        raise BotSpecError(f"{path}: cannot extract zip ({exc})") from exc
    code_dir = Path(tmp.name).joinpath(*entry_dir)
    inside = "".join(f"{part}/" for part in entry_dir)
    return BotSource(str(code_dir), ENTRY, label, archive=str(path), archive_dir=inside, _tmp=tmp)


def copy_starter(game: str, name: str, dest: Path) -> None:
    """Copy starter bot `name` of `game` to the file `dest`."""
    shutil.copyfile(starter_file(name, game), dest)
