"""The seccomp profile of bot containers: an allow-list, everything else fails with EPERM.

It keeps what Docker's default profile allows a container without capabilities, minus
calls a Python bot never needs (docs/sandbox.md, "System calls"): io_uring (its queues
bypass seccomp altogether, and Docker 20.10's default still allows it), ptrace and
process_vm_*, userfaultfd, keyctl/add_key/request_key, bpf, perf_event_open, personality,
and all namespace and mount calls (unshare, setns, mount, umount2, pivot_root, chroot),
which the default only allows with CAP_SYS_ADMIN. `clone` is allowed only without
namespace flags; `clone3` answers ENOSYS so the C library falls back to `clone`. Sockets
are limited to AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK (the network itself is "none").
"""

from __future__ import annotations

import errno
import functools
import json
import platform
from typing import Any

#: System calls a bot may make, grouped by purpose (names the kernel lacks are ignored by runc).
ALLOWED: dict[str, tuple[str, ...]] = {
    "processes": (
        "execve", "execveat", "exit", "exit_group", "fork", "vfork", "wait4", "waitid", "kill",
        "tkill", "tgkill", "getpid", "getppid", "gettid", "getpgid", "getpgrp", "setpgid",
        "getsid", "setsid", "getpriority", "setpriority", "prctl", "arch_prctl", "set_tid_address",
        "set_robust_list", "get_robust_list", "rseq", "getrlimit", "setrlimit", "prlimit64",
        "getrusage", "times", "uname", "sysinfo", "umask", "pidfd_open", "pidfd_send_signal",
        "restart_syscall", "get_thread_area", "set_thread_area", "membarrier", "getcpu",
        "sched_yield", "sched_getaffinity", "sched_setaffinity", "sched_getparam",
        "sched_setparam", "sched_getscheduler", "sched_setscheduler", "sched_getattr",
        "sched_setattr", "sched_get_priority_max", "sched_get_priority_min",
        "sched_rr_get_interval", "capget",
    ),
    "identity": (
        "getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid", "getgroups",
        "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setgroups",
        "setfsuid", "setfsgid",
    ),
    "signals_and_time": (
        "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigsuspend", "rt_sigpending",
        "rt_sigtimedwait", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "sigaltstack", "pause",
        "alarm", "nanosleep", "clock_nanosleep", "clock_gettime", "clock_getres", "gettimeofday",
        "time", "getitimer", "setitimer", "timer_create", "timer_settime", "timer_gettime",
        "timer_getoverrun", "timer_delete", "timerfd_create", "timerfd_settime", "timerfd_gettime",
    ),
    "memory": (
        "brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "mincore", "msync", "mlock",
        "mlock2", "munlock", "mlockall", "munlockall", "remap_file_pages", "memfd_create",
        "futex", "futex_waitv",
    ),
    "files": (
        "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2",
        "pwritev2", "open", "openat", "openat2", "creat", "close", "close_range", "dup", "dup2",
        "dup3", "lseek", "fcntl", "ioctl", "flock", "fsync", "fdatasync", "sync", "syncfs",
        "sync_file_range", "fadvise64", "readahead", "fallocate", "truncate", "ftruncate",
        "stat", "fstat", "lstat", "newfstatat", "statx", "statfs", "fstatfs", "access",
        "faccessat", "faccessat2", "getcwd", "chdir", "fchdir", "getdents", "getdents64",
        "mkdir", "mkdirat", "rmdir", "rename", "renameat", "renameat2", "link", "linkat",
        "unlink", "unlinkat", "symlink", "symlinkat", "readlink", "readlinkat", "chmod",
        "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat", "utime",
        "utimes", "utimensat", "futimesat", "getxattr", "lgetxattr", "fgetxattr", "listxattr",
        "llistxattr", "flistxattr", "setxattr", "lsetxattr", "fsetxattr", "removexattr",
        "lremovexattr", "fremovexattr", "copy_file_range", "sendfile", "splice", "tee",
        "vmsplice", "pipe", "pipe2", "inotify_init", "inotify_init1", "inotify_add_watch",
        "inotify_rm_watch",
    ),
    "waiting": (
        "select", "pselect6", "poll", "ppoll", "epoll_create", "epoll_create1", "epoll_ctl",
        "epoll_wait", "epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2", "getrandom",
    ),
    "ipc": (
        "socketpair", "bind", "listen", "accept", "accept4", "connect", "shutdown", "getsockname",
        "getpeername", "getsockopt", "setsockopt", "sendto", "recvfrom", "sendmsg", "recvmsg",
        "sendmmsg", "recvmmsg", "shmget", "shmat", "shmdt", "shmctl", "semget", "semop",
        "semtimedop", "semctl", "msgget", "msgsnd", "msgrcv", "msgctl", "mq_open", "mq_unlink",
        "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
    ),
}

#: Calls deliberately absent (they fail with EPERM); the tests and docs/sandbox.md list them.
DENIED_ON_PURPOSE: tuple[str, ...] = (
    "io_uring_setup", "io_uring_enter", "io_uring_register", "ptrace", "process_vm_readv",
    "process_vm_writev", "userfaultfd", "keyctl", "add_key", "request_key", "bpf",
    "perf_event_open", "personality", "unshare", "setns", "mount", "umount2", "pivot_root",
    "chroot", "fsopen", "fsmount", "move_mount", "open_tree", "mknod", "mknodat", "kcmp",
    "name_to_handle_at", "open_by_handle_at", "fanotify_init", "syslog", "reboot", "kexec_load",
    "init_module", "finit_module", "delete_module", "swapon", "swapoff", "acct", "quotactl",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname",
    "iopl", "ioperm", "lookup_dcookie", "nfsservctl", "vhangup", "mbind", "set_mempolicy",
    "move_pages", "migrate_pages", "modify_ldt", "pidfd_getfd", "process_madvise", "landlock_create_ruleset",
)

#: clone(2) flags that create namespaces; clone is allowed only with all of them clear.
CLONE_NAMESPACE_FLAGS = 0x7E020000
#: Socket families a bot may create: AF_UNIX, AF_INET, AF_INET6, AF_NETLINK.
SOCKET_FAMILIES = (1, 2, 10, 16)

_ARCHES = {"x86_64": "SCMP_ARCH_X86_64", "aarch64": "SCMP_ARCH_AARCH64", "arm64": "SCMP_ARCH_AARCH64"}


def allowed_names() -> list[str]:
    """Every unconditionally allowed call, sorted."""
    return sorted({name for group in ALLOWED.values() for name in group})


@functools.cache
def profile(machine: str | None = None) -> dict[str, Any]:
    """The profile as Docker's JSON structure (native architecture only: no 32-bit entry points)."""
    arch = _ARCHES.get((machine or platform.machine()).lower(), "SCMP_ARCH_X86_64")
    overlap = set(allowed_names()) & set(DENIED_ON_PURPOSE)
    if overlap:
        raise AssertionError(f"seccomp lists disagree: {sorted(overlap)}")
    rules: list[dict[str, Any]] = [{"names": allowed_names(), "action": "SCMP_ACT_ALLOW"}]
    rules.append({
        "names": ["clone"],
        "action": "SCMP_ACT_ALLOW",
        "args": [{"index": 0, "value": CLONE_NAMESPACE_FLAGS, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}],
    })
    rules.append({"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": errno.ENOSYS})
    for family in SOCKET_FAMILIES:
        rules.append({
            "names": ["socket"],
            "action": "SCMP_ACT_ALLOW",
            "args": [{"index": 0, "value": family, "valueTwo": 0, "op": "SCMP_CMP_EQ"}],
        })
    return {"defaultAction": "SCMP_ACT_ERRNO", "architectures": [arch], "syscalls": rules}


@functools.cache
def profile_json() -> str:
    """The profile as the compact JSON text Docker's `SecurityOpt` `seccomp=...` expects."""
    return json.dumps(profile(), separators=(",", ":"))
