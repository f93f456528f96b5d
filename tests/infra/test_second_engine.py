"""A second Docker engine on one machine (infra/dockerd-second.sh, tests/support/docker_engine.py): it starts
with the bot image, DockerBots play a match through it (their containers are its own, never the
main engine's), and stopping it leaves no process, socket, mount or cgroup behind; a killed one
takes its containers' processes with it and is cleaned up by `stop`."""

from __future__ import annotations

import hashlib
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from armada.botspec import starter_file
from armada.referee.match import play_match
from tests.support.docker_engine import SecondEngine, require_second_engine

pytestmark = [pytest.mark.docker, pytest.mark.slow]
#: One engine per test (xdist may run both at once); their data roots stay as the image cache.
PLAY, KILL = "armada-test-play", "armada-test-kill"


def _engine_processes(engine: SecondEngine) -> list[str]:
    out = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if str(engine.run_dir) in line or f"armada-{engine.name} " in line]


def _leftovers(engine: SecondEngine) -> dict[str, object]:
    mounts = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()
              if line.split()[1].startswith((str(engine.run_dir), str(engine.data_root)))]
    cgroups = [str(p) for p in Path("/sys/fs/cgroup").glob(f"*/armada-{engine.name}")]
    cgroups += [str(p) for p in Path("/sys/fs/cgroup").glob(f"armada-{engine.name}")]
    bridges = [name for name in _links() if name == _bridge(engine)]
    return {"processes": _engine_processes(engine), "mounts": mounts, "cgroups": cgroups,
            "run folder": engine.run_dir.exists(), "bridges": bridges}


def _bridge(engine: SecondEngine) -> str:
    """The engine's own bridge, as infra/dockerd-second.sh names it."""
    return "armd" + hashlib.sha1(engine.name.encode()).hexdigest()[:8]


def _links() -> list[str]:
    """The network interfaces of this (the host's) network namespace."""
    return [p.name for p in Path("/sys/class/net").iterdir()]


def _created(client, since: float) -> set[str]:
    """Ids of the containers the engine created since `since` (its event log)."""
    events = client.events(since=int(since), until=int(time.time()) + 1, decode=True,
                           filters={"type": "container", "event": "create"})
    return {event["id"] for event in events}


def test_bots_play_through_a_second_engine_which_stops_without_a_trace():
    require_second_engine()
    from armada_sandbox import BOT_IMAGE, DockerBot
    from armada_sandbox._engine import docker_client

    main = docker_client()
    bridged = "docker0" in _links()  # the main engine's default bridge (absent when it runs without one)
    engine = SecondEngine(PLAY)
    began = time.time() - 1
    with engine:
        # Its own bridge: a dockerd started with `--bridge none` deletes docker0, and `docker run`
        # without --network then failed on the main engine ("could not find bridge docker0").
        assert ("docker0" in _links()) == bridged
        assert _bridge(engine) in _links()
        client = engine.client()
        assert client.info()["DockerRootDir"] == str(engine.data_root)
        assert client.images.get(BOT_IMAGE).id == main.images.get(BOT_IMAGE).id  # loaded from the main engine
        labels = {"armada.test": f"second-{uuid.uuid4().hex[:8]}"}
        bots = {seat: DockerBot(starter_file(name, "galaxy").parent, starter_file(name, "galaxy").name,
                                client=client, warm=False, labels=labels, label=name)
                for seat, name in ((1, "greedy"), (2, "random"))}
        outcome = play_match("galaxy", bots, seed=5, config={"max_turns": 20})
        assert [player.status for player in outcome.players] == ["ok", "ok"]
        assert outcome.result.turns == 20
        ids = {bot.container_id for bot in bots.values()}
        assert ids <= _created(client, began)  # the second engine made the bots' containers ...
        assert not ids & _created(main, began)  # ... and the main engine never saw them
        assert not client.containers.list(all=True)  # DockerBot removed them there
        pid = engine.daemon_pid()
        assert pid is not None and _engine_processes(engine)
    assert engine.daemon_pid() is None
    assert not Path(f"/proc/{pid}").exists()
    assert _leftovers(engine) == {"processes": [], "mounts": [], "cgroups": [], "run folder": False, "bridges": []}
    assert ("docker0" in _links()) == bridged


def test_a_killed_engine_takes_its_containers_with_it_and_stop_cleans_up():
    require_second_engine()
    from armada_sandbox import BOT_IMAGE

    engine = SecondEngine(KILL)
    try:
        engine.start()
        container = engine.client().containers.run(BOT_IMAGE, ["sleep", "600"], detach=True, network_mode="none",
                                                   labels={"armada.test": "second-kill"})
        container.reload()
        bot_pid = container.attrs["State"]["Pid"]
        assert Path(f"/proc/{bot_pid}").exists()
        engine.kill()
        deadline = time.monotonic() + 10
        while Path(f"/proc/{bot_pid}").exists() or _engine_processes(engine):
            assert time.monotonic() < deadline, _engine_processes(engine)
            time.sleep(0.1)
    finally:
        engine.stop()
    assert _leftovers(engine) == {"processes": [], "mounts": [], "cgroups": [], "run folder": False, "bridges": []}
    with engine:  # a new start after a crash: a clean engine, nothing of the killed run
        assert engine.client().containers.list(all=True) == []


def test_stop_and_purge_say_what_they_did_to_the_data_root(tmp_path):
    """On an engine that never started (nothing to stop, so no engine is needed): `stop` keeps the
    data root and says so, `purge` removes it and says only that."""
    import os

    if os.geteuid() != 0:
        pytest.skip("dockerd-second.sh stop and purge need root")
    script = Path(__file__).resolve().parents[2] / "infra" / "dockerd-second.sh"
    name = f"armada-test-msg-{uuid.uuid4().hex[:6]}"
    data = tmp_path / "engines" / name
    (data / "image").mkdir(parents=True)
    env = {**os.environ, "ARMADA_ENGINE_DATA": str(data)}

    def run(action: str) -> str:
        done = subprocess.run(["bash", str(script), action, name], env=env, capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stderr

    assert run("stop").splitlines() == [f"dockerd-second: engine '{name}' stopped (data root {data} kept)"]
    assert (data / "image").is_dir()
    assert run("purge").splitlines() == [f"dockerd-second: engine '{name}' stopped and its data root {data} removed"]
    assert not data.exists()
