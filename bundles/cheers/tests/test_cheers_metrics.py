"""CHEERS measures: hand-computed tables, and scikit-learn as the oracle of the relevance macro-F1."""
import sys

import pytest
from hypothesis import given, settings, strategies as st
from sklearn.metrics import f1_score

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scoring_programs" / "cheers"))

from cheers_metric import hum_impact, macro_f1, sector_accuracy, sector_credit  # noqa: E402

# (gold is_relevant, predicted is_relevant, macro-F1 worked out by hand)
MACRO_F1_CASES = [
    ([1, 1, 0, 0], [1, 1, 0, 0], 1.0),
    ([1, 0, 1, 0], [0, 1, 0, 1], 0.0),
    ([0, 0, 0], [0, 0, 0], 1.0),                  # one class anywhere: 1.0, not 0.5
    ([1, 1, 1], [1, 1, 1], 1.0),
    ([1, 1, 0, 0], [1, 1, 1, 1], (2 / 3 + 0) / 2),  # all predicted relevant: F1(1) = 4/6, F1(0) = 0
    ([1, 1, 0, 0], [0, 0, 0, 0], (0 + 2 / 3) / 2),  # nothing predicted relevant: F1(0) = 4/6, F1(1) = 0
    ([0, 0, 0, 0], [1, 0, 0, 0], (6 / 7 + 0) / 2),  # class 1 only predicted: it counts, with F1 0
    ([1, 1, 1, 0, 1, 0], [1, 1, 1, 1, 0, 0], (6 / 8 + 2 / 4) / 2),  # the metric card's example: 0.625
]


@pytest.mark.parametrize("gold, predicted, expected", MACRO_F1_CASES)
def test_macro_f1_by_hand(gold, predicted, expected):
    assert macro_f1(gold, predicted) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("gold, predicted, expected", MACRO_F1_CASES)
def test_hand_table_agrees_with_scikit_learn(gold, predicted, expected):
    assert f1_score(gold, predicted, average="macro", zero_division=0) == pytest.approx(expected, abs=1e-15)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=60))
def test_macro_f1_equals_scikit_learn(pairs):
    gold, predicted = [g for g, _ in pairs], [p for _, p in pairs]
    assert macro_f1(gold, predicted) == pytest.approx(f1_score(gold, predicted, average="macro"), abs=1e-12)


def test_macro_f1_rejects_lists_of_different_length():
    with pytest.raises(ValueError):
        macro_f1([1, 0], [1])


# (gold relevant, gold sectors, predicted relevant, predicted sector, credit or None when not counted)
CREDIT_CASES = [
    (True, {1, 7}, True, 7, 1 / 2),       # multi-sector gold, one of them predicted
    (True, {1, 7}, True, 1, 1 / 2),
    (True, {1, 7}, True, 3, 0.0),
    (True, {2, 4, 9}, True, 9, 1 / 3),    # three gold sectors
    (True, {4}, True, 4, 1.0),
    (True, {4}, True, -1, 0.0),           # relevant, predicted "no sector": counted, earns 0
    (True, set(), True, 5, None),         # gold relevant without sector: left out whatever is predicted
    (True, set(), True, -1, None),
    (False, set(), True, 3, 0.0),         # false alarm: Y is empty, counted, earns 0
    (False, set(), True, -1, 0.0),
    (True, {5}, False, -1, None),         # predicted not relevant: never counted
    (False, set(), False, -1, None),
]


@pytest.mark.parametrize("gold_relevant, gold_sectors, predicted_relevant, predicted_sector, expected", CREDIT_CASES)
def test_sector_credit_by_hand(gold_relevant, gold_sectors, predicted_relevant, predicted_sector, expected):
    credit = sector_credit(gold_relevant, frozenset(gold_sectors), predicted_relevant, predicted_sector)
    if expected is None:
        assert credit is None
    else:
        assert credit == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("credits, expected", [
    ([None, None], 0.0),                 # nothing counted: 0, not an error
    ([], 0.0),
    ([1 / 2, None, 0.0, 0.0], 1 / 6),    # the metric card's example
    ([1 / 3, 1 / 3, 1 / 3], 1 / 3),
    ([1.0, None, 1 / 2], 3 / 4),
])
def test_sector_accuracy_by_hand(credits, expected):
    assert sector_accuracy(credits) == pytest.approx(expected, abs=1e-15)


def test_sector_accuracy_takes_a_generator():
    assert sector_accuracy(c for c in [1.0, None, 0.0]) == 0.5


@pytest.mark.parametrize("f1, accuracy, expected", [
    (0.625, 1 / 6, 0.3958333333333333), (1.0, 0.0, 0.5), (0.0, 0.0, 0.0), (0.4992029079372476, 0.4456756756756766,
                                                                            0.4724392918064621)])
def test_hum_impact_is_the_mean_of_the_two(f1, accuracy, expected):
    # The last row is the seed's printed example: its HumImpact is the mean of its two figures.
    assert hum_impact(f1, accuracy) == pytest.approx(expected, abs=1e-15)
