"""Writes to /proc and /sys knobs; logs `KNOB <path>: denied (<reason>)` or `KNOB <path>: CHANGED`."""
from _proto import err_name, log, play

KNOBS = {
    "/proc/sys/kernel/hostname": b"pwned",
    "/proc/sysrq-trigger": b"h",
    "/proc/sys/vm/drop_caches": b"3",
    "/proc/self/oom_score_adj": b"-1000",
    "/sys/kernel/mm/transparent_hugepage/enabled": b"never",
    "/sys/fs/cgroup/memory/memory.limit_in_bytes": b"-1",
    "/sys/fs/cgroup/pids/pids.max": b"max",
    "/sys/fs/cgroup/memory.max": b"max",
    "/proc/sys/net/ipv4/ip_forward": b"1",
}


def poke():
    for path, value in KNOBS.items():
        try:
            with open(path, "wb") as f:
                f.write(value)
        except OSError as exc:
            log(f"KNOB {path}: denied ({err_name(exc)})")
        else:
            log(f"KNOB {path}: CHANGED")


play("Knob Turner", on_orders=poke)
