/* Armada replay viewer, Galaxy: the replay as a list of turns, and what one seat knew (GX-19).
 * view(model, i, seat) is the only place fog is applied: the drawing code sees nothing else. */
(function (AV) {
  "use strict";

  const SIZE = 4;
  const SEATS = [1, 2];

  /** (row, col) of a planet (GX-1). */
  function coords(planet) {
    return [Math.floor((planet - 1) / SIZE), (planet - 1) % SIZE];
  }

  /** The grid points a fleet passes: diagonal steps first, then straight (GX-11). */
  function path(from, to) {
    let [r, c] = coords(from);
    const [rb, cb] = coords(to);
    const points = [from];
    while (r !== rb || c !== cb) {
      r += Math.sign(rb - r);
      c += Math.sign(cb - c);
      points.push(r * SIZE + c + 1);
    }
    return points;
  }

  /** The (row, col) point after `units` units along a path. */
  function along(points, units) {
    const last = points.length - 1;
    const u = Math.max(0, Math.min(last, units));
    const step = Math.min(Math.floor(u), last - 1);
    if (last === 0) return coords(points[0]);
    const frac = u - step;
    const [r0, c0] = coords(points[step]);
    const [r1, c1] = coords(points[step + 1]);
    return [r0 + (r1 - r0) * frac, c0 + (c1 - c0) * frac];
  }

  /** Where a fleet is at `progress` (0..1) through turn `turn` (GX-6, GX-11: as the engine's frame). */
  function fleetPosition(fleet, turn, progress) {
    const slow = fleet.battleships > 0 ? 2 : 1;
    return along(path(fleet.from, fleet.to), (turn - fleet.launched + progress) / slow);
  }

  function mle(units) {
    return 4 * (units.battleships || 0) + 2 * (units.cruisers || 0) + (units.launchers || 0);
  }

  /** The events of one turn, sorted by kind. */
  function sortEvents(events) {
    const out = {
      probes: { 1: { targets: [], intel: [] }, 2: { targets: [], intel: [] } },
      launches: [], arrivals: [], battles: [], captures: [], production: [], growth: [], warnings: [],
      faults: [], commanded: false, gameOver: null,
    };
    for (const e of events) {
      if (e.type === "probes" && (e.seat === 1 || e.seat === 2)) {
        out.probes[e.seat] = { targets: e.targets || [], intel: e.intel || [] };
      } else if (e.type === "launch" && e.fleet) out.launches.push(e.fleet);
      else if (e.type === "arrival") out.arrivals.push(e);
      else if (e.type === "battle") out.battles.push(e);
      else if (e.type === "capture") out.captures.push(e);
      else if (e.type === "production") {
        out.commanded = true;
        out.production = (e.planets || []).map(([planet, owner, b, c, l]) => ({ planet, owner, b, c, l }));
      } else if (e.type === "growth") out.growth = (e.planets || []).map(([planet, gain]) => ({ planet, gain }));
      else if (e.type === "warnings") out.warnings.push(e);
      else if (e.type === "fault") out.faults.push(e);
      else if (e.type === "game_over") out.gameOver = e.result;
    }
    return out;
  }

  /** The replay as turns: each recorded frame with the events of the steps that led to it. */
  function buildModel(replay) {
    const turns = [];
    let pending = [];
    if (replay.initial && Array.isArray(replay.initial.planets)) {
      turns.push({ frame: replay.initial, events: sortEvents([]) });
    }
    for (const step of replay.steps) {
      pending = pending.concat(Array.isArray(step.events) ? step.events : []);
      if (step.frame && Array.isArray(step.frame.planets)) {
        turns.push({ frame: step.frame, events: sortEvents(pending) });
        pending = [];
      }
    }
    if (!turns.length) throw new AV.load.ReplayError("This Galaxy replay holds no board to show (no frames).");
    turns.forEach((t, i) => {
      t.turn = t.frame.turn;
      t.before = i > 0 ? turns[i - 1].frame.fleets || [] : [];
    });
    return { replay, turns };
  }

  /** Fleets moving during turn i: those in flight before it, then those launched in it (own only in fog). */
  function movers(model, i, seat) {
    const t = model.turns[i];
    if (!t.events.commanded) return [];
    const all = [...t.before, ...t.events.launches];
    return all.filter((f) => !seat || f.owner === seat);
  }

  /** A planet as `seat` knew it (seat 0: everything); intel is that seat's probe report of this turn. */
  function planetView(p, t, seat) {
    const base = { id: p.id, row: p.row, col: p.col, owner: p.owner };
    const probedBy = SEATS.filter((s) => (!seat || s === seat) && t.events.probes[s].targets.includes(p.id));
    if (!seat || p.owner === seat) {
      return {
        ...base, known: "full", probedBy,
        garrison: { battleships: p.battleships, cruisers: p.cruisers, launchers: p.launchers },
        production: p.production, hold: p.hold,
      };
    }
    const intel = t.events.probes[seat].intel.find((x) => x.planet === p.id);
    if (intel) {
      return { ...base, owner: p.owner, known: "intel", probedBy, garrison: intel.garrison,
        production: intel.production, hold: null, intelOwner: intel.owner };
    }
    return { ...base, known: "none", probedBy, garrison: null, production: null, hold: null };
  }

  /** Did this battle involve `seat`'s forces (seat 0: any battle)? */
  function battleSeen(battle, seat) {
    const seats = battle.seats || (battle.sides || []).map((s) => s.owner);
    return !seat || seats.includes(seat);
  }

  /** Everything drawn for position i as `seat` saw it (0: no fog). */
  function view(model, i, seat) {
    const t = model.turns[i];
    const e = t.events;
    const mine = (owner) => !seat || owner === seat;
    const frame = t.frame;
    const counts = frame.planet_count || {};
    const power = frame.mle || {};
    const last = i === model.turns.length - 1;
    const result = frame.result || (last ? model.replay.result : null);
    return {
      turn: t.turn,
      seat,
      planets: frame.planets.map((p) => planetView(p, t, seat)),
      fleets: (frame.fleets || []).filter((f) => mine(f.owner)),
      movers: movers(model, i, seat),
      battles: e.battles.filter((b) => battleSeen(b, seat)),
      captures: e.captures,
      launches: e.launches.filter((f) => mine(f.owner)),
      arrivals: e.arrivals.filter((a) => mine(a.owner)),
      production: e.production.filter((p) => mine(p.owner)),
      growth: seat ? [] : e.growth,
      probes: SEATS.filter((s) => mine(s)).map((s) => ({ seat: s, ...e.probes[s] })),
      warnings: e.warnings.filter((w) => mine(w.seat)),
      planetCount: { 1: counts["1"], 2: counts["2"] },
      mle: { 1: mine(1) ? power["1"] : null, 2: mine(2) ? power["2"] : null },
      result: result ? { winner: result.winner, outcome: result.outcome, scores: seat ? null : result.scores } : null,
    };
  }

  /** Per position: planets (public) and total MLE (own only in fog) of each seat, for the chart. */
  function series(model, seat) {
    return model.turns.map((t) => {
      const counts = t.frame.planet_count || {};
      const power = t.frame.mle || {};
      return {
        turn: t.turn,
        planets: { 1: counts["1"] || 0, 2: counts["2"] || 0 },
        mle: { 1: !seat || seat === 1 ? power["1"] || 0 : null, 2: !seat || seat === 2 ? power["2"] || 0 : null },
      };
    });
  }

  /** Positions with a battle `seat` knew of, for "next battle". */
  function hasBattle(model, i, seat) {
    return model.turns[i].events.battles.some((b) => battleSeen(b, seat));
  }

  AV.galaxyModel = { coords, path, along, fleetPosition, mle, buildModel, view, series, hasBattle };
})(window.ArmadaViewer = window.ArmadaViewer || {});
