/* Armada replay viewer: a small SVG line chart (one line per seat) with a cursor at the current turn. */
(function (AV) {
  "use strict";
  const { svg, clear, COLOURS } = AV.util;

  const W = 300;
  const H = 100;
  const PAD = { left: 34, right: 8, top: 16, bottom: 24 };

  /**
   * A chart of points [{turn, value: {1: n|null, 2: n|null}}]; a seat whose values are null has no line.
   * `title` names the y axis (drawn at the top left, with its 0 and its maximum); the x axis is labelled
   * with its first and last turn and `unit` ("turn"). Returns {node, cursor(index)}.
   */
  function lineChart(title, metric, points, unit) {
    const node = svg("svg", { class: "av-chart", viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": title,
      "data-metric": metric });
    const values = points.flatMap((p) => [p.value[1], p.value[2]]).filter((v) => v !== null && v !== undefined);
    const max = Math.max(1, ...values);
    // The y labels end 4 units left of the axis: room for the widest (10px text, up to 7 units a
    // digit), so a label such as 210632 is never cut at the image's edge.
    const left = Math.max(PAD.left, 6 + 7 * String(max).length);
    const n = Math.max(1, points.length - 1);
    const x = (i) => left + ((W - left - PAD.right) * i) / n;
    const y = (v) => H - PAD.bottom - ((H - PAD.top - PAD.bottom) * v) / max;
    node.appendChild(svg("text", { x: left + 4, y: 11, class: "av-chart-title" }, title));
    node.appendChild(svg("text", { x: left - 4, y: y(max) + 4, class: "av-chart-axis", "text-anchor": "end" }, max));
    node.appendChild(svg("text", { x: left - 4, y: y(0), class: "av-chart-axis", "text-anchor": "end" }, 0));
    node.appendChild(svg("line", { x1: left, x2: W - PAD.right, y1: y(0), y2: y(0), class: "av-chart-base" }));
    node.appendChild(svg("line", { x1: left, x2: left, y1: y(max), y2: y(0), class: "av-chart-base" }));
    const first = points.length ? points[0].turn : 0;
    const last = points.length ? points[points.length - 1].turn : 0;
    const below = H - PAD.bottom + 11;
    node.appendChild(svg("text", { x: left, y: below, class: "av-chart-axis", "text-anchor": "start" }, first));
    node.appendChild(svg("text", { x: W - PAD.right, y: below, class: "av-chart-axis", "text-anchor": "end" }, last));
    node.appendChild(svg("text", { x: (left + W - PAD.right) / 2, y: below, class: "av-chart-axis av-chart-x",
      "text-anchor": "middle" }, unit || "turn"));
    for (const seat of [1, 2]) {
      if (points.some((p) => p.value[seat] === null || p.value[seat] === undefined)) continue;
      const coords = points.map((p, i) => x(i).toFixed(1) + "," + y(p.value[seat]).toFixed(1)).join(" ");
      node.appendChild(svg("polyline", { points: coords, fill: "none", stroke: COLOURS[seat].stroke,
        "stroke-width": 2, "data-seat": seat, class: "av-chart-line" }));
    }
    const cursor = svg("line", { y1: PAD.top - 4, y2: H - PAD.bottom, class: "av-chart-cursor" });
    node.appendChild(cursor);
    return {
      node,
      cursor(index) {
        cursor.setAttribute("x1", x(index).toFixed(1));
        cursor.setAttribute("x2", x(index).toFixed(1));
      },
    };
  }

  /** Replace a container's content with the given charts. */
  function show(container, charts) {
    clear(container);
    for (const chart of charts) container.appendChild(chart.node);
  }

  AV.chart = { lineChart, show };
})(window.ArmadaViewer = window.ArmadaViewer || {});
