"""What the browser tests compute from the replay data themselves, independently of the viewer."""

from __future__ import annotations

import base64
from typing import Any

#: Pixel statistics of a PNG, computed in a blank page (the image comes as a data: URL, no network).
PIXELS_JS = """async (b64) => {
  const img = new Image();
  img.src = "data:image/png;base64," + b64;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = img.width; canvas.height = img.height;
  const ctx = canvas.getContext("2d");
  ctx.drawImage(img, 0, 0);
  const d = ctx.getImageData(0, 0, img.width, img.height).data;
  const near = (i, [r, g, b], tol) => Math.abs(d[i] - r) + Math.abs(d[i + 1] - g) + Math.abs(d[i + 2] - b) <= tol;
  const bg = [d[0], d[1], d[2]];
  const colours = new Set();
  let background = 0, seat1 = 0, seat2 = 0;
  for (let i = 0; i < d.length; i += 4) {
    colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
    if (near(i, bg, 12)) background++;
    if (near(i, [0x5a, 0xa2, 0xff], 30)) seat1++;
    if (near(i, [0xff, 0x7a, 0x5a], 30)) seat2++;
  }
  return {pixels: d.length / 4, colours: colours.size, background, seat1, seat2};
}"""


def pixel_stats(page: Any, png: bytes) -> dict[str, int]:
    blank = page.context.new_page()
    try:
        return blank.evaluate(PIXELS_JS, base64.b64encode(png).decode())  # type: ignore[no-any-return]
    finally:
        blank.close()


def galaxy_frames(replay: dict[str, Any]) -> list[dict[str, Any]]:
    """The recorded frames, initial first (what `armada replay --turn N` shows)."""
    return [replay["initial"]] + [s["frame"] for s in replay["steps"] if s.get("frame")]


def turn_events(replay: dict[str, Any], turn: int) -> list[dict[str, Any]]:
    return [e for s in replay["steps"] if s.get("turn") == turn for e in s["events"]]


def knowledge(replay: dict[str, Any], turn: int, seat: int) -> dict[str, Any]:
    """What GX-19 lets `seat` know after `turn`: own planets' contents, its probe intel of that turn,
    its own fleets in flight, the battles its forces fought, the public owners."""
    frame = next(f for f in galaxy_frames(replay) if f["turn"] == turn)
    events = turn_events(replay, turn)
    intel = {i["planet"]: i for e in events if e["type"] == "probes" and e["seat"] == seat for i in e["intel"]}
    return {
        "owners": {p["id"]: p["owner"] for p in frame["planets"]},
        "own": {p["id"]: p for p in frame["planets"] if p["owner"] == seat},
        "intel": intel,
        "fleets": {f["id"] for f in frame["fleets"] if f["owner"] == seat},
        "battles": {e["planet"] for e in events if e["type"] == "battle" and seat in e["seats"]},
    }


def fogged_copy(replay: dict[str, Any], seat: int) -> dict[str, Any]:
    """The replay with everything `seat` could not know changed or removed (GX-19): foreign planets'
    contents, the other seat's fleets, launches, arrivals, probes, production, its MLE, battles `seat`
    took no part in, neutral growth, the other seat's answers. A fog view must not change at all."""
    import copy

    other = 3 - seat
    r = copy.deepcopy(replay)

    def frame(f: dict[str, Any]) -> None:
        for p in f["planets"]:
            if p["owner"] != seat:
                p["battleships"] += 3
                p["cruisers"] += 5
                p["launchers"] += 7
                p["hold"] += 1
                p["production"] = {k: v + 1 for k, v in p["production"].items()}
        f["fleets"] = [x for x in f["fleets"] if x["owner"] == seat]
        f["mle"][str(other)] += 1000
        if f.get("result"):
            f["result"]["scores"]["mle"][str(other)] += 1000

    frame(r["initial"])
    for step in r["steps"]:
        step["answers"][str(other)] = {}
        if step.get("frame"):
            frame(step["frame"])
        kept = []
        for e in step["events"]:
            kind = e["type"]
            if kind in ("launch",) and e["fleet"]["owner"] == other:
                continue
            if kind == "arrival" and e["owner"] == other:
                continue
            if kind in ("probes", "warnings") and e["seat"] == other:
                e = {**e, "targets": [], "intel": [], "warnings": ["changed"]}
            if kind == "production":
                e = {**e, "planets": [p for p in e["planets"] if p[1] == seat]}
            if kind == "growth":
                e = {**e, "draws": [d + 1 for d in e["draws"]], "planets": [[p, g + 1] for p, g in e["planets"]]}
            if kind == "battle" and seat not in e["seats"]:
                for side in e["sides"]:
                    side["before"]["launchers"] += 1
                    side["after"]["launchers"] += 1
            kept.append(e)
        step["events"] = kept
    if r["result"].get("scores", {}).get("mle"):
        r["result"]["scores"]["mle"][str(other)] += 1000
    return r


#: The fleet labels of the Galaxy board that overlap a planet's disc, another label or the board's edge
#: (boxes in the board's own units, from getBBox), and how many labels there are.
LABEL_OVERLAPS_JS = """() => {
  const svg = document.querySelector('.av-board');
  const size = svg.viewBox.baseVal;
  const discs = [...svg.querySelectorAll('.av-disc')].map((c) => ({x: c.cx.baseVal.value, y: c.cy.baseVal.value,
    r: c.r.baseVal.value}));
  const boxes = [...svg.querySelectorAll('.av-fleet-label')].map((t) => {
    const b = t.getBBox();
    return {x0: b.x, y0: b.y, x1: b.x + b.width, y1: b.y + b.height, text: t.textContent};
  });
  const far = (b, x, y) => Math.hypot(Math.max(b.x0 - x, 0, x - b.x1), Math.max(b.y0 - y, 0, y - b.y1));
  const bad = [];
  boxes.forEach((b, i) => {
    if (!(b.x1 > b.x0 && b.y1 > b.y0)) bad.push('empty box: ' + b.text);
    if (b.x0 < 0 || b.y0 < 0 || b.x1 > size.width || b.y1 > size.height) bad.push('edge: ' + b.text);
    for (const d of discs) if (far(b, d.x, d.y) < d.r) bad.push('planet: ' + b.text);
    for (const c of boxes.slice(i + 1)) {
      if (b.x0 < c.x1 && c.x0 < b.x1 && b.y0 < c.y1 && c.y0 < b.y1) bad.push('label: ' + b.text + ' / ' + c.text);
    }
  });
  return {labels: boxes.length, bad};
}"""
