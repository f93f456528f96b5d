"""Environments the RL libraries speak (docs/rl.md): `parallel_env` (PettingZoo) and `gym_env` (Gymnasium).

    import armada.rl
    env = armada.rl.parallel_env("galaxy", max_turns=50)       # every seat an agent
    env = armada.rl.gym_env("mothership", opponent="builtin:greedy", seat=1)

An optional extra (`pip install "armada[rl]"`: gymnasium, pettingzoo, numpy); the rest of the
SDK never imports this package, so `import armada` stays standard-library only. Both
environments drive `armada.Session`: the engine and the referee's rules, step by step.
"""

from __future__ import annotations

try:
    import gymnasium  # noqa: F401
    import numpy  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(f'armada.rl needs the "rl" extra: pip install "armada[rl]" ({exc})') from exc

from armada.rl.codec import Codec
from armada.rl.games import codec_for
from armada.rl.parallel import ArmadaParallelEnv, parallel_env
from armada.rl.single import ArmadaEnv, gym_env

__all__ = ["ArmadaEnv", "ArmadaParallelEnv", "Codec", "codec_for", "gym_env", "parallel_env"]
