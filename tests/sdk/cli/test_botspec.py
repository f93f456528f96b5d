"""Bot specs: each resolution form, and zip safety (slip, absolute, bomb, entry count, symlink)."""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path

import pytest

from armada import botspec
from armada.botspec import BotSpecError, resolve_bot

BOT = "print('hi')\n"


def make_zip(path: Path, files: dict[str, bytes | str], compression: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


def test_main_py_path(tmp_path: Path) -> None:
    (tmp_path / "alpha").mkdir()
    main = tmp_path / "alpha" / "main.py"
    main.write_text(BOT)
    src = resolve_bot(str(main), "galaxy")
    assert src.code_dir == str((tmp_path / "alpha").resolve())
    assert src.entry == "main.py"
    assert src.label == "alpha"
    assert Path(src.script).read_text() == BOT


def test_other_py_file_keeps_its_name(tmp_path: Path) -> None:
    f = tmp_path / "rusher.py"
    f.write_text(BOT)
    src = resolve_bot(str(f), "mothership")
    assert (src.entry, src.label) == ("rusher.py", "rusher")


def test_folder(tmp_path: Path) -> None:
    (tmp_path / "beta").mkdir()
    (tmp_path / "beta" / "main.py").write_text(BOT)
    src = resolve_bot(str(tmp_path / "beta"), "galaxy")
    assert src.code_dir == str((tmp_path / "beta").resolve())
    assert (src.entry, src.label) == ("main.py", "beta")


def test_folder_without_main(tmp_path: Path) -> None:
    with pytest.raises(BotSpecError, match=r"has no main\.py"):
        resolve_bot(str(tmp_path), "galaxy")


def test_missing_path_and_wrong_kind(tmp_path: Path) -> None:
    with pytest.raises(BotSpecError, match="no such file or folder"):
        resolve_bot(str(tmp_path / "nope"), "galaxy")
    txt = tmp_path / "bot.txt"
    txt.write_text("x")
    with pytest.raises(BotSpecError, match="not a bot"):
        resolve_bot(str(txt), "galaxy")
    with pytest.raises(BotSpecError, match="empty bot spec"):
        resolve_bot("  ", "galaxy")


def test_unknown_game(tmp_path: Path) -> None:
    with pytest.raises(BotSpecError, match=r"unknown game 'chess'.*galaxy, mothership"):
        resolve_bot("builtin:greedy", "chess")


def test_zip_at_top_is_extracted_and_cleaned(tmp_path: Path) -> None:
    z = make_zip(tmp_path / "gamma.zip", {"main.py": BOT, "lib/util.py": "X = 1\n"})
    src = resolve_bot(str(z), "galaxy")
    code = Path(src.code_dir)
    assert src.label == "gamma" and src.entry == "main.py"
    assert (code / "main.py").read_text() == BOT
    assert (code / "lib" / "util.py").read_text() == "X = 1\n"
    src.close()
    assert not code.exists()
    src.close()  # twice is fine


def test_zip_with_single_top_folder(tmp_path: Path) -> None:
    z = make_zip(tmp_path / "d.zip", {"mybot/main.py": BOT, "mybot/helper.py": "", "__MACOSX/._main.py": "junk"})
    with resolve_bot(str(z), "galaxy") as src:
        assert Path(src.code_dir).name == "mybot"
        assert (Path(src.code_dir) / "helper.py").exists()
        assert not (Path(src.code_dir).parent / "__MACOSX").exists()


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, "e.zip: the zip is empty"),
        ({"__MACOSX/._main.py": "junk"}, "the zip is empty"),
        ({"a/b/main.py": BOT}, "main.py found at a/b/main.py: it must be at the top or directly inside "
                               "the single top folder"),
        ({"x/a.py": "", "y/b.py": ""}, "the zip has 2 top folders (x/, y/) and no main.py at its top"),
        ({"a/main.py": BOT, "b/other.py": ""}, "main.py found at a/main.py, but the zip has 2 entries at its top "
                                               "(a/, b/): main.py must be at the top, or inside a single top folder"),
        ({"bot/helper.py": ""}, "the zip has no main.py: neither at its top nor in its single top folder bot/"),
        ({"bot.py": "", "README": ""}, "the zip has no main.py at its top (it holds README, bot.py)"),
        ({"empty/": ""}, "the zip holds only empty folders, no main.py"),
    ],
)
def test_zip_without_usable_main_says_what_it_found(tmp_path: Path, files: dict[str, bytes | str],
                                                    message: str) -> None:
    z = make_zip(tmp_path / "e.zip", files)
    with pytest.raises(BotSpecError) as caught:
        resolve_bot(str(z), "galaxy")
    assert message in str(caught.value)


def test_not_a_zip(tmp_path: Path) -> None:
    z = tmp_path / "f.zip"
    z.write_bytes(b"this is not a zip")
    with pytest.raises(BotSpecError, match="not a valid zip"):
        resolve_bot(str(z), "galaxy")


@pytest.mark.parametrize("name", ["../evil.py", "sub/../../evil.py", "..\\evil.py"])
def test_zip_slip_rejected(tmp_path: Path, name: str) -> None:
    z = make_zip(tmp_path / "slip.zip", {"main.py": BOT, name: "boom"})
    with pytest.raises(BotSpecError, match=r"outside the archive"):
        resolve_bot(str(z), "galaxy")
    assert not (tmp_path / "evil.py").exists()


@pytest.mark.parametrize("name", ["/etc/evil.py", "C:/evil.py", "\\evil.py"])
def test_zip_absolute_path_rejected(tmp_path: Path, name: str) -> None:
    z = make_zip(tmp_path / "abs.zip", {"main.py": BOT, name: "boom"})
    with pytest.raises(BotSpecError, match="absolute path"):
        resolve_bot(str(z), "galaxy")


def test_zip_symlink_rejected(tmp_path: Path) -> None:
    z = tmp_path / "link.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("main.py", BOT)
        info = zipfile.ZipInfo("secret")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, "/etc/passwd")
    with pytest.raises(BotSpecError, match="symbolic link"):
        resolve_bot(str(z), "galaxy")


def test_zip_bomb_ratio_rejected(tmp_path: Path) -> None:
    # 20 MiB of zeros: under the 50 MiB size limit, but compressed about 1000 to 1.
    z = make_zip(tmp_path / "bomb.zip", {"main.py": BOT, "zeros.bin": b"\0" * (20 * 1024 * 1024)})
    assert z.stat().st_size < 1024 * 1024
    with pytest.raises(BotSpecError, match="zip bomb: compression ratio"):
        resolve_bot(str(z), "galaxy")

    # what is named is the file that holds most of it (the bytes its packing saves), not the one that
    # packs best: a small pad of zeros beside a large repetitive table is not the table's cause
    table = (b"0123456789abcdef" * 8 + bytes(range(64))) * 100_000  # 19 MB, packs less well than zeros
    z = make_zip(tmp_path / "two.zip", {"main.py": BOT, "table.bin": table, "pad.bin": b"\0" * 300_000})
    with pytest.raises(BotSpecError, match=r"most of it is table\.bin \(19,200,000 bytes packed into "):
        resolve_bot(str(z), "galaxy")


def test_zip_too_large_uncompressed_rejected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(botspec, "MAX_UNCOMPRESSED_BYTES", 1000)
    z = make_zip(tmp_path / "big.zip", {"main.py": BOT, "data.bin": os.urandom(2000)}, zipfile.ZIP_STORED)
    with pytest.raises(BotSpecError, match="too large when extracted: 2012 bytes"):
        resolve_bot(str(z), "galaxy")


def test_zip_archive_too_large_rejected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(botspec, "MAX_ZIP_BYTES", 500)
    z = make_zip(tmp_path / "heavy.zip", {"main.py": BOT, "data.bin": os.urandom(1000)}, zipfile.ZIP_STORED)
    with pytest.raises(BotSpecError, match="zip too large"):
        resolve_bot(str(z), "galaxy")


def test_zip_too_many_entries_rejected(tmp_path: Path) -> None:
    files: dict[str, bytes | str] = {"main.py": BOT}
    files.update({f"f{i}.py": "" for i in range(1000)})
    z = make_zip(tmp_path / "many.zip", files, zipfile.ZIP_STORED)
    with pytest.raises(BotSpecError, match="too many entries: 1001"):
        resolve_bot(str(z), "galaxy")


def test_zip_lying_header_is_caught(tmp_path: Path) -> None:
    """An entry that inflates to more than its header declares is stopped while extracting."""
    z = make_zip(tmp_path / "liar.zip", {"main.py": BOT, "data.txt": "a" * 5000}, zipfile.ZIP_STORED)
    raw = bytearray(z.read_bytes())
    with zipfile.ZipFile(z) as zf:
        info = zf.getinfo("data.txt")
    # Patch the declared uncompressed size (central directory) down to 10 bytes.
    cd = raw.rfind(b"PK\x01\x02")
    cd = raw.find(b"data.txt", cd) - 46
    raw[cd + 24:cd + 28] = (10).to_bytes(4, "little")
    z.write_bytes(bytes(raw))
    assert info.file_size == 5000
    with pytest.raises(BotSpecError, match=r"data\.txt"):
        resolve_bot(str(z), "galaxy")


def test_builtin_unknown_lists_available(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "starters" / "galaxy"
    folder.mkdir(parents=True)
    for name in ("zeta.py", "alpha.py", "__init__.py", "_helpers.py"):
        (folder / name).write_text(BOT)
    monkeypatch.setattr(botspec, "starters_dir", lambda game: tmp_path / "starters" / game)
    assert botspec.builtin_names("galaxy") == ["alpha", "zeta"]
    with pytest.raises(BotSpecError, match="available: builtin:alpha, builtin:zeta"):
        resolve_bot("builtin:nope", "galaxy")
    (folder / "zeta.py").write_text("# zeta\n")
    src = resolve_bot("builtin:zeta", "galaxy")
    # copied as main.py into its own temporary folder, removed by close()
    assert (src.entry, src.label) == ("main.py", "builtin:zeta")
    assert Path(src.script).read_text() == "# zeta\n"
    assert not Path(src.code_dir).samefile(folder)
    src.close()
    assert not Path(src.code_dir).exists()


@pytest.mark.parametrize(("game", "names"), [("galaxy", ["greedy", "prober", "random"]),
                                             ("mothership", ["balanced", "greedy", "random"])])
def test_builtin_starters_installed(game: str, names: list[str]) -> None:
    for name in names:
        with resolve_bot(f"builtin:{name}", game) as src:
            assert Path(src.script).read_bytes() == (botspec.starters_dir(game) / f"{name}.py").read_bytes()
            assert src.label == f"builtin:{name}"


def test_temporary_copies_are_readable_by_other_users(tmp_path: Path) -> None:
    """A Docker-sandboxed bot runs under its own uid: it must be able to read its code."""
    z = make_zip(tmp_path / "perm.zip", {"pkg/main.py": BOT, "pkg/sub/util.py": ""})
    old = os.umask(0o077)
    try:
        sources = [resolve_bot(str(z), "galaxy"), resolve_bot("builtin:greedy", "galaxy")]
    finally:
        os.umask(old)
    for src in sources:
        assert src._tmp is not None
        root = Path(src._tmp.name)  # the temporary folder itself
        for path in [root, *root.rglob("*")]:
            mode = stat.S_IMODE(path.stat().st_mode)
            assert mode == (0o755 if path.is_dir() else 0o644), (path, oct(mode))
        src.close()
