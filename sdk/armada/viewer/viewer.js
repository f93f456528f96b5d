/* Armada replay viewer: the entry point.
 *
 *   ArmadaViewer.mount(element, source, {hash: true, seats})   source: a replay object, JSON text, bytes, or {url};
 *   seats (optional): {"1": {"name": "alpha", "you": true}, ...}, the page's names for the seats and the viewer's own
 *
 * Elements with a data-armada-src="URL" (a .json.gz or .json replay) or data-armada-json="ID" (the id of a
 * <script type="application/json"> holding the replay) are mounted when the page has loaded, with the seats of
 * their data-armada-seats (JSON) when they have one. No inline
 * script or handler is needed, so the viewer runs under a Content-Security-Policy without 'unsafe-inline'.
 *
 * The page hook (docs/viewer.md): the root element sends a bubbling "armada:position" CustomEvent whenever
 * the shown position changes (detail: {index, turn, unit, playing}; `turn` is the turn or round number shown),
 * and obeys an "armada:seek" CustomEvent (detail: {turn}): it pauses and shows that turn, or the last
 * position before it. A page uses them from its own script file (the site's log beside the viewer does). */
(function (AV) {
  "use strict";
  const { el, clear } = AV.util;
  const { ReplayError, loadReplay } = AV.load;
  const P = AV.player;

  function showError(root, err) {
    clear(root);
    root.dataset.state = "error";
    const known = err instanceof ReplayError;
    const message = known ? err.message : "The viewer could not show this replay (" + (err && err.message) + ").";
    root.appendChild(el("div", { class: "av-error", role: "alert" }, el("strong", null, "Cannot show this replay. "), message));
    if (!known && window.console) console.warn(err);
  }

  /** The turn to open on: #t=N when it names one (else the nearest earlier position), else the start. */
  function startIndex(player, label) {
    if (label === null) return 0;
    let best = 0;
    for (let i = 0; i < player.count; i++) if (player.opts.labelOf(i) <= label) best = i;
    return best;
  }

  /** The page hook: "armada:position" out after every change, "armada:seek" in. */
  function bindHook(root, player, unit) {
    player.onChange(() => {
      const detail = { index: player.index, turn: player.opts.labelOf(player.index), unit, playing: player.playing };
      root.dispatchEvent(new CustomEvent("armada:position", { bubbles: true, detail }));
    });
    root.addEventListener("armada:seek", (event) => {
      const turn = Number(event.detail && event.detail.turn);
      if (!Number.isFinite(turn)) return;
      player.playing = false;
      player.seek(startIndex(player, turn));
    });
  }

  function start(root, replay, options) {
    clear(root);
    root.classList.add("armada-viewer");
    root.dataset.game = replay.game;
    AV.util.nameSeats(replay, options.seats);
    const game = (replay.game === "galaxy" ? AV.galaxy : AV.mothership).create(root, replay);
    const player = new P.Player({ ...game, root });
    const under = root.querySelector(".av-board-wrap") || root; // the controls right under the board
    under.appendChild(P.buildControls(player, game));
    const strip = AV.timing.build(player, replay, game);
    if (strip) under.appendChild(strip);
    AV.debug.attach(root, player, replay, options.debug);
    if (options.keys !== false) P.bindKeys(player, root);
    if (options.focus) root.focus({ preventScroll: true }); // the page is the viewer: its keys from the start
    const hash = options.hash !== false;
    player.seek(startIndex(player, hash ? P.hashLabel(location.hash) : null));
    if (hash) P.bindHash(player, game);
    bindHook(root, player, game.unit);
    root.dataset.state = "ready";
    player.changed();
    return player;
  }

  /** Show a replay in `root`; resolves to the player, or shows a message (and resolves to null). */
  async function mount(root, source, options) {
    root.dataset.state = "loading";
    root.classList.add("armada-viewer");
    clear(root).appendChild(el("p", { class: "av-muted" }, "Loading the replay\u2026"));
    try {
      const replay = await loadReplay(source);
      return start(root, replay, options || {});
    } catch (err) {
      showError(root, err);
      return null;
    }
  }

  /** The source an element names with data-armada-src or data-armada-json. */
  function sourceOf(node) {
    if (node.dataset.armadaSrc) return { url: node.dataset.armadaSrc };
    const block = document.getElementById(node.dataset.armadaJson || "");
    if (!block) return Promise.reject(new ReplayError("The page holds no replay data."));
    return block.textContent;
  }

  /** The seats' names and "you" flags a page gives in data-armada-seats (JSON), or null. */
  function seatsOf(node) {
    try {
      return node.dataset.armadaSeats ? JSON.parse(node.dataset.armadaSeats) : null;
    } catch (err) {
      return null;
    }
  }

  /** The bots' drawings a page names with data-armada-debug='[{"seat": 1, "url": "...", "on": true}]'. */
  function debugOf(node) {
    try {
      return node.dataset.armadaDebug ? JSON.parse(node.dataset.armadaDebug) : undefined;
    } catch (err) {
      return undefined;
    }
  }

  function autoMount() {
    for (const node of document.querySelectorAll("[data-armada-src], [data-armada-json]")) {
      Promise.resolve(sourceOf(node)).then(
        // a replay the page holds (`armada replay --html`) is the page: the viewer takes the focus
        (source) => mount(node, source, { seats: seatsOf(node), debug: debugOf(node), focus: !!node.dataset.armadaJson }),
        (err) => showError(node, err));
    }
  }

  AV.mount = mount;
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", autoMount);
  else autoMount();
})(window.ArmadaViewer = window.ArmadaViewer || {});
