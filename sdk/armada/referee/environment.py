"""The environment of every bot process, locally and in the sandbox (docs/bots-environment.md).

Both connections build it here (`ProcessBot` for local runs, `armada_sandbox.DockerBot`
through `container_options`), so a bot sees the same variables everywhere and nothing of
the shell that started `armada` (no `PYTHONUNBUFFERED`, no `PYTHONPATH`, no virtualenv).

`ARMADA_BOT_SEED` is a one-way hash of the match seed and the seat (HMAC-SHA256): a bot's
own randomness can follow `--seed` without the bot learning the seed (Galaxy's hidden
neutral parameters derive from it). The site keys the hash with a secret
(`ARMADA_BOT_SEED_KEY` on the workers), so even a small seed cannot be found by trying
them all; local runs use no key, so the same `--seed` gives the same bot seeds.
"""

from __future__ import annotations

import hashlib
import hmac
import os

#: The variable that carries the bot's seed (protocol.md, "Environment").
SEED_VARIABLE = "ARMADA_BOT_SEED"
#: The worker's secret for `bot_seed` (unset locally).
SEED_KEY_VARIABLE = "ARMADA_BOT_SEED_KEY"
#: The search path of the bot image (Debian's default); the bot runs `python3` from it on the server.
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#: Host name a bot sees (the container's; set as a variable locally too).
HOSTNAME = "bot"
#: The variables that size the thread pools of OpenMP (PyTorch's intra-op pool follows it), MKL
#: and OpenBLAS (numpy, scikit-learn, PyTorch's BLAS): each is the bot's CPU share in whole cores.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
#: A bot's CPU share on the server (one core), and so its threads wherever it runs.
DEFAULT_THREADS = 1


def seed_key(environ: dict[str, str] | None = None) -> bytes:
    """The key of `bot_seed`: ARMADA_BOT_SEED_KEY of this process (empty when unset)."""
    source = os.environ if environ is None else environ
    return source.get(SEED_KEY_VARIABLE, "").encode("utf-8")


def bot_seed(match_seed: int, seat: int, key: bytes = b"") -> int:
    """A 63-bit seed for the bot in `seat`: HMAC-SHA256 of the match seed and the seat under `key`."""
    message = f"armada-bot-seed/1:{int(match_seed)}:{int(seat)}".encode("ascii")
    digest = hmac.new(key, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def bot_environment(*, sandbox: str, workdir: str, home: str, seed: int | None = None,
                    threads: int = DEFAULT_THREADS) -> dict[str, str]:
    """Every variable a bot process gets, and nothing else.

    `sandbox` is "process" or "docker" (ARMADA_SANDBOX), `workdir` the bot's code folder (PWD),
    `home` its private writable folder (HOME and TMPDIR: /tmp in the container), `seed` its
    ARMADA_BOT_SEED (left out when None, e.g. for a validation run outside a match), `threads`
    the thread count of the numeric libraries (THREAD_VARIABLES): the bot's CPU share.
    """
    env = {
        "PATH": PATH,
        "HOME": home,
        "TMPDIR": home,
        "PWD": workdir,
        "HOSTNAME": HOSTNAME,
        "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "ARMADA_SANDBOX": sandbox,
        **{name: str(max(1, int(threads))) for name in THREAD_VARIABLES},
    }
    if seed is not None:
        env[SEED_VARIABLE] = str(seed)
    return env
