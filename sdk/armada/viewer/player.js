/* Armada replay viewer: the timeline (play, pause, step, scrub, speed, keyboard, #t=N links).
 * The player knows positions 0..count-1 and a progress 0..1 into the current one; a game view draws them. */
(function (AV) {
  "use strict";
  const { el } = AV.util;

  const SPEEDS = [0.5, 1, 2, 4, 8];
  const STEP_MS = 350; // a single step forward is animated this fast, whatever the speed

  class Player {
    /**
     * opts: count, labelOf(i) -> the turn/round number shown and used in #t=N, unit ("turn"/"round"),
     * turnMs (one position at speed 1), isEvent(i) (for "next battle"), render(i, progress), root (gets data-*).
     */
    constructor(opts) {
      this.opts = opts;
      this.count = opts.count;
      this.index = 0;
      this.progress = 1;
      this.playing = false;
      this.speed = 1;
      this.stepping = false;
      this.lastTime = null;
      this.frameRequest = null;
      this.listeners = [];
    }

    /** Call fn() after every change of position or state (controls refresh themselves this way). */
    onChange(fn) {
      this.listeners.push(fn);
    }

    get animating() {
      return this.progress < 1;
    }

    changed() {
      const root = this.opts.root;
      root.dataset.index = String(this.index);
      root.dataset.turn = String(this.opts.labelOf(this.index));
      root.dataset.playing = String(this.playing);
      root.dataset.animating = String(this.animating);
      this.opts.render(this.index, this.progress);
      for (const fn of this.listeners) fn();
    }

    /** Jump to a position, at rest (no animation). */
    seek(index) {
      this.index = Math.max(0, Math.min(this.count - 1, index));
      this.progress = 1;
      this.stepping = false;
      this.changed();
    }

    /** The position whose label (turn number) is `label`, or null. */
    indexOfLabel(label) {
      for (let i = 0; i < this.count; i++) if (this.opts.labelOf(i) === label) return i;
      return null;
    }

    play() {
      if (this.count < 2) return;
      if (this.index >= this.count - 1 && !this.animating) this.seek(0);
      this.playing = true;
      this.stepping = false;
      this.startLoop();
      this.changed();
    }

    pause() {
      this.playing = false;
      if (!this.stepping) this.finishStep();
      this.changed();
    }

    toggle() {
      if (this.playing) this.pause();
      else this.play();
    }

    /** One position forward (animated) or back (a jump). */
    step(delta) {
      this.playing = false;
      if (delta < 0) {
        this.seek(this.animating ? this.index - 1 : this.index + delta);
        return;
      }
      if (this.index >= this.count - 1) {
        this.seek(this.index);
        return;
      }
      this.index += 1;
      this.progress = 0;
      this.stepping = true;
      this.startLoop();
      this.changed();
    }

    /** Jump to the next position after this one for which isEvent(i) holds (e.g. a battle). */
    nextEvent() {
      for (let i = this.index + 1; i < this.count; i++) {
        if (this.opts.isEvent(i)) {
          this.playing = false;
          this.seek(i);
          return true;
        }
      }
      return false;
    }

    finishStep() {
      this.progress = 1;
      this.stepping = false;
    }

    startLoop() {
      if (this.frameRequest === null) {
        this.lastTime = null;
        this.frameRequest = requestAnimationFrame((t) => this.tick(t));
      }
    }

    tick(time) {
      this.frameRequest = null;
      const dt = this.lastTime === null ? 0 : Math.min(time - this.lastTime, 250);
      this.lastTime = time;
      const ms = this.stepping ? STEP_MS : this.opts.turnMs / this.speed;
      if (this.progress >= 1 && this.playing) {
        if (this.index >= this.count - 1) {
          this.playing = false;
          this.changed();
          return;
        }
        this.index += 1;
        this.progress = 0;
      }
      this.progress = Math.min(1, this.progress + dt / ms);
      if (this.progress >= 1 && this.stepping) this.finishStep();
      this.changed();
      if (this.playing || this.animating) this.frameRequest = requestAnimationFrame((t) => this.tick(t));
    }
  }

  /** Read "#t=N" from a hash string; null when absent. */
  function hashLabel(hash) {
    const match = /(?:^#|&)t=(-?\d+)(?:&|$)/.exec(hash || "");
    return match ? Number(match[1]) : null;
  }

  function button(label, title, action) {
    const node = el("button", { type: "button", class: "av-button", title, "aria-label": title }, label);
    node.addEventListener("click", action);
    return node;
  }

  /** The control bar; `extra` nodes (e.g. the fog switch) go at its end. The steps are ‹ and ›
   * (a replay viewer's usual marks: ▶| reads as "to the end", ◀ as "play backwards"). */
  function buildControls(player, opts) {
    const unit = opts.unit;
    const back = button("\u2039", "step back (left arrow)", () => player.step(-1));
    const playBtn = button("\u25B6", "play / pause (space)", () => player.toggle());
    playBtn.classList.add("av-play");
    const forward = button("\u203A", "step forward (right arrow)", () => player.step(1));
    const next = button(opts.nextLabel, "jump to the next " + opts.nextWhat, () => player.nextEvent());
    next.classList.add("av-next");
    const scrub = el("input", {
      type: "range", class: "av-scrub", min: 0, max: Math.max(0, player.count - 1), step: 1, value: 0,
      "aria-label": "scrub through the " + unit + "s",
    });
    scrub.addEventListener("input", () => {
      player.playing = false;
      player.seek(Number(scrub.value));
    });
    const counter = el("span", { class: "av-counter", "aria-live": "off" });
    const speed = el("select", { class: "av-speed", "aria-label": "speed" });
    for (const s of SPEEDS) speed.appendChild(el("option", { value: s }, s + "\u00D7"));
    speed.value = "1";
    speed.addEventListener("change", () => (player.speed = Number(speed.value)));
    const link = el("a", { class: "av-link", href: "#t=0", title: "a link to this " + unit }, "link");
    const bar = el("div", { class: "av-controls" }, back, playBtn, forward, next, scrub, counter, speed, link,
      ...(opts.extra || []));
    const last = opts.labelOf(player.count - 1);
    player.onChange(() => {
      const label = opts.labelOf(player.index);
      scrub.value = String(player.index);
      counter.textContent = unit + " " + label + " / " + last;
      playBtn.textContent = player.playing ? "\u275A\u275A" : "\u25B6";
      playBtn.setAttribute("aria-label", player.playing ? "pause (space)" : "play (space)");
      counter.setAttribute("aria-live", player.playing ? "off" : "polite"); // a step is said, not every turn played
      link.setAttribute("href", "#t=" + label);
      back.disabled = player.index === 0 && !player.animating;
      forward.disabled = player.index >= player.count - 1;
    });
    return bar;
  }

  /** What keeps its own keys when focused: form controls, and Space and Enter on what they press or open
   * (buttons, links, summaries, the board's planets, the log's rows). */
  const CONTROLS = "a[href], button, summary, [role=button], [tabindex]:not([tabindex='-1'])";

  /** Space plays/pauses, arrows step, Home and End go to the ends, wherever the focus is in the viewer, or
   * on a page with nothing focused. Keys typed into form controls are left to them; a focused control
   * (after a click on "next battle", say) keeps Space and Enter, which press it, but not the arrows; a
   * control elsewhere on the page keeps every key; and on a page that scrolls, with nothing focused,
   * Space, Home and End scroll it (a click on the board focuses the viewer: then they are the viewer's). */
  function bindKeys(player, root) {
    root.tabIndex = -1; // focusable by a click (below), never a stop of Tab
    root.addEventListener("pointerdown", (event) => {
      if (!(event.target.closest && event.target.closest(CONTROLS))) root.focus({ preventScroll: true });
    });
    const handler = (event) => {
      if (!root.isConnected || event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
      const target = event.target instanceof Element ? event.target : null;
      const tag = target && target.tagName;
      if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
      const inside = target !== null && root.contains(target);
      // the page: nothing focused, or a focused container that is no control (the site's <main>, after a click
      // on its text or the skip link)
      const page = !inside && (target === null || !target.closest(CONTROLS));
      if (!inside && !page) return;
      const space = event.key === " " || event.key === "Spacebar";
      if (inside && target !== root && target.closest(CONTROLS) && (space || event.key === "Enter")) return;
      const scrolls = document.documentElement.scrollHeight > window.innerHeight + 1;
      if (page && scrolls && (space || event.key === "Home" || event.key === "End")) return;
      if (space) player.toggle();
      else if (event.key === "ArrowRight") player.step(1);
      else if (event.key === "ArrowLeft") player.step(-1);
      else if (event.key === "Home") player.seek(0);
      else if (event.key === "End") player.seek(player.count - 1);
      else return;
      event.preventDefault();
    };
    document.addEventListener("keydown", handler);
  }

  /** Keep #t=N in the address bar (without new history entries) and follow it when it changes. */
  function bindHash(player, opts) {
    let shown = null;
    player.onChange(() => {
      if (player.playing || player.animating) return;
      const label = opts.labelOf(player.index);
      if (label === shown) return;
      shown = label;
      try {
        history.replaceState(history.state, "", "#t=" + label);
      } catch (err) {
        /* some file:// setups refuse replaceState; the link in the bar still works */
      }
    });
    window.addEventListener("hashchange", () => {
      const label = hashLabel(location.hash);
      const index = label === null ? null : player.indexOfLabel(label);
      if (index !== null) player.seek(index);
    });
  }

  AV.player = { Player, SPEEDS, hashLabel, buildControls, bindKeys, bindHash };
})(window.ArmadaViewer = window.ArmadaViewer || {});
