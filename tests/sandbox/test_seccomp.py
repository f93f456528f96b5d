"""The seccomp profile: an allow-list without the calls a bot never needs."""

from __future__ import annotations

import json

from armada_sandbox import _seccomp as seccomp


def rules_for(profile, name):
    return [rule for rule in profile["syscalls"] if name in rule["names"]]


def test_default_is_deny_and_dangerous_calls_are_absent():
    profile = seccomp.profile("x86_64")
    assert profile["defaultAction"] == "SCMP_ACT_ERRNO"
    assert profile["architectures"] == ["SCMP_ARCH_X86_64"]  # no 32-bit entry points
    for name in ("io_uring_setup", "io_uring_enter", "io_uring_register", "unshare", "setns", "mount",
                 "keyctl", "bpf", "ptrace", "perf_event_open", "userfaultfd", "process_vm_readv"):
        assert name in seccomp.DENIED_ON_PURPOSE
        assert rules_for(profile, name) == [], name


def test_what_python_needs_is_allowed():
    allowed = set(seccomp.allowed_names())
    for name in ("read", "write", "openat", "mmap", "futex", "clock_gettime", "epoll_wait", "getrandom",
                 "rt_sigaction", "execve", "wait4", "arch_prctl", "prlimit64", "statx", "pipe2"):
        assert name in allowed, name


def test_clone_only_without_namespace_flags_and_clone3_falls_back():
    profile = seccomp.profile("x86_64")
    (clone,) = rules_for(profile, "clone")
    (arg,) = clone["args"]
    assert (arg["op"], arg["value"], arg["valueTwo"]) == ("SCMP_CMP_MASKED_EQ", 0x7E020000, 0)
    (clone3,) = rules_for(profile, "clone3")
    assert (clone3["action"], clone3["errnoRet"]) == ("SCMP_ACT_ERRNO", 38)


def test_sockets_limited_to_four_families():
    families = sorted(rule["args"][0]["value"] for rule in rules_for(seccomp.profile("x86_64"), "socket"))
    assert families == [1, 2, 10, 16]


def test_json_round_trip_and_arch_choice():
    assert json.loads(seccomp.profile_json())["defaultAction"] == "SCMP_ACT_ERRNO"
    assert seccomp.profile("aarch64")["architectures"] == ["SCMP_ARCH_AARCH64"]
