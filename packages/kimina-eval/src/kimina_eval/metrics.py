"""Pass@k done right: the unbiased estimator, bootstrap intervals over problems, and verl's best@k for comparison.

Chen et al. (2021), "Evaluating Large Language Models Trained on Code": with ``n`` samples of which ``c`` are
correct, ``1 - C(n-c, k) / C(n, k)`` is an unbiased estimate of the chance that ``k`` fresh samples hold at least one
correct one. verl's validation reports ``best@k`` instead: the mean of ``max`` over ``k`` samples drawn *with
replacement* from the ``n``, which sits below pass@k (1 correct out of 8 gives best@8 ~ 0.66, pass@8 = 1).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Estimate", "best_at_k", "bootstrap_mean", "default_ks", "pass_at_k"]


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one problem: the chance that ``k`` of its ``n`` samples hold a correct one.

    The ``k`` are drawn without replacement. It is computed as ``1 - prod_{i=n-c+1}^{n} (1 - k/i)``, which equals
    ``1 - C(n-c, k) / C(n, k)`` without the huge binomials.

    Args:
        n: Samples drawn for the problem.
        c: How many of them are correct.
        k: Budget of attempts; needs ``1 <= k <= n``.

    Returns:
        A probability in [0, 1].

    Example:
        >>> pass_at_k(n=4, c=1, k=2)
        0.5
    """
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got n={n}, c={c}")
    if not 1 <= k <= n:
        raise ValueError(f"pass@{k} needs at least {k} samples, got n={n}")
    if n - c < k:
        return 1.0
    miss = 1.0
    for i in range(n - c + 1, n + 1):
        miss *= 1.0 - k / i
    return 1.0 - miss


def best_at_k(n: int, c: int, k: int) -> float:
    """verl-style best@k for one problem: the expected max of ``k`` samples drawn with replacement from the ``n``.

    verl's ``process_validation_metrics`` estimates this by bootstrap (``bootstrap_metric``, 1000 draws); this is the
    exact value its estimate converges to, ``1 - (1 - c/n)^k``. Reported only for comparison with verl logs: it is
    biased below pass@k whenever ``0 < c < n``.

    Args:
        n: Samples drawn for the problem.
        c: How many of them are correct.
        k: Draws per bootstrap subset (verl allows any ``k >= 1``; its logs use k <= n).

    Returns:
        A probability in [0, 1].
    """
    if not 0 <= c <= n or n < 1:
        raise ValueError(f"need 0 <= c <= n and n >= 1, got n={n}, c={c}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    return 1.0 - (1.0 - c / n) ** k


@dataclass(frozen=True)
class Estimate:
    """A mean over problems with its bootstrap interval.

    Attributes:
        value: Mean of the per-problem values.
        low: Lower end of the interval.
        high: Upper end of the interval.
        problems: How many problems the mean covers.
    """

    value: float
    low: float
    high: float
    problems: int

    def as_dict(self) -> dict[str, float | int]:
        """Return the estimate as a JSON-ready dict."""
        return {"value": self.value, "low": self.low, "high": self.high, "problems": self.problems}


def bootstrap_mean(
    values: Sequence[float], *, confidence: float = 0.95, resamples: int = 1000, seed: int = 0
) -> Estimate:
    """Mean of per-problem values with a percentile bootstrap interval, resampling problems with replacement.

    The interval speaks to "how much would this number move on another draw of problems like these", which is the
    uncertainty that dominates on a 244-problem benchmark; the sampling noise inside each problem is already
    averaged out by the unbiased estimator.

    Args:
        values: One value per problem, e.g. ``pass_at_k`` of each.
        confidence: Coverage of the interval.
        resamples: Bootstrap resamples; the interval is deterministic for a given ``seed``.
        seed: Seed of the resampling.

    Returns:
        The `Estimate`; an empty input gives NaNs and ``problems=0``.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    size = len(values)
    if size == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    mean = math.fsum(values) / size
    rng = random.Random(seed)
    means = sorted(math.fsum(rng.choices(values, k=size)) / size for _ in range(resamples))
    tail = (1 - confidence) / 2
    return Estimate(mean, _quantile(means, tail), _quantile(means, 1 - tail), size)


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile of sorted values (numpy's default method)."""
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def default_ks(n: int) -> list[int]:
    """The k values to report for ``n`` samples: 1, 2, 4, ... up to ``n``, and ``n`` itself.

    Example:
        >>> default_ks(32), default_ks(12)
        ([1, 2, 4, 8, 16, 32], [1, 2, 4, 8, 12])
    """
    ks = [1 << e for e in range(n.bit_length()) if 1 << e <= n]
    return ks if not n or ks[-1] == n else [*ks, n]
