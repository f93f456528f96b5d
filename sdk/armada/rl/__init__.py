"""Environments the RL libraries speak (docs/rl.md): `parallel_env` (PettingZoo) and `gym_env` (Gymnasium).

    import armada.rl
    env = armada.rl.parallel_env("galaxy", max_turns=50)       # every seat an agent
    env = armada.rl.gym_env("mothership", opponent="builtin:greedy", seat=1)

Importing it also registers `gymnasium.make("armada/Galaxy-v0", ...)` and
`"armada/Mothership-v0"` (the same keyword arguments as `gym_env`), for libraries that take ids.

An optional extra (`pip install "armada[rl] @ URL"` with the SDK wheel's address, docs/rl.md:
gymnasium, pettingzoo, numpy); the rest of the
SDK never imports this package, so `import armada` stays standard-library only (nor does the bot
image have it: a bot importing it there gets the ModuleNotFoundError, not a pip line). Both
environments drive `armada.Session`: the engine and the referee's rules, step by step.
"""

from __future__ import annotations

try:
    import gymnasium
    import numpy  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    import os

    if os.environ.get("ARMADA_SANDBOX") == "docker":
        # A bot in the bot image: no pip there, so the error itself, which the referee follows
        # with what bots have instead (armada.stack.missing_module_note).
        raise
    from armada.extras import install_line

    raise ImportError(f'armada.rl needs the "rl" extra: {install_line("rl")} ({exc})') from exc

from armada.rl.codec import Codec
from armada.rl.games import codec_for
from armada.rl.parallel import ArmadaParallelEnv, parallel_env
from armada.rl.single import ArmadaEnv, gym_env

#: Gymnasium ids of the games' `gym_env` (gymnasium.make, make_vec).
GYM_IDS: dict[str, str] = {"galaxy": "armada/Galaxy-v0", "mothership": "armada/Mothership-v0"}
for _game, _id in GYM_IDS.items():
    if _id not in gymnasium.registry:
        gymnasium.register(id=_id, entry_point="armada.rl.single:ArmadaEnv", kwargs={"game": _game})

__all__ = ["GYM_IDS", "ArmadaEnv", "ArmadaParallelEnv", "Codec", "codec_for", "gym_env", "parallel_env"]
