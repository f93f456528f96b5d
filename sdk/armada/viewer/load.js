/* Armada replay viewer: reading a replay (an object, JSON text, gzip bytes or a URL) and checking it.
 * The viewer reads replay format version 1 (docs/replay-format.md); unknown top-level fields are ignored. */
(function (AV) {
  "use strict";

  const FORMAT = "armada-replay";
  const VERSION = 1;
  const GAMES = ["galaxy", "mothership"];

  /** A replay the viewer cannot show; its message is shown to the user as it is. */
  class ReplayError extends Error {}

  /** Check the parts of a replay the viewer relies on; throws ReplayError saying what is wrong. */
  function checkReplay(replay) {
    if (!replay || typeof replay !== "object" || Array.isArray(replay)) {
      throw new ReplayError("This file is not an Armada replay: it holds no JSON object.");
    }
    if (replay.format !== FORMAT) {
      throw new ReplayError("This file is not an Armada replay (its format is " +
        JSON.stringify(replay.format === undefined ? null : replay.format) + ", expected \"" + FORMAT + "\").");
    }
    if (replay.version !== VERSION) {
      throw new ReplayError("This replay is format version " + JSON.stringify(replay.version) +
        "; this viewer reads version " + VERSION + " only. A newer SDK or the site may show it.");
    }
    if (!GAMES.includes(replay.game)) {
      throw new ReplayError("This replay is of an unknown game " + JSON.stringify(replay.game) + ".");
    }
    for (const [key, kind] of [["seats", "list"], ["steps", "list"], ["result", "object"]]) {
      const value = replay[key];
      const ok = kind === "list" ? Array.isArray(value) : value && typeof value === "object";
      if (!ok) throw new ReplayError("This replay is damaged: its \"" + key + "\" field is missing or not a " + kind + ".");
    }
    return replay;
  }

  /** Parse JSON text and check it. */
  function parseReplayText(text) {
    let replay;
    try {
      replay = JSON.parse(text);
    } catch (err) {
      throw new ReplayError("This replay file is broken: it is not valid JSON (" + err.message + ").");
    }
    return checkReplay(replay);
  }

  /** Gunzip bytes with the browser's DecompressionStream. */
  async function gunzip(bytes) {
    if (typeof DecompressionStream !== "function") {
      throw new ReplayError("This browser cannot unpack .json.gz replays (no DecompressionStream); use a plain .json replay.");
    }
    try {
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      return new Uint8Array(await new Response(stream).arrayBuffer());
    } catch (err) {
      throw new ReplayError("This replay file is broken: its gzip data is damaged (" + err.message + ").");
    }
  }

  /** Bytes of a replay file, gzip-compressed or plain UTF-8 JSON (told apart by the gzip magic bytes). */
  async function parseReplayBytes(bytes) {
    let data = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    if (data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b) data = await gunzip(data);
    let text;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(data);
    } catch (err) {
      throw new ReplayError("This replay file is broken: it is neither gzip nor UTF-8 JSON.");
    }
    return parseReplayText(text);
  }

  /** Fetch a replay from a URL (.json.gz or .json; a server's Content-Encoding: gzip works too). */
  async function fetchReplay(url) {
    let response;
    try {
      response = await fetch(url, { credentials: "same-origin" });
    } catch (err) {
      throw new ReplayError("The replay could not be loaded from " + url + " (" + err.message + ").");
    }
    if (!response.ok) {
      throw new ReplayError("The replay could not be loaded from " + url + " (HTTP " + response.status + ").");
    }
    return parseReplayBytes(await response.arrayBuffer());
  }

  /** JSON from a URL the page named (a seat's drawings, debug.js); null when it cannot be had (any error). */
  async function fetchJson(url) {
    try {
      const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
      return response.ok ? await response.json() : null;
    } catch (err) {
      return null;
    }
  }

  /** Anything the viewer accepts: a replay object, JSON text, bytes, or {url}. */
  async function loadReplay(source) {
    if (source && typeof source === "object" && typeof source.url === "string") return fetchReplay(source.url);
    if (typeof source === "string") return parseReplayText(source);
    if (source instanceof ArrayBuffer || source instanceof Uint8Array) return parseReplayBytes(source);
    return checkReplay(source);
  }

  AV.load = { FORMAT, VERSION, ReplayError, checkReplay, parseReplayText, parseReplayBytes, fetchReplay, loadReplay,
    fetchJson };
})(window.ArmadaViewer = window.ArmadaViewer || {});
