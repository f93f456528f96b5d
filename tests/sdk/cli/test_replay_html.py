"""`armada replay FILE --html [OUT] [--open]`: one self-contained page, the replay embedded safely."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from armada.cli.main import main
from armada.replay import read_replay, write_replay
from armada.viewer import JSON_ID, SCRIPTS, VIEWER_DIR, default_html_path, json_for_script, offline_html


@pytest.fixture
def replay_path(galaxy_replay: Path, tmp_path: Path) -> Path:
    """A Galaxy replay (greedy vs random, seed 5, 20 turns) in a folder of its own."""
    path = tmp_path / "g.json.gz"
    path.write_bytes(galaxy_replay.read_bytes())
    return path


def embedded(page: str) -> dict:
    block = re.search(rf'<script type="application/json" id="{JSON_ID}">(.*?)</script>', page, re.S)
    assert block
    return json.loads(block.group(1))


def test_writes_the_page_beside_the_replay_and_prints_its_path(replay_path, capsys):
    capsys.readouterr()
    assert main(["replay", str(replay_path), "--html"]) == 0
    out = replay_path.with_name("g.html")
    assert capsys.readouterr().out == f"viewer written to {out}\n"
    page = out.read_text(encoding="utf-8")
    assert embedded(page) == read_replay(replay_path)
    for name in SCRIPTS:  # every script inlined, nothing to fetch
        assert (VIEWER_DIR / name).read_text(encoding="utf-8") in page
    assert not re.search(r"<(script|link|img|iframe)[^>]*\s(src|href)=", page)
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://" not in page


def test_html_before_the_file_still_reads_the_file(replay_path, capsys):
    """`--html FILE`: argparse hands FILE to --html's OUT; the command takes it back as the replay."""
    assert main(["replay", "--html", str(replay_path)]) == 0
    out = replay_path.with_name("g.html")
    assert capsys.readouterr().out == f"viewer written to {out}\n"
    assert embedded(out.read_text(encoding="utf-8")) == read_replay(replay_path)
    assert main(["replay", "--html", str(replay_path.with_name("page.html"))]) == 2  # an OUT, and no FILE
    assert main(["replay"]) == 2
    assert "which replay? give its FILE" in capsys.readouterr().err
    assert not replay_path.with_name("page.html").exists()


def test_out_path_and_open(replay_path, tmp_path, monkeypatch, capsys):
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    out = tmp_path / "sub.html"
    assert main(["replay", str(replay_path), "--html", str(out), "--open"]) == 0
    assert out.exists() and opened == [out.resolve().as_uri()]
    assert main(["replay", str(replay_path), "--open"]) == 0  # --open alone writes the default page
    assert opened[-1] == replay_path.with_name("g.html").resolve().as_uri()
    assert main(["replay", str(replay_path), "--open", "--turn", "7"]) == 0
    assert opened[-1] == replay_path.with_name("g.html").resolve().as_uri() + "#t=7"


def test_open_without_a_browser_says_where_the_page_is(replay_path, monkeypatch, capsys):
    monkeypatch.setattr("webbrowser.open", lambda url: False)  # no browser on this machine
    assert main(["replay", str(replay_path), "--open", "--turn", "7"]) == 0
    captured = capsys.readouterr()
    page = replay_path.with_name("g.html").resolve()
    assert captured.out == f"viewer written to {replay_path.with_name('g.html')}\n"
    assert captured.err == (f"armada: no browser could be opened here; open {page} in one "
                            "(add #t=7 to its address for turn 7)\n")
    assert page.exists()


@pytest.mark.parametrize("extra", [["--json"], ["--dump-state", "3"], ["--out", "x.json"]])
def test_html_goes_alone(replay_path, extra, capsys):
    assert main(["replay", str(replay_path), "--html", *extra]) == 2
    assert "--html and --open write the viewer page only" in capsys.readouterr().err


def test_a_broken_replay_is_an_error(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "armada-replay", "version": 9}', encoding="utf-8")
    assert main(["replay", str(bad), "--html"]) == 2
    assert "version" in capsys.readouterr().err
    assert not (tmp_path / "bad.html").exists()


def test_names_cannot_end_the_script_block(replay_path, tmp_path):
    replay = read_replay(replay_path)
    evil = "</script><script>alert(1)</script><!-- \u2028"
    replay["seats"][0]["name"] = evil
    path = tmp_path / "evil.json.gz"
    write_replay(replay, path)
    assert main(["replay", str(path), "--html"]) == 0
    page = (tmp_path / "evil.html").read_text(encoding="utf-8")
    assert page.count("</script>") == 2  # the JSON block's and the viewer's, nothing more
    block = page.split(f'id="{JSON_ID}">', 1)[1].split("</script>", 1)[0]
    assert "<" not in block and "\u2028" not in block
    assert embedded(page)["seats"][0]["name"] == evil
    assert "<title>Armada replay: galaxy, &lt;/script&gt;&lt;script&gt;alert(1)" in page


def test_json_for_script_reads_back_unchanged():
    text = json.dumps({"a": "<b>&</b>\u2028\u2029", "c": [1, 2]}, ensure_ascii=False)
    safe = json_for_script(text)
    assert not set("<>&\u2028\u2029") & set(safe)
    assert json.loads(safe) == json.loads(text)


def test_default_html_path():
    assert default_html_path("a/m.json.gz") == Path("a/m.html")
    assert default_html_path("m.json") == Path("m.html")
    assert default_html_path("m.replay") == Path("m.replay.html")


def test_offline_html_has_one_viewer_and_its_styles(replay_path):
    page = offline_html(read_replay(replay_path))
    assert page.count('data-armada-json="armada-replay"') == 1
    assert (VIEWER_DIR / "viewer.css").read_text(encoding="utf-8") in page


@pytest.mark.parametrize("name", SCRIPTS)
def test_viewer_scripts_are_csp_friendly(name):
    """No HTML parsing of strings, no eval, no inline handlers, no network except load.js's fetch."""
    source = (VIEWER_DIR / name).read_text(encoding="utf-8")
    for banned in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
                   "setAttribute(\"on", "setAttribute('on", "setAttribute(\"style", "import(", "XMLHttpRequest",
                   "WebSocket", "sendBeacon", "http://", "https://"):
        if banned.startswith("http") and "http://www.w3.org/2000/svg" in source:
            source = source.replace("http://www.w3.org/2000/svg", "")
        assert banned not in source, f"{name} uses {banned}"
    if name != "load.js":
        assert "fetch(" not in source


@pytest.mark.parametrize("out", ["folder", "missing/page.html"])
def test_an_unwritable_page_is_a_clear_error(out, replay_path, capsys):
    (replay_path.parent / "folder").mkdir()
    target = replay_path.parent / out
    assert main(["replay", str(replay_path), "--html", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"armada: error: cannot write {target}: ") and err.count("\n") == 1


@pytest.mark.parametrize("argv", [["--html", "{out}"], ["--dump-state", "3", "--out", "{out}"]])
def test_a_failed_write_keeps_the_file_there_and_leaves_no_part(argv, replay_path, monkeypatch, capsys):
    """Disk full (here: the rename that puts the file in place fails): the older file stays whole."""
    import armada.safefile

    out = replay_path.parent / "kept.out"
    out.write_text("older work\n")

    def no_space(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(armada.safefile.os, "replace", no_space)
    assert main(["replay", str(replay_path), *[a.format(out=out) for a in argv]]) == 2
    assert capsys.readouterr().err == f"armada: error: cannot write {out}: No space left on device\n"
    assert out.read_text() == "older work\n"
    assert sorted(p.name for p in replay_path.parent.iterdir()) == ["g.json.gz", "kept.out"]


def test_pages_and_replays_go_through_devices_in_place(replay_path, capsys):
    """A path that is no regular file (/dev/null) is written to, never renamed over."""
    assert main(["replay", str(replay_path), "--html", "/dev/null"]) == 0
    write_replay(read_replay(replay_path), "/dev/null")
    assert Path("/dev/null").is_char_device()


def test_a_new_file_gets_the_umask_mode_and_the_umask_is_never_changed(tmp_path, monkeypatch):
    """The safe write reads the umask without setting it (another thread could create files in the
    meantime): a new file is 0o666 less the umask, and os.umask is not called on Linux."""
    import os

    from armada import safefile

    old = os.umask(0o027)
    try:
        calls: list[int] = []
        real = os.umask
        monkeypatch.setattr(os, "umask", lambda mask: calls.append(mask) or real(mask))
        safefile.write_bytes_atomic(tmp_path / "new.json", b"{}")
        assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o640 and calls == []
    finally:
        os.umask(old)


@pytest.mark.parametrize("argv", [["--html", "{replay}"], ["--dump-state", "3", "--out", "{replay}"],
                                  ["--dump-state", "3", "--out", "{link}"]])
def test_writing_over_the_replay_being_read_is_refused(argv, replay_path, capsys):
    """Before: `--html g.json.gz` or `--dump-state 3 --out g.json.gz` replaced the replay with the
    page or the state: the match was lost."""
    link = replay_path.with_name("same.json.gz")
    link.symlink_to(replay_path.name)
    before = replay_path.read_bytes()
    argv = [a.format(replay=replay_path, link=link) for a in argv]
    assert main(["replay", str(replay_path), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"armada: error: {argv[-2]}: {argv[-1]} is the replay this command reads") and \
        err.count("\n") == 1, err
    assert replay_path.read_bytes() == before
    assert sorted(p.name for p in replay_path.parent.iterdir()) == ["g.json.gz", "same.json.gz"]


def test_a_replay_holding_nan_is_refused_with_a_reason(replay_path, capsys):
    """A trial: a replay edited to hold NaN (Python's reader takes it) ended --html in a traceback."""
    replay = read_replay(replay_path)
    replay["note"] = float("nan")
    edited = replay_path.with_name("nan.json")
    edited.write_text(json.dumps(replay), encoding="utf-8")  # Python writes NaN as it reads it
    capsys.readouterr()
    assert main(["replay", str(edited), "--html"]) == 2
    err = capsys.readouterr().err
    assert "holds NaN or Infinity" in err and "Traceback" not in err
    assert not edited.with_name("nan.html").exists()


def test_the_offline_title_names_the_bots_as_the_site_did(replay_path, tmp_path):
    """A trial: a site's replay names each seat's bot (`bot`), the viewer shows it, but the page's
    title and heading said only the announced names ("Prober vs Prober")."""
    replay = read_replay(replay_path)
    replay["seats"][0]["bot"] = "gbot"
    path = tmp_path / "site.json.gz"
    write_replay(replay, path)
    assert main(["replay", str(path), "--html"]) == 0
    page = (tmp_path / "site.html").read_text(encoding="utf-8")
    first, second = (s["name"] for s in replay["seats"])
    assert f"<title>Armada replay: galaxy, {first} (gbot) vs {second}</title>" in page
