/* Armada replay viewer, Galaxy: where fleet labels go. Each label takes the free place nearest its
 * fleet: never over a planet, another label or the board's edge (over another fleet's marker only
 * when nothing else is free). The free places are around the fleet and, further away, the lanes
 * between the rows of planets and along the edges; a label away from its fleet gets a leader line. */
(function (AV) {
  "use strict";

  const BOARD = 400;
  const EDGE = 1; // keep this far inside the board
  const GAP = 1.5; // between two labels
  const NEAR = [8, 12, 17, 23, 30, 38, 48, 60];
  const MARKER_R = 9;

  function overlaps(a, b, pad) {
    return a.x0 < b.x1 + pad && b.x0 < a.x1 + pad && a.y0 < b.y1 + pad && b.y0 < a.y1 + pad;
  }

  /** Distance from point (x, y) to box b (0 inside). */
  function distance(b, x, y) {
    const dx = Math.max(b.x0 - x, 0, x - b.x1);
    const dy = Math.max(b.y0 - y, 0, y - b.y1);
    return Math.hypot(dx, dy);
  }

  function box(x0, y0, w, h) {
    return { x0, y0, x1: x0 + w, y1: y0 + h };
  }

  /** The boxes a label of w x h for a fleet at (x, y) may take, nearest first. */
  function candidates(x, y, w, h, lanes) {
    const out = [];
    for (const d of NEAR) {
      out.push(box(x + d, y - h / 2, w, h), box(x - d - w, y - h / 2, w, h),
        box(x - w / 2, y - d - h, w, h), box(x - w / 2, y + d, w, h),
        box(x + d * 0.7, y - d * 0.7 - h, w, h), box(x - d * 0.7 - w, y - d * 0.7 - h, w, h),
        box(x + d * 0.7, y + d * 0.7, w, h), box(x - d * 0.7 - w, y + d * 0.7, w, h));
    }
    for (const top of lanes.rows(h)) {
      for (let dx = -BOARD; dx <= BOARD; dx += 4) out.push(box(x + dx - w / 2, top, w, h));
    }
    for (const left of lanes.columns(w)) {
      for (let dy = -BOARD; dy <= BOARD; dy += 4) out.push(box(left, y + dy - h / 2, w, h));
    }
    const scored = out.map((b) => ({ b, d: distance(b, x, y) }));
    scored.sort((p, q) => p.d - q.d);
    return scored.map((s) => s.b);
  }

  /** Where `size` fits across the free lanes between rows (or columns) of planets at `centres`, and along
   * the board's edges: the start of each slot. */
  function slots(centres, r, size) {
    const out = [];
    const bounds = [0, ...centres.flatMap((c) => [c - r - 0.5, c + r + 0.5]), BOARD];
    for (let i = 0; i + 1 < bounds.length; i += 2) {
      const from = bounds[i] + (i === 0 ? EDGE : 0);
      const to = bounds[i + 1] - (i + 2 === bounds.length ? EDGE : 0);
      for (let start = from; start + size <= to; start += size + GAP) out.push(start);
    }
    return out;
  }

  /** The free lanes of the board: rows of label tops (between planet rows) and columns of label lefts. */
  function laneTops(planets) {
    const ys = Array.from(new Set(planets.map((p) => p.y))).sort((a, b) => a - b);
    const xs = Array.from(new Set(planets.map((p) => p.x))).sort((a, b) => a - b);
    const r = Math.max(0, ...planets.map((p) => p.r));
    return { rows: (h) => slots(ys, r, h), columns: (w) => slots(xs, r, w) };
  }

  function hitsPlanet(b, planets) {
    return planets.some((p) => distance(b, p.x, p.y) < p.r + 0.5);
  }

  function inside(b) {
    return b.x0 >= EDGE && b.y0 >= EDGE && b.x1 <= BOARD - EDGE && b.y1 <= BOARD - EDGE;
  }

  /**
   * Place labels. items: [{x, y, w, h}] (fleet marker centre, label size); planets: [{x, y, r}].
   * Returns one box per item ({x0, y0, x1, y1}, in board units), in the items' order.
   */
  function place(items, planets) {
    const lanes = laneTops(planets);
    const placed = [];
    const result = new Array(items.length);
    const markers = items.map((it) => ({ x0: it.x - MARKER_R, y0: it.y - MARKER_R, x1: it.x + MARKER_R, y1: it.y + MARKER_R }));
    const order = items.map((_, i) => i).sort((i, j) => items[i].y - items[j].y || items[i].x - items[j].x);
    for (const i of order) {
      const it = items[i];
      const options = candidates(it.x, it.y, it.w, it.h, lanes);
      const free = (b, avoidMarkers) => inside(b) && !hitsPlanet(b, planets) && !placed.some((q) => overlaps(b, q, GAP))
        && (!avoidMarkers || !markers.some((m, k) => k !== i && overlaps(b, m, 0)));
      const chosen = options.find((b) => free(b, true)) || options.find((b) => free(b, false)) || options[0];
      placed.push(chosen);
      result[i] = chosen;
    }
    return result;
  }

  AV.galaxyLabels = { place, distance };
})(window.ArmadaViewer = window.ArmadaViewer || {});
