"""Looks at what the host gives away (issue 12): RAM, CPUs, load, other bots' CPU use, host paths.

Logs `HOST <file>: <n> bytes` for the host-wide /proc files (0 once masked), `MOUNT <where>
<host path>` for its code and FIFO folders, and `CPUS <affinity>`.
"""
import os

from _proto import log, play

FILES = ["/proc/meminfo", "/proc/loadavg", "/proc/stat", "/proc/cpuinfo", "/proc/uptime", "/proc/vmstat",
         "/proc/diskstats", "/proc/schedstat", "/proc/interrupts"]


def look():
    for path in FILES:
        try:
            with open(path, "rb") as f:
                log(f"HOST {path}: {len(f.read())} bytes")
        except OSError as exc:
            log(f"HOST {path}: unreadable ({exc.__class__.__name__})")
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            if fields[4] in ("/bot", "/io"):
                log(f"MOUNT {fields[4]} {fields[3]}")
    log(f"CPUS {sorted(os.sched_getaffinity(0))}")


play("HostView", on_init=look)
