/* Armada replay viewer, Mothership Down: both motherships, the five fighter pairs (MD-4), the shots of each
 * round (MD-5, MD-6), defence bars, the race names (MD-3) and the result with its points (MD-8, MD-10). */
(function (AV) {
  "use strict";
  const { el, svg, clear, COLOURS, seatName, seatLabel, seatStatus, resultText } = AV.util;

  const W = 600;
  const H = 380;
  const SHIP_X = { 1: 20, 2: W - 110 };
  const FIGHTER_X = { 1: 215, 2: W - 215 };
  const POINTS = { destruction: [3, 0], damage: [2, 0], draw: [1, 1] };

  function fighterY(i) {
    return 70 + 60 * i;
  }

  /** Orders, rounds and boards of the battle. */
  function buildModel(replay) {
    const step = replay.steps[0] || {};
    const frameSides = (step.frame && step.frame.sides) || [];
    const orders = {};
    for (const seat of [1, 2]) {
      const side = frameSides.find((s) => s && s.seat === seat);
      orders[seat] = side && side.orders ? side.orders : null;
    }
    const rounds = (step.events || []).filter((e) => e.type === "round" || Array.isArray(e.sides));
    return { replay, orders, rounds, faults: step.faults || {} };
  }

  /** A seat's board after `k` rounds (0: as ordered); null without valid orders. */
  function board(model, k, seat) {
    if (k > 0 && model.rounds[k - 1]) {
      const side = model.rounds[k - 1].sides.find((s) => s.seat === seat);
      if (side) return { mothership: side.mothership, fighters: side.fighters };
    }
    const o = model.orders[seat];
    if (!o) return null;
    return { mothership: o.mothership.defence, fighters: o.fighters.map((f) => ({ attack: f.attack, defence: f.defence })) };
  }

  function shots(model, k, seat) {
    if (k < 1 || !model.rounds[k - 1]) return [];
    const side = model.rounds[k - 1].sides.find((s) => s.seat === seat);
    return side ? side.shots || [] : [];
  }

  function bar(x, y, w, h, fraction, colour, cls) {
    const f = Math.max(0, Math.min(1, fraction));
    return [
      svg("rect", { x, y, width: w, height: h, class: "av-bar-bg" }),
      svg("rect", { x, y, width: (w * f).toFixed(1), height: h, fill: colour, class: cls }),
    ];
  }

  function mothershipNode(seat, now, start) {
    const x = SHIP_X[seat];
    const colour = COLOURS[seat];
    const g = svg("g", { class: "av-mothership", "data-seat": seat, "data-defence": now.mothership });
    g.appendChild(svg("rect", { x, y: 40, width: 90, height: 300, rx: 14, fill: colour.fill, stroke: colour.stroke,
      "stroke-width": 2 }));
    g.appendChild(svg("text", { x: x + 45, y: 64, class: "av-ms-label", fill: colour.text }, "mothership"));
    g.appendChild(svg("text", { x: x + 45, y: 200, class: "av-ms-value", fill: colour.text }, String(Math.max(0, now.mothership))));
    g.appendChild(svg("text", { x: x + 45, y: 220, class: "av-ms-label", fill: colour.text }, "of " + start.mothership));
    const h = 220 * Math.max(0, now.mothership) / Math.max(1, start.mothership);
    g.appendChild(svg("rect", { x: x + 10, y: 100, width: 12, height: 220, class: "av-bar-bg" }));
    g.appendChild(svg("rect", { x: x + 10, y: (320 - h).toFixed(1), width: 12, height: h.toFixed(1), fill: "#4cd37b",
      class: "av-defence-bar" }));
    return g;
  }

  function fighterNode(seat, i, now, start) {
    const x = FIGHTER_X[seat];
    const y = fighterY(i);
    const dir = seat === 1 ? 1 : -1;
    const colour = COLOURS[seat];
    const dead = now.defence <= 0;
    const g = svg("g", { class: "av-fighter" + (dead ? " av-dead" : ""), "data-seat": seat, "data-fighter": i + 1,
      "data-attack": now.attack, "data-defence": now.defence });
    const tip = [x + 20 * dir, y];
    const pts = [tip, [x - 14 * dir, y - 14], [x - 6 * dir, y], [x - 14 * dir, y + 14]];
    g.appendChild(svg("polygon", { points: pts.map((p) => p.join(",")).join(" "), fill: colour.stroke, stroke: "#0d1117" }));
    const lx = seat === 1 ? x - 85 : x + 25;
    g.appendChild(svg("text", { x: lx, y: y - 10, class: "av-fighter-label" },
      "#" + (i + 1) + "  " + now.attack + "/" + Math.max(0, now.defence)));
    g.append(...bar(lx, y - 4, 60, 6, now.attack / Math.max(1, start.attack), "#ff9f43", "av-attack-bar"));
    g.append(...bar(lx, y + 5, 60, 6, now.defence / Math.max(1, start.defence), "#4cd37b", "av-defence-bar"));
    if (dead) g.appendChild(svg("text", { x, y: y + 6, class: "av-kill" }, "\u2715"));
    return g;
  }

  /** A shot of `seat`'s fighter: a line to its target, the strength, and a moving dot while animating. */
  function shotNode(seat, shot, progress) {
    const i = shot.fighter - 1;
    const dir = seat === 1 ? 1 : -1;
    const x1 = FIGHTER_X[seat] + 22 * dir;
    const y1 = fighterY(i) + (seat === 1 ? -5 : 5);
    const enemy = 3 - seat;
    const x2 = shot.target === "mothership" ? SHIP_X[enemy] + (enemy === 1 ? 90 : 0) : FIGHTER_X[enemy] - 16 * dir;
    const y2 = y1;
    const colour = COLOURS[seat].stroke;
    const g = svg("g", { class: "av-shot", "data-seat": seat, "data-fighter": shot.fighter, "data-target": shot.target,
      "data-strength": shot.strength, "data-destroyed": String(!!shot.destroyed) });
    const end = x1 + (x2 - x1) * progress;
    g.appendChild(svg("line", { x1, y1, x2: end.toFixed(1), y2, stroke: colour, "stroke-width": 2, opacity: 0.8 }));
    g.appendChild(svg("circle", { cx: end.toFixed(1), cy: y2, r: 4, fill: colour }));
    if (progress >= 1) {
      // both marks when a shot at the mothership destroyed it (as `armada replay` writes it)
      const mark = (shot.target === "mothership" ? "M" : "") + (shot.destroyed ? "x" : "");
      g.appendChild(svg("text", { x: ((x1 + x2) / 2).toFixed(1), y: seat === 1 ? y1 - 5 : y1 + 15, class: "av-shot-label", fill: colour },
        shot.strength + mark));
    }
    return g;
  }

  function ordersTable(model, seat) {
    const o = model.orders[seat];
    const { status, detail } = seatStatus(model.replay, seat);
    const head = el("h3", { class: "av-seat-" + seat }, seatName(model.replay, seat));
    if (!o) {
      const why = status === "ok" ? "orders not used: no battle was fought" : "no valid orders: " + status +
        (detail ? " \u2014 " + detail : "");
      return el("div", { class: "av-orders" }, head, el("p", null, why));
    }
    const rows = o.fighters.map((f, i) => el("tr", null, el("td", null, "#" + (i + 1)), el("td", null, String(f.attack)),
      el("td", null, String(f.defence)), el("td", null, "[" + f.pattern.join(", ") + "]")));
    // (the panel lists the orders as given, every round: the board shows the round; a trial read
    // the round's note as the heading of this table)
    return el("div", { class: "av-orders" }, head, el("p", null, "orders as given: mothership defence " + o.mothership.defence),
      el("table", null, el("tr", null, el("th", null, "fighter"), el("th", null, "attack"), el("th", null, "defence"),
        el("th", null, "pattern")), ...rows));
  }

  /** "Race wins on damage: 2 points to 0" (MD-8, MD-10). */
  function pointsText(replay) {
    const r = replay.result;
    const points = POINTS[r.outcome];
    let text = resultText(replay, r);
    if (r.winner && points) text += ": " + points[0] + " points to " + points[1];
    else if (points) text += ": " + points[0] + " point each";
    const s = r.scores || {};
    if (s.mothership_left) text += " (motherships left " + s.mothership_left["1"] + " : " + s.mothership_left["2"] + ")";
    return text;
  }

  /** Build the Mothership view inside `root`; returns what the player needs. */
  function create(root, replay) {
    const model = buildModel(replay);
    const count = model.rounds.length + 1;
    const header = el("div", { class: "av-header" },
      el("div", { class: "av-seat av-seat-1", "data-seat": 1 }, el("span", { class: "av-swatch" }), ...seatLabel(replay, 1)),
      el("div", { class: "av-result", role: "status" }),
      el("div", { class: "av-seat av-seat-2", "data-seat": 2 }, el("span", { class: "av-swatch" }), ...seatLabel(replay, 2)));
    const banner = header.querySelector(".av-result");
    const field = svg("svg", { class: "av-field", viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": "Mothership Down battle" });
    const roundNote = el("p", { class: "av-round" });
    root.append(header, el("div", { class: "av-body" }, el("div", { class: "av-board-wrap" }, field),
      el("div", { class: "av-side" }, roundNote, ordersTable(model, 1), ordersTable(model, 2))));

    function render(k, progress) {
      const moving = progress < 1 && k > 0;
      const shownK = moving ? k - 1 : k;
      clear(field);
      field.appendChild(svg("rect", { x: 0, y: 0, width: W, height: H, class: "av-space" }));
      for (const seat of [1, 2]) {
        const start = board(model, 0, seat);
        const now = board(model, shownK, seat);
        if (!now) {
          field.appendChild(svg("text", { x: seat === 1 ? W / 4 : (3 * W) / 4, y: H / 2, class: "av-no-orders" },
            "no orders"));
          continue;
        }
        field.appendChild(mothershipNode(seat, now, start));
        now.fighters.forEach((f, i) => field.appendChild(fighterNode(seat, i, f, start.fighters[i])));
      }
      for (const seat of [1, 2]) for (const shot of shots(model, k, seat)) field.appendChild(shotNode(seat, shot, moving ? progress : 1));
      roundNote.textContent = k === 0 ? "Before the battle: the orders as given." : "Round " + k + " of " + model.rounds.length +
        (moving ? "" : " on the board: its shots, and the fighters and motherships after it.");
      banner.textContent = k === count - 1 && !moving ? pointsText(replay) : "";
    }

    const isKill = (k) => [1, 2].some((seat) => shots(model, k, seat).some((s) => s.destroyed || s.target === "mothership"));
    return {
      count, labelOf: (i) => i, unit: "round", turnMs: 1200, nextLabel: "next hit", nextWhat: "kill or mothership hit",
      isEvent: isKill, render, extra: [],
    };
  }

  AV.mothership = { create, buildModel, board, pointsText };
})(window.ArmadaViewer = window.ArmadaViewer || {});
