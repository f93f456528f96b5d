"""Looks for secrets and tries to write outside /tmp.

Logs `READ <path>: denied (<reason>)` / `READ <path>: READABLE`, the same for WRITE, and the
environment variable names as `ENV a,b,c`.
"""
import os

from _proto import err_name, log, play

READS = ["/etc/shadow", "/root/.ssh/id_rsa", "/root/.bash_history", "/var/run/docker.sock",
         "/work/main/pyproject.toml", "/etc/docker/daemon.json", "/proc/kcore", "/dev/mem",
         "/sys/firmware/dmi/tables/DMI", "/proc/1/root/etc/shadow"]
WRITES = ["/bot/evil.py", "/etc/evil", "/evil", "/usr/lib/python3/dist-packages/evil.py", "/io/evil",
          "/var/tmp/evil", "/home/evil", "/run/evil", "/dev/evil"]


def snoop():
    for path in READS:
        try:
            with open(path, "rb") as f:
                f.read(16)
        except OSError as exc:
            log(f"READ {path}: denied ({err_name(exc)})")
        else:
            log(f"READ {path}: READABLE")
    for path in WRITES:
        try:
            with open(path, "wb") as f:
                f.write(b"x")
        except OSError as exc:
            log(f"WRITE {path}: denied ({err_name(exc)})")
        else:
            log(f"WRITE {path}: WRITTEN")
    try:
        with open("/tmp/ok", "wb") as f:
            f.write(b"fine")
        log("WRITE /tmp/ok: allowed")
    except OSError as exc:
        log(f"WRITE /tmp/ok: failed ({err_name(exc)})")
    log(f"USER uid={os.getuid()} gid={os.getgid()} groups={os.getgroups()}")
    log("ENV " + ",".join(sorted(os.environ)))


play("Snoop", on_orders=snoop)
