"""class_f1's per-class figures against scikit-learn (precision_recall_fscore_support with zero_division=0, the
semantics the module's docstring promises), its refusal of unequal lengths, and the default (empty) prefix."""
from collections import Counter

import pytest
from sklearn.metrics import precision_recall_fscore_support

from class_f1 import class_counts, class_stats, counts_of_stats, macro_f1, macro_f1_of_stats

CASES = [
    (["a", "a", "b", "c"], ["a", "b", "b", "d"]),      # c only in the gold, d only predicted
    (["x", "x", "x"], ["y", "y", "y"]),                  # nothing right: every class scores 0
    (["a", "b", "a", "b", "a"], ["a", "b", "a", "b", "a"]),
    ([1, 2, 2, 3, 3, 3], [3, 2, 1, 3, 3, 2]),
]


@pytest.mark.parametrize("gold, predicted", CASES)
def test_per_class_figures_are_scikit_learns(gold, predicted):
    counts = class_counts(gold, predicted)
    labels = sorted(counts)
    precision, recall, f1, support = precision_recall_fscore_support(gold, predicted, labels=labels,
                                                                     zero_division=0)
    for i, label in enumerate(labels):
        row = counts[label]
        assert (row.precision, row.recall, row.f1, row.support) == pytest.approx(
            (precision[i], recall[i], f1[i], support[i]), abs=1e-15), label
        assert row.predicted == Counter(predicted)[label]
        assert row.correct == sum(1 for g, p in zip(gold, predicted) if g == p == label)


def test_a_class_only_predicted_or_only_in_the_gold_scores_0_on_every_side():
    counts = class_counts(["c"], ["d"])
    assert [(k, c.precision, c.recall, c.f1) for k, c in sorted(counts.items())] == [("c", 0.0, 0.0, 0.0),
                                                                                   ("d", 0.0, 0.0, 0.0)]


def test_gold_and_predicted_of_unequal_lengths_are_refused():
    with pytest.raises(ValueError) as info:
        macro_f1(["a", "b"], ["a"])
    assert str(info.value) == "gold and predicted differ in length"


def test_the_default_prefix_is_empty():
    gold, predicted = ["a", "a", "b"], ["a", "c", "b"]
    totals = Counter()
    for truth, guess in zip(gold, predicted):
        totals.update(class_stats("", truth, guess))
    assert sorted(counts_of_stats(dict(totals))) == ["a", "b", "c"]
    assert macro_f1_of_stats(dict(totals)) == macro_f1(gold, predicted) == pytest.approx(5 / 9)
