"""Calls what the seccomp profile and dropped capabilities must refuse; logs `SYSCALL <name>: <errno>`.

A call that succeeds logs `SYSCALL <name>: ALLOWED`.
"""
import ctypes
import os
import platform

from _proto import log, play

NUMBERS = {
    "x86_64": {"unshare": 272, "setns": 308, "mount": 165, "io_uring_setup": 425, "io_uring_enter": 426,
               "io_uring_register": 427, "keyctl": 250, "bpf": 321, "ptrace": 101,
               "perf_event_open": 298, "userfaultfd": 323, "process_vm_readv": 310, "chroot": 161,
               "pivot_root": 155, "personality": 135},
    "aarch64": {"unshare": 97, "setns": 268, "mount": 40, "io_uring_setup": 425, "io_uring_enter": 426,
                "io_uring_register": 427, "keyctl": 219, "bpf": 280, "ptrace": 117,
                "perf_event_open": 241, "userfaultfd": 282, "process_vm_readv": 270, "chroot": 51,
                "pivot_root": 41, "personality": 92},
}
CLONE_NEWUSER = 0x10000000
CLONE_NEWNS = 0x00020000


def attempt():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    nums = NUMBERS[platform.machine()]
    params = ctypes.create_string_buffer(128)
    args = {
        "unshare": (CLONE_NEWUSER | CLONE_NEWNS,),
        "setns": (0, 0),
        "mount": (b"none", b"/tmp", b"tmpfs", 0, 0),
        "io_uring_setup": (8, params),
        "io_uring_enter": (0, 1, 0, 0, 0, 0),
        "io_uring_register": (0, 0, 0, 0),
        "keyctl": (0, -3, 0),  # KEYCTL_GET_KEYRING_ID of the session keyring
        "bpf": (0, params, 72),
        "ptrace": (16, 1, 0, 0),  # PTRACE_ATTACH to pid 1
        "perf_event_open": (params, 0, -1, -1, 0),
        "userfaultfd": (0,),
        "process_vm_readv": (1, 0, 0, 0, 0, 0),
        "chroot": (b"/tmp",),
        "pivot_root": (b"/tmp", b"/tmp"),
        "personality": (0x0040000,),  # ADDR_NO_RANDOMIZE
    }
    for name, number in nums.items():
        ctypes.set_errno(0)
        result = libc.syscall(number, *args[name])
        if result == -1:
            log(f"SYSCALL {name}: {os.strerror(ctypes.get_errno())} (errno {ctypes.get_errno()})")
        else:
            log(f"SYSCALL {name}: ALLOWED (returned {result})")


play("Syscaller", on_orders=attempt)
