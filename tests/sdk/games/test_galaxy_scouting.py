"""Probes (GX-7), the scout phase (GX-8) and same-turn intel (GX-9)."""

from __future__ import annotations

from armada.games.galaxy import GALAXY

from .galaxy_helpers import events_of, new_state, put


def test_one_probe_per_planet_owned() -> None:
    # GX-7: probes available = planets owned
    state = new_state(1)
    put(state, 2, 1)
    put(state, 5, 1)
    obs = GALAXY.requests(state)[1].payload["observation"]
    assert obs["probes"] == 3
    assert GALAXY.requests(state)[2].payload["observation"]["probes"] == 1


def test_bad_probe_targets_are_dropped_with_warnings() -> None:
    # GX-8: duplicates, own planets, out-of-range ids and targets beyond the probes available
    state = new_state(1)
    put(state, 2, 1)
    step = GALAXY.step(state, {1: {"probes": [1, 17, 0, "3", 7, 7, 2, 9, 10, True]}, 2: {"probes": [16, 3]}})
    assert step.faults == {}
    assert state.probes[1] == [7, 9]
    request = GALAXY.requests(state)[1]
    assert request.type == "command"
    warnings = request.payload["warnings"]
    assert len(warnings) == 8
    assert any("1 dropped: it is your own planet" in w for w in warnings)
    assert any("2 dropped: it is your own planet" in w for w in warnings)
    assert any("17 dropped: not a planet id" in w for w in warnings)
    assert any('"3" dropped: not a planet id' in w for w in warnings)
    assert any("7 dropped: already probed" in w for w in warnings)
    assert any("10 dropped: no probe left (you have 2)" in w for w in warnings)
    assert any("true dropped: not a planet id" in w for w in warnings)
    assert [i["planet"] for i in GALAXY.requests(state)[2].payload["intel"]] == [3]
    assert any("16 dropped: it is your own planet" in w for w in GALAXY.requests(state)[2].payload["warnings"])


def test_many_bad_targets_give_a_capped_warning_list() -> None:
    state = new_state(1)
    GALAXY.step(state, {1: {"probes": list(range(100, 130))}, 2: {}})
    warnings = GALAXY.requests(state)[1].payload["warnings"]
    assert len(warnings) == 21
    assert warnings[-1] == "... and 10 more warnings"


def test_probe_lists_beyond_the_read_cap_are_cut_with_one_warning() -> None:
    """GX-8 (our cap, docs/games/galaxy.md): only the first 32 probe targets of a reply are read."""
    state = new_state(1)
    GALAXY.step(state, {1: {"probes": [1] * 40 + [16]}, 2: {}})
    warnings = GALAXY.requests(state)[1].payload["warnings"]
    assert warnings[0] == "probe targets beyond the first 32 ignored"  # (uncounted: D-R-21)
    assert GALAXY.requests(state)[1].payload["intel"] == []  # planet 16 was item 41: never read


def test_the_probe_cap_starts_at_the_thirty_third_target() -> None:
    """The cap's edge: 32 targets are all read (no cap warning); a 33rd is the first one ignored, and the
    replay keeps it (one past the cap), so a rebuilt game warns as the played one did (GX-23)."""
    from armada.games.galaxy.orders import replay_answer

    state = new_state(1)
    GALAXY.step(state, {1: {"probes": [99] * 32}, 2: {}})
    warnings = GALAXY.requests(state)[1].payload["warnings"]
    assert "probe targets beyond the first 32 ignored" not in warnings and len(warnings) == 21  # 32 bad ids
    state = new_state(1)
    GALAXY.step(state, {1: {"probes": [99] * 33}, 2: {}})
    assert GALAXY.requests(state)[1].payload["warnings"][0] == "probe targets beyond the first 32 ignored"
    assert len(replay_answer("scout", {"probes": list(range(40))})["probes"]) == 33


def test_intel_reports_contents_and_production_this_turn() -> None:
    # GX-9: owner, garrison, and the current rate for an owned planet (hold bonus included),
    # the potential rate for a neutral one
    state = new_state(4)
    neutral = state.planet(6)
    put(state, 11, 2, b=3, c=4, n=5, hold=7)
    state.planet(11).base = (1, 2, 3)
    put(state, 2, 1)
    put(state, 3, 1)  # three planets: three probes
    step = GALAXY.step(state, {1: {"probes": [6, 11, 16]}, 2: {"probes": []}})
    intel = GALAXY.requests(state)[1].payload["intel"]
    assert intel == [
        {
            "planet": 6,
            "owner": 0,
            "garrison": {"battleships": 0, "cruisers": 0, "launchers": neutral.launchers},
            "production": dict(zip(("battleships", "cruisers", "launchers"), neutral.base, strict=True)),
        },
        {
            "planet": 11,
            "owner": 2,
            "garrison": {"battleships": 3, "cruisers": 4, "launchers": 5},
            "production": {"battleships": 3, "cruisers": 4, "launchers": 5},  # base + 2 x floor(7 / 5)
        },
        {
            "planet": 16,
            "owner": 2,
            "garrison": {"battleships": 5, "cruisers": 10, "launchers": 10},
            "production": {"battleships": 2, "cruisers": 4, "launchers": 4},
        },
    ]
    probes = events_of(step, "probes")
    assert [(e["seat"], e["targets"]) for e in probes] == [(1, [6, 11, 16]), (2, [])]
    assert probes[0]["intel"] == intel
    assert GALAXY.requests(state)[2].payload["intel"] == []


def test_intel_is_cleared_at_the_next_turn() -> None:
    # GX-9: intel is of this turn only; the next turn starts without it
    state = new_state(4)
    GALAXY.step(state, {1: {"probes": [16]}, 2: {}})
    GALAXY.step(state, {1: {}, 2: {}})
    GALAXY.step(state, {1: {"probes": []}, 2: {}})
    assert GALAXY.requests(state)[1].payload["intel"] == []
