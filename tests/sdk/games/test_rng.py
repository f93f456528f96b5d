"""Tests for the seeded generator `armada.games.rng.Rng`."""

import json
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from armada.games.rng import Rng


def test_matches_splitmix64_reference_vectors():
    """Same stream as the reference C SplitMix64 (seed 1234567), so it is platform independent."""
    r = Rng(1234567)
    assert [r.next64() for _ in range(5)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
        4593380528125082431,
        16408922859458223821,
    ]


def test_same_seed_same_stream_and_different_seeds_differ():
    a, b, c = Rng(42), Rng(42), Rng(43)
    sa = [a.randint(0, 10**6) for _ in range(50)]
    assert sa == [b.randint(0, 10**6) for _ in range(50)]
    assert sa != [c.randint(0, 10**6) for _ in range(50)]


def test_dump_is_json_and_load_resumes_the_stream():
    r = Rng(7)
    for _ in range(10):
        r.random()
    data = json.loads(json.dumps(r.dump()))
    copy = Rng.load(data)
    assert [r.randint(1, 100) for _ in range(20)] == [copy.randint(1, 100) for _ in range(20)]


@pytest.mark.parametrize("bad", [-1, 2**64, 1.5, "3", None, True, [1]])
def test_load_rejects_bad_state(bad):
    with pytest.raises(ValueError, match="bad Rng state"):
        Rng.load(bad)


def test_seed_must_be_int_but_any_size_is_fine():
    with pytest.raises(TypeError, match="seed must be an integer"):
        Rng(1.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Rng(True)
    assert Rng(-1).dump() == 2**64 - 1
    assert Rng(2**70 + 5).dump() == 5


@given(st.integers(0, 2**64 - 1), st.integers(-(10**30), 10**30), st.integers(0, 10**30))
def test_randint_in_range(seed, a, width):
    r = Rng(seed)
    for _ in range(5):
        assert a <= r.randint(a, a + width) <= a + width


def test_randint_roughly_uniform_and_covers_ends():
    r = Rng(1)
    counts = Counter(r.randint(1, 6) for _ in range(60000))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    for n in counts.values():
        assert 9000 < n < 11000


def test_randint_empty_range_and_bad_types():
    r = Rng(1)
    with pytest.raises(ValueError, match="empty range"):
        r.randint(5, 4)
    with pytest.raises(TypeError):
        r.randint(0, 2.5)  # type: ignore[arg-type]
    assert r.randint(3, 3) == 3


def test_random_in_unit_interval():
    r = Rng(99)
    xs = [r.random() for _ in range(10000)]
    assert all(0.0 <= x < 1.0 for x in xs)
    assert 0.45 < sum(xs) / len(xs) < 0.55


def test_choice_shuffle_sample():
    r = Rng(5)
    seq = ["a", "b", "c"]
    assert {r.choice(seq) for _ in range(100)} == set(seq)
    with pytest.raises(IndexError):
        r.choice([])
    items = list(range(20))
    r.shuffle(items)
    assert sorted(items) == list(range(20)) and items != list(range(20))
    s = r.sample(range(10), 4)
    assert len(set(s)) == 4 and all(0 <= x < 10 for x in s)
    with pytest.raises(ValueError):
        r.sample([1, 2], 3)


def test_fork_is_deterministic_and_independent():
    a, b = Rng(3), Rng(3)
    fa, fb = a.fork(), b.fork()
    assert fa.dump() == fb.dump()
    assert fa.next64() != a.next64()
