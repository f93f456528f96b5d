"""The Mothership Down league in the database (MD-10, MD-11): one LeagueEntry per active race.

Orders are asked once (at validation, MD-11), so the league is played in-engine from stored
orders, never in the sandbox. The table keeps each race's sums over its battles with every
other race; a new race fights the N - 1 others (`fight`, the SDK's engine) and its battles are
added to both sides' sums; a race that left (its owner's newer version, a retired or disabled
bot) has its battles subtracted the same way. The order is `armada.games.mothership.league.
table_order` (the SDK's MD-10 order, head-to-head computed only for exact ties). All of it in
one transaction, so the table is never seen half updated. The result equals the SDK's
`league(...)` over the same races (tests/ladder/test_league_db.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import QuerySet

from armada.games.mothership.battle import Prepared, fight, prepare
from armada.games.mothership.league import WIN_DAMAGE, WIN_DESTRUCTION, battle_points, table_order
from armada.referee.inprocess import InProcessBot
from armada.referee.match import play_match
from armada.replay import replay_gzip
from armada_web.bots.models import BotVersion
from armada_web.games import SPECS, Ranking
from armada_web.ladder.models import LeagueEntry

#: The game this league module plays (its battles are Mothership Down's engine).
GAME = next(s.slug for s in SPECS.values() if s.ranking is Ranking.LEAGUE)

SUMS = ("played", "points", "wins_destruction", "wins_damage", "draws", "losses", "damage_dealt", "damage_taken")


def active_races() -> QuerySet[BotVersion]:
    """The versions in the league: the playing versions of the league's game that gave orders."""
    return BotVersion.objects.playing().of_game(GAME).filter(orders__isnull=False).select_related("bot", "bot__owner")


@dataclass
class _Sums:
    values: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SUMS, 0))

    def add(self, points: int, dealt: int, taken: int, sign: int) -> None:
        v = self.values
        v["played"] += sign
        v["points"] += sign * points
        v["damage_dealt"] += sign * dealt
        v["damage_taken"] += sign * taken
        key = {WIN_DESTRUCTION: "wins_destruction", WIN_DAMAGE: "wins_damage", 1: "draws", 0: "losses"}[points]
        v[key] += sign


def _battle(a: Prepared, b: Prepared) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(points, dealt, taken) of a and of b in their battle."""
    _rounds, taken_a, taken_b = fight(a, b)
    p_a, p_b = battle_points(taken_a, taken_b, a[0], b[0])
    return (p_a, taken_b, taken_a), (p_b, taken_a, taken_b)


def _submitted(version: BotVersion) -> tuple[Any, int]:
    """MD-10's last tie-break: the earlier submission (upload time, then id)."""
    return (version.created, version.pk)


def sync_league() -> dict[str, int]:
    """Bring the table in line with `active_races()`: add new races, remove those that left, re-order.

    Returns {"added", "removed", "races"}.
    """
    with transaction.atomic():
        entries = {e.version_id: e for e in LeagueEntry.objects.select_for_update().order_by("version_id")}
        active = {v.pk: v for v in active_races()}
        if any(e.played != len(entries) - 1 for e in entries.values()):
            return _rebuild(active)  # an entry left without its battles subtracted (its bot was deleted)
        gone = [vid for vid in entries if vid not in active]
        new = sorted(vid for vid in active if vid not in entries)
        if not gone and not new:
            return {"added": 0, "removed": 0, "races": len(entries)}
        members = list(entries)  # ids whose battles with each other are in the sums
        sums = {vid: _Sums({k: getattr(entries[vid], k) for k in SUMS}) for vid in members}
        prepared: dict[int, Prepared] = {}
        orders_of = {vid: v.orders for vid, v in active.items()}
        if gone:
            for version in BotVersion.objects.filter(pk__in=gone).only("pk", "orders"):
                orders_of[version.pk] = version.orders

        def race(vid: int) -> Prepared:
            if vid not in prepared:
                prepared[vid] = prepare(orders_of[vid] or {})
            return prepared[vid]

        for vid in gone:
            members.remove(vid)
            del sums[vid]
            if orders_of.get(vid) is None:  # its orders are gone too: rebuild from scratch
                return _rebuild(active)
            for other in members:
                (_, _, _), (p, dealt, taken) = _battle(race(vid), race(other))
                sums[other].add(p, dealt, taken, -1)
        for vid in new:
            sums[vid] = _Sums()
            for other in members:
                (p_new, d_new, t_new), (p_o, d_o, t_o) = _battle(race(vid), race(other))
                sums[vid].add(p_new, d_new, t_new, 1)
                sums[other].add(p_o, d_o, t_o, 1)
            members.append(vid)
        LeagueEntry.objects.filter(version_id__in=gone).delete()
        _write(members, sums, active, race)
        return {"added": len(new), "removed": len(gone), "races": len(members)}


def rebuild_league() -> dict[str, int]:
    """Recompute the whole table from scratch with the current engine (after a rules change the
    stored sums were played under the old one, so they can be neither kept nor subtracted)."""
    with transaction.atomic():
        list(LeagueEntry.objects.select_for_update().order_by("version_id").values_list("pk", flat=True))
        return _rebuild({v.pk: v for v in active_races()})


def _rebuild(active: dict[int, BotVersion]) -> dict[str, int]:
    """Recompute the whole table from the active races' orders (N(N-1)/2 battles)."""
    LeagueEntry.objects.all().delete()
    members = sorted(active)
    prepared = {vid: prepare(active[vid].orders) for vid in members}  # type: ignore[arg-type]
    sums = {vid: _Sums() for vid in members}
    for i, a in enumerate(members):
        for b in members[i + 1:]:
            (p_a, d_a, t_a), (p_b, d_b, t_b) = _battle(prepared[a], prepared[b])
            sums[a].add(p_a, d_a, t_a, 1)
            sums[b].add(p_b, d_b, t_b, 1)
    _write(members, sums, active, prepared.__getitem__)
    return {"added": len(members), "removed": 0, "races": len(members)}


def _write(members: list[int], sums: dict[int, _Sums], active: dict[int, BotVersion], race: Any) -> None:
    """Order the table (MD-10) and write every entry's sums and position."""
    keys = [(sums[v].values["points"], sums[v].values["wins_destruction"],
             sums[v].values["damage_dealt"] - sums[v].values["damage_taken"]) for v in members]

    def head_to_head(i: int, j: int) -> tuple[int, int]:
        (p_i, _, _), (p_j, _, _) = _battle(race(members[i]), race(members[j]))
        return p_i, p_j

    order = table_order(keys, [_submitted(active[v]) for v in members], head_to_head)
    existing = {e.version_id: e for e in LeagueEntry.objects.filter(version_id__in=members)}
    changed: list[LeagueEntry] = []
    created: list[LeagueEntry] = []
    for position, index in enumerate(order, start=1):
        vid = members[index]
        entry = existing.get(vid) or LeagueEntry(version_id=vid)
        entry.position = position
        for key in SUMS:
            setattr(entry, key, sums[vid].values[key])
        (changed if entry.pk else created).append(entry)
    LeagueEntry.objects.bulk_update(changed, ["position", *SUMS], batch_size=500)
    LeagueEntry.objects.bulk_create(created, batch_size=500)


def table() -> QuerySet[LeagueEntry]:
    """The league in MD-10 order, with each race's bot and owner."""
    return (LeagueEntry.objects.select_related("version", "version__bot", "version__bot__owner", "version__bot__team")
            .order_by("position"))


def battle_replay(a: BotVersion, b: BotVersion) -> bytes:
    """The replay (gzip replay v1) of the battle of two races, played now from their stored orders.

    The engine runs through the SDK's referee with two in-process connections that give the
    stored answers, so the replay is exactly what a match of the two would record, but for its
    clock readings (`timings`, optional in the format), left out: they would time the stand-ins,
    not the races' bots (a trial read "0.1 ms" for a bot that takes seconds).
    """
    def fixed(version: BotVersion) -> InProcessBot:
        orders = {k: v for k, v in (version.orders or {}).items() if k != "id"}
        name = version.race_name or version.bot.name

        def answer(request: dict[str, Any]) -> dict[str, Any]:
            return {"name": name} if request.get("type") == "init" else dict(orders)
        return InProcessBot(answer, label=version.bot.name)

    outcome = play_match(GAME, {1: fixed(a), 2: fixed(b)}, seed=0)
    return replay_gzip({key: value for key, value in outcome.replay.items() if key != "timings"})
