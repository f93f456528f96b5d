"""Behavioural twins, the pure part: the probe set, the signatures, and the comparison on planted
and honest bots played in this process (integrity.logic.probes and integrity.logic.twins)."""

from __future__ import annotations

import importlib
import random
from itertools import combinations

import pytest

from armada.referee.inprocess import InProcessBot
from armada_web.integrity.logic import probes, twins
from tests.integrity import twin_bots as tb

GALAXY = {"reserve": tb.RESERVE, "rewrite": tb.RESERVE_REWRITE, "bold": tb.BOLD, "careful": tb.CAREFUL,
          "splitter": tb.SPLITTER}
MOTHERSHIP = {"thirds": tb.THIRDS, "rewrite": tb.THIRDS_REWRITE, "heavy": tb.HEAVY, "light": tb.LIGHT}
PLANTED = {("galaxy", "reserve", "rewrite"), ("mothership", "thirds", "rewrite")}


def starter(game: str, name: str):
    return importlib.import_module(f"armada.starters.{game}.{name}").Bot()


def signature_of(game: str, make) -> tuple[int, ...]:
    answers, fault = probes.probe_with(probes.probe_set(game), lambda: InProcessBot(make()))
    assert fault == ""
    return probes.signature(game, answers)


@pytest.fixture(scope="module")
def arena() -> dict[str, dict[str, tuple[int, ...]]]:
    """Every planted and honest bot's signature, and the starters' (played as authors' bots)."""
    found: dict[str, dict[str, tuple[int, ...]]] = {}
    for game, bots in (("galaxy", GALAXY), ("mothership", MOTHERSHIP)):
        found[game] = {name: signature_of(game, lambda s=source: tb.bot_of(s)) for name, source in bots.items()}
        for name in probes.starters(game):
            found[game][f"starter {name}"] = signature_of(game, lambda n=name: starter(game, n))
    return found


def population(signatures: dict[str, tuple[int, ...]]) -> tuple[list[twins.Signature], dict[int, str]]:
    names = dict(enumerate(sorted(signatures)))
    return [twins.Signature(key, key, None, signatures[name]) for key, name in names.items()], names


def test_the_probe_set_is_fixed_and_names_itself():
    for game in probes.GAMES:
        built = probes.probe_set(game)
        assert all(len(s) == len(built.turns) for s in built.starters.values())
        assert set(built.starters) == {*probes.starters(game), probes.IDLE_NAME}
    assert probes._digest(probes._probes("mothership")) == probes.probe_set("mothership").digest  # built again
    galaxy = probes.probe_set("galaxy")
    again = probes._recorded("galaxy", probes.GAMES["galaxy"].recipes[0])
    assert [r.message for r in again.requests] == [r.message for r in galaxy.probes[0].requests.requests]
    assert len(galaxy.probes) == len(probes.GAMES["galaxy"].recipes) and 100 <= len(galaxy.turns) <= 160
    assert {phase for _p, _t, phase in galaxy.turns} == {"scout", "command"}
    assert [phase for _p, _t, phase in probes.probe_set("mothership").turns] == ["orders"] * 8


def test_every_game_of_the_registry_is_probed_against_all_its_starters():
    from armada.games.registry import GAMES

    assert set(probes.GAMES) == set(GAMES)
    for game in GAMES:  # a new starter is shared behaviour at once, without a list to keep up
        assert probes.starters(game) and set(probes.probe_set(game).starters) == {
            *probes.starters(game), probes.IDLE_NAME}
    with pytest.raises(ValueError, match="no behaviour probes"):
        probes._probes("chess")


def test_answers_compare_in_the_replays_form_fleets_in_any_planet_order():
    one = {"fleets": [{"from": 5, "to": 6, "battleships": 1, "cruisers": 0},
                      {"from": 1, "to": 2, "battleships": 0, "cruisers": 3},
                      {"from": 1, "to": 3, "battleships": 0, "cruisers": 1}]}
    other = {"fleets": [one["fleets"][1], one["fleets"][2], one["fleets"][0]]}
    swapped = {"fleets": [one["fleets"][0], one["fleets"][2], one["fleets"][1]]}  # one planet's order changed
    assert probes.answer_hash("galaxy", one) == probes.answer_hash("galaxy", other)
    assert probes.answer_hash("galaxy", one) != probes.answer_hash("galaxy", swapped)
    assert probes.answer_hash("galaxy", None) == 0 and probes.answer_hash("galaxy", {"probes": []}) != 0
    assert probes.unpack(probes.pack([0, -5, 2**62])) == (0, -5, 2**62)


def test_the_starters_and_trivial_answers_are_shared_behaviour(arena):
    for game in probes.GAMES:
        shared = probes.probe_set(game).shared()
        for name in probes.starters(game):
            assert not any(twins.own(arena[game][f"starter {name}"], shared))


@pytest.mark.parametrize("game", ["galaxy", "mothership"])
def test_a_rewrite_with_the_same_decisions_is_found_and_no_honest_pair_is(arena, game):
    signatures, names = population(arena[game])
    found, pop = twins.find(signatures, probes.probe_set(game).shared())
    reported = {frozenset((names[t.a], names[t.b])) for t in found}
    assert reported == {frozenset((one, two)) for g, one, two in PLANTED if g == game}
    assert len(found) == 1 and found[0].agreement.score == 1.0 and found[0].z >= twins.Z_MIN
    assert twins.score(1.0) == 1.0 and twins.score(twins.THRESHOLD) == 0.5 and twins.score(0.875) == 0.75
    for a, b in combinations(range(len(names)), 2):
        if (game, names[a], names[b]) in PLANTED or (game, names[b], names[a]) in PLANTED:
            continue
        assert pop.agreement(a, b).score < 0.3, (names[a], names[b])  # honest pairs, far below 0.5


def test_versions_of_one_owner_and_bots_with_few_own_answers_never_pair(arena):
    shared = probes.probe_set("galaxy").shared()
    greedy = arena["galaxy"]["starter greedy"]
    reserve = arena["galaxy"]["reserve"]
    owned = [i for i, h in enumerate(twins.own(reserve, shared)) if h][:5]
    nearly_starter = tuple(reserve[i] if i in owned else h for i, h in enumerate(greedy))  # 5 own answers
    signatures = [twins.Signature(1, 1, None, reserve), twins.Signature(2, 1, None, arena["galaxy"]["rewrite"]),
                  twins.Signature(3, 2, None, nearly_starter), twins.Signature(4, 3, None, nearly_starter),
                  *[twins.Signature(10 + n, 10 + n, None, arena["galaxy"][name])
                    for n, name in enumerate(("bold", "careful", "splitter"))]]
    found, _pop = twins.find(signatures, shared)
    assert found == []  # 1 and 2 share an owner; 3 and 4 have too few own answers


def synthetic(rng: random.Random, positions: int, owners: int, answers: int = 8) -> list[list[int]]:
    """Honest signatures: each position's answer drawn from a few (`answers`) popular ones."""
    return [[rng.randrange(1, answers + 1) + 1000 * i for i in range(positions)] for _ in range(owners)]


def test_agreement_their_rating_gap_predicts_is_not_reported():
    rng = random.Random(3)
    positions = 60
    shared = [frozenset()] * positions
    rows = synthetic(rng, positions, 40)
    # Strong bots (rated 40 to 40.6) converge: each gives a common answer on 95% of turns.
    best = rows[0]
    for row in rows[:20]:
        for i in range(positions):
            if rng.random() < 0.95:
                row[i] = best[i]
    signatures = [twins.Signature(n, n, 40.0 + n * 0.03 if n < 20 else 100.0 + 3 * n, tuple(row))
                  for n, row in enumerate(rows)]
    copy = twins.Signature(99, 99, 30.0, tuple(rows[25]))  # a copy of an honest weak bot, rated elsewhere
    found, pop = twins.find([*signatures, copy], shared)
    pairs = {(t.a, t.b): t for t in found}
    assert (25, 99) in pairs
    assert not any(a < 20 and b < 20 for a, b in pairs)  # the strong bots agree as strong bots do
    assert pop.agreement(1, 2).score > twins.THRESHOLD
    copied = pairs[(25, 99)]  # its gap (more than 8) holds enough pairs: measured there
    assert copied.basis == twins.GAP and copied.gap == "8+" and copied.pairs_sampled >= twins.BUCKET_MIN
    # Of five versions (10 pairs), nothing can be measured: the twin says so (a trial read "pairs at their
    # rating gap agree 0%" where no pair of that gap had been measured).
    few, _pop = twins.find([*signatures[20:24], twins.Signature(99, 99, 30.0, tuple(rows[21]))], shared)
    assert [(t.a, t.b, t.basis, t.pairs_sampled) for t in few] == [(21, 99, twins.NONE, 10)]


def test_the_index_finds_pairs_that_agree_on_half_their_turns():
    rng = random.Random(5)
    positions = 138
    shared = [frozenset()] * positions
    rows = synthetic(rng, positions, 300, answers=300)
    planted = []
    for n in range(20):
        source = rows[n]
        copied = [h if rng.random() < 0.6 else h + 500 for h in source]  # 60% of its answers kept
        rows.append(copied)
        planted.append((n, len(rows) - 1))
    signatures = [twins.Signature(n, n, None, tuple(row)) for n, row in enumerate(rows)]
    pop = twins.Population(signatures, shared)
    candidates = pop.candidates()
    assert sum(1 for pair in planted if pair in candidates) >= 19
    assert len(candidates) < 0.01 * len(rows) * (len(rows) - 1) / 2  # an index, not all pairs


@pytest.mark.parametrize("game", ["galaxy", "mothership"])
def test_a_drawing_neither_hides_a_twin_nor_breaks_its_probe(arena, game):
    """A copy that draws random text and off-board shapes every turn answers as
    the bot without drawings: `debug` is not part of an answer (D-R-16)."""
    from armada.bot.runtime import respond

    source = tb.RESERVE_REWRITE if game == "galaxy" else tb.THIRDS_REWRITE
    noise = random.Random(7)

    def make():
        bot = tb.bot_of(source)

        def drawing(request: dict) -> dict:
            reply = respond(bot, request)
            if reply is None or request.get("type") == "init":
                return reply
            return {**reply, "debug": {"text": f"plan {noise.random()}",
                                       "shapes": [{"kind": "dot", "at": [99, -99]}]}}
        return drawing

    assert signature_of(game, make) == arena[game]["rewrite"]
