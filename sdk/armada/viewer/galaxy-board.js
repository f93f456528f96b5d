/* Armada replay viewer, Galaxy: the 4x4 board in SVG (planets, fleets on their paths, battles, captures,
 * probes). It draws a view from galaxy-model.js and nothing else, so fog is decided there. */
(function (AV) {
  "use strict";
  const { svg, clear, COLOURS } = AV.util;
  const M = AV.galaxyModel;

  const CELL = 100;
  const R = 36;
  const RIM = R + 7; // a fleet at rest on a planet sits this far from its centre (its marker clear of the numbers)
  const MARKER = 10; // half the size of a fleet's marker, with a margin
  const RIM_STEP = 0.5; // radians between two fleets on one planet's rim (at most: a crowded rim shares it out)

  function centre(row, col) {
    return [CELL / 2 + CELL * col, CELL / 2 + CELL * row];
  }

  /** "4B 6C" for ships (empty parts left out, "0" when nothing). */
  function ships(units) {
    const parts = [];
    if (units.battleships) parts.push(units.battleships + "B");
    if (units.cruisers) parts.push(units.cruisers + "C");
    return parts.join(" ") || "0";
  }

  function star(cx, cy, outer, inner) {
    const pts = [];
    for (let k = 0; k < 16; k++) {
      const r = k % 2 ? inner : outer;
      const a = (Math.PI * k) / 8 - Math.PI / 2;
      pts.push((cx + r * Math.cos(a)).toFixed(1) + "," + (cy + r * Math.sin(a)).toFixed(1));
    }
    return pts.join(" ");
  }

  /** What a screen reader says of a planet: "planet 6, seat 1, 37 battleships, 37 cruisers, 1731 launchers". */
  function planetLabel(p) {
    const owner = p.owner ? "seat " + p.owner : "neutral";
    if (!p.garrison) return "planet " + p.id + ", " + owner + ", garrison not known";
    const g = p.garrison;
    return "planet " + p.id + ", " + owner + ", " + (g.battleships || 0) + " battleships, " + (g.cruisers || 0) +
      " cruisers, " + (g.launchers || 0) + " launchers" + (p.known === "intel" ? " (as last probed)" : "");
  }

  /** One planet: disc in its owner's colour, id, garrison and launchers (or "?" when not known). */
  function planetNode(p, selected) {
    const [x, y] = centre(p.row, p.col);
    const colour = COLOURS[p.owner] || COLOURS[0];
    const g = svg("g", { class: "av-planet", "data-planet": p.id, "data-owner": p.owner, "data-known": p.known,
      tabindex: 0, role: "button", "aria-label": planetLabel(p) });
    g.appendChild(svg("circle", { cx: x, cy: y, r: R, fill: colour.fill, stroke: selected ? "#ffffff" : colour.stroke,
      "stroke-width": selected ? 4 : 2, class: "av-disc" }));
    g.appendChild(svg("text", { x, y: y - 17, class: "av-planet-id", fill: colour.text }, "P" + p.id));
    if (p.garrison) {
      const cls = p.known === "intel" ? "av-garrison av-intel" : "av-garrison";
      g.appendChild(svg("text", { x, y: y + 1, class: cls, fill: colour.text }, ships(p.garrison)));
      g.appendChild(svg("text", { x, y: y + 16, class: cls, fill: colour.text }, p.garrison.launchers + "L"));
    } else {
      g.appendChild(svg("text", { x, y: y + 9, class: "av-unknown", fill: colour.text }, "?"));
    }
    p.probedBy.forEach((seat, k) => {
      const px = x - R + 4 + k * 13;
      g.appendChild(svg("circle", { cx: px, cy: y - R + 4, r: 6, fill: "#0d1117", stroke: COLOURS[seat].stroke,
        "stroke-width": 2, class: "av-probe", "data-probe": seat }));
      g.appendChild(svg("circle", { cx: px, cy: y - R + 4, r: 2, fill: COLOURS[seat].stroke }));
    });
    return g;
  }

  function markers(layer, view) {
    const byId = new Map(view.planets.map((p) => [p.id, p]));
    for (const c of view.captures) {
      const p = byId.get(c.planet);
      if (!p) continue;
      const [x, y] = centre(p.row, p.col);
      layer.appendChild(svg("circle", { cx: x, cy: y, r: R + 6, fill: "none", stroke: COLOURS[c.owner].stroke,
        "stroke-width": 3, "stroke-dasharray": "6 4", class: "av-capture", "data-capture": c.planet }));
    }
    for (const b of view.battles) {
      const p = byId.get(b.planet);
      if (!p) continue;
      const [x, y] = centre(p.row, p.col);
      layer.appendChild(svg("polygon", { points: star(x + R - 4, y - R + 4, 11, 5), fill: "#ffcc33",
        stroke: "#7a4d00", "stroke-width": 1, class: "av-battle", "data-battle": b.planet }));
    }
  }

  /** A fleet drawn at board point (x, y), with its remaining path to the target in `paths` (a layer under the
   * planets, so a path never crosses a planet's numbers). */
  function fleetNode(f, row, col, pathFrom, x, y, paths) {
    const colour = COLOURS[f.owner];
    const g = svg("g", { class: "av-fleet", "data-fleet": f.id, "data-owner": f.owner, "data-from": f.from,
      "data-to": f.to, "data-row": row.toFixed(3), "data-col": col.toFixed(3) });
    const rest = M.path(f.from, f.to).slice(pathFrom);
    const pts = [[x, y], ...rest.map((pid) => centre(...M.coords(pid)))];
    paths.appendChild(svg("polyline", { points: pts.map((pt) => pt.join(",")).join(" "), fill: "none",
      stroke: colour.stroke, "stroke-width": 1.5, "stroke-dasharray": "3 4", class: "av-path", "data-fleet": f.id }));
    const shape = f.battleships ? "polygon" : "circle";
    if (shape === "circle") {
      g.appendChild(svg("circle", { cx: x, cy: y, r: 7, fill: colour.stroke, stroke: "#0d1117", "stroke-width": 1.5,
        class: "av-fleet-mark" }));
    } else {
      g.appendChild(svg("polygon", { points: [[x, y - 9], [x + 8, y + 6], [x - 8, y + 6]].map((p) => p.join(",")).join(" "),
        fill: colour.stroke, stroke: "#0d1117", "stroke-width": 1.5, class: "av-fleet-mark" }));
    }
    g.appendChild(svg("text", { x: x + 10, y: y + 4, class: "av-fleet-label", fill: colour.stroke,
      "data-x": x.toFixed(1), "data-y": y.toFixed(1) }, ships(f)));
    return g;
  }

  /** The planet a fleet at (row, col) sits on (a grid point), or null between planets. */
  function planetAt(row, col) {
    const r = Math.round(row);
    const c = Math.round(col);
    return Math.abs(row - r) < 1e-6 && Math.abs(col - c) < 1e-6 ? r * 4 + c + 1 : null;
  }

  /** Board points of fleets at rest: one on a planet's grid point sits on the planet's rim, on the side it goes
   * next (fleets on the same planet spread around it), clear of the planet's id, ships and launchers; one
   * between planets keeps its point, shifted a little by its id so fleets on one lane do not hide each other. */
  function spots(items, planets) {
    const out = items.map((it) => centre(it.row, it.col).map((v) => v + (((it.f.id * 37) % 7) - 3) * 3));
    const byPlanet = new Map();
    items.forEach((it, k) => {
      const planet = planetAt(it.row, it.col);
      if (planet === null) return;
      const next = M.path(it.f.from, it.f.to).slice(it.pathFrom)[0] || it.f.to;
      const [x, y] = centre(it.row, it.col);
      const [nx, ny] = centre(...M.coords(next));
      const angle = next === planet ? -Math.PI / 2 : Math.atan2(ny - y, nx - x);
      if (!byPlanet.has(planet)) byPlanet.set(planet, []);
      byPlanet.get(planet).push({ k, x, y, angle, id: it.f.id, planet });
    });
    for (const group of byPlanet.values()) {
      group.sort((a, b) => a.angle - b.angle || a.id - b.id);
      const step = Math.min(RIM_STEP, (2 * Math.PI) / group.length);
      for (let i = 1; i < group.length; i++) group[i].angle = Math.max(group[i].angle, group[i - 1].angle + step);
      const half = numbersHalfWidth(planets.get(group[0].planet));
      for (const g of group) {
        const [dx, dy] = clearOf(g.angle, half);
        out[g.k] = [g.x + dx, g.y + dy];
      }
    }
    return out.map(([x, y]) => awayFromNumbers(x, y, planets));
  }

  /** The boxes (relative to a planet's centre) of its numbers: the ships line, `half` wide each way, and
   * the narrow column of its id above and launchers below. */
  function numberBoxes(half) {
    return [[-half, -12, half, 6], [-15, -29, 15, 22]];
  }

  /** Does a fleet's marker at (x, y) meet a planet's numbers? */
  function onNumbers(x, y, planets) {
    const m = MARKER;
    for (const p of planets.values()) {
      const [cx, cy] = centre(p.row, p.col);
      if (Math.abs(x - cx) > 2 * CELL / 3 + m || Math.abs(y - cy) > CELL / 2) continue;
      const hit = numberBoxes(numbersHalfWidth(p)).some(([x0, y0, x1, y1]) =>
        x - m < cx + x1 && cx + x0 < x + m && y - m < cy + y1 && cy + y0 < y + m);
      if (hit) return true;
    }
    return false;
  }

  /** (x, y), or the nearest point to it (up, down, then aside) where a marker leaves every planet's numbers free. */
  function awayFromNumbers(x, y, planets) {
    if (!onNumbers(x, y, planets)) return [x, y];
    for (let d = 2; d <= 40; d += 2) {
      for (const [dx, dy] of [[0, -1], [0, 1], [-1, 0], [1, 0], [-0.7, -0.7], [0.7, -0.7], [-0.7, 0.7], [0.7, 0.7]]) {
        if (!onNumbers(x + d * dx, y + d * dy, planets)) return [x + d * dx, y + d * dy];
      }
    }
    return [x, y];
  }

  /** Half the width of a planet's widest number (its ships line), estimated from its characters. */
  function numbersHalfWidth(p) {
    return p && p.garrison ? 3.7 * ships(p.garrison).length + 2 : 8;
  }

  /** The offset from a planet's centre, at `angle`, nearest the rim where a fleet's marker clears the
   * planet's numbers: the ships line (half as wide as `half`) and the narrow id and launchers above and below. */
  function clearOf(angle, half) {
    const boxes = numberBoxes(half);
    const m = MARKER;
    for (let r = RIM; ; r += 2) {
      const x = r * Math.cos(angle);
      const y = r * Math.sin(angle);
      if (r > 3 * RIM || !boxes.some(([x0, y0, x1, y1]) => x - m < x1 && x0 < x + m && y - m < y1 && y0 < y + m)) return [x, y];
    }
  }

  /** How many grid points of its path a fleet at `units` units has passed (to draw what is left). */
  function passed(units) {
    return Math.floor(units + 1e-9) + 1;
  }

  /** Fleets at `progress` through `turn` ({f, row, col, pathFrom}); at rest, where the frame puts them. */
  function placed(list, turn, progress, rest) {
    return list.map((f) => {
      const slow = f.battleships > 0 ? 2 : 1;
      const units = (turn - f.launched + progress) / slow;
      const [row, col] = rest && f.position ? f.position : M.fleetPosition(f, turn, progress);
      return { f, row, col, pathFrom: passed(units) };
    });
  }

  let shifts = { key: null, value: null };

  /** Board points of fleets on the move: along their paths, each shifted by what shifts it at rest, blended from
   * where the turn started to where it ends (so a fleet leaves one planet's rim and reaches the next one's). */
  function movingSpots(items, list, turn, progress, planets) {
    const shift = (p) => {
      const ends = placed(list, turn, p, false);
      return spots(ends, planets).map(([x, y], k) => {
        const [cx, cy] = centre(ends[k].row, ends[k].col);
        return [x - cx, y - cy];
      });
    };
    const key = turn + "/" + list.map((f) => f.id).join(",");
    if (shifts.key !== key) shifts = { key, value: [shift(0), shift(1)] }; // the same for every frame of a turn
    const [from, to] = shifts.value;
    return items.map((it, k) => {
      const [x, y] = centre(it.row, it.col);
      return [x + from[k][0] + (to[k][0] - from[k][0]) * progress, y + from[k][1] + (to[k][1] - from[k][1]) * progress];
    });
  }

  function fleets(layer, paths, view, turn, progress) {
    const moving = progress < 1;
    const list = moving ? view.movers : view.fleets;
    const items = placed(list, turn, moving ? progress : 1, !moving);
    const planets = new Map(view.planets.map((p) => [p.id, p]));
    const at = moving ? movingSpots(items, list, turn, progress, planets) : spots(items, planets);
    items.forEach((it, k) => layer.appendChild(fleetNode(it.f, it.row, it.col, it.pathFrom, at[k][0], at[k][1], paths)));
    placeLabels(layer, paths, view);
  }

  /** Move every fleet label of `layer` to a free place (galaxy-labels.js), with a leader line when it is
   * away from its fleet. Sizes are measured when the board is shown, else estimated. */
  function placeLabels(layer, paths, view) {
    const texts = Array.from(layer.querySelectorAll(".av-fleet-label"));
    if (!texts.length) return;
    const items = texts.map((t) => {
      t.setAttribute("x", "0");
      t.setAttribute("y", "0");
      let b = null;
      try {
        b = t.getBBox();
      } catch (err) {
        b = null;
      }
      if (!b || !b.width) b = { x: 0, y: -9.5, width: 6.2 * t.textContent.length, height: 12 };
      return { x: Number(t.dataset.x), y: Number(t.dataset.y), w: b.width, h: b.height, dx: b.x, dy: b.y };
    });
    const planets = view.planets.map((p) => {
      const [x, y] = centre(p.row, p.col);
      return { x, y, r: R + 1 };
    });
    const boxes = AV.galaxyLabels.place(items, planets);
    texts.forEach((t, i) => {
      const b = boxes[i];
      const it = items[i];
      t.setAttribute("x", (b.x0 - it.dx).toFixed(1));
      t.setAttribute("y", (b.y0 - it.dy).toFixed(1));
      if (AV.galaxyLabels.distance(b, it.x, it.y) > 12) {
        const px = Math.max(b.x0, Math.min(it.x, b.x1));
        const py = Math.max(b.y0, Math.min(it.y, b.y1));
        paths.appendChild(svg("line", { x1: it.x, y1: it.y, x2: px.toFixed(1), y2: py.toFixed(1),
          class: "av-leader", stroke: t.getAttribute("fill") }));
      }
    });
  }

  /** The board: an <svg> with a path layer (fleets' ways and label leaders, under the planets), a planet
   * layer, a marker layer and a fleet layer. */
  function createBoard(onSelect) {
    const node = svg("svg", { class: "av-board", viewBox: "0 0 400 400", role: "img", "aria-label": "Galaxy board" });
    node.appendChild(svg("rect", { x: 0, y: 0, width: 400, height: 400, class: "av-space" }));
    const planetLayer = svg("g", { class: "av-planets" });
    const markerLayer = svg("g", { class: "av-markers" });
    const fleetLayer = svg("g", { class: "av-fleets" });
    const pathLayer = svg("g", { class: "av-fleet-paths" });
    node.append(pathLayer, planetLayer, markerLayer, fleetLayer);
    const pick = (event) => {
      const g = event.target.closest && event.target.closest("[data-planet]");
      if (g) onSelect(Number(g.getAttribute("data-planet")));
    };
    node.addEventListener("click", pick);
    node.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== " " && event.key !== "Spacebar") return;
      pick(event); // (a planet is a button: Enter and Space select it)
      if (event.target.closest && event.target.closest("[data-planet]")) event.preventDefault();
    });
    let drawnKey = null;
    return {
      node,
      /** planetsView: the view whose planets are drawn; fleetView: the one whose fleets move (same at rest). */
      draw(planetsView, fleetView, progress, selected) {
        const key = planetsView.turn + "/" + planetsView.seat + "/" + selected + "/" + (progress < 1);
        if (key !== drawnKey) {
          drawnKey = key;
          // the planets are drawn anew: a focused one keeps the focus (a keyboard user's place on the board)
          const had = planetLayer.contains(document.activeElement) ? document.activeElement.getAttribute("data-planet") : null;
          clear(planetLayer);
          clear(markerLayer);
          for (const p of planetsView.planets) planetLayer.appendChild(planetNode(p, p.id === selected));
          const again = had === null ? null
            : Array.from(planetLayer.children).find((g) => g.getAttribute("data-planet") === had);
          if (again) again.focus({ preventScroll: true });
          if (progress >= 1) markers(markerLayer, planetsView);
        }
        clear(fleetLayer);
        clear(pathLayer);
        fleets(fleetLayer, pathLayer, fleetView, fleetView.turn, progress);
      },
    };
  }

  AV.galaxyBoard = { createBoard, ships };
})(window.ArmadaViewer = window.ArmadaViewer || {});
