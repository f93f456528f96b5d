"""`parallel_env(game, **config)`: a PettingZoo `ParallelEnv` where every seat is an agent (docs/rl.md).

Agents are "seat_1" and "seat_2"; both act in every step, as both seats answer every request
of our two games. An action is one of the action space (decoded by the game's codec) or a
reply object (a dict, or its JSON text), read as a bot's line would be: a reply of the wrong
shape forfeits, as in a match. `infos[agent]["request"]` is the request JSON the seat's bot would receive.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from armada.api import Session
from armada.games.base import SEATS, Fault
from armada.rl.galaxy import MAX_FLEETS
from armada.rl.games import codec_for
from armada.rl.play import Play, check_render_mode, check_seed, check_shaped

#: The largest game seed an environment draws (what `armada play --seed` takes).
MAX_SEED = 2**31 - 1


def agent_name(seat: int) -> str:
    """The PettingZoo agent of a seat: "seat_1", "seat_2"."""
    return f"seat_{seat}"


class ArmadaParallelEnv(ParallelEnv[str, Any, Any]):
    """Both seats of one game as PettingZoo agents; `reset(seed=S)` plays the game of `armada play --seed S`."""

    def __init__(self, game: str, *, shaped: bool = False, max_fleets: int = MAX_FLEETS,
                 render_mode: str | None = None, **config: Any) -> None:
        """Raises ConfigError for a bad game configuration, ValueError for an unknown game."""
        check_render_mode(render_mode)
        self.render_mode = None
        probe = Session(game, seed=0, config=config)  # validates the configuration
        self.game = game
        self.engine = probe.driver.engine  # resolved once, not at every reset
        self.config = probe.config
        self.shaped = check_shaped(shaped)
        self.codec = codec_for(game, self.config, max_fleets=max_fleets)
        self.metadata = {"name": f"armada_{game}_v0", "render_modes": [], "is_parallelizable": True}
        self.possible_agents = [agent_name(seat) for seat in SEATS]
        self.agents: list[str] = []
        self.seats = dict(zip(self.possible_agents, SEATS, strict=True))
        self.play: Play | None = None
        self._action_spaces: dict[str, spaces.MultiDiscrete] = {}
        self._rng: np.random.Generator | None = None
        self._rng_seed: int | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        self._seat_of(agent)
        return self.codec.observation_space

    def action_space(self, agent: str) -> spaces.MultiDiscrete:
        """The agent's own space (seeded on its own), the same object at every call, as PettingZoo requires."""
        self._seat_of(agent)
        if agent not in self._action_spaces:
            self._action_spaces[agent] = spaces.MultiDiscrete(self.codec.action_space.nvec)
        return self._action_spaces[agent]

    def _seat_of(self, agent: str) -> int:
        """The seat of an agent; ValueError naming the agents for anything else."""
        if agent not in self.seats:
            raise ValueError(f"{agent!r} is not an agent of this game (agents: {', '.join(self.possible_agents)})")
        return self.seats[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """A new game: seed S plays the game `armada play --seed S` plays; None draws one."""
        if seed is not None:
            game_seed = check_seed(seed)
            self._rng, self._rng_seed = None, game_seed  # made when a reset without a seed needs it
        else:
            game_seed = int(self.rng.integers(0, MAX_SEED))
        self.play = Play(self.engine, self.codec, game_seed, self.config, self.shaped)
        self.play.session.names = {seat: agent for agent, seat in self.seats.items()}
        self.agents = list(self.possible_agents)
        return ({a: self.play.observe(s) for a, s in self.seats.items()},
                {a: self.play.info(s) for a, s in self.seats.items()})

    @property
    def rng(self) -> np.random.Generator:
        """What draws the seeds of games reset without one: seeded by the last seed given."""
        if self._rng is None:
            self._rng = np.random.default_rng(self._rng_seed)
        return self._rng

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float], dict[str, bool],
                                                       dict[str, bool], dict[str, dict[str, Any]]]:
        """Play one step with an action (or reply) of every agent."""
        if self.play is None or not self.agents:
            raise RuntimeError("the game is over (or not started): call reset()")
        if not isinstance(actions, Mapping):
            raise ValueError(f"step takes a dict of actions, one per agent ({', '.join(self.agents)}); "
                             f"got {type(actions).__name__}")
        missing = [agent for agent in self.agents if agent not in actions]
        if missing:
            raise ValueError(f"step needs an action for every agent, missing {missing[0]}")
        if len(actions) != len(self.agents):
            unknown = [agent for agent in actions if agent not in self.agents]
            raise ValueError(f"step got an action for {unknown[0]!r}, not an agent of this game "
                             f"(agents: {', '.join(self.agents)})")
        play, seats, agents = self.play, self.seats, self.agents
        made = {seats[a]: play.reply(seats[a], actions[a]) for a in agents}
        replies = {seat: reply for seat, reply in made.items() if not isinstance(reply, Fault)}
        if len(replies) < len(made):  # a reply a referee would refuse: that seat forfeits, as in a match
            rewards = play.forfeit_all({seat: fault for seat, fault in made.items() if isinstance(fault, Fault)})
        else:  # every reply is made here (decoded, or parsed from a reply object's JSON)
            rewards = play.step(replies, owned=True)
        done = play.done
        if done:
            self.agents = []
        return ({a: play.observe(seats[a]) for a in agents},
                {a: rewards[seats[a]] for a in agents},
                dict.fromkeys(agents, done),
                dict.fromkeys(agents, False),
                {a: play.info(seats[a]) for a in agents})

    @property
    def session(self) -> Session:
        """The game being played (`session.replay()` for its replay)."""
        if self.play is None:
            raise RuntimeError("call reset() first")
        return self.play.session

    def close(self) -> None:
        self.play = None


def parallel_env(game: str, *, shaped: bool = False, max_fleets: int = MAX_FLEETS, render_mode: str | None = None,
                 **config: Any) -> ArmadaParallelEnv:
    """A PettingZoo ParallelEnv of `game` ("galaxy", "mothership"); `config` is the game's (e.g. max_turns=50)."""
    return ArmadaParallelEnv(game, shaped=shaped, max_fleets=max_fleets, render_mode=render_mode, **config)
