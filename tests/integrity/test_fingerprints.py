"""The fingerprints' normalisation and winnowing (integrity.logic.fingerprints): what a copier
changes cheaply (names, comments, docstrings, layout, the order of functions) changes nothing,
a source that does not tokenize is read as text, and winnowing keeps its guarantee."""

from __future__ import annotations

import io
import random
import tokenize
from pathlib import Path

import pytest

from armada_web.integrity.logic import fingerprints as fp

ROOT = Path(__file__).resolve().parents[2]

SOURCE = '''"""A module docstring."""
import math


def area(radius):
    """The docstring."""
    # a comment
    return math.pi * radius ** 2 + len("label")


class Shape:
    def grow(self, factor):
        self.size = self.size * factor
        return self.size
'''

RENAMED = """import math
def surface(r):  # renamed, reformatted, other comments and constants
    return math.pi * r ** 2 \\
        + len('other label')
class Figure:


    def scale(self, k):
        self.extent = self.extent * k
        return self.extent
"""


def texts(source: str) -> list[str]:
    return [token.text for token in fp.normalised(source)]


def test_names_literals_comments_docstrings_and_layout_do_not_count() -> None:
    assert texts(SOURCE) == texts(RENAMED)
    assert texts("x = 1\n") == ["N", "=", "#"]
    assert texts("print(len(x))\n") == ["print", "(", "len", "(", "N", ")", ")"]  # built-ins kept
    assert "$" in texts("x = 'kept'\n") and texts('"""dropped"""\n') == []


def test_reordering_functions_and_methods_changes_no_fingerprint() -> None:
    body = "\n".join(f"    total = total + {i} * value\n    value = max(value, total)" for i in range(6))
    functions = [f"def f{i}(value):\n    total = {i}\n{body}\n    return total\n" for i in range(4)]
    methods = "\n".join("    " + line for f in functions for line in f.splitlines())
    one = fp.fingerprint({"main.py": "\n".join(functions) + f"\nclass A:\n{methods}\n"})
    shuffled = functions[:]
    random.Random(3).shuffle(shuffled)
    other = fp.fingerprint({"main.py": f"class A:\n{methods}\n" + "\n".join(shuffled)})
    assert one.hashes and one.hashes == other.hashes


def test_a_source_that_does_not_tokenize_is_read_as_text_alike() -> None:
    broken = SOURCE + "\ndef unfinished(a, b:\n    return (a\n"
    found = fp.fingerprint({"main.py": broken, "ok.py": SOURCE})
    assert found.text_files == ("main.py",)
    assert fp.fingerprint({"main.py": SOURCE}).hashes <= found.hashes


def _tokenize_reads(text: str) -> bool:
    try:
        list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return False
    return True


@pytest.mark.parametrize("text", [
    "x = (1,\n", "]\n", "x = 1 + \\\n", 's = """open\n', "s = '''\n'''\n",
    "if x:\n        a = 1\n    b = 2\n", "if x:\n\ta = 1\n        b = 2\n", "x = 'open\n", "x = (1)\n",
    "def f(:\n    pass\n",
], ids=["bracket", "stray-closer", "continuation", "open-string", "closed-string", "bad-dedent", "tab-dedent",
        "open-quote", "fine", "syntax-error-that-tokenizes"])
def test_the_reader_refuses_what_tokenize_refuses(text: str) -> None:
    assert fp.read(text)[1] == _tokenize_reads(text)


def _reference(text: str) -> list[tuple[str, int]]:
    """The normalisation computed from the standard library's tokenize (the module docstring's
    rules), the oracle the one-pattern reader must agree with on every source tokenize reads."""
    raw = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
           if t.type != tokenize.ERRORTOKEN or not t.string.isspace()]
    dropped = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
               tokenize.ENDMARKER}
    out: list[tuple[str, int]] = []
    at_start, i = True, 0
    while i < len(raw):
        token = raw[i]
        if token.type in dropped:
            at_start = at_start or token.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
            i += 1
            continue
        if at_start and token.type == tokenize.STRING:
            j = i
            while j < len(raw) and raw[j].type in (tokenize.STRING, tokenize.NL, tokenize.COMMENT):
                j += 1
            if j == len(raw) or raw[j].type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                i = j  # a string statement: dropped
                continue
        kept = fp._KEPT_NAMES
        text_of = {tokenize.NUMBER: "#", tokenize.STRING: "$"}.get(token.type, token.string)
        if token.type == tokenize.NAME and token.string not in kept:
            text_of = "N"
        out.append((text_of, -token.start[0] if at_start else token.start[0]))
        at_start = False
        i += 1
    return out


def test_the_reader_agrees_with_tokenize_on_real_sources() -> None:
    """The SDK's starters, bot library and engines, and the platform's own integrity code."""
    roots = [ROOT / "sdk" / "armada" / part for part in ("starters", "bot", "games")]
    paths = sorted(p for root in roots for p in root.rglob("*.py")) + sorted((ROOT / "platform" / "armada_web"
                                                                              / "integrity").rglob("*.py"))
    assert len(paths) > 40
    for path in paths:
        text = path.read_text(encoding="utf-8")
        tokens, tokenizes = fp.read(text)
        assert tokenizes, path
        assert [(t.text, t.line) for t in tokens] == _reference(text), path
    odd = 'x = 1e-9 + 0x1F + 1_000.5j + .5\nr"a" b\'b\' f"{x}"\n\"\"\"doc\"\"\" "more"  # both\n' \
          "y = (\n  'in brackets'\n)\n\u00e9t\u00e9 = 2\nz = [1,\\\n 2]\n"
    assert [(t.text, t.line) for t in fp.read(odd)[0]] == _reference(odd)


def test_winnowing_finds_every_shared_run_of_k_plus_w_minus_1_tokens() -> None:
    rng = random.Random(28)
    for _ in range(50):
        run = [fp.Token(rng.choice("abcdefgh"), 1) for _ in range(fp.K + fp.W - 1)]
        before = [fp.Token(rng.choice("abcdefgh"), 1) for _ in range(rng.randrange(40))]
        after = [fp.Token(rng.choice("xyz"), 1) for _ in range(rng.randrange(40))]
        one = {m.hash for m in fp.winnow(before + run, "a.py")}
        two = {m.hash for m in fp.winnow(run + after, "b.py")}
        assert one & two


def test_marks_know_their_lines_and_hashes_pack_compactly() -> None:
    found = fp.fingerprint({"main.py": SOURCE})
    assert all(1 <= m.first <= m.last <= SOURCE.count("\n") for m in found.marks)
    hashes = sorted(found.hashes)
    assert fp.unpack(fp.pack(found.hashes)) == hashes and len(fp.pack(hashes)) == 8 * len(hashes)
    assert all(0 <= h < 2 ** 63 for h in hashes)
