/* Armada replay viewer: the bots' own drawings over the board (docs/viewer.md, "Bots' drawings").
 *
 * A seat's drawings are {"turns": [{"turn": T, "shapes": [...], "text": "..."}]}; a shape is
 * {"kind": "dot"|"ring"|"line"|"arrow"|"label", "at": P, "to": P, "text": "...", "color": "..."} where P is a
 * Galaxy planet id, a Mothership Down ship's id ("mothership-2", "fighter-1-3": seat 1's fighter at position 3),
 * or [x, y] on the board (Galaxy: column and row, planet 1 at [0, 0]; Mothership: the unit square over the
 * field, seat 1's side at x = 0). The referee (armada.drawing) keeps only such shapes; this reads them again.
 * They come from the replay's top-level `debug` (the offline page: {"1": drawings, "2": ...}) or from URLs a
 * page names (the site: one per seat its user may see). A failed fetch is a seat without drawings.
 *
 * Everything is read defensively: a shape of an unknown kind, an unknown id, a point off the board or not
 * finite, a missing field is skipped; texts are clipped and always shown as text nodes, never as HTML.
 * Positions are read from the board the game drew (planets' discs, ships' shapes), so this module draws
 * over whatever layout the game has. The drawings of turn T are shown at the position the viewer labels T
 * (Galaxy: turn T's outcome, as `#t=T`; Mothership: every round, since its one reply is the orders). */
(function (AV) {
  "use strict";
  const { el, svg, clear, seatName } = AV.util;

  const KINDS = ["dot", "ring", "line", "arrow", "label"];
  /** The colour names a bot may use; anything else is DEFAULT. */
  const PALETTE = {
    red: "#ff4d4f", orange: "#ff9f1a", yellow: "#ffe03a", green: "#3ddc68", cyan: "#22e0f0",
    blue: "#4d8dff", purple: "#c77dff", white: "#f4f6f8",
  };
  const DEFAULT = "white";
  const MAX_ENTRIES = 20000; // turn entries read per seat
  const MAX_SHAPES = 500; // per turn (the referee's limit too)
  const MAX_TEXT = 16384; // characters of a turn's text
  const MAX_LABEL = 80; // characters of a label on the board
  const MAX_ID = 40; // characters of a named point

  /** `value` as a string of at most n characters (an ellipsis marks the cut); "" for a non-string. */
  function clip(value, n) {
    if (typeof value !== "string") return "";
    return value.length > n ? value.slice(0, n - 1) + "\u2026" : value;
  }

  /** A point as the bot gave it: {xy: [x, y]} or {id}, or null when it cannot be one. */
  function pointOf(raw) {
    if (Array.isArray(raw)) {
      if (raw.length !== 2) return null;
      const [x, y] = raw;
      return typeof x === "number" && typeof y === "number" && Number.isFinite(x) && Number.isFinite(y) ? { xy: [x, y] } : null;
    }
    if (typeof raw === "number") return Number.isInteger(raw) ? { id: raw } : null;
    if (typeof raw === "string" && raw.length > 0 && raw.length <= MAX_ID) return { id: raw };
    return null;
  }

  /** One shape, checked: null when it cannot be drawn. */
  function shapeOf(raw) {
    if (!raw || typeof raw !== "object" || Array.isArray(raw) || !KINDS.includes(raw.kind)) return null;
    const at = pointOf(raw.at);
    if (!at) return null;
    const two = raw.kind === "line" || raw.kind === "arrow";
    const to = two ? pointOf(raw.to) : null;
    if (two && !to) return null;
    const text = clip(raw.text, MAX_LABEL);
    if (raw.kind === "label" && !text) return null;
    const colour = typeof raw.color === "string" && Object.prototype.hasOwnProperty.call(PALETTE, raw.color) ? raw.color : DEFAULT;
    return { kind: raw.kind, at, to, text, colour };
  }

  /** A seat's drawings read into Map(turn -> {shapes, text}); entries of one turn are merged (a Galaxy turn
   * has two replies). Anything malformed is left out; null or no turn is turn 0. */
  function normalize(data) {
    const turns = new Map();
    const list = data && typeof data === "object" && Array.isArray(data.turns) ? data.turns : [];
    for (const entry of list.slice(0, MAX_ENTRIES)) {
      if (!entry || typeof entry !== "object") continue;
      const turn = entry.turn === null || entry.turn === undefined ? 0 : entry.turn;
      if (!Number.isInteger(turn) || turn < 0) continue;
      const into = turns.get(turn) || { shapes: [], text: "" };
      const shapes = Array.isArray(entry.shapes) ? entry.shapes : [];
      for (const raw of shapes.slice(0, MAX_SHAPES)) {
        if (into.shapes.length >= MAX_SHAPES) break;
        const shape = shapeOf(raw);
        if (shape) into.shapes.push(shape);
      }
      const text = clip(entry.text, MAX_TEXT);
      if (text) into.text = clip(into.text ? into.text + "\n" + text : text, MAX_TEXT);
      turns.set(turn, into);
    }
    return turns;
  }

  /** A number attribute of `node`; null when there is no such node or attribute (not 0: a trial's label at a
   *  mothership a forfeit left undrawn went to the board's corner). */
  function num(node, name) {
    const raw = node ? node.getAttribute(name) : null;
    const v = raw === null || raw.trim() === "" ? NaN : Number(raw);
    return Number.isFinite(v) ? v : null;
  }

  /** The board's box in its own units (its viewBox). */
  function boxOf(board) {
    const v = board.viewBox && board.viewBox.baseVal;
    return v && v.width ? { x0: v.x, y0: v.y, x1: v.x + v.width, y1: v.y + v.height } : { x0: 0, y0: 0, x1: 400, y1: 400 };
  }

  function inside(box, x, y) {
    return x >= box.x0 && x <= box.x1 && y >= box.y0 && y <= box.y1;
  }

  /** Galaxy: planet ids and [column, row] grid points, from the planets' discs as drawn. */
  function galaxyLocator(board) {
    const discs = new Map();
    for (const g of board.querySelectorAll("[data-planet]")) {
      const c = g.querySelector(".av-disc");
      const x = num(c, "cx"), y = num(c, "cy"), r = num(c, "r");
      // `under`: where a label at the planet goes, just below its disc (never over its numbers); `rim`: a
      // planet's dot and the ends of lines and arrows sit on its rim, so no drawing covers its numbers
      const at = { x, y, r: r || 0, under: y + (r || 0) + 8, rim: true };
      if (x !== null && y !== null) discs.set(Number(g.getAttribute("data-planet")), at);
    }
    const box = boxOf(board);
    const first = discs.get(1);
    const last = discs.get(16);
    const steps = 3; // planet 16 is 3 columns and 3 rows from planet 1 (GX-1)
    return (p) => {
      if (p.id !== undefined) return discs.get(p.id) || null;
      const [col, row] = p.xy;
      if (!first || !last || col < -0.5 || col > steps + 0.5 || row < -0.5 || row > steps + 0.5) return null;
      const x = first.x + (col * (last.x - first.x)) / steps;
      const y = first.y + (row * (last.y - first.y)) / steps;
      return inside(box, x, y) ? { x, y, r: 0 } : null;
    };
  }

  function polygonCentre(node) {
    const pts = (node && node.getAttribute("points") || "").trim().split(/\s+/).map((pt) => pt.split(",").map(Number));
    const ok = pts.filter((pt) => pt.length === 2 && pt.every(Number.isFinite));
    if (!ok.length) return null;
    const xs = ok.map((pt) => pt[0]), ys = ok.map((pt) => pt[1]);
    return { x: (Math.min(...xs) + Math.max(...xs)) / 2, y: (Math.min(...ys) + Math.max(...ys)) / 2,
      r: (Math.max(...xs) - Math.min(...xs)) / 2 };
  }

  /** Mothership Down: "mothership-S" (seat S's mothership), "fighter-S-P" (seat S's fighter at position P,
   * 1..5), and [x, y] in the unit square over the field (x from seat 1's side, 0, to seat 2's, 1; y from the
   * top, 0, to the bottom, 1). The ids name seats, not sides, so both seats' drawings mean the same thing. */
  function mothershipLocator(board) {
    const box = boxOf(board);
    return (p) => {
      if (p.xy) {
        const [u, v] = p.xy;
        if (u < 0 || u > 1 || v < 0 || v > 1) return null;
        return { x: box.x0 + u * (box.x1 - box.x0), y: box.y0 + v * (box.y1 - box.y0), r: 0 };
      }
      const ship = /^mothership-([12])$/.exec(String(p.id));
      if (ship) {
        const rect = board.querySelector('.av-mothership[data-seat="' + ship[1] + '"] rect');
        const x = num(rect, "x"), y = num(rect, "y"), w = num(rect, "width"), h = num(rect, "height");
        // like a planet's: a label goes under the ship, a dot on its top edge, a line's end at its side, so that
        // nothing a bot draws at a mothership covers its defence
        return x === null || y === null || w === null || h === null ? null
          : { x: x + w / 2, y: y + h / 2, r: w / 2, under: y + h + 14, rim: true, top: y, box: { x, y, w, h } };
      }
      const fighter = /^fighter-([12])-([1-5])$/.exec(String(p.id));
      if (!fighter) return null;
      return polygonCentre(board.querySelector('.av-fighter[data-seat="' + fighter[1] + '"][data-fighter="' + fighter[2] + '"] polygon'));
    };
  }

  /** Where a dot at a planet goes: on its rim, below and to the side (seat 1 left, seat 2 right): clear of its
   * id, ships and launchers, of the probes' eyes and the battle star above, and of a label under it. */
  function rimDot(a, seat) {
    const d = (a.r + 1) * Math.SQRT1_2;
    return { x: a.x + (seat === 2 ? d : -d), y: a.y + d };
  }

  /** The ends of a line from a to b: an end at a planet moved out to its rim (the whole line when that would
   * leave too little of it). */
  function ends(a, b) {
    const len = Math.hypot(b.x - a.x, b.y - a.y);
    const cutA = a.rim ? a.r + 2 : 0, cutB = b.rim ? b.r + 2 : 0;
    if (len < 0.5 || len - cutA - cutB < 12) return [a, b];
    const ux = (b.x - a.x) / len, uy = (b.y - a.y) / len;
    return [{ x: a.x + ux * cutA, y: a.y + uy * cutA }, { x: b.x - ux * cutB, y: b.y - uy * cutB }];
  }

  /** The SVG of one shape (positions already known) drawn by `seat`, or null. */
  function shapeNode(shape, a, b, seat) {
    const colour = PALETTE[shape.colour];
    const attrs = { class: "av-debug-shape", "data-kind": shape.kind, "data-color": shape.colour };
    let node;
    if (shape.kind === "dot") {
      const at = !a.rim ? a : a.top === undefined ? rimDot(a, seat) : { x: a.x + (seat === 2 ? 12 : -12), y: a.top };
      node = svg("circle", { ...attrs, cx: at.x, cy: at.y, r: 5, fill: colour, stroke: "#05070b", "stroke-width": 1 });
    } else if (shape.kind === "ring" && a.box) { // a tall ship: its outline, 6 px out, not a circle through it
      const m = 6;
      node = svg("rect", { ...attrs, x: a.box.x - m, y: a.box.y - m, width: a.box.w + 2 * m, height: a.box.h + 2 * m,
        rx: 18, fill: "none", stroke: colour, "stroke-width": 2.5 });
    } else if (shape.kind === "ring") {
      node = svg("circle", { ...attrs, cx: a.x, cy: a.y, r: Math.max(9, a.r + 5), fill: "none", stroke: colour,
        "stroke-width": 2.5 });
    } else if (shape.kind === "label") {
      const y = a.under === undefined ? a.y : a.under;
      node = svg("text", { ...attrs, x: a.x, y, fill: colour, class: attrs.class + " av-debug-label" }, shape.text);
    } else {
      if (Math.hypot(b.x - a.x, b.y - a.y) < 0.5) return null;
      [a, b] = ends(a, b);
      const len = Math.hypot(b.x - a.x, b.y - a.y);
      node = svg("g", attrs);
      const ux = (b.x - a.x) / len, uy = (b.y - a.y) / len;
      const head = shape.kind === "arrow" ? Math.min(10, len / 2) : 0;
      const ex = b.x - ux * head, ey = b.y - uy * head;
      node.appendChild(svg("line", { x1: a.x, y1: a.y, x2: ex.toFixed(2), y2: ey.toFixed(2), stroke: colour, "stroke-width": 2.5,
        "stroke-linecap": "round" }));
      if (head) {
        const px = -uy * head * 0.6, py = ux * head * 0.6;
        const pts = [[b.x, b.y], [ex + px, ey + py], [ex - px, ey - py]];
        node.appendChild(svg("polygon", { points: pts.map((pt) => pt[0].toFixed(2) + "," + pt[1].toFixed(2)).join(" "), fill: colour }));
      }
    }
    if (shape.text && shape.kind !== "label") node.appendChild(svg("title", null, shape.text));
    return node;
  }

  /** Draw `shapes` of `seat` into `layer`, each at the points `locate` finds; unknown points skip the shape. */
  function drawShapes(layer, shapes, locate, seat) {
    let drawn = 0;
    for (const shape of shapes) {
      const a = locate(shape.at);
      const b = shape.to ? locate(shape.to) : null;
      if (!a || (shape.to && !b)) continue;
      const node = shapeNode(shape, a, b, seat);
      if (node) {
        layer.appendChild(node);
        drawn += 1;
      }
    }
    return drawn;
  }

  /** Move each label of `layer` sideways so that it stays on the board (one wider than the board starts at its
   * left edge), and up or down as far as it takes when it sits on the board's top or bottom edge (a point at
   * y -0.5 in Galaxy, 0 or 1 in Mothership Down): a label centred near an edge (at a corner planet, say) is
   * never cut off. Measured all at once, then moved. */
  function keepInside(layer, board) {
    const box = boxOf(board);
    const labels = [...layer.querySelectorAll(".av-debug-label")];
    const shifts = labels.map((t) => {
      const b = t.getBBox();
      if (!b.width) return [0, 0];
      const dx = b.x < box.x0 || b.width >= box.x1 - box.x0 ? box.x0 - b.x
        : b.x + b.width > box.x1 ? box.x1 - (b.x + b.width) : 0;
      const dy = b.y < box.y0 ? box.y0 - b.y : b.y + b.height > box.y1 ? box.y1 - (b.y + b.height) : 0;
      return [dx, dy];
    });
    labels.forEach((t, i) => {
      const [dx, dy] = shifts[i];
      if (dx) t.setAttribute("x", (Number(t.getAttribute("x")) + dx).toFixed(2));
      if (dy) t.setAttribute("y", (Number(t.getAttribute("y")) + dy).toFixed(2));
    });
  }

  /** Where the drawings come from: the page's list ([{seat, url, on}] or [{seat, drawings, on}]), else the
   * replay's own `debug` (every seat in it, shown). */
  function sourcesOf(replay, given) {
    const out = [];
    if (Array.isArray(given) && given.length) {
      for (const s of given) {
        if (!s || (s.seat !== 1 && s.seat !== 2) || out.some((o) => o.seat === s.seat)) continue;
        if (typeof s.url === "string" || (s.drawings && typeof s.drawings === "object")) {
          out.push({ seat: s.seat, url: typeof s.url === "string" ? s.url : null, drawings: s.drawings || null, on: s.on !== false });
        }
      }
      return out;
    }
    const debug = replay && replay.debug;
    if (!debug || typeof debug !== "object" || Array.isArray(debug)) return out;
    for (const seat of [1, 2]) {
      const d = debug[String(seat)];
      if (d && typeof d === "object") out.push({ seat, url: null, drawings: d, on: true });
    }
    return out;
  }

  /**
   * Show the drawings of the viewer in `root`: a layer per seat over the board, and beside it (in the side
   * panel) a box per seat with its toggle and the turn's text. `given`: the page's sources (see sourcesOf).
   * Returns null when there is nothing to show.
   */
  function attach(root, player, replay, given) {
    const sources = sourcesOf(replay, given);
    if (!sources.length) return null;
    const mothership = replay.game === "mothership";
    const box = el("section", { class: "av-debug", "aria-label": "the bots' drawings" },
      el("h3", null, "Bots\u2019 drawings"));
    const seats = sources.map((s) => {
      const toggle = el("input", { type: "checkbox", class: "av-debug-toggle", "data-seat": s.seat });
      toggle.checked = s.on;
      const note = el("span", { class: "av-debug-note av-muted" });
      const text = el("pre", { class: "av-debug-text" });
      const node = el("div", { class: "av-debug-seat av-seat-" + s.seat, "data-seat": s.seat },
        el("label", null, toggle, " " + seatName(replay, s.seat) + " (seat " + s.seat + ")"), " ", note, text);
      box.appendChild(node);
      const layer = svg("g", { class: "av-debug-layer", "data-seat": s.seat });
      const seat = { ...s, toggle, note, text, node, layer, turns: null, state: "loading" };
      toggle.addEventListener("change", () => update(true));
      toggle.addEventListener("click", (event) => {
        if (event.detail > 0) toggle.blur(); // a mouse click gives the arrow keys back to the viewer
      });
      return seat;
    });
    const side = root.querySelector(".av-side");
    if (side) side.insertBefore(box, side.firstChild); else root.appendChild(box); // first in the panel: beside the board
    let shown = null;

    function turnOf(seat, label) {
      if (!seat.turns) return null;
      if (!mothership) return seat.turns.get(label) || null;
      const all = seat.turns.get(0) || null; // the orders' drawings hold for every round
      const now = label > 0 ? seat.turns.get(label) : null;
      if (!now) return all;
      if (!all) return now;
      return { shapes: all.shapes.concat(now.shapes).slice(0, MAX_SHAPES), text: clip(all.text + "\n" + now.text, MAX_TEXT) };
    }

    function update(force) {
      const board = root.querySelector(".av-board, .av-field");
      if (!board) return;
      const label = player.opts.labelOf(player.index);
      const key = label + "/" + seats.map((s) => s.state + s.toggle.checked).join("/");
      if (force || key !== shown) {
        shown = key;
        for (const seat of seats) draw(seat, board, label);
        box.dataset.turn = String(label);
      }
      for (const seat of seats) {
        if (seat.layer.parentNode !== board || board.lastChild !== seats[seats.length - 1].layer) board.appendChild(seat.layer);
      }
    }

    function draw(seat, board, label) {
      if (seat.layer.parentNode !== board) board.appendChild(seat.layer); // on the board: its labels can be measured
      clear(seat.layer);
      seat.layer.dataset.shapes = "0";
      const now = turnOf(seat, label);
      const on = seat.toggle.checked;
      seat.node.dataset.state = seat.state;
      seat.text.hidden = !on;
      seat.text.textContent = on && now ? now.text : "";
      seat.layer.setAttribute("visibility", on ? "visible" : "hidden");
      if (seat.state === "loading") {
        seat.note.textContent = "loading\u2026";
        return;
      }
      if (seat.state === "none") {
        seat.note.textContent = "no drawings";
        return;
      }
      if (!now) {
        seat.note.textContent = "nothing drawn this " + (mothership ? "battle" : "turn");
        return;
      }
      const locate = mothership ? mothershipLocator(board) : galaxyLocator(board);
      const drawn = on ? drawShapes(seat.layer, now.shapes, locate, seat.seat) : 0;
      keepInside(seat.layer, board);
      seat.layer.dataset.shapes = String(drawn);
      seat.note.textContent = on ? drawn + (drawn === 1 ? " shape" : " shapes") : "hidden";
    }

    for (const seat of seats) {
      const load = seat.drawings ? Promise.resolve(seat.drawings) : AV.load.fetchJson(seat.url);
      load.then((data) => {
        seat.turns = normalize(data);
        seat.state = data && typeof data === "object" && seat.turns.size ? "ready" : "none";
        update(true);
      }, () => {
        seat.state = "none";
        update(true);
      });
    }
    player.onChange(() => update(false));
    update(true);
    return { seats: () => seats.map((s) => ({ seat: s.seat, state: s.state, on: s.toggle.checked })) };
  }

  AV.debug = { PALETTE, KINDS, MAX_SHAPES, MAX_TEXT, normalize, attach };
})(window.ArmadaViewer = window.ArmadaViewer || {});
