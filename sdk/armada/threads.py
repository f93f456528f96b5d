"""onnxruntime's thread pools held to the bot's CPU share, as OpenMP, MKL and OpenBLAS hold theirs
(`armada.referee.environment.THREAD_VARIABLES`; docs/bots-environment.md, "Threads").

onnxruntime reads no such variable: a session whose options leave the thread counts at 0 (its
default) starts a pool as large as the host's cores, not the container's one, and pins its threads
to cores the container may not use. On a large host a bot's first `InferenceSession` would try to
start dozens of threads in a sandbox that allows 64 processes and threads in all. The bot image
runs `install()` at every Python start (a `.pth` file, infra/images/bot/Dockerfile): the first
`import onnxruntime` then gets an `InferenceSession` that fills in a count left at 0, with
OMP_NUM_THREADS intra-op threads and one inter-op thread. A count the bot sets is its own.
Standard library only, and importing nothing of `armada`: the image holds a copy of this file as
the top-level module `_armada_threads`, so a bot's own `armada.py` still shadows the SDK.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from importlib.util import find_spec
from types import ModuleType
from typing import Any

#: The library held to the share.
MODULE = "onnxruntime"


def share() -> int:
    """The bot's CPU share in whole cores: OMP_NUM_THREADS (1 when unset or not a number)."""
    try:
        return max(1, int(os.environ.get("OMP_NUM_THREADS", "1")))
    except ValueError:
        return 1


def pin(ort: Any) -> None:
    """Make `ort.InferenceSession` fill in the thread counts its options leave at 0 (once)."""
    session = ort.InferenceSession
    if getattr(session, "_armada_threads", False):
        return
    original = session.__init__

    def __init__(self: Any, path_or_bytes: Any, sess_options: Any = None, *args: Any, **kwargs: Any) -> None:
        options = sess_options if sess_options is not None else ort.SessionOptions()
        if options.intra_op_num_threads == 0:
            options.intra_op_num_threads = share()
        if options.inter_op_num_threads == 0:
            options.inter_op_num_threads = 1
        original(self, path_or_bytes, options, *args, **kwargs)

    session.__init__ = __init__
    session._armada_threads = True


class _Finder(MetaPathFinder):
    """Finds onnxruntime as Python would, and pins it once it is loaded. It stays until then: a
    search that imports nothing (`importlib.util.find_spec`, as `torch.compile` makes) must not
    use it up."""

    searching = False

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if name != MODULE or self.searching:
            return None
        self.searching = True  # the search below is Python's own
        try:
            spec = find_spec(name)
        finally:
            self.searching = False
        if spec is not None and spec.loader is not None:
            spec.loader = _Pinning(spec.loader)
        return spec


class _Pinning(Loader):
    """A module's own loader, with `pin` once the module has run."""

    def __init__(self, loader: Loader) -> None:
        self.loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        pin(module)
        sys.meta_path[:] = [finder for finder in sys.meta_path if not isinstance(finder, _Finder)]

    def __getattr__(self, name: str) -> Any:  # the rest of the loader's own (its resources, its files)
        return getattr(self.loader, name)


def install() -> None:
    """Pin onnxruntime when it is imported (now, if it was already)."""
    if MODULE in sys.modules:
        pin(sys.modules[MODULE])
    elif not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
