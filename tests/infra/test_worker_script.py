"""`make worker` (infra/worker.sh) refuses to start without an instance to serve: the same data
folder as `make up`'s is how it finds the instance's keys (a match worker started with another
bot-seed key would give bots other seeds than the instance's own workers: D-R-8). Serving one:
tests/live/test_matches_live.py."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(data_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "ARMADA_BOT_SEED_KEY", "DEBUG")}
    return subprocess.run(["bash", str(ROOT / "infra" / "worker.sh")], capture_output=True, text=True, timeout=60,
                          env={**clean, "ARMADA_DATA_DIR": str(data_dir), **env}, check=False)


def test_no_instance_in_the_data_folder_is_a_clear_refusal(tmp_path):
    done = run(tmp_path / "nothing-here")
    assert done.returncode == 1
    assert f"no instance keeps its data in {tmp_path / 'nothing-here'} (no such folder)" in done.stderr
    assert "make up" in done.stderr and "same ARMADA_DATA_DIR, DATABASE_URL and REDIS_URL" in done.stderr
    assert not (tmp_path / "nothing-here").exists()  # a mistyped folder is not made
    (tmp_path / "half").mkdir()
    done = run(tmp_path / "half")
    assert done.returncode == 1 and "(bot-seed.key is missing)" in done.stderr
    (tmp_path / "half" / "bot-seed.key").write_text("5e" * 32)
    done = run(tmp_path / "half")  # production settings need the instance's secret key too
    assert done.returncode == 1 and f"the instance in {tmp_path / 'half'} keeps no secret.key" in done.stderr
    assert "run `DEBUG=true make worker`" in done.stderr  # what `DEBUG=true make up` needs (it keeps none)
    done = run(tmp_path / "half", DEBUG="true", DATABASE_URL="postgresql://nobody:x@127.0.0.1:1/none")
    assert done.returncode == 1 and "the database of this instance does not answer or is not migrated" in done.stderr


def test_the_instances_manage_env_gives_what_is_not_given_and_another_queue_is_refused(tmp_path):
    """An organiser's trial: a worker added with `make worker` played with the default limits (1 GiB
    a bot) while the site ran Galaxy with 512 MiB and a 20 s init, and one given another REDIS_URL
    started and sat idle on an empty queue."""
    (tmp_path / "bot-seed.key").write_text("5e" * 32)
    (tmp_path / "secret.key").write_text("s" * 50)
    nowhere = "postgresql://nobody:x@127.0.0.1:1/none"
    (tmp_path / "manage.env").write_text(f"export ARMADA_DATA_DIR={tmp_path}\nexport DATABASE_URL={nowhere}\n"
                                         "export REDIS_URL=redis://127.0.0.1:6379/14\n"
                                         "export ARMADA_SANDBOX_GALAXY_MEMORY_MB=512\n")
    clean = {k: v for k, v in os.environ.items()
             if k not in ("SECRET_KEY", "ARMADA_BOT_SEED_KEY", "DEBUG", "DATABASE_URL", "REDIS_URL")
             and not k.startswith("ARMADA_")}

    def worker(**env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", str(ROOT / "infra" / "worker.sh")], capture_output=True, text=True,
                              timeout=60, env={**clean, "ARMADA_DATA_DIR": str(tmp_path), **env}, check=False)

    done = worker()  # the database named in manage.env is the one it checks
    assert done.returncode == 1 and f"(DATABASE_URL={nowhere})" in done.stderr, done.stderr
    done = worker(REDIS_URL="redis://127.0.0.1:6379/5")
    assert done.returncode == 1
    assert (f"the instance in {tmp_path} runs with its own REDIS_URL (in {tmp_path / 'manage.env'}), not the one "
            "given here") in done.stderr
    done = worker(REDIS_URL="redis://127.0.0.1:6379/14", ARMADA_SANDBOX_GALAXY_MEMORY_MB="1024")
    assert "ARMADA_SANDBOX_GALAXY_MEMORY_MB given here differs from the instance's" in done.stderr
    assert f"(DATABASE_URL={nowhere})" in done.stderr  # the same queue given: on to the database's check


def test_a_queue_given_to_a_worker_of_an_instance_on_the_default_is_refused(tmp_path):
    """A review: the check above read only the names in manage.env, and an instance started with
    no REDIS_URL wrote none (make up now writes the default too)."""
    (tmp_path / "bot-seed.key").write_text("5e" * 32)
    (tmp_path / "secret.key").write_text("s" * 50)
    (tmp_path / "manage.env").write_text(f"export ARMADA_DATA_DIR={tmp_path}\n")
    clean = {k: v for k, v in os.environ.items()
             if k not in ("SECRET_KEY", "ARMADA_BOT_SEED_KEY", "DEBUG", "DATABASE_URL", "REDIS_URL")
             and not k.startswith("ARMADA_")}
    done = subprocess.run(["bash", str(ROOT / "infra" / "worker.sh")], capture_output=True, text=True, timeout=60,
                          env={**clean, "ARMADA_DATA_DIR": str(tmp_path), "REDIS_URL": "redis://127.0.0.1:6379/5"},
                          check=False)
    assert done.returncode == 1
    assert f"the instance in {tmp_path} runs with the default REDIS_URL (none in {tmp_path / 'manage.env'})" \
        in done.stderr
