"""`python -m armada_sandbox COMMAND`: the sandbox's commands for operators (docs/sandbox.md).

- `check [--image TAG]`: is the sandbox usable here (`check_ready()`); exit 1 with the reason if not.
- `sweep [--max-age S]`: remove the containers and work folders dead workers left behind
  (`sweep()`, `sweep_folders()`).
- `seccomp`: print the bots' system-call profile (for `docker run --security-opt seccomp=FILE`).
- `stack [--write]`: the bot image's Python and ML stack versions (`python3 -m armada.stack` in
  it); `--write` puts them into the SDK's `armada/stack.py` (run it after changing the image).
- `concurrency [--purpose match|validation]`: the worker's default concurrency here, by cores
  and by memory (`_capacity.default_concurrency()`; `make up` and the worker image use it).
- `slots`: the host's sandbox slots nobody holds now, as `FREE FREE_FOR_MATCHES SIZE` (`make up`
  and `make worker` check them before starting workers: `infra/lib.sh`, `check_slots`).

One module for the commands, imported by nobody, so `python -m` never runs a module the
package has already imported.
"""

from __future__ import annotations

import argparse
import json
import sys

from armada_sandbox import BOT_IMAGE, SandboxUnavailable, check_ready, sweep, sweep_folders
from armada_sandbox._capacity import default_concurrency
from armada_sandbox._image import image_versions, write_server_versions
from armada_sandbox._seccomp import profile
from armada_sandbox.slots import default_pool
from armada_sandbox.sweeper import DEFAULT_MAX_AGE_S


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m armada_sandbox", description="Armada's bot sandbox.")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = commands.add_parser("check", help="does the Docker engine answer and hold the bot image")
    check.add_argument("--image", default=BOT_IMAGE, help=f"the bot image's tag (default {BOT_IMAGE})")
    swept = commands.add_parser("sweep", help="remove the bot containers and work folders of dead workers "
                                   "(and containers older than a match can last)")
    swept.add_argument("--max-age", type=float, default=DEFAULT_MAX_AGE_S,
                       help=f"seconds (default {DEFAULT_MAX_AGE_S:.0f})")
    commands.add_parser("seccomp", help="print the bots' seccomp profile (JSON)")
    stack = commands.add_parser("stack", help="the bot image's Python and ML library versions (JSON)")
    stack.add_argument("--image", default=BOT_IMAGE, help=f"the bot image's tag (default {BOT_IMAGE})")
    stack.add_argument("--write", action="store_true", help="write them into the SDK's armada/stack.py")
    concurrency = commands.add_parser("concurrency", help="the worker's default concurrency here (cores and memory)")
    concurrency.add_argument("--purpose", choices=("match", "validation"), default="match")
    commands.add_parser("slots", help="the sandbox slots nobody holds now: FREE FREE_FOR_MATCHES SIZE")
    return top


def main(argv: list[str] | None = None) -> int:
    """Run one command; 0 when done, 1 when the sandbox is unavailable (one line on stderr), 2 for usage."""
    args = parser().parse_args(argv)
    if args.command == "seccomp":
        print(json.dumps(profile(), indent=1))
        return 0
    if args.command == "stack":
        versions = image_versions(tag=args.image)
        print(json.dumps(versions))
        if args.write:
            changed = write_server_versions(versions)
            print("sdk/armada/stack.py " + ("updated: rebuild the image (its SDK changed)" if changed else "unchanged"),
                  file=sys.stderr)
        return 0
    if args.command == "concurrency":
        print(default_concurrency(args.purpose))
        return 0
    if args.command == "slots":
        pool = default_pool()
        print(len(pool.free("validation")), len(pool.free("match")), pool.size)
        return 0
    try:
        if args.command == "check":
            print(check_ready(args.image, on_stale=lambda problem: print(f"warning: {problem}", file=sys.stderr)))
        else:
            print(f"removed {len(sweep(args.max_age))} bot container(s) and {len(sweep_folders())} work folder(s)")
    except SandboxUnavailable as exc:
        print(f"armada_sandbox: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
