"""Tables and the progress bar of the command line."""

from __future__ import annotations

import io

from armada.cli.output import Progress, table, tail, winner_text


def test_table_aligns_columns() -> None:
    text = table(["bot", "wins"], [["alpha", 3], ["b", 12]], right=[1])
    lines = text.splitlines()
    assert lines[0] == "bot    wins"
    assert lines[1] == "-----  ----"
    assert lines[2] == "alpha     3"
    assert lines[3] == "b        12"


def test_winner_text_says_draw_once() -> None:
    # MD-8 / GX-21 draws read "draw", not "draw (draw)"; a double forfeit (GX-22) says so
    assert winner_text(None, "draw", {}) == "draw"
    assert winner_text(None, "forfeit", {}) == "draw (forfeit)"
    assert winner_text(2, "elimination", {2: "Random"}) == "seat 2, Random, by elimination"


def test_tail_keeps_last_lines() -> None:
    assert tail("1\n2\n3\n4\n", 2) == "3\n4"
    assert tail("", 5) == ""


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_redraws_in_place_on_a_tty() -> None:
    stream = FakeTty()
    p = Progress(4, stream=stream, width=4)
    p.start()
    p.advance()
    p.advance(error=True)
    p.finish()
    out = stream.getvalue()
    assert out.count("\r") == 3
    assert "[....] 0/4 games" in out
    assert "[#...] 1/4 games" in out
    assert "[##..] 2/4 games" in out and "1 errors" in out
    assert out.endswith("\n")


def test_progress_prints_occasional_lines_otherwise() -> None:
    stream = io.StringIO()
    p = Progress(100, stream=stream, every_s=3600)
    for _ in range(100):
        p.advance()
    p.finish()
    lines = stream.getvalue().splitlines()
    # the first step line, then nothing for an hour, and always the final line
    assert len(lines) == 2
    assert "\r" not in stream.getvalue()
    assert lines[-1].startswith("[" + "#" * 30 + "] 100/100")


def test_progress_ends_with_one_plain_line_whatever_comes_after() -> None:
    # `armada submit` advances by 0 for the upload's trailer once the file's MiB are all counted.
    out = io.StringIO()
    bar = Progress(3, label="MiB", stream=out)
    bar.advance(3)
    bar.advance(0)
    bar.advance(0)
    bar.finish()
    assert out.getvalue().count("3/3 MiB") == 1
