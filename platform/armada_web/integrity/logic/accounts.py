"""Shared accounts (issue 28): accounts tied by what the platform sees, grouped, each group with
the links that tie it and a score. Pure: the database side is `integrity.accounts_links`.

Links between two accounts, each with a strength (0 to 1) and a one-line detail:

- `email` (0.9): their e-mail addresses are equal once normalised (`normalise_email`).
- `upload` (0.9): one uploaded a version identical (the same archive sha256) to one the other
  uploaded earlier. Code that many accounts upload (a starter bot, `common` hashes, or one
  uploaded by more than `crowd` accounts) ties nobody.
- `address` (0.6): both signed up or signed in (site log-in, API token created) from the same
  client address within `window` of each other.
- `token-address` (0.5): the same, where at least one of the two was an API token being used.
  A loopback address (127.0.0.0/8, ::1; `identifies`) ties nobody: it is every client of a site
  run on one machine (`make up` at a local event) or behind a proxy the deployment did not name.
- An address that more than `crowd` accounts were seen at (a school's, a company's or a mobile
  carrier's network) ties its accounts weakly (`crowded`, 0.1) and says so; one seen with more
  than `ignored` accounts ties nobody.

A pair's strength is the noisy-or of its links (1 - the product of 1 - strength), so two
independent weak hints weigh more than one. Groups are the connected parts of the pairs at least
`threshold` strong (the report's threshold, 0.5): a group's score is its weakest tie (the
smallest strength that joined it, building strongest first), so every member is tied at least
that strongly to the rest. Pairs below the threshold form weak groups of their own, with their
(low) score and the reason, for the report to show below the line.
"""

from __future__ import annotations

import bisect
import functools
import ipaddress
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

#: The strengths of the links (see the module).
EMAIL = 0.9
UPLOAD = 0.9
ADDRESS = 0.6
TOKEN_ADDRESS = 0.5
CROWDED = 0.1
#: The defaults: two sightings at one address count within this time of each other.
WINDOW = timedelta(days=7)
#: An address seen with more accounts than this is a shared network: weak evidence.
CROWD = 5
#: An address seen with more accounts than this ties nobody at all (a carrier's NAT).
IGNORED = 50
#: The report's threshold: groups below it are weak.
THRESHOLD = 0.5

#: Sighting kinds that are a sign-up or a sign-in (the rest, "token-use", are API requests).
SIGN_INS = frozenset({"signup", "login", "token"})

#: Providers whose mailboxes ignore dots in the local part (and the domains that alias them).
DOTLESS = frozenset({"gmail.com"})
ALIASES = {"googlemail.com": "gmail.com"}
#: Providers that deliver `name+tag@` to `name@` (sub-addressing).
PLUS_TAGS = frozenset({"gmail.com", "outlook.com", "hotmail.com", "live.com", "msn.com", "icloud.com", "me.com",
                       "mac.com", "fastmail.com", "fastmail.fm", "protonmail.com", "proton.me", "pm.me",
                       "yandex.com", "yandex.ru", "zoho.com", "gmx.com", "gmx.de", "posteo.de", "mailbox.org"})


@dataclass(frozen=True)
class Sighting:
    """An account seen at a client address: a sign-up, log-in, token creation or token use."""

    user: str
    address: str
    at: datetime
    kind: str  # "signup", "login", "token" or "token-use"


@dataclass(frozen=True)
class Upload:
    """A version uploaded by an account, by its archive's hash."""

    user: str
    sha256: str
    version: int
    at: datetime
    #: How the pages name the version ("eve-clone v1"); empty: by its id.
    label: str = ""

    @property
    def named(self) -> str:
        return self.label or f"version {self.version}"


@dataclass(frozen=True)
class Link:
    """One reason two accounts (`users`, sorted) are tied."""

    users: tuple[str, str]
    kind: str  # "email", "upload", "address", "token-address", "crowded"
    strength: float
    detail: str
    address: str = ""  # the client address, for the address kinds

    @property
    def weak(self) -> bool:
        return self.kind == "crowded"


@dataclass(frozen=True)
class Group:
    """Accounts tied together, the links that tie them, and the group's score (its weakest tie)."""

    users: tuple[str, ...]
    score: float
    links: tuple[Link, ...]
    reason: str


def normalise_email(email: str) -> str:
    """The mailbox an address reaches: lower case; for the providers known to ignore them, dots
    (Gmail) and `+tags` (PLUS_TAGS) dropped, googlemail.com read as gmail.com. "" for no address."""
    text = email.strip().lower()
    local, at, domain = text.rpartition("@")
    if not at or not local or not domain:
        return text
    domain = ALIASES.get(domain.rstrip("."), domain.rstrip("."))
    if domain in PLUS_TAGS:
        local = local.split("+", 1)[0]
    if domain in DOTLESS:
        local = local.replace(".", "")
    return f"{local}@{domain}" if local else text


def pair_strength(strengths: Iterable[float]) -> float:
    """The noisy-or of independent links: 1 - prod(1 - s)."""
    return 1.0 - math.prod(1.0 - s for s in strengths)


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def email_links(emails: Mapping[str, str]) -> list[Link]:
    """Accounts whose e-mail addresses are equal once normalised (each tied to the first by name)."""
    by_mailbox: dict[str, list[str]] = defaultdict(list)
    for user, email in emails.items():
        mailbox = normalise_email(email or "")
        if "@" in mailbox:
            by_mailbox[mailbox].append(user)
    links = []
    for mailbox, users in sorted(by_mailbox.items()):
        users.sort()
        for other in users[1:]:
            links.append(Link(_pair(users[0], other), "email", EMAIL,
                              f"e-mail addresses {emails[users[0]]!r} and {emails[other]!r} are both {mailbox}"))
    return links


def upload_links(uploads: Iterable[Upload], *, common: frozenset[str] = frozenset(), crowd: int = CROWD) -> list[Link]:
    """Accounts that uploaded an identical version (the first uploader tied to each later one);
    `common` hashes (the starters) and code uploaded by more than `crowd` accounts tie nobody."""
    by_hash: dict[str, list[Upload]] = defaultdict(list)
    for upload in uploads:
        if upload.sha256 and upload.sha256 not in common:
            by_hash[upload.sha256].append(upload)
    links = []
    for digest, found in sorted(by_hash.items()):
        first_of: dict[str, Upload] = {}
        for upload in sorted(found, key=lambda u: (u.at, u.version)):
            first_of.setdefault(upload.user, upload)
        if not 2 <= len(first_of) <= crowd:
            continue
        origin, *later = sorted(first_of.values(), key=lambda u: (u.at, u.version))
        for copy in later:
            links.append(Link(_pair(origin.user, copy.user), "upload", UPLOAD,
                              f"{copy.named} of {copy.user} is identical (sha256 {digest[:12]}) to "
                              f"{origin.named} of {origin.user}, uploaded {_ago(copy.at - origin.at)} "
                              "earlier"))
    return links


def _ago(delta: timedelta) -> str:
    seconds = max(0, int(delta.total_seconds()))
    if seconds < 3600:
        return f"{seconds // 60} min"
    if seconds < 2 * 86400:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} days"


def _close(mine: list[datetime], theirs: list[datetime], window: timedelta) -> datetime | None:
    """A time of `mine` within `window` of one of `theirs` (both sorted), or None."""
    for at in mine:
        i = bisect.bisect_left(theirs, at - window)
        if i < len(theirs) and theirs[i] <= at + window:
            return at
    return None


@functools.lru_cache(maxsize=4096)
def identifies(address: str) -> bool:
    """Can `address` (a sighting's, as `web.clients.client_address` wrote it) tell one client from
    another: not empty or "unknown", and not a loopback address (127.0.0.0/8, ::1, or IPv4's
    loopback mapped into IPv6), which every client of a site run on one machine shares. Text that
    is no address is compared as it is."""
    if not address or address == "unknown":
        return False
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return True
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return not (ip.is_loopback or (mapped is not None and mapped.is_loopback))


def address_links(sightings: Iterable[Sighting], *, window: timedelta = WINDOW, crowd: int = CROWD,
                  ignored: int = IGNORED) -> list[Link]:
    """Accounts seen at one address within `window` of each other, one link per pair and address
    (the strongest kind); a crowded address's links are weak and say so, and one that `identifies`
    nobody (loopback) ties nobody (see the module)."""
    at_address: dict[str, dict[str, dict[bool, list[datetime]]]] = defaultdict(
        lambda: defaultdict(lambda: {True: [], False: []}))
    for s in sightings:
        if identifies(s.address):
            at_address[s.address][s.user][s.kind in SIGN_INS].append(s.at)
    links = []
    for address, users in sorted(at_address.items()):
        count = len(users)
        if count < 2 or count > ignored:
            continue
        for times in users.values():
            times[True].sort()
            times[False] = sorted(times[False] + times[True])  # every sighting, sign-ins too
        names = sorted(users)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                link = _address_link(address, a, b, users[a], users[b], window, count, crowd)
                if link is not None:
                    links.append(link)
    return links


def _address_link(address: str, a: str, b: str, mine: dict[bool, list[datetime]], theirs: dict[bool, list[datetime]],
                  window: timedelta, count: int, crowd: int) -> Link | None:
    days = f"{window.days} days" if window.days else f"{int(window.total_seconds() // 3600)} h"
    when = _close(mine[True], theirs[True], window)
    kind, strength, what = "address", ADDRESS, "signed up or in"
    if when is None:
        when = _close(mine[False], theirs[False], window)
        kind, strength, what = "token-address", TOKEN_ADDRESS, "used the site or an API token"
    if when is None:
        return None
    detail = f"both {what} from {address} within {days} (around {when:%Y-%m-%d})"
    if count > crowd:
        return Link((a, b), "crowded", CROWDED, f"{detail}, but {count} accounts share that address (a school's or "
                    "company's network?): weak on its own", address)
    return Link((a, b), kind, strength, detail, address)


def group_accounts(links: Iterable[Link], *, threshold: float = THRESHOLD) -> list[Group]:
    """Groups of accounts tied by `links` (see the module), strongest first; each group's score is
    its weakest tie, and groups below `threshold` are made of pairs below it only."""
    by_pair: dict[tuple[str, str], list[Link]] = defaultdict(list)
    for link in links:
        by_pair[link.users].append(link)
    strengths = {pair: pair_strength(link.strength for link in found) for pair, found in by_pair.items()}
    strong = {pair: s for pair, s in strengths.items() if s >= threshold}
    weak = {pair: s for pair, s in strengths.items() if s < threshold}
    groups = _components(strong, by_pair) + _components(weak, by_pair)
    return sorted(groups, key=lambda g: (-g.score, g.users))


def _components(strengths: dict[tuple[str, str], float], by_pair: dict[tuple[str, str], list[Link]]) -> list[Group]:
    parent: dict[str, str] = {}
    score: dict[str, float] = {}

    def root(user: str) -> str:
        parent.setdefault(user, user)
        while parent[user] != user:
            parent[user] = parent[parent[user]]
            user = parent[user]
        return user

    for (a, b), strength in sorted(strengths.items(), key=lambda item: (-item[1], item[0])):
        ra, rb = root(a), root(b)
        if ra == rb:
            continue
        parent[rb] = ra
        score[ra] = min(strength, score.get(ra, 1.0), score.get(rb, 1.0))
    members: dict[str, list[str]] = defaultdict(list)
    for user in parent:
        members[root(user)].append(user)
    tied: dict[str, list[Link]] = defaultdict(list)  # each group's links, its pairs in order (one pass)
    for pair in sorted(strengths):
        tied[root(pair[0])].extend(by_pair[pair])
    groups = []
    for top, users in members.items():
        users.sort()
        found = tuple(tied[top])
        groups.append(Group(tuple(users), score[top], found, reason(tuple(users), found)))
    return groups


def reason(users: tuple[str, ...], links: tuple[Link, ...]) -> str:
    """One line: who, and what ties them (the kinds of links, the weak ones said to be weak)."""
    kinds = {link.kind for link in links}
    parts = []
    if "email" in kinds:
        parts.append("e-mail addresses equal once normalised")
    if "upload" in kinds:
        parts.append("identical uploads")
    addresses = sorted({link.address for link in links if link.kind in ("address", "token-address")})
    if addresses:
        parts.append("the same client address" + ("es " if len(addresses) > 1 else " ") + ", ".join(addresses[:3])
                     + (" ..." if len(addresses) > 3 else ""))
    crowded = sorted({link.address for link in links if link.weak})
    if crowded:
        parts.append("only a shared network's address " + ", ".join(crowded[:3]) + " (weak on its own)"
                     if not parts else "a shared network's address " + ", ".join(crowded[:3]))
    who = ", ".join(users[:5]) + (f" and {len(users) - 5} more" if len(users) > 5 else "")
    return f"{len(users)} accounts ({who}) tied by " + "; ".join(parts)
