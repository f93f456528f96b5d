"""Bots that learn (issue 25): model-sized versions, measured side by side in one run; one
function per target, each returning its `target` line.

- `upload_memory`: the web worker's peak memory (RSS) while it takes a 100 MiB version / while it
  takes a 10 KiB one, each in a fresh site process that runs the upload through the site's WSGI
  application (tests/support/upload_memory.py), the two at once.
- `large_version_start`: a match's start (placing the seat's code from the worker's cache of
  unpacked versions, storage.unpacked) to the bot's first reply in its container, for a bot
  carrying 100 MiB of data files / the same bot carrying 10 KiB, warm cache on both (medians of
  ROUNDS alternating rounds); the cold first start of the large one (unpacked from its archive)
  is printed beside it.
- `rl_env_steps`: steps per second of `armada.rl.parallel_env` / the bare engine's loop
  (`initial_state`, then `requests` and `step` per step) on the same games: the same seeds and
  the same replies (actions sampled once from the action spaces; the bare loop gets the replies
  they decoded into, from the replay), checked to end alike. The env's figure includes `reset`,
  encoding both seats' observations and decoding both actions. CPU time of this process (the
  machine is shared; both sides are single-threaded), medians of RL_ROUNDS alternating rounds; one
  line per game is printed, the target line is the worse game's.
- `torch_init`: a bot that imports PyTorch and loads a 50 MiB model (the state dict of a plain
  module of two linear layers, saved by the local torch; both versions load it) and then answers
  `init`: from starting its connection to its init reply, in the sandbox (DockerBot,
  armada/bot:latest, Debian's torch 1.13) / as a local process the way `armada play` runs a local
  bot (this interpreter, the bench extra's torch 2.13). Both get one thread (the sandbox's CPU
  share; `armada play`'s bot environment); wall time, medians of TORCH_ROUNDS alternating rounds
  after a first start of each that is not counted (page cache). The two torch versions, as the
  bots report them, are printed beside the figure: 2.x imports slower than 1.13, which flatters
  the ratio; that is the comparison a competitor makes. The start of a bot that imports nothing
  (each way) is printed too: the container's own share of the figure.

Run: .venv/bin/python bench/learning.py [upload-memory] [large-version-start] [rl-env-steps] [torch-init]
(large-version-start and torch-init need the Docker engine and armada/bot:latest; torch-init a
local torch, the bench extra)
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / p) for p in ("sdk", "sandbox", "platform", "")]

MIB = 1024 * 1024
UPLOAD_MEMORY_BOUND = 1.2
LARGE_START_BOUND = 1.3
ROUNDS = 5
ECHO_BOT = b"""import sys
for line in sys.stdin:
    sys.stdout.write(line)
    sys.stdout.flush()
"""


def verdict(ok: bool) -> str:
    return "ok" if ok else "short"


def upload_memory(folder: Path) -> str:
    """target upload-memory: peak RSS uploading 100 MiB / uploading 10 KiB."""
    from tests.support.upload_memory import measure

    (folder / "large").mkdir()
    (folder / "small").mkdir()
    with ThreadPoolExecutor(2) as pool:
        large_job = pool.submit(measure, 100 * MIB, folder / "large")
        small_job = pool.submit(measure, 10 * 1024, folder / "small")
        large, small = large_job.result(), small_job.result()
    if large.status != 201 or small.status != 201:
        raise RuntimeError(f"an upload was refused: {large.detail} / {small.detail}")
    ratio = large.peak_kib / small.peak_kib
    print(f"upload memory: 100 MiB {large.peak_kib / 1024:.0f} MiB peak (site process before the request "
          f"{large.before_kib / 1024:.0f}), 10 KiB {small.peak_kib / 1024:.0f} MiB peak "
          f"(before {small.before_kib / 1024:.0f})")
    return f"target upload-memory: {ratio:.2f} <= {UPLOAD_MEMORY_BOUND:g} {verdict(ratio <= UPLOAD_MEMORY_BOUND)}"


def _site(folder: Path) -> None:
    """This process as a worker of a throw-away site (settings only: no database is touched)."""
    os.environ.update({"DJANGO_SETTINGS_MODULE": "armada_web.settings", "ARMADA_DATA_DIR": str(folder / "site"),
                       "ARMADA_UNPACK_CACHE_DIR": str(folder / "cache"), "CACHE_URL": "locmem://"})
    import django

    django.setup()


def _version(folder: Path, data_bytes: int) -> Callable[[], object]:
    """A stored archive (the site's normalised form) of the echo bot with `data_bytes` of data files."""
    from armada_web.storage.archives import check_upload
    from armada_web.storage.unpacked import Source

    upload = folder / f"upload-{data_bytes}.zip"
    with zipfile.ZipFile(upload, "w", compression=zipfile.ZIP_STORED) as out:
        out.writestr("main.py", ECHO_BOT)
        for n, size in enumerate([data_bytes // 2, data_bytes - data_bytes // 2]):
            with out.open(f"model/part-{n}.bin", "w") as dest:
                left = size
                while left > 0:
                    dest.write(os.urandom(min(left, MIB)))
                    left -= min(left, MIB)
    stored = folder / f"stored-{data_bytes}.zip"
    with open(upload, "rb") as handle, check_upload(name="bot.zip", data=handle, game="galaxy") as bundle:
        with open(stored, "wb") as out:
            while chunk := bundle.file.read(MIB):
                out.write(chunk)
        sha256 = bundle.sha256
    upload.unlink()
    return lambda: Source(sha256, lambda: open(stored, "rb"))


def _start_to_first_reply(source: object) -> float:
    """Seconds from the match's start (the seat's code placed) to the bot's first reply."""
    from armada_sandbox import DockerBot, code_folder, limits_for
    from armada_web.games.runner import place_code

    with code_folder() as code_dir:
        began = time.perf_counter()
        place_code(seat=1, source=source, code_dir=code_dir)  # type: ignore[arg-type]
        bot = DockerBot(code_dir, "main.py", label="bench", limits=limits_for("galaxy"))
        try:
            bot.start()
            bot.send(b'{"type": "init", "id": 0}\n')
            if bot.read_line(time.monotonic() + 60) is None:
                raise RuntimeError("no first reply")
            return time.perf_counter() - began
        finally:
            bot.close(grace=0.5)


def large_version_start(folder: Path) -> str:
    """target large-version-start: start to first reply, 100 MiB of data files / 10 KiB, warm cache."""
    from armada_sandbox import BOT_IMAGE, check_ready

    _site(folder)
    check_ready(image=BOT_IMAGE)
    # 100 MiB less room for the zip's headers: within the limit.
    large, small = _version(folder, 100 * MIB - 4096), _version(folder, 10 * 1024)
    cold = _start_to_first_reply(large())
    _start_to_first_reply(small())  # the small one's cold start: not counted either
    times: dict[str, list[float]] = {"large": [], "small": []}
    for _round in range(ROUNDS):
        times["large"].append(_start_to_first_reply(large()))
        times["small"].append(_start_to_first_reply(small()))
    large_s, small_s = statistics.median(times["large"]), statistics.median(times["small"])
    ratio = large_s / small_s
    print(f"large-version start: 100 MiB {large_s * 1000:.0f} ms, 10 KiB {small_s * 1000:.0f} ms (warm cache, "
          f"medians of {ROUNDS}); the cold first start of the 100 MiB one {cold * 1000:.0f} ms")
    return f"target large-version-start: {ratio:.2f} <= {LARGE_START_BOUND:g} {verdict(ratio <= LARGE_START_BOUND)}"


#: The games `rl_env_steps` plays, each with its configuration and seeds (Galaxy's are full-length games).
RL_GAMES: dict[str, tuple[dict[str, Any], range]] = {"galaxy": ({}, range(1, 7)), "mothership": ({}, range(1, 201))}
RL_BOUND = 0.8
RL_ROUNDS = 9


def _rl_script(game: str, config: dict[str, Any], seed: int) -> tuple[list[dict[str, Any]], list[dict[int, Any]], Any]:
    """One game in the environment with actions sampled from its action spaces (seeded): the actions
    of every step, the replies they decoded into (the replay's answers) and the game's result."""
    from armada.rl import parallel_env

    env = parallel_env(game, **config)
    for number, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(seed * 2 + number)
    env.reset(seed=seed)
    actions = []
    while env.agents:
        actions.append({agent: env.action_space(agent).sample() for agent in env.agents})
        env.step(actions[-1])
    replay = env.session.replay()
    replies = [{int(seat): answer for seat, answer in step["answers"].items()} for step in replay["steps"]]
    return actions, replies, replay["result"]


def _env_game(env: Any, seed: int, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """Play one game in the environment; its result."""
    _observations, infos = env.reset(seed=seed)
    for step_actions in actions:
        _observations, _rewards, _terminations, _truncations, infos = env.step(step_actions)
    return infos["seat_1"]["result"]  # type: ignore[no-any-return]


def _bare_game(engine: Any, parsed: Any, seed: int, replies: list[dict[int, Any]]) -> Any:
    """Play one game with the bare engine: its initial state, then requests and step per step; its result."""
    state = engine.initial_state(seed, parsed)
    for answers in replies:
        engine.requests(state)
        state = engine.step(state, answers).state
    return engine.result(state)


def rl_env_steps(folder: Path) -> str:
    """target rl-env-steps: environment steps per second / the bare engine's, the worse of the two games."""
    import copy

    from armada.games.registry import get_game
    from armada.rl import parallel_env

    ratios = {}
    for game, (config, seeds) in RL_GAMES.items():
        engine = get_game(game)
        parsed = engine.parse_config(config)
        scripts = {seed: _rl_script(game, config, seed) for seed in seeds}
        steps = sum(len(actions) for actions, _replies, _result in scripts.values())
        env = parallel_env(game, **config)
        times: dict[str, list[float]] = {"env": [], "bare": []}
        for _round in range(RL_ROUNDS):
            replies = {seed: copy.deepcopy(script[1]) for seed, script in scripts.items()}  # engines may keep them
            began = time.process_time()
            bare_results = [_bare_game(engine, parsed, seed, replies[seed]) for seed in seeds]
            times["bare"].append(time.process_time() - began)
            began = time.process_time()
            env_results = [_env_game(env, seed, scripts[seed][0]) for seed in seeds]
            times["env"].append(time.process_time() - began)
            if [r.to_dict() for r in bare_results] != env_results or env_results != [s[2] for s in scripts.values()]:
                raise RuntimeError(f"{game}: the environment and the bare engine played different games")
        env_rate, bare_rate = steps / statistics.median(times["env"]), steps / statistics.median(times["bare"])
        ratios[game] = env_rate / bare_rate
        print(f"rl env steps, {game}: environment {env_rate:.0f} steps/s, bare engine {bare_rate:.0f} steps/s "
              f"({len(seeds)} games, {steps} steps, CPU time, medians of {RL_ROUNDS} alternating rounds): "
              f"{ratios[game]:.3f}; load average {os.getloadavg()[0]:.1f}")
    worst = min(ratios, key=ratios.__getitem__)
    print(f"rl env steps: the target is the worse game's, {worst}")
    return f"target rl-env-steps: {ratios[worst]:.2f} >= {RL_BOUND:g} {verdict(ratios[worst] >= RL_BOUND)}"


TORCH_INIT_BOUND = 1.5
TORCH_ROUNDS = 5
#: The model: two 2560 x 2560 linear layers, float32: 50.0 MiB of weights.
TORCH_WIDTH = 2560
TORCH_BOT = b"""import json
import sys

import torch


class Policy(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.hidden = torch.nn.Linear(width, width)
        self.out = torch.nn.Linear(width, width)


model = Policy(%d)
model.load_state_dict(torch.load("model.pt", map_location="cpu"))
model.eval()
for line in sys.stdin:
    message = json.loads(line)
    sys.stdout.write(json.dumps({"id": message["id"], "torch": torch.__version__}) + "\\n")
    sys.stdout.flush()
""" % TORCH_WIDTH


def _torch_bot(folder: Path) -> Path:
    """The bot folder: main.py and model.pt, the state dict of its plain module saved by the local torch."""
    import torch

    bot = folder / "torch-bot"
    bot.mkdir(mode=0o755)
    (bot / "main.py").write_bytes(TORCH_BOT)
    torch.manual_seed(0)
    layers = {name: torch.nn.Linear(TORCH_WIDTH, TORCH_WIDTH) for name in ("hidden", "out")}
    state = {f"{name}.{key}": value for name, layer in layers.items() for key, value in layer.state_dict().items()}
    torch.save(state, bot / "model.pt")
    for path in bot.iterdir():
        path.chmod(0o644)
    return bot


def _init_reply(bot: Any) -> tuple[float, str]:
    """Seconds from starting a bot connection to its reply to `init`, and the torch version it reports."""
    import json

    began = time.perf_counter()
    try:
        bot.start()
        bot.send(b'{"type": "init", "id": 0}\n')
        line = bot.read_line(time.monotonic() + 120)
        if line is None:
            raise RuntimeError(f"no init reply; the bot's log: {bot.log()[-2000:]}")
        return time.perf_counter() - began, json.loads(line)["torch"]
    finally:
        bot.close(grace=0.5)


def _echo_bot(folder: Path) -> Path:
    """A bot that imports nothing: what starting a bot costs without torch, printed beside."""
    bot = folder / "echo-bot"
    bot.mkdir(mode=0o755)
    (bot / "main.py").write_bytes(b"""import json
import sys

for line in sys.stdin:
    sys.stdout.write(json.dumps({"id": json.loads(line)["id"], "torch": None}) + "\\n")
    sys.stdout.flush()
""")
    (bot / "main.py").chmod(0o644)
    return bot


def _sandboxed_init(bot_dir: Path) -> tuple[float, str]:
    """The torch bot's init in its container (DockerBot, the image's torch), the code copied as a worker places it."""
    import shutil

    from armada_sandbox import DockerBot, code_folder, limits_for

    with code_folder() as code_dir:
        for path in bot_dir.iterdir():
            shutil.copy(path, code_dir / path.name)
        return _init_reply(DockerBot(code_dir, "main.py", label="bench-torch", limits=limits_for("galaxy")))


def _local_init(bot_dir: Path) -> tuple[float, str]:
    """The torch bot's init as `armada play` runs a local bot (a process of this interpreter, its torch)."""
    from armada.botspec import resolve_bot

    with resolve_bot(str(bot_dir), "galaxy") as source:
        return _init_reply(source.process_connection(label="bench-torch"))


def torch_init(folder: Path) -> str:
    """target torch-init: init of a bot importing torch and loading a 50 MiB model, sandbox / local process."""
    from armada_sandbox import BOT_IMAGE, check_ready

    check_ready(image=BOT_IMAGE)
    bot_dir = _torch_bot(folder)
    model_mib = (bot_dir / "model.pt").stat().st_size / MIB
    _sandboxed_init(bot_dir)  # first starts (page cache, the image's layers): not counted
    _local_init(bot_dir)
    echo_dir = _echo_bot(folder)
    times: dict[str, list[float]] = {"sandbox": [], "local": [], "sandbox-echo": [], "local-echo": []}
    versions = {}
    for _round in range(TORCH_ROUNDS):
        seconds, versions["sandbox"] = _sandboxed_init(bot_dir)
        times["sandbox"].append(seconds)
        seconds, versions["local"] = _local_init(bot_dir)
        times["local"].append(seconds)
        times["sandbox-echo"].append(_sandboxed_init(echo_dir)[0])
        times["local-echo"].append(_local_init(echo_dir)[0])
    ms = {name: statistics.median(values) * 1000 for name, values in times.items()}
    ratio = ms["sandbox"] / ms["local"]
    print(f"torch init: sandbox {ms['sandbox']:.0f} ms (torch {versions['sandbox']}, {BOT_IMAGE}), local process "
          f"{ms['local']:.0f} ms (torch {versions['local']}); a {model_mib:.1f} MiB state dict, medians of "
          f"{TORCH_ROUNDS} alternating rounds; load average {os.getloadavg()[0]:.1f}")
    print(f"torch init: a bot that imports nothing starts in {ms['sandbox-echo']:.0f} ms in the sandbox, "
          f"{ms['local-echo']:.0f} ms as a local process")
    return f"target torch-init: {ratio:.2f} <= {TORCH_INIT_BOUND:g} {verdict(ratio <= TORCH_INIT_BOUND)}"


TARGETS = {"upload-memory": upload_memory, "large-version-start": large_version_start, "rl-env-steps": rl_env_steps,
           "torch-init": torch_init}


def main(argv: list[str]) -> int:
    chosen = argv or list(TARGETS)
    unknown = [name for name in chosen if name not in TARGETS]
    if unknown:
        print(f"unknown target {unknown[0]!r}; choose from {', '.join(TARGETS)}", file=sys.stderr)
        return 2
    lines = []
    for name in chosen:
        with tempfile.TemporaryDirectory(prefix=f"armada-bench-{name}-") as folder:
            lines.append(TARGETS[name](Path(folder)))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
