"""`IntelMemory`: the last probe report of every planet, with its age (GX-9 intel is of one turn only)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from armada.bot.galaxy.messages import Intel, Planet

PlanetRef = int | Planet


def _id(planet: PlanetRef) -> int:
    return planet.id if isinstance(planet, Planet) else planet


class IntelMemory:
    """Keeps the newest report per planet: call `update(intel)` in every `command`.

        memory.update(intel)
        report = memory.current(planet)      # None if never probed or the owner changed since
        if report and memory.age(planet, obs.turn) <= 3: ...
    """

    def __init__(self) -> None:
        self._reports: dict[int, Intel] = {}

    def update(self, reports: Iterable[Intel]) -> None:
        """Remember these reports; a newer report of a planet replaces the older one."""
        for report in reports:
            old = self._reports.get(report.planet)
            if old is None or report.turn >= old.turn:
                self._reports[report.planet] = report

    def get(self, planet: PlanetRef) -> Intel | None:
        """The last report of the planet, however old, or None."""
        return self._reports.get(_id(planet))

    def current(self, planet: Planet) -> Intel | None:
        """The last report, unless the planet changed owner since (then it says nothing useful)."""
        report = self._reports.get(planet.id)
        return report if report is not None and report.owner == planet.owner else None

    def age(self, planet: PlanetRef, now: int) -> int | None:
        """How many turns old the last report is at turn `now` (0: this turn's), None if never probed."""
        report = self._reports.get(_id(planet))
        return None if report is None else report.age(now)

    def forget(self, planet: PlanetRef) -> None:
        self._reports.pop(_id(planet), None)

    def __contains__(self, planet: object) -> bool:
        return isinstance(planet, int | Planet) and _id(planet) in self._reports

    def __iter__(self) -> Iterator[Intel]:
        """The reports, by planet id."""
        return iter([self._reports[k] for k in sorted(self._reports)])

    def __len__(self) -> int:
        return len(self._reports)
