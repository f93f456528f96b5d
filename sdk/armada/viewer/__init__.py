"""The HTML replay viewer (docs/viewer.md): static JavaScript and CSS files, and the offline page.

The same files serve the site (as static files, loaded in the order of `SCRIPTS`) and
`armada replay FILE --html`, which inlines them with the replay into one HTML file that works
from file:// with the network off.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from armada.replay import seat_label
from armada.safefile import write_bytes_atomic

VIEWER_DIR = Path(__file__).resolve().parent
#: The viewer's scripts, in the order a page loads them (plain scripts, no build step, no modules).
SCRIPTS: tuple[str, ...] = (
    "util.js", "load.js", "player.js", "chart.js", "timing.js", "galaxy-model.js", "galaxy-labels.js",
    "galaxy-board.js", "galaxy-panel.js", "galaxy.js", "mothership.js", "debug.js", "viewer.js",
)
STYLES: tuple[str, ...] = ("viewer.css",)
#: The id of the <script type="application/json"> block holding the replay in the offline page.
JSON_ID = "armada-replay"

_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _read(name: str) -> str:
    return (VIEWER_DIR / name).read_text(encoding="utf-8")


def script_source() -> str:
    """All the viewer's scripts as one text, in load order."""
    text = "\n".join(_read(name) for name in SCRIPTS)
    if "</script" in text.lower():  # would end the inline <script> early
        raise ValueError("viewer scripts must not contain '</script'")
    return text


def json_for_script(text: str) -> str:
    """JSON text made safe inside <script type="application/json">: no '<', '>' or '&' (so no
    '</script>' or '<!--'), and no U+2028/U+2029; JSON.parse reads the escapes back unchanged."""
    return "".join(_JSON_ESCAPES.get(ch, ch) for ch in text)


def _title(replay: Any) -> str:
    if not isinstance(replay, dict):
        return "Armada replay"
    names = [seat_label(s) for s in replay.get("seats", []) if isinstance(s, dict)]
    return f"Armada replay: {replay.get('game', '?')}, " + " vs ".join(names)


#: The offline page's own heading (its title; the viewer's headings are h3) and a hidden h2 above the
#: viewer, so a screen reader's outline of the page goes h1, h2, h3 as on the site's match page.
_OFFLINE_CSS = (".av-offline-title { margin: 0 0 8px; font: 600 15px system-ui, sans-serif; color: #e6edf3; }\n"
                ".av-offline-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; "
                "clip-path: inset(50%); white-space: nowrap; }\n")


def offline_html_from_text(replay_text: str, title: str = "Armada replay") -> str:
    """The offline page for replay JSON text as it is (the viewer reports a broken one)."""
    return (
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{html.escape(title)}</title>\n"
        f"<style>\nbody {{ margin: 0; padding: 12px; background: #010409; }}\n{_OFFLINE_CSS}"
        f"{_read('viewer.css')}</style>\n"
        "</head>\n<body>\n"
        f"<h1 class=\"av-offline-title\">{html.escape(title)}</h1>\n<h2 class=\"av-offline-hidden\">Replay</h2>\n"
        f"<div class=\"armada-viewer\" data-armada-json=\"{JSON_ID}\"></div>\n"
        f"<script type=\"application/json\" id=\"{JSON_ID}\">{json_for_script(replay_text)}</script>\n"
        f"<script>\n{script_source()}</script>\n"
        "</body>\n</html>\n"
    )


def offline_html(replay: dict[str, Any]) -> str:
    """One self-contained HTML page showing `replay` (viewer and replay inlined, nothing fetched)."""
    text = json.dumps(replay, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return offline_html_from_text(text, _title(replay))


def default_html_path(replay_path: str | Path) -> Path:
    """NAME.html beside the replay NAME.json.gz (or NAME.json)."""
    path = Path(replay_path)
    name = path.name
    for suffix in (".json.gz", ".gz", ".json"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return path.with_name(name + ".html")


def write_offline_html(replay: dict[str, Any], out: str | Path) -> Path:
    """Write the offline page to `out`; returns its path."""
    target = Path(out)
    write_bytes_atomic(target, offline_html(replay).encode("utf-8"))
    return target
