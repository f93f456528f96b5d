"""Remove bot containers left behind (a worker killed mid-match cannot run `close()`).

Every `DockerBot` container carries `armada.sandbox=bot` and `armada.created=<epoch s>`.
`sweep(max_age_s)` force-removes those older than `max_age_s`, which should exceed the
longest possible match, so containers of matches still running are never touched. A
container whose holder (the process whose lease of a slot made it: label `armada.holder`, a
holder file in the slot lock folder, `slots.holder_alive`) died goes at once, whatever slot its
successor holds now. A container of a sandbox slot (`armada.slot`, `armada.slots`: its number and lock folder) whose
slot nobody holds any more is an orphan at any age: its owner died or gave it up (a slot is
held from before its container is created until after it is removed), so it goes at once.
A warm container (`armada.warm`) of a slot still held waits for its bot as long as its
owner lives: it is left alone at any age.
Run it periodically (the platform's beat schedule) or by hand:
`python -m armada_sandbox sweep --max-age 3600`.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from docker.errors import APIError, NotFound

from armada_sandbox._containers import HOLDER_LABEL, SANDBOX_LABEL, WARM_LABEL
from armada_sandbox._engine import docker_client
from armada_sandbox.slots import SlotPool, holder_alive

#: Default age past which a bot container is surely orphaned (longest match plus margin).
DEFAULT_MAX_AGE_S = 3600.0


def labels_of(container: Any) -> dict[str, str]:
    """The labels of a container object or of an entry of the engine's container listing."""
    if isinstance(container, dict):
        return container.get("Labels") or {}
    return container.labels or {}


def container_age(container: Any, now: float) -> float | None:
    """Seconds since the container's `armada.created` label, None if the label is unusable."""
    raw = labels_of(container).get("armada.created", "")
    try:
        return now - float(raw)
    except ValueError:
        return None


def slot_state(container: Any) -> str:
    """"held" or "free" for a container of a sandbox slot (its lock taken briefly), else "none"."""
    labels = labels_of(container)
    raw, folder = labels.get("armada.slot", ""), labels.get("armada.slots", "")
    if not raw.isdigit() or not folder or not os.path.isdir(folder):
        return "none"
    lease = SlotPool(size=int(raw) + 1, cpus=[0], lock_dir=folder).try_slot(int(raw))
    if lease is None:
        return "held"
    lease.release()
    return "free"


def keep(container: Any, max_age_s: float, now: float) -> bool:
    """Is the container still someone's: not of a dead holder, and a held slot's warm one, or a
    young one of a held (or no) slot?"""
    holder = labels_of(container).get(HOLDER_LABEL, "")
    if holder and holder_alive(holder) is False:
        return False
    state = slot_state(container)
    if state == "free":
        return False
    if state == "held" and labels_of(container).get(WARM_LABEL) == "1":
        return True
    age = container_age(container, now)
    return age is not None and age <= max_age_s


def sweep(
    max_age_s: float = DEFAULT_MAX_AGE_S,
    *,
    client: Any = None,
    now: float | None = None,
    only: dict[str, str] | None = None,
) -> list[str]:
    """Force-remove sandbox containers older than `max_age_s`; return the ids removed.

    `only` narrows the sweep to containers that also carry these labels (e.g. one worker's).
    A container without a readable creation label counts as old (it cannot be ours to keep).
    """
    if max_age_s < 0:
        raise ValueError(f"max_age_s must be >= 0, got {max_age_s}")
    client = client or docker_client()
    now = time.time() if now is None else now
    removed: list[str] = []
    wanted = [f"{SANDBOX_LABEL}=bot"] + [f"{key}={value}" for key, value in (only or {}).items()]
    # The plain listing (no inspect per container): one removed meanwhile cannot fail the sweep.
    for entry in client.api.containers(all=True, filters={"label": wanted}):
        if keep(entry, max_age_s, now):
            continue
        try:
            client.api.remove_container(entry["Id"], force=True, v=True)
        except NotFound:
            continue
        except APIError as exc:
            print(f"sweeper: could not remove {entry['Id'][:12]}: {exc}", file=sys.stderr)
            continue
        removed.append(entry["Id"])
    return removed
