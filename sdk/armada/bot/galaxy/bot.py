"""`GalaxyBot`: reads the raw Galaxy requests into typed objects and answers them.

`GalaxyBot.answer` turns the raw protocol messages into typed objects, keeps the turn's
observation between the scout and the command request, and turns the answers back
into JSON. If the author's code raises, `fallback` answers with no probes / no fleets so
the bug costs a turn, not the match. See docs/bot-library.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from armada.bot.base import BaseBot, plain_int
from armada.bot.galaxy.messages import FleetOrder, Intel, Planet
from armada.bot.galaxy.observation import Observation
from armada.bot.galaxy.parse import int_field, need_dict, need_key, need_list, str_list

__all__ = ["GalaxyBot", "parse_intel", "probe_ids"]


def parse_intel(request: dict[str, Any]) -> list[Intel]:
    """The probe reports of a raw command request, stamped with the request's turn."""
    turn = int_field(request, "turn", "command request")
    items = need_list(need_key(request, "intel", "command request"), "command request.intel")
    return [Intel.from_json(item, turn, f"intel[{i}]") for i, item in enumerate(items)]


def probe_ids(targets: Any) -> list[int]:
    """Normalise what `scout` returned (ids or Planet objects) to a list of ids."""
    if not isinstance(targets, Iterable) or isinstance(targets, str | bytes | dict):
        raise TypeError(f"scout() must return a list of planet ids, got {type(targets).__name__}")
    ids = []
    for target in targets:
        target = plain_int(target)  # numpy's integers too
        if isinstance(target, Planet):
            ids.append(target.id)
        elif isinstance(target, int) and not isinstance(target, bool):
            ids.append(target)
        else:
            raise TypeError(f"scout() returned {target!r}: expected a planet id or a Planet")
    return ids


def _fleet_json(orders: Any) -> list[dict[str, int]]:
    if not isinstance(orders, Iterable) or isinstance(orders, str | bytes | dict):
        raise TypeError(f"command() must return a list of FleetOrder, got {type(orders).__name__}")
    out = []
    for order in orders:
        if not isinstance(order, FleetOrder):
            raise TypeError(f"command() returned {order!r}: expected a FleetOrder")
        out.append(order.to_json())
    return out


class GalaxyBot(BaseBot):
    """Base class of Galaxy bots. Override `scout` and `command`; the rest is done for you.

    Attributes available to subclasses: `seat` (1 or 2, from the init message or the first
    observation), `config` (the game configuration sent at init, a dict) and `observation`
    (the current turn's `Observation`, None before the first scout request).
    """

    game = "galaxy"

    def __init__(self) -> None:
        self.seat: int = 0
        self.config: dict[str, Any] = {}
        self.observation: Observation | None = None

    # --- what authors implement ----------------------------------------------------
    def scout(self, obs: Observation) -> list[int]:
        """Planet ids to probe this turn, at most `obs.probes` of them (GX-8). Default: none."""
        return []

    def command(self, obs: Observation, intel: list[Intel], warnings: list[str]) -> list[FleetOrder]:
        """Fleet orders for this turn (GX-10); `intel` holds this turn's probe reports (GX-9)
        and `warnings` the probe targets the engine dropped (GX-8). Default: no orders."""
        return []

    # --- protocol plumbing -----------------------------------------------------------
    def on_init(self, init: dict[str, Any]) -> None:
        seat = init.get("seat")
        if isinstance(seat, int) and seat in (1, 2):
            self.seat = seat
        config = init.get("config")
        if isinstance(config, dict):
            self.config = config

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        """Reply object (without "id") to a raw scout or command request."""
        kind = need_dict(request, "request").get("type")
        if kind == "scout":
            self.observation = None
            obs = Observation.from_json(need_key(request, "observation", "scout request"), self.bank_ms)
            self.observation = obs
            if not self.seat:
                self.seat = obs.seat
            return {"probes": probe_ids(self.scout(obs))}
        if kind == "command":
            obs = replace(self._current_observation(request), bank_ms=self.bank_ms)
            self.observation = obs
            intel = parse_intel(request)
            warnings = list(str_list(need_key(request, "warnings", "command request"), "warnings"))
            return {"fleets": _fleet_json(self.command(obs, intel, warnings))}
        raise ValueError(f"GalaxyBot cannot answer a request of type {kind!r}")

    def _current_observation(self, request: dict[str, Any]) -> Observation:
        turn = request.get("turn")
        obs = self.observation
        if obs is None or obs.turn != turn:
            raise ValueError(f"command request for turn {turn!r} but no observation of that turn was read")
        return obs

    def fallback(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """After an error in the bot's code: skip this phase (no probes / no fleets) and go on."""
        kind = request.get("type") if isinstance(request, dict) else None
        if kind == "scout":
            self.log(f"turn {request.get('turn')}: scout failed, sending no probes this turn")
            return {"probes": []}
        if kind == "command":
            self.log(f"turn {request.get('turn')}: command failed, sending no fleets this turn")
            return {"fleets": []}
        return None
