"""Galaxy starter bot "prober": scouts, remembers, defends, masses forces and times arrivals.

Every turn it
1. probes the foreign planets nearest to its own whose intel is missing or oldest
   (enemy planets first: they can hurt it);
2. remembers each probe report with the turn it was taken (`Intel.turn`), and ignores a
   report once the planet has changed owner;
3. keeps enough ships at home to stop the largest enemy force it saw lately;
4. launches the parts of earlier attacks whose turn has come;
5. picks targets by production gained per defence to beat, and gathers ships from several
   planets so that all its fleets land in the same turn: the slowest leaves now, the
   others wait, and fleets arriving together fight as one force (GX-11, GX-12).
"""

from __future__ import annotations

from dataclasses import dataclass

from armada.bot.galaxy import FleetOrder, GalaxyBot, Intel, IntelMemory, Observation, Planet, Units
from armada.bot.runtime import run

#: Never plan an attack whose fleets travel longer than this many turns.
MAX_TRAVEL = 8


@dataclass
class Launch:
    """Part of an attack that waits on its planet until `turn`, so that it lands with the rest."""

    turn: int
    from_: int
    to: int
    units: Units


def take(units: Units, mle: int) -> Units:
    """Ships worth at least `mle` from `units` (all of them if not enough), battleships first."""
    battleships = min(units.battleships, -(-mle // 4))
    cruisers = min(units.cruisers, -(-max(0, mle - 4 * battleships) // 2))
    return Units(battleships, cruisers)


class Bot(GalaxyBot):
    name = "Prober"

    def __init__(self) -> None:
        super().__init__()
        self.memory = IntelMemory()  # latest probe report per planet
        self.launches: list[Launch] = []  # delayed parts of attacks already begun

    # --- knowledge -------------------------------------------------------------------
    def known(self, planet: Planet) -> Intel | None:
        """Our last report on a planet, unless the planet changed owner since."""
        return self.memory.current(planet)

    def scout(self, obs: Observation) -> list[int]:
        mine = obs.my_planets()
        if not mine:
            return []

        def urgency(planet: Planet) -> int:
            info = self.known(planet)
            age = min(obs.turn - info.turn, 8) if info else 8
            near = min(obs.distance(planet, m) for m in mine)
            return age - 2 * near + (3 if planet.is_enemy else 0)

        # ties by relative id (obs.relative), so both seats choose alike
        foreign = sorted((p for p in obs.planets if not p.is_mine), key=lambda p: (-urgency(p), obs.relative(p)))
        return [p.id for p in foreign[: obs.probes]]

    def needed(self, obs: Observation, target: Planet, info: Intel, travel: int) -> int:
        """MLE to send so that fleets launched now with this travel time win (GX-13)."""
        steps = obs.turn - info.turn + travel - 1  # turns of growth/production before the battle
        if target.is_neutral:
            growth = self.config.get("neutral_growth", [0, 2])[1]  # the worst case
            return info.mle + growth * steps + 2
        # an enemy planet also produces, and may be reinforced: keep a wide margin
        return (info.mle + info.production.mle * steps) * 5 // 4 + 5

    def threat(self, obs: Observation) -> int:
        """The largest enemy force we saw lately that could strike our home planet."""
        worst = 0
        for enemy in obs.enemy_planets():
            info = self.known(enemy)
            if info is None or obs.turn - info.turn > 4:
                continue  # too old to trust
            age = obs.turn - info.turn
            worst = max(worst, info.garrison.ships.mle + info.production.ships.mle * age)
        return worst

    # --- orders ------------------------------------------------------------------------
    def command(self, obs: Observation, intel: list[Intel], warnings: list[str]) -> list[FleetOrder]:
        self.memory.update(intel)
        orders: list[FleetOrder] = []
        free = {p.id: p.ships for p in obs.my_planets()}  # ships not yet given a job

        # Delayed parts of earlier attacks: launch them when due, hold them until then.
        waiting = []
        for launch in self.launches:
            if launch.from_ not in free:
                continue  # we lost that planet: the part is gone
            units = Units(
                min(launch.units.battleships, free[launch.from_].battleships),
                min(launch.units.cruisers, free[launch.from_].cruisers),
            )
            free[launch.from_] -= units
            if launch.turn > obs.turn:
                waiting.append(launch)
            elif not units.empty:
                orders.append(FleetOrder.of(launch.from_, launch.to, units))
        self.launches = waiting

        # Defend the home: keep the ships its launchers need to stop the worst known threat.
        # (Other planets get no guard: spending ships on attacks pays more.)
        home = obs.planet(obs.home)
        if home.is_mine and home.garrison is not None:
            guard = max(0, self.threat(obs) - home.garrison.launchers)
            free[home.id] -= take(free[home.id], guard)

        # Attack: best value for effort first; skip targets we already send fleets to.
        busy = {f.to for f in obs.fleets} | {launch.to for launch in self.launches}
        targets = []
        for target in obs.planets:
            info = self.known(target)
            if target.is_mine or target.id in busy or info is None:
                continue
            value = info.production.mle * (2 if target.is_enemy else 1) + 1
            near = min((obs.distance(target, p) for p in obs.my_planets()), default=9)
            targets.append((value / (info.mle + 10 + 5 * near), target, info))
        for _score, target, info in sorted(targets, key=lambda t: (-t[0], obs.relative(t[1]))):
            orders += self.attack(obs, target, info, free)
        return orders

    def attack(self, obs: Observation, target: Planet, info: Intel, free: dict[int, Units]) -> list[FleetOrder]:
        """Orders for the quickest attack on `target` our free ships can win, updating `free`.

        For each arrival delay, count the ships that can land in time (a cruiser needs the
        distance in turns, a battleship twice that); at the first delay where they beat
        the expected defence, take what is needed, nearest planets and battleships first.
        """
        sources = sorted((pid for pid, units in free.items() if not units.empty),
                         key=lambda pid: (obs.distance(pid, target), obs.relative(pid)))
        for travel in range(1, min(MAX_TRAVEL, obs.turns_left) + 1):
            need = self.needed(obs, target, info, travel)
            usable = []
            for pid in sources:
                steps = obs.distance(pid, target)
                units = free[pid]
                if 2 * steps > travel:
                    units = Units(0, units.cruisers)  # battleships would land too late
                if steps <= travel and not units.empty:
                    usable.append((pid, units))
            if sum(units.mle for _pid, units in usable) < need:
                continue
            chosen = []
            for pid, units in usable:
                part = take(units, need)
                need -= part.mle
                chosen.append((pid, part))
                if need <= 0:
                    break
            return self.commit(obs, target.id, travel, chosen, free)
        return []

    def commit(
        self, obs: Observation, target: int, travel: int, chosen: list[tuple[int, Units]], free: dict[int, Units]
    ) -> list[FleetOrder]:
        """Send the parts that need the whole delay now; schedule the others to land in the same turn."""
        orders = []
        for pid, units in chosen:
            free[pid] -= units
            own = obs.travel_time(pid, target, units.battleships)
            if own == travel:
                orders.append(FleetOrder.of(pid, target, units))
            else:
                self.launches.append(Launch(obs.turn + travel - own, pid, target, units))
        return orders


if __name__ == "__main__":
    run(Bot())
