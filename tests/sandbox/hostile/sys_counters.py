"""Looks for the host's counters that /proc's masked files hide, in /sys and /proc/sys instead: each
CPU's idle time (how busy the opponent's core is, as /proc/stat showed), the RAM and the memory
counters of each NUMA node (/proc/meminfo and /proc/vmstat again), each interrupt's count per CPU
(/proc/interrupts again), the host's open files, inodes and dentries, each disk's and partition's
reads and writes (/proc/diskstats again) and zram's memory use.

Logs `COUNTER <file>: <n> bytes` for every such file it finds (0 once masked) and `COUNTERS <n>`.
"""
import glob

from _proto import log, play

PATTERNS = ["/sys/devices/system/cpu/cpu*/cpuidle/state*/time", "/sys/devices/system/cpu/cpu*/cpuidle/state*/usage",
            "/sys/devices/system/cpu/cpu*/cpufreq/stats/time_in_state", "/sys/devices/system/node/node*/meminfo",
            "/sys/devices/system/node/node*/vmstat", "/sys/devices/system/node/node*/numastat",
            "/sys/kernel/irq/*/per_cpu_count", "/proc/sys/fs/file-nr", "/proc/sys/fs/inode-nr",
            "/proc/sys/fs/dentry-state", "/sys/block/*/stat", "/sys/block/*/inflight", "/sys/block/*/*/stat",
            "/sys/block/*/mm_stat", "/sys/class/block/*/stat"]


def look():
    found = 0
    for pattern in PATTERNS:
        for path in sorted(glob.glob(pattern)):
            found += 1
            try:
                with open(path, "rb") as f:
                    log(f"COUNTER {path}: {len(f.read())} bytes")
            except OSError as exc:
                log(f"COUNTER {path}: unreadable ({exc.__class__.__name__})")
    log(f"COUNTERS {found}")


play("SysCounters", on_init=look)
