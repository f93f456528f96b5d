"""docs/cli.md: every `$ armada ...` sample is run again, in order, and its output compared.

In a sample, the lines after a `$ armada` line are its stdout; a line ending in `(on stderr)`
must appear on stderr; a line `...` stands for any number of lines; an output that starts
with `{` is JSON (wrapped for reading) and is compared as data. A fenced block whose first
line is `# file: PATH` is written to PATH before the commands that follow it. Times differ
from run to run: every `N ms` compares equal, so does the slowest request's name after it, and
so do the `time` objects of a JSON summary.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from armada.cli.main import main

DOCS = Path(__file__).resolve().parents[3] / "docs" / "cli.md"
_STDERR_MARK = re.compile(r"\s+\(on stderr\)$")
_FILE_MARK = "# file: "
_MS = re.compile(r"\b\d+(?:\.\d+)? ms\b")
#: Which request was a seat's slowest varies with the machine's load too: `slowest N ms (init)`.
_SLOWEST = re.compile(r"slowest N ms \((?:[^()]|\([^()]*\))*\)")


@dataclass
class Sample:
    command: str
    stdout: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)
    file_text: str | None = None  # a `# file: PATH` block: `command` is PATH


def samples(text: str) -> list[Sample]:
    """The `$ armada` commands of the fenced blocks, in document order, with their shown output."""
    found: list[Sample] = []
    in_block = False
    current: Sample | None = None
    file_block: Sample | None = None
    for line in text.splitlines():
        if line.startswith("```"):
            in_block = not in_block
            current = file_block = None
            continue
        if not in_block:
            continue
        if file_block is not None:
            file_block.file_text = (file_block.file_text or "") + line + "\n"
            continue
        if line.startswith(_FILE_MARK) and current is None:
            file_block = Sample(line[len(_FILE_MARK):].strip(), file_text="")
            found.append(file_block)
            continue
        if line.startswith("$ armada "):
            current = Sample(line[2:])
            found.append(current)
        elif current is not None:
            if _STDERR_MARK.search(line):
                current.stderr.append(_STDERR_MARK.sub("", line))
            else:
                current.stdout.append(line)
    return found


def output_pattern(lines: list[str]) -> re.Pattern[str]:
    """A regex for the shown lines: trailing blanks ignored, `...` matching any lines."""
    parts = [r"(?:.*\n)*?" if line == "..." else re.escape(line.rstrip()) + r"[ \t]*\n" for line in lines]
    return re.compile("".join(parts))


def timeless(data: object) -> object:
    """A JSON summary with every seat's `time` blanked (times differ from run to run)."""
    if isinstance(data, dict):
        return {k: ("TIME" if k == "time" else timeless(v)) for k, v in data.items()}
    if isinstance(data, list):
        return [timeless(v) for v in data]
    return data


def timed(line: str) -> str:
    """A line with its times, and the name of the slowest request, made equal for comparing."""
    return _SLOWEST.sub("slowest N ms (REQUEST)", _MS.sub("N ms", line))


def check_output(sample: Sample, out: str, err: str) -> None:
    shown = [timed(line) for line in sample.stdout]
    if shown and shown[0].startswith("{"):
        assert timeless(json.loads(out)) == timeless(json.loads("\n".join(sample.stdout))), sample.command
    else:
        actual = "".join(timed(line).rstrip() + "\n" for line in out.splitlines())
        assert output_pattern(shown).fullmatch(actual), f"{sample.command}\n--- shown:\n" + \
            "\n".join(shown) + "\n--- actual:\n" + actual
    err_lines = [line.rstrip() for line in err.splitlines()]
    for line in sample.stderr:
        assert line.rstrip() in err_lines, (sample.command, line, err)


def test_samples_are_parsed() -> None:
    found = samples(DOCS.read_text(encoding="utf-8"))
    commands = [s.command for s in found]
    assert "armada new mybot --game galaxy" in commands
    assert "armada play mybot builtin:random --seed 7 --json" in commands
    assert any(s.stderr for s in found)
    files = {s.command: s.file_text for s in found if s.file_text is not None}
    assert "buggy/main.py" in files and "class Bot(GalaxyBot)" in (files["buggy/main.py"] or "")
    normalized = _MS.sub("N ms", "time:    seat 1: 209 ms in all, slowest 108.5 ms")
    assert normalized == "time:    seat 1: N ms in all, slowest N ms"
    assert timed("seat 2: 9 ms in all, slowest 4 ms (command, turn 6), bank") == timed(
        "seat 2: 8 ms in all, slowest 5 ms (init), bank") == "seat 2: N ms in all, slowest N ms (REQUEST), bank"
    assert output_pattern(["a", "...", "c"]).fullmatch("a\nb\nb2\nc\n")
    assert not output_pattern(["a", "c"]).fullmatch("a\nb\nc\n")


def test_every_sample_reproduces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    found = samples(DOCS.read_text(encoding="utf-8"))
    assert len(found) >= 8
    for sample in found:
        if sample.file_text is not None:
            target = tmp_path / sample.command
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(sample.file_text, encoding="utf-8")
            continue
        code = main(shlex.split(sample.command)[1:])
        captured = capsys.readouterr()
        assert code == 0, (sample.command, captured.err)
        check_output(sample, captured.out, captured.err)
