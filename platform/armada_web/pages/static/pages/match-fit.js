/* The match page: the board's side is the room the window leaves it, so that the board and its
   controls fit the first screen whatever the title and the seats' line take above it (long names
   wrap) and the controls below it (they wrap beside the owner's log). Without this script the
   stylesheet's estimate (the window's height less 20rem) holds. */
(function () {
  "use strict";
  const box = document.querySelector(".match-replay");
  if (!box) return;

  function fit() {
    const board = box.querySelector(".armada-viewer .av-board");
    if (!board) return;
    const controls = box.querySelector(".armada-viewer .av-controls");
    const top = board.getBoundingClientRect().top + window.scrollY;
    const below = controls ? controls.getBoundingClientRect().height + parseFloat(getComputedStyle(controls).marginTop) : 0;
    const side = Math.floor(window.innerHeight - top - below - 8);
    box.style.setProperty("--board-side", side + "px");
  }

  new MutationObserver(fit).observe(box, { subtree: true, attributes: true, attributeFilter: ["data-state"] });
  window.addEventListener("resize", fit);
  if (document.fonts) document.fonts.ready.then(fit);
  fit();
})();
