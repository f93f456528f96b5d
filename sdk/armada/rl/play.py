"""`Play`: one game of an environment, on `armada.Session`, with each seat's memory and rewards.

Both environments hold one: it asks the session for the requests, encodes them per seat,
turns actions into replies, steps the session and says each seat's reward (docs/rl.md,
"Rewards": +1 win, -1 loss, 0 draw at the end; with `shaped`, also SHAPE x the change of the
codec's `progress` at every step).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from armada.api import Session
from armada.games.base import SEATS, Fault, Game
from armada.referee.framing import ProtocolError
from armada.referee.game_driver import LARGEST_SEED
from armada.rl.codec import Codec

#: The weight of the optional shaped reward.
SHAPE = 0.1


def check_shaped(shaped: Any) -> bool:
    """`shaped` as the environments take it: True or False (ValueError otherwise)."""
    if not isinstance(shaped, bool):
        raise ValueError(f"shaped must be True or False, got {shaped!r}")
    return shaped


def check_render_mode(render_mode: Any) -> None:
    """`render_mode` as the environments take it: None, the only one (ValueError otherwise)."""
    if render_mode is not None:
        raise ValueError(f"render_mode must be None: the environments have no render modes, got {render_mode!r}; "
                         f"to watch a game, save `env.session.replay()` (armada.replay.write_replay) and open it "
                         f"with `armada replay FILE` or its viewer, `armada replay FILE --html` (docs/rl.md)")


def check_seed(seed: Any) -> int:
    """A `reset` seed given: an integer (numpy's too) from 0 to LARGEST_SEED (ValueError otherwise)."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    if seed > LARGEST_SEED:
        raise ValueError(f"seed must be at most {LARGEST_SEED}, the largest `armada play --seed` takes "
                         f"(so the game can be played again there), got {seed}")
    return int(seed)


class Play:
    """A game from its seed: requests and observations per seat, replies in, rewards out."""

    def __init__(self, game: str | Game, codec: Codec, seed: int, config: dict[str, Any], shaped: bool) -> None:
        # No replay recorded while playing: `session.replay()` records it when asked (the same replay).
        self.session = Session(game, seed=seed, config=config, record=False)
        self.codec = codec
        self.shaped = shaped
        self.memory: dict[int, dict[str, Any]] = {seat: {"seat": seat} for seat in SEATS}
        self.asked: dict[int, dict[str, Any]] = self.session.requests()
        self._progress = {seat: codec.progress(self.session, seat) for seat in SEATS} if shaped else {}

    @property
    def done(self) -> bool:
        return self.session.done

    def observe(self, seat: int) -> Any:
        """The seat's observation of its current request (or of the end)."""
        return self.codec.encode(self.asked.get(seat), self.memory[seat])

    def info(self, seat: int) -> dict[str, Any]:
        """The request JSON the seat would get now (None once over) and, at the end, the result."""
        result = self.session.result
        # (None once over, even when the last request was never answered: an opponent lost at `init`
        # leaves it unchanged, and a reset's info and the next step's would share it; Gymnasium 1.4's
        # checker warns of that)
        info: dict[str, Any] = {"request": self.asked.get(seat) if result is None else None}
        if result is not None:
            info["result"] = result.to_dict()
            if seat in self.session.faults:
                info["fault"] = {"status": self.session.faults[seat].status,
                                 "detail": self.session.faults[seat].detail}
        return info

    def reply(self, seat: int, action: Any) -> dict[str, Any] | Fault:
        """The reply an action stands for (a reply object: parsed as a bot's line), or the seat's protocol
        fault for a reply a referee would refuse (ValueError for an action of the wrong form)."""
        try:
            return self.codec.reply(action, self.asked[seat], self.memory[seat])
        except ProtocolError as exc:  # (your own action: quoted in the detail, there is no log)
            return Fault("protocol", exc.quoted())

    def step(self, replies: dict[int, dict[str, Any]], *, owned: bool = False) -> dict[int, float]:
        """Play one step with every seat's reply; each seat's reward for it. `owned`: every reply
        was made here (decoded from an action or parsed), so nothing else can change it later."""
        self.session.advance(replies, owned=owned)
        self.asked = {} if self.session.done else self.session.requests()
        return self.rewards()

    def forfeit(self, seat: int, status: str, detail: str) -> dict[int, float]:
        """End the game by a seat's fault (an opponent that crashed); each seat's reward."""
        return self.forfeit_all({seat: Fault(status, detail)})

    def forfeit_all(self, faults: dict[int, Fault]) -> dict[int, float]:
        """End the game by the faults of one seat or both (one: it loses, MD-12, GX-22; both in the
        same step: a draw, GX-22); each seat's reward."""
        self.session.forfeit_all(faults)
        self.asked = {}
        return self.rewards()

    def rewards(self) -> dict[int, float]:
        rewards = dict.fromkeys(SEATS, 0.0)
        if self.shaped:
            for seat in SEATS:
                now = self.codec.progress(self.session, seat)
                rewards[seat] += SHAPE * (now - self._progress[seat])
                self._progress[seat] = now
        result = self.session.result
        if result is not None and result.winner is not None:
            for seat in SEATS:
                rewards[seat] += 1.0 if seat == result.winner else -1.0
        return rewards
