/* The match page: each owner's log beside the viewer follows the viewer's turn, and a click on a
 * request (or the crash) moves the viewer there. It uses the viewer's page hook (docs/viewer.md):
 * the viewer's root sends "armada:position" events and obeys "armada:seek" events. No inline script. */
(function () {
  "use strict";

  function follow(viewer, aside) {
    const box = aside.querySelector(".log");
    const blocks = Array.from(aside.querySelectorAll(".log-block[data-turn]"));
    let shown = null;
    viewer.addEventListener("armada:position", (event) => {
      const turn = event.detail.turn;
      if (turn === shown) return;
      shown = turn;
      let first = null;
      for (const block of blocks) {
        const now = Number(block.dataset.turn) === turn;
        block.classList.toggle("now", now);
        if (now && first === null) first = block;
      }
      aside.dataset.turn = String(turn);
      if (first && box) {  // scroll the log's own box, never the page
        box.scrollTop += first.getBoundingClientRect().top - box.getBoundingClientRect().top - 8;
      }
    });
    const seek = (target) => {
      const block = target.closest && target.closest("[data-turn]");
      if (!block || !aside.contains(block)) return;
      viewer.dispatchEvent(new CustomEvent("armada:seek", { detail: { turn: Number(block.dataset.turn) } }));
    };
    aside.addEventListener("click", (event) => seek(event.target));
    // One tab stop for the whole log (a 200-turn match had 400 of them before the rest of the page): the
    // current turn's first request; Up and Down move between the requests, Home and End to the ends.
    const rows = Array.from(aside.querySelectorAll(".log-request"));
    const stop = (row) => {
      for (const r of rows) r.tabIndex = r === row ? 0 : -1;
    };
    if (rows.length) stop(rows[0]);
    viewer.addEventListener("armada:position", () => {
      const now = aside.querySelector(".log-block.now .log-request");
      if (now && !aside.contains(document.activeElement)) stop(now);
    });
    aside.addEventListener("keydown", (event) => {
      const row = event.target.closest && event.target.closest(".log-request");
      if (event.key === "Enter" || event.key === " ") {
        seek(event.target);
        if (event.target.closest && event.target.closest("[data-turn]")) event.preventDefault();
        return;
      }
      const at = rows.indexOf(row);
      if (at < 0) return;
      const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: rows.length - 1 }[event.key];
      if (to === undefined || !rows[to]) return;
      event.preventDefault();
      stop(rows[to]);
      rows[to].focus();
    });
  }

  function start() {
    const viewer = document.querySelector(".match-replay [data-armada-src]");
    if (!viewer) return;
    for (const aside of document.querySelectorAll(".match-log")) follow(viewer, aside);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
