"""Load a starter bot's class in this process (for armada.run with in-process bots)."""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

from armada.botspec import starter_file


def starter_class(game: str, name: str) -> Any:
    """The `Bot` class of starter `name` of `game` (its file is named like a stdlib module at times)."""
    module_name = f"_armada_starter_{game}_{name}"
    if module_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(module_name, starter_file(name, game))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    return sys.modules[module_name].Bot
