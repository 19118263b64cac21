"""An independent oracle for resampling.bootstrap and resampling.paired, for the tasks' per-item tests.

The draws are repeated with numpy as resampling.py documents them; every resample is scored by the task's official
metric on the resampled gold and predictions (a function given by the test), never through Items or finish.
"""
import math

import numpy as np

import resampling


def draws(seed, rounds, n):
    """The uniform numbers resampling.py takes: a row of n per resample (or randomization round)."""
    return np.random.RandomState([seed]).random_sample((rounds, n))


def bootstrap_indices(seed, samples, n):
    return (draws(seed, samples, n) * n).astype(int)


def _take(values, index):
    return [values[i] for i in index]


def check_bootstrap(items, metric, gold, predicted, samples=200, seed=1):
    """resampling.bootstrap(items) against np.percentile of metric(gold, predicted) on the same resamples.
    Returns the oracle's (low, high)."""
    values = [metric(_take(gold, index), _take(predicted, index))
              for index in bootstrap_indices(seed, samples, len(gold))]
    low, high = np.percentile(values, [2.5, 97.5])
    interval = resampling.bootstrap(items, samples=samples, seed=seed)
    assert interval.score == items.score()
    assert abs(interval.low - low) <= 1e-12 and abs(interval.high - high) <= 1e-12, (interval.low, interval.high,
                                                                                       low, high)
    return low, high


def check_paired(items_a, items_b, metric, gold, predicted_a, predicted_b, samples=200, seed=1):
    """resampling.paired(items_a, items_b) against the oracle: the paired-bootstrap interval of A - B and its
    p-value, and the approximate-randomization p-value. Returns the oracle's figures."""
    n = len(gold)
    observed = metric(gold, predicted_a) - metric(gold, predicted_b)
    deltas = []
    for index in bootstrap_indices(seed, samples, n):
        resampled = _take(gold, index)
        deltas.append(metric(resampled, _take(predicted_a, index)) - metric(resampled, _take(predicted_b, index)))
    low, high = np.percentile(deltas, [2.5, 97.5])
    centre = math.fsum(deltas) / len(deltas)
    p_bootstrap = (1 + sum(1 for d in deltas if abs(d - centre) >= abs(observed))) / (samples + 1.0)
    extreme = 0
    for row in draws(seed, samples, n):
        swap = row < 0.5
        side_a = [b if s else a for a, b, s in zip(predicted_a, predicted_b, swap)]
        side_b = [a if s else b for a, b, s in zip(predicted_a, predicted_b, swap)]
        if abs(metric(gold, side_a) - metric(gold, side_b)) >= abs(observed):
            extreme += 1
    p_randomization = (1 + extreme) / (samples + 1.0)
    result = resampling.paired(items_a, items_b, samples=samples, seed=seed)
    assert abs(result.delta - observed) <= 1e-12
    assert abs(result.low - low) <= 1e-12 and abs(result.high - high) <= 1e-12, (result.low, result.high, low, high)
    assert result.p_bootstrap == p_bootstrap and result.p_randomization == p_randomization, (
        result.p_bootstrap, p_bootstrap, result.p_randomization, p_randomization)
    return dict(delta=observed, low=low, high=high, p_bootstrap=p_bootstrap, p_randomization=p_randomization)
