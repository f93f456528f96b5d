"""Answers each `work` line with the wall seconds a fixed CPU-bound job took; `limits` with
how many per-user kernel objects it could create (inotify instances, POSIX timers)."""
import ctypes
import os
import sys
import time


def work():
    began = time.perf_counter()
    total = 0
    for i in range(400_000):
        total += i * i
    return time.perf_counter() - began


def count_inotify():
    fds = []
    libc = ctypes.CDLL(None, use_errno=True)
    while len(fds) < 10_000:
        fd = libc.inotify_init()
        if fd < 0:
            break
        fds.append(fd)
    for fd in fds:
        os.close(fd)
    return len(fds)


def count_timers():
    libc = ctypes.CDLL(None, use_errno=True)
    ids = []
    while len(ids) < 100_000:
        timer = ctypes.c_void_p()
        if libc.timer_create(1, None, ctypes.byref(timer)) != 0:  # CLOCK_MONOTONIC, SIGALRM
            break
        ids.append(timer)
    for timer in ids:
        libc.timer_delete(timer)
    return len(ids)


for line in sys.stdin:
    word = line.strip()
    if word == "work":
        print(f"{work():.6f}", flush=True)
    elif word == "limits":
        print(f"{count_inotify()} {count_timers()}", flush=True)
    elif word == "exhaust":  # take them all and keep them
        libc = ctypes.CDLL(None, use_errno=True)
        held = [libc.inotify_init() for _ in range(10_000)]
        timers = []
        while len(timers) < 100_000:
            timer = ctypes.c_void_p()
            if libc.timer_create(1, None, ctypes.byref(timer)) != 0:
                break
            timers.append(timer)
        print(f"{sum(1 for fd in held if fd >= 0)} {len(timers)}", flush=True)
