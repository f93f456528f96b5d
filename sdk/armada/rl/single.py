"""`gym_env(game, opponent=..., seat=1, **config)`: a Gymnasium `Env`, one seat against a fixed opponent (docs/rl.md).

The learner plays `seat`; the opponent (see armada.rl.opponent) answers the other seat's
requests. An action is one of the action space (decoded by the game's codec) or a reply
object (a dict, or its JSON text). `info["request"]` is the request JSON the learner's bot
would receive; an opponent that crashes, times out or breaks the protocol forfeits (the
learner wins) and `info["opponent_fault"]` says why (for a crash, `reason`: the last line of its
traceback, as `armada play` shows it, or the bot library's `[armada]` line when it stopped on
purpose, e.g. a bot of the other game).
"""

from __future__ import annotations

import numbers
from typing import Any, SupportsFloat

import gymnasium

from armada.api import Session
from armada.botlog import crash_reason, last_note
from armada.games.base import SEATS, Fault
from armada.rl.galaxy import MAX_FLEETS
from armada.rl.games import codec_for
from armada.rl.opponent import Opponent
from armada.rl.parallel import MAX_SEED
from armada.rl.play import Play, check_render_mode, check_seed, check_shaped

#: The default opponent.
DEFAULT_OPPONENT = "builtin:greedy"
#: The learner's seat's name in the replays (`env.session.replay()`); the opponent's is `Opponent.name`.
LEARNER_NAME = "learner"


def _is_seat(seat: object) -> bool:
    """Whether `seat` names a seat: an integer (numpy's too) of SEATS; not True, not 1.0 (both == 1)."""
    return isinstance(seat, numbers.Integral) and not isinstance(seat, bool) and int(seat) in SEATS


class ArmadaEnv(gymnasium.Env[Any, Any]):
    """One seat of a game against a fixed opponent; `reset(seed=S)` plays the game of `armada play --seed S`."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, game: str, opponent: Any = DEFAULT_OPPONENT, seat: int = 1, *, shaped: bool = False,
                 max_fleets: int = MAX_FLEETS, render_mode: str | None = None, **config: Any) -> None:
        """Raises ConfigError for a bad configuration, BotSpecError for an opponent spec that names no bot."""
        check_render_mode(render_mode)
        self.render_mode = None
        if not _is_seat(seat):
            raise ValueError(f"seat must be one of {list(SEATS)}, got {seat!r}")
        probe = Session(game, seed=0, config=config)  # validates the configuration
        self.game = game
        self.engine = probe.driver.engine  # resolved once, not at every reset
        self.config = probe.config
        self.seat: int = int(seat)
        self.other: int = next(s for s in SEATS if s != self.seat)
        self.shaped = check_shaped(shaped)
        self.codec = codec_for(game, self.config, max_fleets=max_fleets)
        self.observation_space = self.codec.observation_space
        self.action_space = self.codec.action_space
        self.opponent = Opponent(opponent, game, self.other)
        self.play: Play | None = None
        self.opponent_fault: dict[str, str] | None = None
        #: The learner's rewards of a game its opponent lost at `init`, paid by the next `step`.
        self.unpaid: dict[int, float] | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Any, dict[str, Any]]:
        """A new game against a fresh opponent: seed S is the game seed; None draws one from `np_random`."""
        # checked before Gymnasium does: it takes True for 1, and seeds of any size
        seed = None if seed is None else check_seed(seed)
        super().reset(seed=seed)
        game_seed = seed if seed is not None else int(self.np_random.integers(0, MAX_SEED))
        self.play = Play(self.engine, self.codec, game_seed, self.config, self.shaped)
        other = self.opponent.name if self.opponent.name != LEARNER_NAME else f"{LEARNER_NAME} (opponent)"
        self.play.session.names = {self.seat: LEARNER_NAME, self.other: other}  # two names a viewer tells apart
        self.opponent_fault, self.unpaid = None, None
        fault = self.opponent.start(self.play.session, game_seed)
        if fault is not None:  # over already: the next step says so (a trainer steps after a reset)
            self.unpaid = self._opponent_lost(fault.status, fault.detail)
        return self.play.observe(self.seat), self._info()

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play one step: the learner's action and the opponent's answer to its own request."""
        play = self.play
        if play is not None and self.unpaid is not None:
            return self._pay_unpaid(action)
        if play is None or play.done:
            raise RuntimeError("the game is over (or not started): call reset()")
        reply = play.reply(self.seat, action)
        if isinstance(reply, Fault):  # JSON text a referee would refuse: the learner forfeits
            rewards = play.forfeit_all({self.seat: reply})
            self._finish()
            return play.observe(self.seat), rewards[self.seat], True, False, self._info()
        answer, fault = self.opponent.answer(play.asked[self.other])
        if fault is not None or answer is None:
            status, detail = (fault.status, fault.detail) if fault else ("crashed", "no reply")
            rewards = self._opponent_lost(status, detail)
        else:
            rewards = play.step({self.seat: reply, self.other: answer})
            found = play.session.faults.get(self.other)
            if found is not None:  # the opponent's reply broke the game's rules (GX-22, MD-12)
                self.opponent_fault = {"status": found.status, "detail": found.detail}
            self._finish()
        return play.observe(self.seat), rewards[self.seat], play.done, False, self._info()

    def _pay_unpaid(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """The step after a reset whose opponent failed at `init`: the game's end, whatever the
        action (ValueError for one of the wrong form, as in any step; nothing is played)."""
        assert self.play is not None and self.unpaid is not None
        if not isinstance(action, dict | str | bytes):
            self.codec.check(action)
        rewards, self.unpaid = self.unpaid, None
        return self.play.observe(self.seat), rewards[self.seat], True, False, self._info()

    def _finish(self) -> None:
        """Once the game is over: the opponent gets `end` and stops."""
        assert self.play is not None
        if self.play.done and self.play.session.result is not None:
            self.opponent.finish(self.play.session.result)

    def _opponent_lost(self, status: str, detail: str) -> dict[int, float]:
        assert self.play is not None
        self.opponent_fault = {"status": status, "detail": detail}
        log = self.opponent.log() if status == "crashed" else ""
        reason = crash_reason(log) or last_note(log)  # (a traceback's last line, or the library's words)
        if reason:  # "exited with code 1" says nothing of why; the log is not in the info
            self.opponent_fault["reason"] = reason
        rewards = self.play.forfeit(self.other, status, detail)
        self.opponent.close()
        return rewards

    def _info(self) -> dict[str, Any]:
        assert self.play is not None
        info = self.play.info(self.seat)
        if self.opponent_fault is not None:
            info["opponent_fault"] = dict(self.opponent_fault)
        return info

    @property
    def session(self) -> Session:
        """The game being played (`session.replay()` for its replay)."""
        if self.play is None:
            raise RuntimeError("call reset() first")
        return self.play.session

    def close(self) -> None:
        self.opponent.close()
        self.play = None


def gym_env(game: str, opponent: Any = DEFAULT_OPPONENT, seat: int = 1, *, shaped: bool = False,
            max_fleets: int = MAX_FLEETS, render_mode: str | None = None, **config: Any) -> ArmadaEnv:
    """A Gymnasium Env: `seat` of `game` against `opponent` (`builtin:NAME`, a bot folder, .py or .zip,
    or a Python callable / bot-library bot or class); `config` is the game's (e.g. max_turns=50)."""
    return ArmadaEnv(game, opponent, seat, shaped=shaped, max_fleets=max_fleets, render_mode=render_mode, **config)
