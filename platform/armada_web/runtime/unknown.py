"""Environment variables named like Armada's that nothing of Armada reads: most likely a typo
(`FINAL` for `FINALS` in `ARMADA_FINALS_STAGES`), which would otherwise be ignored in silence.
`unknown_variables(env)` names each with the nearest known name; the ops app's system check warns
of them at `manage.py migrate` and `check` (`make up`, compose's migrate), so the organiser sees it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

from armada_sandbox import limit_variables
from armada_web.games import SPECS
from armada_web.runtime.config import variables

#: What reads an ARMADA_ variable outside the settings object (`config.variables()`).
ELSEWHERE = frozenset({
    # the infrastructure: compose files, `make up`, the images and their entrypoint, the second engine
    "ARMADA_APP_IMAGE", "ARMADA_APP_UID", "ARMADA_DEBIAN_MIRROR", "ARMADA_DEMO", "ARMADA_DOCKER_SOCKET",
    "ARMADA_ENGINE_DATA", "ARMADA_ENGINE_IMAGES", "ARMADA_ENGINE_NAME", "ARMADA_ENV_FILE", "ARMADA_HEALTH_INTERVAL",
    "ARMADA_OOM_SCORE_ADJ", "ARMADA_OWN_VARIABLES", "ARMADA_POSTGRES_IMAGE", "ARMADA_POSTGRES_PORT",
    "ARMADA_PUBLISH_ADDR", "ARMADA_PY_EXTRAS",
    "ARMADA_REDIS_IMAGE", "ARMADA_REDIS_PORT", "ARMADA_S3_CREATE_BUCKET", "ARMADA_SANDBOX_DIR", "ARMADA_WEB_ADDR",
    "ARMADA_WEB_PORT", "ARMADA_WORKER_CONCURRENCY", "ARMADA_WORKER_NAME", "ARMADA_WORKER_NETWORK_MODE",
    "ARMADA_WORKER_STOP_GRACE",
    # the sandbox's workers
    "ARMADA_SANDBOX_CGROUP_ROOT", "ARMADA_SANDBOX_PURPOSE", "ARMADA_SANDBOX_SLOT_DIR", "ARMADA_SANDBOX_WARM_PAIRS",
    # the bots' seeds and environment
    "ARMADA_BOT_SEED", "ARMADA_BOT_SEED_KEY", "ARMADA_SANDBOX",
    # the SDK's command line (a competitor's shell may hold them when it runs `make up`)
    "ARMADA_SERVER", "ARMADA_TOKEN", "ARMADA_PASSWORD", "ARMADA_SDK_DIR",
    # the test suite's and benches' own
    "ARMADA_FUZZ_ARGS", "ARMADA_FUZZ_EXAMPLES", "ARMADA_SAVE_SCREENSHOTS", "ARMADA_SOAK_OUT", "ARMADA_SOAK_PLAN",
})


def known_names() -> frozenset[str]:
    """Every ARMADA_ variable something of Armada reads: the settings', ELSEWHERE, and the sandbox's
    limits, each for all games (ARMADA_SANDBOX_<LIMIT>) and per game (ARMADA_SANDBOX_<GAME>_<LIMIT>)."""
    return frozenset({v.name for v in variables()} | ELSEWHERE | set(limit_variables(SPECS)))


def unknown_variables(env: Mapping[str, str] | Iterable[str]) -> list[tuple[str, str | None]]:
    """(name, the nearest known name or None) of each ARMADA_ variable of `env` nothing reads."""
    known = known_names()
    return [(name, next(iter(difflib.get_close_matches(name, known, n=1, cutoff=0.8)), None))
            for name in sorted(env) if name.startswith("ARMADA_") and name not in known]
