"""`seed_integrity`: what the integrity report reads, added to a database `seed_scale` filled
(docs/integrity.md, "At scale"), so the report on the scale seed does real work:

- **sources**: every Galaxy version gets Python sources, stored as a validated version's archive
  is (`storage.archives.check_upload`, `bots.storage.save_archive`; its `sha256` the archive's).
  A bot's first version is a starter (shared code) and 6 to 18 functions of its author's own,
  generated at random (statements, loops, conditions and expressions of random shape, so two
  authors' code is as unlike as two people's), plus 0 to 2 of 60 "forum snippets" many bots
  paste; each later version drops, rewrites and adds a few functions; an invalid version has a
  syntax error appended (it is fingerprinted as text);
- **planted copies** (`COPIES`): a bot of another owner whose active version is an earlier
  version of another bot put through 1 to 4 of: `rename` (identifiers renamed consistently),
  `reorder` (functions shuffled), `dead code` (junk functions and statements added), `comments`
  (a comment every few lines, blank lines doubled); `IDENTICAL` more upload one unchanged;
- **accounts**: users without bots up to `ACCOUNTS` in all; every account's sign-up and 2 to 8
  sign-ins or token uses from its home address; `SCHOOLS` networks of 6 to 45 accounts each;
  `TWINS` bot owners with a second account (sign-ups from one address within days, a third of
  them with the same mailbox once normalised);
- **thrown games** (`THROWERS`): pairs of bots with 8 or more games against each other where
  the better-rated one now loses every one (only the seats' results change);
- **a closed season** (`scale`, Galaxy) over the seed's 90 days whose entries are the playing
  versions, seeded by their ladder order.

Everything comes from one `random.Random(seed)`. Running it again replaces what it added, and
first deletes every finding, fingerprint and sighting: it is for a seeded database only.
"""

from __future__ import annotations

import ast
import builtins
import io
import keyword
import random
import tokenize
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from armada import botspec
from armada_web.accounts.models import Sighting
from armada_web.bots import storage as bot_storage
from armada_web.bots.models import Bot, BotVersion, VersionStatus
from armada_web.games import rated_games
from armada_web.integrity.models import Finding, Fingerprint
from armada_web.ladder.models import Rating
from armada_web.matches.models import Participant, Result
from armada_web.seasons.models import Entry, Season, SeasonState
from armada_web.storage.archives import check_upload

SLUG = "scale"
COPIES = 150
IDENTICAL = 20
ACCOUNTS = 10_000
SCHOOLS = 40
TWINS = 80
THROWERS = 6
SNIPPETS = 60
WORDS = ("alpha", "beta", "gamma", "delta", "fleet", "star", "orbit", "nova", "comet", "pulse", "vector", "quark",
         "ember", "frost", "lumen", "rift", "sable", "tide", "probe", "drift", "swarm", "lance", "grid", "hull")
CALLS = ("len", "min", "max", "abs", "sum", "sorted", "range", "int", "float", "round")


class Code:
    """Random Python of varied shape (the token structure differs, not only the names)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def name(self) -> str:
        return f"{self.rng.choice(WORDS)}_{self.rng.randrange(50)}"

    def expr(self, depth: int = 0) -> str:
        rng = self.rng
        roll = rng.random() if depth < 3 else rng.random() * 0.4
        if roll < 0.2:
            return self.name()
        if roll < 0.4:
            return str(rng.randrange(100))
        if roll < 0.5:
            return f"{self.name()}.{rng.choice(WORDS)}"
        if roll < 0.6:
            return f"{self.name()}[{self.expr(depth + 1)}]"
        if roll < 0.75:
            return f"({self.expr(depth + 1)} {rng.choice('+-*%')} {self.expr(depth + 1)})"
        if roll < 0.9:
            args = ", ".join(self.expr(depth + 1) for _ in range(rng.randint(0, 3)))
            return f"{rng.choice((*CALLS, self.name()))}({args})"
        return f"[{self.expr(depth + 1)} for {self.name()} in {self.name()} if {self.cond(depth + 1)}]"

    def cond(self, depth: int = 0) -> str:
        rng = self.rng
        test = f"{self.expr(depth + 1)} {rng.choice(('<', '>', '==', '!=', '<=', 'in'))} {self.expr(depth + 1)}"
        return test if rng.random() < 0.7 else f"{test} {rng.choice(('and', 'or'))} not {self.name()}"

    def block(self, indent: int, size: int, depth: int = 0) -> list[str]:
        rng, pad, lines = self.rng, " " * indent, []
        for _ in range(size):
            roll = rng.random() if depth < 2 else rng.random() * 0.5
            if roll < 0.35:
                lines.append(f"{pad}{self.name()} = {self.expr()}")
            elif roll < 0.45:
                lines.append(f"{pad}{self.name()}.append({self.expr()})")
            elif roll < 0.5:
                lines.append(f"{pad}{self.name()} {rng.choice('+-*')}= {self.expr()}")
            elif roll < 0.7:
                lines += [f"{pad}if {self.cond()}:", *self.block(indent + 4, rng.randint(1, 3), depth + 1)]
                if rng.random() < 0.4:
                    lines += [f"{pad}else:", *self.block(indent + 4, rng.randint(1, 2), depth + 1)]
            elif roll < 0.88:
                head = f"{pad}for {self.name()} in {self.expr()}:"
                lines += [head, *self.block(indent + 4, rng.randint(1, 3), depth + 1)]
            else:
                lines += [f"{pad}while {self.cond()}:", *self.block(indent + 4, rng.randint(1, 2), depth + 1),
                          f"{pad}    break"]
        return lines

    def function(self) -> str:
        params = ", ".join(self.name() for _ in range(self.rng.randint(1, 4)))
        body = self.block(4, self.rng.randint(3, 9))
        text = "\n".join([f"def {self.name()}({params}):", *body, f"    return {self.expr()}"])
        return ast.unparse(ast.parse(text)) + "\n"  # as a formatter leaves it (no redundant brackets)


def compose(starter: str, functions: list[str]) -> str:
    return starter.rstrip() + "\n\n\n" + "\n\n".join(functions)


# --- the copier's transformations (each takes and returns a source) ---

def rename(source: str, rng: random.Random) -> str:
    """Every name that is not a keyword or a built-in renamed consistently."""
    keep = set(dir(builtins)) | {"self", "cls", "armada", "bot", "main"}
    names: dict[str, str] = {}
    lines = source.splitlines(keepends=True)
    edits = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NAME and token.string not in keep and not keyword.iskeyword(token.string):
            new = names.setdefault(token.string, f"v{len(names)}_{rng.randrange(999)}")
            edits.append((token.start, token.end, new))
    for (row, col), (_row, end), new in reversed(edits):
        lines[row - 1] = lines[row - 1][:col] + new + lines[row - 1][end:]
    return "".join(lines)


def reorder(source: str, rng: random.Random) -> str:
    """The module's functions shuffled."""
    tree = ast.parse(source)
    spots = [i for i, node in enumerate(tree.body) if isinstance(node, ast.FunctionDef)]
    moved = [tree.body[i] for i in spots]
    rng.shuffle(moved)
    for i, node in zip(spots, moved, strict=True):
        tree.body[i] = node
    return ast.unparse(tree) + "\n"


def dead_code(source: str, rng: random.Random) -> str:
    """One to three junk functions appended."""
    extra = [Code(rng).function() for _ in range(rng.randint(1, 3))]
    return source.rstrip() + "\n\n\n" + "\n\n".join(extra)


def comments(source: str, rng: random.Random) -> str:
    """A comment line after every fourth line, blank lines doubled."""
    out = []
    for number, line in enumerate(source.splitlines(), start=1):
        out.append(line)
        if not line.strip():
            out.append("")
        elif number % 4 == 0 and not line.rstrip().endswith((":", "\\", ",", "(")):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}# {rng.choice(WORDS)} {rng.choice(WORDS)}")
    return "\n".join(out) + "\n"


TRANSFORMATIONS = {"rename": rename, "reorder": reorder, "dead code": dead_code, "comments": comments}


@dataclass(frozen=True)
class Sizes:
    """How much of each is planted (the defaults are the scale seed's)."""

    copies: int = COPIES
    identical: int = IDENTICAL
    accounts: int = ACCOUNTS
    schools: int = SCHOOLS
    twins: int = TWINS
    throwers: int = THROWERS


@dataclass
class Planted:
    """What was added, and the planted cases the report should find (by bot ids and usernames)."""

    counts: dict[str, int] = field(default_factory=dict)
    copies: list[tuple[int, int]] = field(default_factory=list)  # (the original's bot, the copier's)
    twins: list[tuple[str, str]] = field(default_factory=list)  # one person's two accounts
    thrown: list[tuple[int, int]] = field(default_factory=list)  # (the loser's bot, the winner's)


def seed_integrity(*, seed: int = 1, sizes: Sizes = Sizes()) -> Planted:
    """Add the integrity layer (see the module) to a database `seed_scale` filled."""
    rng = random.Random(seed)
    game = rated_games()[0].slug
    out = Planted()
    with transaction.atomic():
        _forget()
        out.counts["versions with sources"] = _sources(rng, game, sizes, out)
        out.counts["accounts"], out.counts["sightings"] = _accounts(rng, sizes, out)
        _throw(rng, game, sizes.throwers, out)
        out.counts["entries"] = _season(game)
    out.counts.update({"planted copies": len(out.copies), "planted twins": len(out.twins),
                       "thrown pairs": len(out.thrown)})
    return out


def _forget() -> None:
    """What an earlier run added (and the report's results on it) goes first."""
    Finding.objects.all().delete()
    Fingerprint.objects.all().delete()
    Season.objects.filter(slug=SLUG).delete()
    Sighting.objects.all().delete()
    User.objects.filter(username__startswith="member-").delete()


def _sources(rng: random.Random, game: str, sizes: Sizes, out: Planted) -> int:
    code = Code(rng)
    snippets = [code.function() for _ in range(SNIPPETS)]
    starters = [botspec.starter_file(name, game).read_text(encoding="utf-8") for name in botspec.builtin_names(game)]
    bots = list(Bot.objects.filter(game=game).order_by("pk").values_list("pk", "owner_id", "created"))
    versions: dict[int, list[BotVersion]] = defaultdict(list)
    for version in BotVersion.objects.filter(bot__game=game).order_by("bot_id", "number"):
        versions[version.bot_id].append(version)
    written: dict[int, str] = {}
    for bot_id, _owner, _created in bots:
        starter = rng.choice(starters)
        functions = [code.function() for _ in range(rng.randint(6, 18))] + rng.sample(snippets, rng.randint(0, 2))
        for version in versions[bot_id]:
            if version.number > 1:
                for _ in range(rng.randint(0, 2)):
                    functions.pop(rng.randrange(len(functions)))
                functions += [code.function() for _ in range(rng.randint(1, 3))]
                functions[rng.randrange(len(functions))] = code.function()
            source = compose(starter, functions)
            if version.status != VersionStatus.VALID:
                source += "\n\ndef broken(:\n    pass\n"
            written[version.pk] = source
    _plant(rng, bots, versions, written, sizes, out)
    for bot_versions in versions.values():
        for version in bot_versions:
            _store(version, written[version.pk])
    return len(written)


def _plant(rng: random.Random, bots: list[tuple[int, int, Any]], versions: dict[int, list[BotVersion]],
           written: dict[int, str], sizes: Sizes, out: Planted) -> None:
    """`copies` + `identical` bots of other owners whose active version copies another's older one."""
    used: set[int] = set()
    for copier_id, copier_owner, _ in rng.sample(bots, len(bots)):
        if len(out.copies) >= sizes.copies + sizes.identical:
            break
        active = [v for v in versions[copier_id] if v.status == VersionStatus.VALID][-1]
        for source_id, source_owner, _ in rng.sample(bots, min(20, len(bots))):
            if source_owner == copier_owner or source_id in used or copier_id in used:
                continue
            earlier = [v for v in versions[source_id] if v.created < active.created and v.status == VersionStatus.VALID]
            if not earlier:
                continue
            original = written[rng.choice(earlier).pk]
            copied = original
            if len(out.copies) >= sizes.identical:
                for name in rng.sample(sorted(TRANSFORMATIONS), rng.randint(1, 4)):
                    copied = TRANSFORMATIONS[name](copied, rng)
            written[active.pk] = copied
            used.update((copier_id, source_id))
            out.copies.append((source_id, copier_id))
            break


def _store(version: BotVersion, source: str) -> None:
    bundle = check_upload(name="main.py", data=source.encode("utf-8"))
    version.sha256, version.size, version.files = bundle.sha256, len(bundle.archive), bundle.files
    version.archive.name = bot_storage.save_archive(version, bundle.archive)
    version.save(update_fields=["sha256", "size", "files", "archive"])


def _accounts(rng: random.Random, sizes: Sizes, out: Planted) -> tuple[int, int]:
    now = timezone.now()
    start = now - timedelta(days=90)
    password = make_password(None)
    have = User.objects.count()
    extra = [User(username=f"member-{n}", password=password, date_joined=start + timedelta(seconds=rng.randrange(
        90 * 86400)), is_active=True) for n in range(max(0, sizes.accounts - have))]
    User.objects.bulk_create(extra, batch_size=2000)
    users = list(User.objects.order_by("pk").values_list("pk", "date_joined"))
    names = dict(User.objects.values_list("pk", "username"))
    home = {pk: f"10.{pk >> 16 & 255}.{pk >> 8 & 255}.{pk & 255}" for pk, _ in users}
    joined = dict(users)
    rows: list[Sighting] = []
    schooled = rng.sample(users, min(len(users) // 2, sum(rng.randint(6, 45) for _ in range(sizes.schools))))
    for n, (pk, _) in enumerate(schooled):
        home[pk] = f"192.0.2.{n % max(1, sizes.schools)}"  # a school's network: its pupils sign in from there
    at_school = set(schooled)
    owners = set(Bot.objects.filter(owner__isnull=False).values_list("owner_id", flat=True))
    free = [u for u in users if u not in at_school]
    firsts = rng.sample([u for u in free if u[0] in owners], sizes.twins)  # the one a season's report is about
    chosen = set(firsts)
    seconds = rng.sample([u for u in free if u not in chosen], sizes.twins)
    emails = []
    for (first, _), (second, _) in zip(firsts, seconds, strict=True):
        home[second] = home[first]
        out.twins.append((names[first], names[second]))
        joined[second] = joined[first] + timedelta(hours=rng.randint(1, 72))
        if rng.random() < 1 / 3:
            name = f"pilot{first}"
            emails += [(first, f"{name}@gmail.com"), (second, f"{name[:3]}.{name[3:]}+alt@gmail.com")]
    for pk, email in emails:
        User.objects.filter(pk=pk).update(email=email)
    for pk, _ in users:
        rows.append(Sighting(user_id=pk, kind="signup", address=home[pk], at=joined[pk]))
        for _ in range(rng.randint(2, 8)):
            at = joined[pk] + timedelta(seconds=rng.random() * max(1.0, (now - joined[pk]).total_seconds()))
            rows.append(Sighting(user_id=pk, kind=rng.choice(("login", "login", "token-use")), address=home[pk], at=at))
    Sighting.objects.bulk_create(rows, batch_size=5000)
    return len(users), len(rows)


def _throw(rng: random.Random, game: str, throwers: int, out: Planted) -> None:
    """`throwers` pairs with 8+ ranked games between them: the better-rated seat loses them all."""
    pairs = list(Participant.objects.filter(match__game=game, match__kind="ranked", match__status="finished",
                                            bot__isnull=False, opponent__isnull=False, bot_id__lt=F("opponent_id"))
                 .values("bot_id", "opponent_id").annotate(games=Count("id")).filter(games__gte=8, games__lte=30)
                 .order_by("bot_id", "opponent_id")[:2000])
    for pair in rng.sample(pairs, min(throwers, len(pairs))):
        seats = Participant.objects.filter(Q(bot_id=pair["bot_id"], opponent_id=pair["opponent_id"])
                                           | Q(bot_id=pair["opponent_id"], opponent_id=pair["bot_id"]),
                                           match__kind="ranked", match__status="finished")
        mu = defaultdict(list)
        for bot_id, value in seats.values_list("bot_id", "mu_before"):
            mu[bot_id].append(value or 0.0)
        loser = max(mu, key=lambda b: sum(mu[b]) / len(mu[b]))
        seats.filter(bot_id=loser).update(result=Result.LOSS)
        seats.exclude(bot_id=loser).update(result=Result.WIN)
        out.thrown.append((loser, pair["opponent_id"] if loser == pair["bot_id"] else pair["bot_id"]))


def _season(game: str) -> int:
    now = timezone.now()
    season = Season.objects.create(slug=SLUG, name="Scale season", game=game, opens=now - timedelta(days=91),
                                   closes=now - timedelta(minutes=1), ends=now + timedelta(days=7),
                                   state=SeasonState.CLOSED, closed_at=now)
    ratings = (Rating.objects.filter(game=game, playing=True).select_related("version__bot")
               .order_by("-score"))
    entries = [Entry(season=season, version=r.version, version_ref=r.version_id, version_number=r.version.number,
                     bot=r.version.bot, bot_ref=r.version.bot_id, bot_name=r.version.bot.name,
                     owner_id=r.version.bot.owner_id, seed=place, ladder_mu=r.mu, ladder_sigma=r.sigma,
                     ladder_games=r.games) for place, r in enumerate(ratings, start=1)]
    Entry.objects.bulk_create(entries, batch_size=2000)
    return len(entries)
