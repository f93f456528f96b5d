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
    aside.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        seek(event.target);
        if (event.target.closest && event.target.closest("[data-turn]")) event.preventDefault();
      }
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
