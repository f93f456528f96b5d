"""The fingerprints' normalisation and winnowing (integrity.logic.fingerprints): what a copier
changes cheaply (names, comments, docstrings, layout, the order of functions) changes nothing,
a source that does not tokenize is read as text, and winnowing keeps its guarantee."""

from __future__ import annotations

import random

from armada_web.integrity.logic import fingerprints as fp

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
    assert [t.text for s in fp.segments_of(SOURCE)[0] for t in s] == \
        [t.text for t in fp._text_tokens(SOURCE)]  # the lenient reading agrees on good code
    assert fp.fingerprint({"main.py": SOURCE}).hashes <= found.hashes


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
