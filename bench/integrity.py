"""Copied code and behavioural twins found, honest bots left alone: recall and precision on
labelled sets, the time to compare a new version with an index of 10,000, and the twin check's
time on 10,000 signatures, and the whole report on a season of the scale seed (issue 28).

Run: .venv/bin/python bench/integrity.py [--seed N] [--sets N] [--originals N] [--twin-sets N]
[--twin-originals N] [--no-scale] (ends with one `target ...` line per target)

Recall and precision are each the lower of the two kinds' (copies and twins), so neither kind
hides behind the other; each kind's own figures are printed above the targets. The twins'
labelled set and its transformations are described in bench/_twins.py.

The scale target (bench/_integrity_scale.py, docs/integrity.md "At scale"): the whole report
(`run_checks` for a closed season, what `manage.py integrity --season scale` runs) on the scale
seed (10,000 Galaxy bots, 1,000,000 matches) with the integrity layer `seed_integrity` adds
(every version's sources, planted copies, sightings of 10,000 accounts, thrown games), in
PostgreSQL: run cold (every fingerprint and finding deleted first, so every version is
fingerprinted) and again (incremental: nothing new to fingerprint); the cold run's minutes are
`target integrity-scale-minutes` (<= 15), both printed with each check's time.

The labelled set is generated from the SDK's starters, at random (seeded):
- an *original* is a starter of either game (shared code, which never counts) with several
  functions of its author's own appended; the own functions are drawn, without repeats across
  originals, from the SDK's other modules (engines, referee, CLI, replay: code of one house
  style, so honest pairs are alike in style and differ only in what they do);
- a *copy* is an original put through one to five of these transformations, each with its
  documented parameters: `rename` (every identifier that is not a keyword, a built-in or an
  imported name, renamed consistently to a random word), `tweak` (about one comparison or
  augmented assignment in six changed: `<` to `<=`, `+=` to `-=`, `==` to `!=`), `reorder` (the module's functions and
  each class's methods shuffled), `dead code` (one to three unused functions of generated junk
  and one to four unused statements inserted at random lines of the functions), `format`
  (reformatted by `ast.unparse`: comments gone, quotes, spacing and parentheses changed) and
  `comments` (a comment line inserted every five lines, and blank lines doubled);
- a *tiny* bot is a starter with one statement changed (never a copy, whoever it resembles);
- the labels: two versions of the same original (the original and its copies) are a copy
  pair; every other pair is honest (different starters, or one starter's independent
  derivatives, whose own code differs).

Every version is indexed (`integrity.logic.copies.CopyIndex`) and queried; a pair is reported
when its score reaches `copies.THRESHOLD`. Recall: reported copy pairs / copy pairs; precision:
reported copy pairs / reported pairs.

The speed figure: an index of 10,000 versions (each a starter and 6 to 30 own functions of the
pool, so they overlap as bots of one population do) is built, and the mean time of a query (a
new version against all 10,000) over 200 queries is the target.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import io
import itertools
import keyword
import random
import sys
import textwrap
import time
import tokenize
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "platform"))
sys.path.insert(0, str(ROOT / "sdk"))

import _twins  # noqa: E402  (bench/_twins.py, beside this file)

from armada import botspec  # noqa: E402
from armada_web.integrity.logic import copies  # noqa: E402
from armada_web.integrity.logic.fingerprints import fingerprint  # noqa: E402

SCALE_MINUTES_BOUND = 15
RECALL_BOUND = 0.9
PRECISION_BOUND = 0.9
QUERY_MS_BOUND = 1000
INDEX_SIZE = 10_000
QUERIES = 200
TWIN_SCALE_BOUND_S = 120
#: SDK folders whose code is shared (never an author's own) or not bot-like.
SHARED_PARTS = {"bot", "starters", "docs"}
KEEP = set(keyword.kwlist) | set(dir(builtins)) | {"self", "cls"}


def pool() -> list[str]:
    """Functions of the SDK outside its shared code, 6 to 60 lines each, dedented, one per body."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "sdk" / "armada").rglob("*.py")):
        if SHARED_PARTS & set(path.relative_to(ROOT / "sdk" / "armada").parts):
            continue
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef) and 6 <= node.end_lineno - node.lineno + 1 <= 60:  # type: ignore[operator]
                source = ast.get_source_segment(text, node)
                if source:
                    body = textwrap.dedent(" " * node.col_offset + source)
                    found.setdefault(ast.unparse(node), body)
    return sorted(found.values())


def starters() -> list[str]:
    return [botspec.starter_file(name, game).read_text() for game in botspec.GAMES
            for name in botspec.builtin_names(game)]


# --- the transformations (each takes and returns a source) ---

def rename(source: str, rng: random.Random) -> str:
    """Every identifier but keywords, built-ins and imported names renamed consistently."""
    tree = ast.parse(source)
    imported = {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.Import | ast.ImportFrom) for alias in node.names}
    names: dict[str, str] = {}
    lines = source.splitlines(keepends=True)
    edits = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NAME and token.string not in KEEP and token.string not in imported:
            new = names.setdefault(token.string, f"{rng.choice(WORDS)}_{rng.randrange(100)}")
            edits.append((token.start, token.end, new))
    for (row, col), (_row, end), new in reversed(edits):
        line = lines[row - 1]
        lines[row - 1] = line[:col] + new + line[end:]
    return "".join(lines)


def reorder(source: str, rng: random.Random) -> str:
    """The module's functions and each class's methods shuffled (through ast.unparse)."""
    tree = ast.parse(source)
    holders: list[ast.Module | ast.ClassDef] = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))]
    for holder in holders:
        body = holder.body
        spots = [i for i, n in enumerate(body) if isinstance(n, ast.FunctionDef)]
        moved = [body[i] for i in spots]
        rng.shuffle(moved)
        for i, node in zip(spots, moved, strict=True):
            body[i] = node
    return ast.unparse(tree)


def dead_code(source: str, rng: random.Random) -> str:
    """One to three unused junk functions, and one to four unused statements inside functions."""
    lines = source.splitlines()
    for _ in range(rng.randint(1, 4)):
        defs = [i for i, line in enumerate(lines) if line.lstrip().startswith("def ") and line.rstrip().endswith(":")]
        if not defs:
            break
        at = rng.choice(defs)
        indent = len(lines[at]) - len(lines[at].lstrip()) + 4
        j = at + 1
        while j < len(lines) and (not lines[j].strip() or lines[j].lstrip().startswith(('"', "'"))):
            j += 1  # after a docstring (or the line itself, when the body is one statement)
        if j >= len(lines) or len(lines[j]) - len(lines[j].lstrip()) != indent:
            continue
        statement = f"{rng.choice(WORDS)}_unused = {rng.randrange(9)} * len(str({rng.randrange(99)}))"
        lines.insert(j, " " * indent + statement)
    for _ in range(rng.randint(1, 3)):
        name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}"
        junk = [f"def {name}(items, limit={rng.randrange(2, 9)}):", "    total = 0",
                "    for item in items[:limit]:", f"        if item % {rng.randrange(2, 5)}:",
                f"            total += item * {rng.randrange(1, 7)}", "    return total", ""]
        lines.extend(["", *junk])
    return "\n".join(lines) + "\n"


def reformat(source: str, rng: random.Random) -> str:
    """Reformatted by ast.unparse: comments gone, quotes, spacing and parentheses as it writes them."""
    return ast.unparse(ast.parse(source)) + "\n"


def comments(source: str, rng: random.Random) -> str:
    """A comment line before every fifth logical line, and blank lines doubled."""
    starts, at_start = set(), True
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            at_start = True
        elif token.type not in (tokenize.NL, tokenize.COMMENT) and at_start:
            starts.add(token.start[0])
            at_start = False
    out = []
    for number, line in enumerate(source.splitlines(), start=1):
        if number in starts and number % 5 == 0:
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}# {rng.choice(WORDS)} {rng.choice(WORDS)}")
        out.append(line)
        if not line.strip():
            out.append("")
    return "\n".join(out) + "\n"


SWAPS = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "+=": "-=", "-=": "+=", "==": "!="}


def tweak(source: str, rng: random.Random) -> str:
    """Small edits a copier makes to look different: about one comparison or update in six
    changed (`<` to `<=`, `+=` to `-=`, `==` to `!=`, ...): each breaks the k-grams across it."""
    lines = source.splitlines(keepends=True)
    edits = [(t.start, t.end, SWAPS[t.string]) for t in tokenize.generate_tokens(io.StringIO(source).readline)
             if t.type == tokenize.OP and t.string in SWAPS and rng.random() < 1 / 6]
    for (row, col), (_row, end), new in reversed(edits):
        lines[row - 1] = lines[row - 1][:col] + new + lines[row - 1][end:]
    return "".join(lines)


TRANSFORMATIONS = {"rename": rename, "tweak": tweak, "reorder": reorder, "dead code": dead_code, "format": reformat,
                   "comments": comments}
WORDS = ("alpha", "beta", "gamma", "delta", "omega", "fleet", "star", "orbit", "nova", "comet", "pulse",
         "vector", "quark", "zeta", "ember", "frost", "lumen", "rift", "sable", "tide")


@dataclass(frozen=True)
class Version:
    """One generated version: its source and the original it comes from (None: a tiny bot)."""

    source: str
    family: int | None
    how: str


def labelled_set(rng: random.Random, originals: int) -> list[Version]:
    functions = pool()
    rng.shuffle(functions)
    bases = starters()
    per = max(4, min(10, len(functions) // (originals + 1)))
    versions: list[Version] = []
    for family in range(originals):
        own = functions[family * per:(family + 1) * per]
        source = rng.choice(bases) + "\n\n" + "\n\n".join(own) + "\n"
        versions.append(Version(source, family, "original"))
        for _copy in range(rng.choice((1, 1, 2))):
            chosen = rng.sample(sorted(TRANSFORMATIONS), rng.randint(1, 5))
            copied = source
            for name in chosen:
                copied = TRANSFORMATIONS[name](copied, rng)
            versions.append(Version(copied, family, "+".join(chosen)))
    for base in bases:  # tiny bots: a starter with one value changed, several of each
        for n in range(3):
            versions.append(Version(base.replace("= ", f"= {n} + ", 1), None, "tiny"))
    return versions


@dataclass
class Tally:
    """Pairs planted, reported and both, over every seed; the scores at the edges."""

    planted: int = 0
    reported: int = 0
    hits: int = 0
    lowest_copy: float = 1.0
    highest_honest: float = 0.0


def quality(rng: random.Random, originals: int, tally: Tally) -> None:
    """One labelled set: every version indexed and queried; the pairs reported counted in `tally`."""
    versions = labelled_set(rng, originals)
    shared = copies.shared_hashes()
    index = copies.CopyIndex(shared)
    hashes = [fingerprint({"main.py": v.source}).hashes for v in versions]
    for key, found in enumerate(hashes):
        index.add(key, found)
    reported: set[tuple[int, int]] = set()
    for key, found in enumerate(hashes):
        for match in index.query(found, skip=[key]):
            reported.add((min(key, match.key), max(key, match.key)))
    planted = {(a, b) for a, b in itertools.combinations(range(len(versions)), 2)
               if versions[a].family is not None and versions[a].family == versions[b].family}
    for a, b in itertools.combinations(range(len(versions)), 2):
        score = copies.similarity(hashes[a], hashes[b], shared).score
        if (a, b) in planted:
            tally.lowest_copy = min(tally.lowest_copy, score)
        else:
            tally.highest_honest = max(tally.highest_honest, score)
    for _a, b in sorted(planted - reported)[:5]:
        print(f"  missed: {versions[b].how} of family {versions[b].family}")
    for a, b in sorted(reported - planted)[:5]:
        print(f"  false alarm: {versions[a].how} {versions[a].family} ~ {versions[b].how} {versions[b].family}")
    tally.planted += len(planted)
    tally.reported += len(reported)
    tally.hits += len(reported & planted)


def query_ms(rng: random.Random) -> float:
    """Mean milliseconds of one query against an index of INDEX_SIZE versions."""
    shared = copies.shared_hashes()
    # A version's fingerprint is the union of its segments' (no k-gram spans two functions), so
    # versions made of pool functions are unions of the functions' fingerprints: exact and fast.
    parts = [fingerprint({"main.py": f}).hashes for f in pool()]
    bases = [fingerprint({"main.py": s}).hashes for s in starters()]
    index = copies.CopyIndex(shared)
    started = time.perf_counter()
    for key in range(INDEX_SIZE):
        chosen = rng.sample(parts, rng.randint(6, 30))
        index.add(key, rng.choice(bases).union(*chosen))
    print(f"  index of {INDEX_SIZE} versions built in {time.perf_counter() - started:.1f} s "
          f"({len(index.postings)} distinct own fingerprints)")
    queries = [rng.choice(bases).union(*rng.sample(parts, rng.randint(6, 30))) for _ in range(QUERIES)]
    started = time.perf_counter()
    found = sum(len(index.query(q)) for q in queries)
    elapsed = (time.perf_counter() - started) * 1000 / QUERIES
    print(f"  {QUERIES} queries: {elapsed:.1f} ms each on average ({found} matches above the threshold)")
    return elapsed


def scale_minutes() -> float | None:
    """The whole report on the scale seed, cold (bench/_integrity_scale.py); None without PostgreSQL."""
    sys.path.insert(0, str(ROOT / "bench"))
    from _integrity_scale import measure

    print("the whole report on the scale seed (bench/_integrity_scale.py):", flush=True)
    return measure()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--sets", type=int, default=4, help="copy sets generated (seeds SEED, SEED+1, ...)")
    parser.add_argument("--originals", type=int, default=40, help="originals per copy set")
    parser.add_argument("--twin-sets", type=int, default=2, help="twin sets generated (seeds SEED, SEED+1, ...)")
    parser.add_argument("--twin-originals", type=int, default=25, help="originals per game per twin set")
    parser.add_argument("--no-scale", action="store_true", help="leave out the scale target (a season of 10,000 "
                        "bots and 1,000,000 matches in PostgreSQL: long)")
    args = parser.parse_args()
    started = time.perf_counter()
    tally = Tally()
    for seed in range(args.seed, args.seed + args.sets):
        quality(random.Random(seed), args.originals, tally)
    copy_recall = tally.hits / tally.planted if tally.planted else 0.0
    copy_precision = tally.hits / tally.reported if tally.reported else 0.0
    print(f"copies, {args.sets} sets: copy pairs planted {tally.planted}, pairs reported {tally.reported}, both "
          f"{tally.hits} (threshold {copies.THRESHOLD}); lowest copy score {tally.lowest_copy:.2f}, "
          f"highest honest score {tally.highest_honest:.2f}; recall {copy_recall:.2f}, precision {copy_precision:.2f}")
    milliseconds = query_ms(random.Random(args.seed))
    twins = _twins.TwinTally()
    for seed in range(args.seed, args.seed + args.twin_sets):
        _twins.quality(random.Random(seed), args.twin_originals, twins)
    twin_recall = twins.hits / twins.planted if twins.planted else 0.0
    twin_precision = twins.hits / twins.reported if twins.reported else 0.0
    print(f"twins, {args.twin_sets} sets: twin pairs planted {twins.planted}, pairs reported {twins.reported}, "
          f"both {twins.hits} (threshold {_twins.twins.THRESHOLD}); lowest twin agreement {twins.lowest_twin:.2f}, "
          f"highest honest agreement {twins.highest_honest:.2f}; recall {twin_recall:.2f}, precision "
          f"{twin_precision:.2f} ({twins.failed} bots failed a probe, {twins.left_out} pairs left out as playing "
          f"as a starter, {twins.same_behaviour} originals dropped as behaving as another)")
    seconds = _twins.scale_seconds(random.Random(args.seed), INDEX_SIZE)
    print(f"({time.perf_counter() - started:.0f} s)")
    recall, precision = min(copy_recall, twin_recall), min(copy_precision, twin_precision)
    minutes = None if args.no_scale else scale_minutes()
    print()
    print(f"target integrity-recall: {recall:.2f} >= {RECALL_BOUND} {'ok' if recall >= RECALL_BOUND else 'short'}")
    print(f"target integrity-precision: {precision:.2f} >= {PRECISION_BOUND} "
          f"{'ok' if precision >= PRECISION_BOUND else 'short'}")
    print(f"target integrity-copy-query-ms: {milliseconds:.1f} <= {QUERY_MS_BOUND} "
          f"{'ok' if milliseconds <= QUERY_MS_BOUND else 'short'}")
    print(f"target integrity-twin-10k-s: {seconds:.1f} <= {TWIN_SCALE_BOUND_S} "
          f"{'ok' if seconds <= TWIN_SCALE_BOUND_S else 'short'}")
    if minutes is None:  # (a line for every target: not measured is short, never left out)
        print("integrity scale minutes: not measured (--no-scale)")
        print(f"target integrity-scale-minutes: 0 <= {SCALE_MINUTES_BOUND} short")
    else:
        print(f"target integrity-scale-minutes: {minutes:.1f} <= {SCALE_MINUTES_BOUND} "
              f"{'ok' if minutes <= SCALE_MINUTES_BOUND else 'short'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
