/* Armada replay viewer, Galaxy: the side panel (the selected planet, or the turn's battles and probes)
 * and the text of events. Like the board, it shows only what the view holds. */
(function (AV) {
  "use strict";
  const { el, clear } = AV.util;
  const { ships } = AV.galaxyBoard;
  const M = AV.galaxyModel;

  function ownerName(owner) {
    return owner === 1 || owner === 2 ? "seat " + owner : "neutral";
  }

  function units(u) {
    return u.battleships + "B " + u.cruisers + "C " + u.launchers + "L (MLE " + M.mle(u) + ")";
  }

  function rate(p) {
    return p.battleships + "B " + p.cruisers + "C " + p.launchers + "L per turn";
  }

  function battleText(b) {
    const sides = (b.sides || []).map((s) => ownerName(s.owner) + " " + s.role + " " + units(s.before) +
      " \u2192 " + units(s.after));
    const won = b.winner === null || b.winner === undefined ? "nobody is left" : ownerName(b.winner) + " won";
    return "Battle at P" + b.planet + ": " + sides.join("; ") + "; " + won + ", owner now " + ownerName(b.new_owner) + ".";
  }

  /** What a seat's probe of planet `id` reported (GX-9: contents and production as the turn began). */
  function probeText(probes, id) {
    const intel = probes.intel.find((x) => x.planet === id);
    const seen = intel ? ": " + ownerName(intel.owner) + ", " + units(intel.garrison) + ", " + rate(intel.production) : "";
    return "Probed by seat " + probes.seat + seen + " (as the turn began).";
  }

  /** Text lines for the events of this turn at planet `id` (all planets when id is null). */
  function eventLines(view, id) {
    const at = (pid) => id === null || pid === id;
    const lines = [];
    for (const f of view.launches) {
      if (at(f.from) || at(f.to)) {
        lines.push("Fleet #" + f.id + " of " + ownerName(f.owner) + " launched P" + f.from + " \u2192 P" + f.to + ": " +
          ships(f) + ", arrives in turn " + f.arrives + ".");
      }
    }
    for (const a of view.arrivals) if (at(a.planet)) lines.push("Fleet #" + a.fleet + " of " + ownerName(a.owner) + " arrived at P" + a.planet + ".");
    for (const b of view.battles) if (at(b.planet)) lines.push(battleText(b));
    for (const c of view.captures) {
      if (at(c.planet)) lines.push("P" + c.planet + " captured by " + ownerName(c.owner) + " (was " + ownerName(c.previous) + ").");
    }
    for (const p of view.production) {
      if (id !== null && p.planet === id) lines.push("Produced " + p.b + "B " + p.c + "C " + p.l + "L.");
    }
    for (const g of view.growth) if (id !== null && g.planet === id && g.gain) lines.push("Neutral growth: +" + g.gain + "L.");
    for (const pr of view.probes) {
      if (id === null && pr.targets.length) lines.push("Seat " + pr.seat + " probed " + pr.targets.map((t) => "P" + t).join(", ") + ".");
      else if (id !== null && pr.targets.includes(id)) lines.push(probeText(pr, id));
    }
    return lines;
  }

  function row(term, value) {
    return [el("dt", null, term), el("dd", null, value)];
  }

  function planetDetails(view, p) {
    const fog = view.seat ? " to seat " + view.seat : "";
    const list = el("dl", { class: "av-facts" });
    list.append(...row("owner", ownerName(p.owner)));
    if (p.garrison) {
      const source = p.known === "intel" ? " (probe intel)" : "";
      list.append(...row("battleships", String(p.garrison.battleships) + source));
      list.append(...row("cruisers", String(p.garrison.cruisers) + source));
      list.append(...row("launchers", String(p.garrison.launchers) + source));
      list.append(...row("MLE", String(M.mle(p.garrison))));
    } else {
      list.append(...row("contents", "unknown" + fog));
    }
    list.append(...row("production", p.production ? rate(p.production) : "unknown" + fog));
    if (p.hold !== null && p.hold !== undefined && p.owner) list.append(...row("hold", p.hold + (p.hold === 1 ? " turn" : " turns")));
    return list;
  }

  function lineList(lines, empty) {
    if (!lines.length) return el("p", { class: "av-muted" }, empty);
    return el("ul", { class: "av-events" }, ...lines.map((line) => el("li", null, line)));
  }

  /** Fill the panel: the selected planet's facts and events, or the turn's events. */
  function fillPanel(panel, view, selected) {
    clear(panel);
    const p = selected ? view.planets.find((x) => x.id === selected) : null;
    if (p) {
      const close = el("button", { type: "button", class: "av-close", "aria-label": "close" }, "\u00D7");
      close.addEventListener("click", () => panel.dispatchEvent(new CustomEvent("av-close", { bubbles: true })));
      panel.append(el("h3", null, "Planet " + p.id + " ", close), planetDetails(view, p),
        el("h4", null, "This turn"), lineList(eventLines(view, p.id), "nothing happened here"));
      panel.dataset.planet = String(p.id);
      return;
    }
    delete panel.dataset.planet;
    const lines = eventLines(view, null);
    const count = lines.length > 1 ? el("span", { class: "av-muted av-event-count" }, lines.length + " events") : null;
    panel.append(el("h3", null, "Turn " + view.turn, count), lineList(lines, "no launches, battles or probes"),
      el("p", { class: "av-muted" }, "Click a planet to inspect it."));
  }

  AV.galaxyPanel = { fillPanel, eventLines, battleText, ownerName };
})(window.ArmadaViewer = window.ArmadaViewer || {});
