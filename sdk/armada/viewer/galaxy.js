/* Armada replay viewer, Galaxy: the layout (header, board, panel, charts, fog switch) and its drawing
 * for the player. */
(function (AV) {
  "use strict";
  const { el, append, seatLabel, isYou, statusNotes, resultText } = AV.util;
  const M = AV.galaxyModel;

  function seatBadge(replay, seat) {
    const stats = el("span", { class: "av-stats" });
    const node = el("div", { class: "av-seat av-seat-" + seat, "data-seat": seat },
      el("span", { class: "av-swatch" }), ...seatLabel(replay, seat), stats);
    return { node, stats };
  }

  function fogSwitch(replay, onChange) {
    const option = (seat) => el("option", { value: String(seat) }, "fog: seat " + seat + (isYou(replay, seat) ? " (you)" : ""));
    const select = el("select", { class: "av-fog", "aria-label": "fog of war" },
      el("option", { value: "0" }, "no fog"), option(1), option(2));
    select.addEventListener("change", () => onChange(Number(select.value)));
    return select;
  }

  function charts(model, seat) {
    const data = M.series(model, seat);
    const planets = AV.chart.lineChart("planets owned", "planets",
      data.map((d) => ({ turn: d.turn, value: d.planets })), "turn");
    const mle = AV.chart.lineChart(seat ? "total MLE (own only: fog)" : "total MLE", "mle",
      data.map((d) => ({ turn: d.turn, value: d.mle })), "turn");
    return [planets, mle];
  }

  /** Build the Galaxy view inside `root`; returns what the player needs. */
  function create(root, replay) {
    const model = M.buildModel(replay);
    const state = { seat: 0, selected: null, panelKey: null, charts: [] };
    const badges = [seatBadge(replay, 1), seatBadge(replay, 2)];
    const banner = el("div", { class: "av-result", role: "status" });
    const board = AV.galaxyBoard.createBoard((id) => {
      state.selected = state.selected === id ? null : id;
      state.panelKey = null;
      redraw();
    });
    const panel = el("div", { class: "av-panel" });
    panel.addEventListener("av-close", () => {
      state.selected = null;
      state.panelKey = null;
      redraw();
    });
    const chartBox = el("div", { class: "av-charts" });
    append(root, [
      el("div", { class: "av-header" }, badges[0].node, banner, badges[1].node),
      statusNotes(replay),
      el("div", { class: "av-body" }, el("div", { class: "av-board-wrap" }, board.node),
        el("div", { class: "av-side" }, panel, chartBox)),
    ]);
    let last = { index: 0, progress: 1 };

    function setCharts() {
      state.charts = charts(model, state.seat);
      AV.chart.show(chartBox, state.charts);
    }

    function header(view) {
      badges.forEach((b, k) => {
        const seat = k + 1;
        const power = view.mle[seat];
        const count = view.planetCount[seat];
        b.stats.textContent = count + (count === 1 ? " planet" : " planets") + " \u00B7 MLE " + (power === null ? "?" : power);
      });
    }

    function render(index, progress) {
      last = { index, progress };
      const seat = state.seat;
      const view = M.view(model, index, seat);
      const moving = progress < 1 && index > 0;
      const shown = moving ? M.view(model, index - 1, seat) : view;
      board.draw(shown, view, moving ? progress : 1, state.selected);
      header(shown);
      const atEnd = !moving && index === model.turns.length - 1;
      banner.textContent = atEnd && view.result ? resultText(replay, view.result) + scoreText(view.result) : "";
      const key = index + "/" + seat + "/" + state.selected + "/" + moving;
      if (key !== state.panelKey && !moving) {
        state.panelKey = key;
        AV.galaxyPanel.fillPanel(panel, view, state.selected);
      }
      const at = moving ? index - 1 + progress : index;
      for (const chart of state.charts) chart.cursor(at);
    }

    function redraw() {
      render(last.index, last.progress);
    }

    const fog = fogSwitch(replay, (seat) => {
      state.seat = seat;
      state.panelKey = null;
      root.dataset.fog = String(seat);
      setCharts();
      redraw();
    });
    root.dataset.fog = "0";
    setCharts();
    return {
      count: model.turns.length,
      labelOf: (i) => model.turns[i].turn,
      unit: "turn",
      turnMs: 900,
      nextLabel: "next battle",
      nextWhat: "battle",
      isEvent: (i) => M.hasBattle(model, i, state.seat),
      render,
      extra: [fog],
    };
  }

  function scoreText(result) {
    const s = result.scores;
    if (!s || !s.planets) return "";
    return " \u2014 planets " + s.planets["1"] + ":" + s.planets["2"] + ", MLE " + s.mle["1"] + ":" + s.mle["2"];
  }

  AV.galaxy = { create };
})(window.ArmadaViewer = window.ArmadaViewer || {});
