/* Armada replay viewer: the timing strip under the timeline (each seat's time per turn, timeouts, slowest turns).
 * It reads the replay's `timings` in both shapes (docs/replay-format.md): {limits, seats: {"1": {ms, bank_ms,
 * timeouts}}} and the older {"1": [ms, ...]}. Request 0 is `init`; request k is the k-th step the seat was
 * asked in; a request past the recorded steps is the one the match ended on (a fault). */
(function (AV) {
  "use strict";
  const { el, svg, seatName, seatStatus } = AV.util;

  /** One seat's requests: [{id, ms, bank (null: not recorded), timeout}]; [] without timings. */
  function seatTimes(replay, seat) {
    const timings = replay && replay.timings;
    if (!timings || typeof timings !== "object") return [];
    const num = (v) => (typeof v === "number" && Number.isFinite(v) ? v : null);
    if (timings.seats && typeof timings.seats === "object") {
      const rec = timings.seats[String(seat)];
      if (!rec || !Array.isArray(rec.ms)) return [];
      const banks = Array.isArray(rec.bank_ms) ? rec.bank_ms : [];
      const timeouts = new Set(Array.isArray(rec.timeouts) ? rec.timeouts : []);
      return rec.ms.map((ms, id) => ({ id, ms: num(ms) || 0, bank: num(banks[id]), timeout: timeouts.has(id) }));
    }
    const old = timings[String(seat)];
    if (!Array.isArray(old)) return [];
    const times = old.map((ms, id) => ({ id, ms: num(ms) || 0, bank: null, timeout: false }));
    if (times.length && seatStatus(replay, seat).status === "timeout") times[times.length - 1].timeout = true;
    return times;
  }

  /** (type, turn) of each request of a seat by id: init, then the steps it was asked in. */
  function requestKinds(replay, seat) {
    const kinds = [{ type: "init", turn: null }];
    for (const step of replay.steps || []) {
      if (!step || !step.answers || !(String(seat) in step.answers)) continue;
      const phase = step.phase && typeof step.phase === "object" ? step.phase[String(seat)] : step.phase;
      kinds.push({ type: String(phase || ""), turn: Number.isInteger(step.turn) ? step.turn : null });
    }
    return kinds;
  }

  /** The request a seat's fault names ("no reply to command (id 66, turn 33) ..."): {type, turn} when
   * its id is `id`, else null. The match ended on it, so no step records it. */
  function faultRequest(replay, seat, id) {
    const found = /\b([a-z_]+) \(id (\d+)(?:, turn (\d+))?\)/.exec(seatStatus(replay, seat).detail);
    if (!found || Number(found[2]) !== id) return null;
    return { type: found[1], turn: found[3] === undefined ? null : Number(found[3]) };
  }

  /** Per seat and position: {ms, bank, timeout, requests, ended}; positions come from the player's
   * labels. `ended` gathers the requests of the turn the match ended in when no position shows it (a
   * fault in the middle of a turn: the board is the last one played), and the request after them the
   * match ended on: {types, turn, ms, bank, timeout}, kept apart from the position's own requests, so
   * each turn keeps its own time (and bank) and the strip names the ended turn with its own. */
  function perPosition(replay, game, seat) {
    const times = seatTimes(replay, seat);
    if (!times.length) return null;
    const kinds = requestKinds(replay, seat);
    const index = new Map();
    for (let i = 0; i < game.count; i++) if (!index.has(game.labelOf(i))) index.set(game.labelOf(i), i);
    const cells = Array.from({ length: game.count },
      () => ({ ms: 0, bank: null, timeout: false, requests: [], ended: null }));
    const last = cells[game.count - 1];
    const lastTurn = Number(game.labelOf(game.count - 1));
    for (const t of times) {
      const past = t.id >= kinds.length; // the request the match ended on
      const kind = past ? faultRequest(replay, seat, t.id) || { type: "last request", turn: null } : kinds[t.id];
      // a turn past the last board (the match ended in it); a turn missing among the boards (an older
      // replay) stays with the last board's, as before
      const unshown = kind.type !== "init" && kind.turn !== null && !index.has(kind.turn) &&
        Number.isFinite(lastTurn) && Number(kind.turn) > lastTurn;
      if (unshown || (past && kind.turn === null && last.ended)) { // the ended turn's, or the one after them
        const ended = last.ended || (last.ended = { types: [], turn: kind.turn, ms: 0, bank: null, timeout: false });
        ended.types.push(kind.type);
        ended.ms += t.ms;
        ended.timeout = ended.timeout || t.timeout;
        if (t.bank !== null) ended.bank = t.bank;
        continue;
      }
      let at = kind.type === "init" || kind.turn === null ? 0 : index.get(kind.turn);
      if (past || at === undefined) at = game.count - 1;
      const cell = cells[Math.max(0, at)];
      if (t.bank !== null) cell.bank = t.bank;
      if (kind.type !== "init") cell.ms += t.ms;
      cell.timeout = cell.timeout || t.timeout;
      // init whose answer never came (the bot crashed or stopped first): its time is until then
      const unanswered = kind.type === "init" && faultRequest(replay, seat, t.id) !== null;
      cell.requests.push({ ...t, type: kind.type, turn: kind.turn, unanswered });
    }
    return { times, cells };
  }

  /** "turn 3 (scout + command)": the requests of the turn the match ended in, which no board shows. */
  function endedAt(game, ended) {
    return game.unit + " " + ended.turn + " (" + ended.types.join(" + ") + ")";
  }

  /** A position's time, the ended request's included (the bar's height). */
  function total(c) {
    return c.ms + (c.ended ? c.ended.ms : 0);
  }

  function fmt(ms) {
    return ms >= 100 ? Math.round(ms) + " ms" : ms.toFixed(1) + " ms";
  }

  /** What a position's cell says of its time: "timed out", the time of its requests, "init 41.2 ms" where init
   * was its only request (Galaxy's turn 0; "init not answered" when the bot stopped before its answer), "no
   * request" where it had none (Mothership's rounds after the orders). */
  function spent(c) {
    if (c.timeout) return "timed out";
    if (c.requests.some((r) => r.type !== "init")) return fmt(c.ms);
    if (!c.requests.length) return "no request";
    const init = c.requests[0];
    return init.unanswered ? "init not answered (" + fmt(init.ms) + " until the bot stopped)" : "init " + fmt(init.ms);
  }

  /** A seat's name as the strip gives it: with "(seat N)" when both seats have the same name (a bot against a
   * copy of itself, two starters), so that the rows, the line and the slowest list say whose time it is. */
  function nameOf(replay, seat) {
    const name = seatName(replay, seat);
    return name === seatName(replay, 3 - seat) ? name + " (seat " + seat + ")" : name;
  }

  /** The strip: a row of bars per seat (time per turn; red: a timeout), a line for the shown turn, the
   * slowest turns (each a button that shows it). Null when the replay has no timings. */
  function build(player, replay, game) {
    const seats = [1, 2].map((seat) => ({ seat, data: perPosition(replay, game, seat) })).filter((s) => s.data);
    if (!seats.length) return null;
    const n = game.count;
    const max = Math.max(1, ...seats.flatMap((s) => s.data.cells.map(total)));
    const root = el("div", { class: "av-timing", "data-max-ms": Math.round(max),
      title: "time per " + game.unit + " (bars scaled to the slowest; red: a timeout)" });
    const cursors = [];
    for (const { seat, data } of seats) {
      const bars = svg("svg", { class: "av-timing-bars", viewBox: "0 0 " + n + " 20", preserveAspectRatio: "none",
        role: "img", "aria-label": "time per " + game.unit + " of " + nameOf(replay, seat) });
      data.cells.forEach((c, i) => {
        const own = game.unit + " " + game.labelOf(i) + ": " + fmt(c.ms);
        if (c.timeout || (c.ended && c.ended.timeout)) {
          const at = c.timeout ? game.unit + " " + game.labelOf(i) : endedAt(game, c.ended);
          const before = !c.timeout && c.ms > 0 ? own + "; " : "";
          bars.appendChild(svg("rect", { x: i, y: 0, width: 1, height: 20, class: "av-timing-timeout" },
            svg("title", null, before + "timeout at " + at)));
        } else if (total(c) > 0) {
          const h = Math.max(1, (20 * total(c)) / max);
          const title = c.ended ? (c.ms > 0 ? own + "; " : "") + endedAt(game, c.ended) + ": " + fmt(c.ended.ms) : own;
          bars.appendChild(svg("rect", { x: i + 0.1, y: 20 - h, width: 0.8, height: h, class: "av-timing-bar" },
            svg("title", null, title)));
        }
      });
      const cursor = svg("rect", { x: 0, y: 0, width: 1, height: 20, class: "av-timing-cursor" });
      bars.appendChild(cursor);
      cursors.push(cursor);
      bars.addEventListener("click", (event) => {
        const box = bars.getBoundingClientRect();
        if (box.width > 0) player.seek(Math.floor(((event.clientX - box.left) / box.width) * n));
      });
      const timeouts = data.times.filter((t) => t.timeout).length;
      root.appendChild(el("div", { class: "av-timing-row av-seat-" + seat, "data-seat": seat,
        "data-timeouts": timeouts },
        el("span", { class: "av-timing-name", title: nameOf(replay, seat) }, nameOf(replay, seat)), bars));
    }
    const now = el("p", { class: "av-timing-now av-muted" });
    root.appendChild(now);
    const slow = seats.flatMap(({ seat, data }) => data.cells.flatMap((c, i) => [
      { seat, i, ...c, label: game.unit + " " + game.labelOf(i) },
      ...(c.ended ? [{ seat, i, ...c.ended, requests: [], label: endedAt(game, c.ended) }] : []),
    ]))
      .filter((c) => c.ms > 0 || c.timeout)
      .sort((a, b) => Number(b.timeout) - Number(a.timeout) || b.ms - a.ms).slice(0, 5);
    if (slow.length) {
      const list = el("ol", { class: "av-timing-slowest" });
      for (const c of slow) {
        const what = c.requests.filter((r) => r.type !== "init").map((r) => r.type).join(" + ");
        const go = el("button", { type: "button", class: "av-timing-go" },
          nameOf(replay, c.seat) + ", " + c.label + (what ? " (" + what + ")" : "") +
          ": " + fmt(c.ms) + (c.timeout ? ", timed out" : "") + (c.bank !== null ? ", bank " + c.bank + " ms left" : ""));
        go.addEventListener("click", (event) => {
          player.seek(c.i);
          if (event.detail > 0) go.blur(); // a mouse's click: the arrow keys keep stepping; a key's keeps the focus
        });
        list.appendChild(el("li", { class: "av-seat-" + c.seat }, go));
      }
      root.appendChild(el("details", { class: "av-timing-more" }, el("summary", null, "slowest " + game.unit + "s (init aside)"), list));
    }
    player.onChange(() => {
      for (const cursor of cursors) cursor.setAttribute("x", String(player.index));
      const parts = seats.map(({ seat, data }) => {
        const c = data.cells[player.index];
        const own = spent(c) + (c.bank !== null ? ", bank " + c.bank + " ms" : "");
        const ended = c.ended ? (c.requests.length ? own + "; then " : "") +
          (c.ended.timeout ? "timed out" : fmt(c.ended.ms)) + " at " + endedAt(game, c.ended) +
          (c.ended.bank !== null ? ", bank " + c.ended.bank + " ms" : "") : own;
        return nameOf(replay, seat) + ": " + ended;
      });
      now.textContent = "time at " + game.unit + " " + game.labelOf(player.index) + " \u2014 " + parts.join("; ");
    });
    return root;
  }

  AV.timing = { seatTimes, requestKinds, faultRequest, perPosition, build };
})(window.ArmadaViewer = window.ArmadaViewer || {});
