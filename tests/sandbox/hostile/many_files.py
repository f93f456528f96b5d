"""Opens files until the descriptor limit refuses; logs `FILES refused after <n> (<reason>)`."""
from _proto import err_name, log, play

held = []


def hoard():
    while len(held) < 100000:
        try:
            held.append(open("/dev/null", "rb"))  # noqa: SIM115
        except OSError as exc:
            log(f"FILES refused after {len(held)} ({err_name(exc)})")
            return
    log(f"FILES UNLIMITED: {len(held)}")


play("File Hoarder", on_orders=hoard)
