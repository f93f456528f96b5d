/* Armada replay viewer: small DOM helpers shared by every part.
 * Every text a user wrote (bot names, race names) becomes a text node: it is never parsed as HTML. */
(function (AV) {
  "use strict";

  const SVG_NS = "http://www.w3.org/2000/svg";

  /** Seat colours (0 = neutral). */
  const COLOURS = {
    0: { fill: "#3a4150", stroke: "#7c8596", text: "#d5dae3" },
    1: { fill: "#1f4e8c", stroke: "#5aa2ff", text: "#e8f1ff" },
    2: { fill: "#8c2f1f", stroke: "#ff7a5a", text: "#fff0eb" },
  };

  /** Set attributes (null/undefined values are skipped). */
  function setAttrs(node, attrs) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined) node.setAttribute(key, String(value));
    }
    return node;
  }

  /** Append children: nodes as they are, anything else as a text node. */
  function append(node, children) {
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  /** An HTML element: el("div", {class: "x"}, "text", otherNode). */
  function el(tag, attrs, ...children) {
    return append(setAttrs(document.createElement(tag), attrs), children);
  }

  /** An SVG element, same calling convention as el(). */
  function svg(tag, attrs, ...children) {
    return append(setAttrs(document.createElementNS(SVG_NS, tag), attrs), children);
  }

  /** Remove every child of a node. */
  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  /** The name a seat played under, as recorded in the replay. */
  function seatName(replay, seat) {
    const entry = (replay.seats || []).find((s) => s && s.seat === seat);
    const name = entry && typeof entry.name === "string" ? entry.name : "";
    return name || "seat " + seat;
  }

  /** Seats as the page names them (the site: {"1": {"name": "alpha", "you": true}, ...}): each named seat
   * of the replay takes the page's name (the one it played under is kept as `playedAs`) and its "you" flag. */
  function nameSeats(replay, seats) {
    if (!seats || typeof seats !== "object") seats = siteNames(replay);
    for (const entry of replay.seats || []) {
      const given = entry && seats[String(entry.seat)];
      if (!given || typeof given !== "object") continue;
      if (typeof given.name === "string" && given.name) {
        if (typeof entry.name === "string" && entry.name && entry.name !== given.name) entry.playedAs = entry.name;
        entry.name = given.name;
      }
      entry.you = given.you === true;
    }
    return replay;
  }

  /** The names a site stored in its replay (each seat's `bot`: the bot's name on the site), as a page's
   * seats: a replay downloaded from the site shows the bots as the site names them, offline too. */
  function siteNames(replay) {
    const seats = {};
    for (const entry of replay.seats || []) {
      // (a site's bot name is at most 60 characters: a replay's longer one is cut)
      if (entry && typeof entry.bot === "string" && entry.bot) seats[String(entry.seat)] = { name: entry.bot.slice(0, 60) };
    }
    return seats;
  }

  /** Is this seat the viewing user's own (the page said so)? */
  function isYou(replay, seat) {
    const entry = (replay.seats || []).find((s) => s && s.seat === seat);
    return !!(entry && entry.you);
  }

  /** A seat's name as shown in a header: the name, a "you" badge for the viewer's own seat, and the name
   * the bot played under (its title) when the page renamed it. */
  function seatLabel(replay, seat) {
    const entry = (replay.seats || []).find((s) => s && s.seat === seat) || {};
    const name = el("span", { class: "av-name", title: entry.playedAs ? "played as " + entry.playedAs : null },
      seatName(replay, seat));
    return [name, isYou(replay, seat) ? el("span", { class: "av-you", title: "your bot" }, "you") : null];
  }

  /** The seat's status and detail ("ok" has no detail). */
  function seatStatus(replay, seat) {
    const entry = (replay.seats || []).find((s) => s && s.seat === seat) || {};
    return { status: entry.status || "?", detail: entry.detail || "" };
  }

  /** "seat 1 wins by elimination" style text for a result object. */
  function resultText(replay, result) {
    if (!result) return "";
    const how = {
      elimination: "by elimination", turn_limit: "at the turn limit", destruction: "by destruction",
      damage: "on damage", forfeit: "by forfeit", draw: "",
    }[result.outcome];
    if (result.winner === 1 || result.winner === 2) {
      return seatName(replay, result.winner) + " (seat " + result.winner + ") wins " + (how || result.outcome || "");
    }
    return "Draw" + (result.outcome && result.outcome !== "draw" ? " (" + result.outcome + ")" : "");
  }

  /** A line per seat whose status is not "ok" (crashed, timeout, ...), with its detail; null when none. */
  function statusNotes(replay) {
    const notes = [1, 2].map((seat) => ({ seat, ...seatStatus(replay, seat) })).filter((s) => s.status !== "ok");
    if (!notes.length) return null;
    return el("div", { class: "av-notes" }, ...notes.map((n) => el("p", { class: "av-seat-" + n.seat },
      seatName(replay, n.seat) + " (seat " + n.seat + "): " + n.status + (n.detail ? " \u2014 " + n.detail : ""))));
  }

  AV.util = { SVG_NS, COLOURS, setAttrs, append, el, svg, clear, seatName, seatStatus, statusNotes, resultText,
    nameSeats, isYou, seatLabel };
})(window.ArmadaViewer = window.ArmadaViewer || {});
