import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st
from kimina_eval.metrics import best_at_k, bootstrap_mean, default_ks, pass_at_k


def brute_pass_at_k(n: int, c: int, k: int) -> Fraction:
    """Every k-subset of n samples (the first c correct): the share holding a correct one."""
    subsets = list(itertools.combinations(range(n), k))
    return Fraction(sum(any(i < c for i in s) for s in subsets), len(subsets))


def brute_best_at_k(n: int, c: int, k: int) -> Fraction:
    """Every ordered draw of k samples with replacement: the share holding a correct one."""
    draws = list(itertools.product(range(n), repeat=k))
    return Fraction(sum(any(i < c for i in d) for d in draws), len(draws))


@pytest.mark.parametrize("n", range(1, 8))
def test_pass_at_k_equals_enumeration_of_all_subsets(n: int) -> None:
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(float(brute_pass_at_k(n, c, k)), abs=1e-12)


@pytest.mark.parametrize("n", range(1, 6))
def test_best_at_k_equals_enumeration_of_draws_with_replacement(n: int) -> None:
    for c in range(n + 1):
        for k in range(1, 5):
            assert best_at_k(n, c, k) == pytest.approx(float(brute_best_at_k(n, c, k)), abs=1e-12)


def test_hand_computed_values() -> None:
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)  # pass@1 is the plain success rate
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)  # 1 - C(3,2)/C(5,2)
    assert pass_at_k(32, 1, 8) == pytest.approx(8 / 32)  # one correct sample: k/n
    assert pass_at_k(32, 0, 32) == 0.0
    assert pass_at_k(32, 1, 32) == 1.0
    assert pass_at_k(8, 5, 4) == 1.0  # fewer than k wrong samples: some correct one is always drawn
    # The upstream report's example: 1 correct of 8 gives verl best@8 = 1 - (7/8)^8, not 1.
    assert best_at_k(8, 1, 8) == pytest.approx(0.6564, abs=1e-4)
    assert pass_at_k(8, 1, 8) == 1.0


def test_pass_at_k_stays_exact_where_binomials_overflow_floats() -> None:
    n, c, k = 2000, 7, 900
    exact = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    assert pass_at_k(n, c, k) == pytest.approx(float(exact), rel=1e-12)
    assert math.comb(n, k) > 10**308  # the naive ratio of floats would be inf/inf


@given(st.integers(1, 64).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_pass_at_k_is_a_probability_monotone_in_k_and_c(args: tuple[int, int, int]) -> None:
    n, c, k = args
    value = pass_at_k(n, c, k)
    assert 0.0 <= value <= 1.0
    assert (value == 0.0) == (c == 0)
    if k < n:
        assert pass_at_k(n, c, k + 1) >= value - 1e-12
    if c < n:
        assert pass_at_k(n, c + 1, k) >= value - 1e-12
    assert best_at_k(n, c, k) <= value + 1e-12  # verl's best@k never exceeds pass@k


def test_pass_at_k_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError, match="at least 8 samples"):
        pass_at_k(4, 1, 8)
    with pytest.raises(ValueError, match="0 <= c <= n"):
        pass_at_k(4, 5, 1)
    with pytest.raises(ValueError, match="k must be"):
        best_at_k(4, 1, 0)


@pytest.mark.cross
def test_best_at_k_matches_verls_own_bootstrap() -> None:
    metric_utils = pytest.importorskip("verl.trainer.ppo.metric_utils", reason="verl is not installed here")
    np = pytest.importorskip("numpy")
    samples = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    [(mean, _std)] = metric_utils.bootstrap_metric(samples, 8, [np.max], n_bootstrap=20000)
    assert best_at_k(8, 2, 8) == pytest.approx(mean, abs=0.01)


def test_bootstrap_interval_brackets_the_mean_and_is_reproducible() -> None:
    values = [1.0] * 30 + [0.0] * 70
    estimate = bootstrap_mean(values, seed=3)
    assert estimate.value == pytest.approx(0.3)
    assert estimate.low < 0.3 < estimate.high
    # Normal approximation: half-width ~ 1.96 * sqrt(0.3 * 0.7 / 100) ~ 0.09.
    assert estimate.high - estimate.low == pytest.approx(0.18, abs=0.03)
    assert bootstrap_mean(values, seed=3) == estimate
    assert bootstrap_mean([0.5] * 10).low == bootstrap_mean([0.5] * 10).high == pytest.approx(0.5)
    assert bootstrap_mean([]).problems == 0 and math.isnan(bootstrap_mean([]).value)


def test_default_ks_are_powers_of_two_up_to_n() -> None:
    assert default_ks(32) == [1, 2, 4, 8, 16, 32]
    assert default_ks(12) == [1, 2, 4, 8, 12]
    assert default_ks(1) == [1]
