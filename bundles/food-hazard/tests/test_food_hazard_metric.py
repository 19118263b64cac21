"""food-hazard metric: macro-F1 and the two-step score, against hand-computed values and scikit-learn."""
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.metrics import f1_score, precision_recall_fscore_support

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scoring_programs" / "food-hazard"))

from food_hazard_metric import class_counts, macro_f1, two_step_score  # noqa: E402


def official_compute_score(hazards_true, products_true, hazards_pred, products_pred):
    """The organizers' compute_score (seed document), with their ruling that no correct hazard scores 0."""
    hazards_true, products_true, hazards_pred, products_pred = (
        np.array(v, dtype=object) for v in (hazards_true, products_true, hazards_pred, products_pred))
    f1_hazards = f1_score(hazards_true, hazards_pred, average="macro")
    right = hazards_pred == hazards_true
    f1_products = f1_score(products_true[right], products_pred[right], average="macro") if right.any() else 0.0
    return (f1_hazards + f1_products) / 2.0, f1_hazards, f1_products


# (gold, predicted, macro-F1), worked out by hand with F1(c) = 2 TP / (gold(c) + predicted(c)).
MACRO_F1_CASES = [
    (["a", "a", "b"], ["a", "a", "b"], 1.0),
    (["a", "b"], ["b", "a"], 0.0),
    # a: 2*1/(2+1) = 2/3; b: 2*1/(1+3) = 1/2; c: never predicted, 0 -> (2/3 + 1/2 + 0) / 3
    (["a", "a", "b", "c"], ["a", "b", "b", "b"], 7.0 / 18.0),
    # a: 2*1/(2+1) = 2/3; z (only predicted): 0 -> 1/3
    (["a", "a"], ["a", "z"], 1.0 / 3.0),
    (["x", "x", "x"], ["x", "x", "x"], 1.0),
    # one class in gold, always predicted, one extra class only predicted: x 2*2/(3+2) = 0.8, y 0 -> 0.4
    (["x", "x", "x"], ["x", "y", "x"], 0.4),
    # labels compare exactly: case and spaces matter
    (["Fishes not identified", "ham"], ["fishes not identified", "ham "], 0.0),
    # labels with commas are ordinary strings: 2/(1+1) = 1 for both
    (["meat, egg and dairy products", "seafood"], ["meat, egg and dairy products", "seafood"], 1.0),
    ([], [], 0.0),
]


@pytest.mark.parametrize("gold,predicted,expected", MACRO_F1_CASES)
def test_macro_f1_hand_computed(gold, predicted, expected):
    assert macro_f1(gold, predicted) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("gold,predicted,expected", [c for c in MACRO_F1_CASES if c[0]])
def test_hand_computed_cases_agree_with_sklearn(gold, predicted, expected):
    assert f1_score(gold, predicted, average="macro", zero_division=0) == pytest.approx(expected, abs=1e-15)


def test_class_counts_per_class():
    counts = class_counts(["a", "a", "b", "c"], ["a", "b", "b", "b"])
    table = dict((label, (c.support, c.predicted, c.correct, c.precision, c.recall, c.f1))
                 for label, c in counts.items())
    assert table == {"a": (2, 1, 1, 1.0, 0.5, 2.0 / 3.0),
                     "b": (1, 3, 1, 1.0 / 3.0, 1.0, 0.5),
                     "c": (1, 0, 0, 0.0, 0.0, 0.0)}


# (hazards gold, products gold, hazards pred, products pred, (score, hazard F1, product F1))
TWO_STEP_CASES = [
    # the metric card's worked example
    (["allergens", "allergens", "biological", "fraud"], ["cakes", "ham", "cheese", "salmon"],
     ["allergens", "biological", "biological", "fraud"], ["cakes", "ham", "cheese", "tuna"],
     ((7.0 / 9.0 + 0.5) / 2.0, 7.0 / 9.0, 0.5)),
    # all right -> 1
    (["a", "b"], ["x", "y"], ["a", "b"], ["x", "y"], (1.0, 1.0, 1.0)),
    # hazards right, products wrong -> 0.5
    (["a", "b"], ["x", "y"], ["a", "b"], ["y", "x"], (0.5, 1.0, 0.0)),
    # no hazard right: the product step has no rows and scores 0 although every product is right
    (["a", "b"], ["x", "y"], ["b", "a"], ["x", "y"], (0.0, 0.0, 0.0)),
    # only row 0 reaches the product step: products there {x: right} -> 1; hazards a 2/3, b 0 -> 1/3
    (["a", "a"], ["x", "y"], ["a", "b"], ["x", "x"], ((1.0 / 3.0 + 1.0) / 2.0, 1.0 / 3.0, 1.0)),
]


@pytest.mark.parametrize("hg,pg,hp,pp,expected", TWO_STEP_CASES)
def test_two_step_hand_computed(hg, pg, hp, pp, expected):
    result = two_step_score(hg, pg, hp, pp)
    assert (result.score, result.hazard_f1, result.product_f1) == pytest.approx(expected, abs=1e-15)
    assert result.rows == len(hg)
    assert result.rows_hazard_correct == sum(1 for g, p in zip(hg, hp) if g == p)


@pytest.mark.parametrize("hg,pg,hp,pp,expected", TWO_STEP_CASES)
def test_two_step_cases_agree_with_official(hg, pg, hp, pp, expected):
    assert official_compute_score(hg, pg, hp, pp) == pytest.approx(expected, abs=1e-15)


# Labels as they look in the data: commas, case variants, a shared fine label ("other").
LABELS = st.sampled_from(["allergens", "biological", "other", "Other", "meat, egg and dairy products",
                          "Fishes not identified", "fishes not identified", "ice cream", "salmonella", "z"])


@st.composite
def label_pairs(draw, min_size=1):
    gold = draw(st.lists(LABELS, min_size=min_size, max_size=60))
    predicted = draw(st.lists(LABELS, min_size=len(gold), max_size=len(gold)))
    return gold, predicted


@settings(max_examples=300, deadline=None)
@given(label_pairs())
def test_macro_f1_equals_sklearn(pair):
    gold, predicted = pair
    expected = f1_score(np.array(gold, dtype=object), np.array(predicted, dtype=object), average="macro",
                        zero_division=0)
    assert abs(macro_f1(gold, predicted) - expected) <= 1e-12


@settings(max_examples=100, deadline=None)
@given(label_pairs())
def test_per_class_counts_equal_sklearn(pair):
    gold, predicted = pair
    counts = class_counts(gold, predicted)
    labels = sorted(counts)
    precision, recall, f1, support = precision_recall_fscore_support(gold, predicted, labels=labels,
                                                                     zero_division=0)
    for i, label in enumerate(labels):
        c = counts[label]
        assert c.support == support[i]
        assert abs(c.precision - precision[i]) <= 1e-12
        assert abs(c.recall - recall[i]) <= 1e-12
        assert abs(c.f1 - f1[i]) <= 1e-12


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 40), LABELS, LABELS)
def test_single_class(n, gold_label, predicted_label):
    gold, predicted = [gold_label] * n, [predicted_label] * n
    expected = f1_score(gold, predicted, average="macro", zero_division=0)
    assert macro_f1(gold, predicted) == expected == (1.0 if gold_label == predicted_label else 0.0)


@settings(max_examples=300, deadline=None)
@given(label_pairs(), st.data())
def test_two_step_equals_official(hazards, data):
    hg, hp = hazards
    pg = data.draw(st.lists(LABELS, min_size=len(hg), max_size=len(hg)))
    pp = data.draw(st.lists(LABELS, min_size=len(hg), max_size=len(hg)))
    result = two_step_score(hg, pg, hp, pp)
    expected = official_compute_score(hg, pg, hp, pp)
    assert max(abs(a - b) for a, b in zip((result.score, result.hazard_f1, result.product_f1), expected)) <= 1e-12


def test_macro_f1_does_not_depend_on_row_order():
    gold = ["a", "b", "c", "a", "d", "b"] * 7
    predicted = ["a", "c", "c", "b", "d", "e"] * 7
    order = list(range(len(gold)))
    np.random.RandomState(0).shuffle(order)
    assert macro_f1(gold, predicted) == macro_f1([gold[i] for i in order], [predicted[i] for i in order])


def test_row_details_name_both_labels_shortened_to_80_characters():
    """The per-row detail (score --per-item, the detailed results) quotes the predicted and the gold label, each cut
    to 80 characters with '...' so that one long label cannot fill the line."""
    from food_hazard_metric import row_items
    long_guess, long_gold = "g" * 120, "h" * 81
    items = row_items("ST1", ["r1", "r2"], ("hazard-category", "product-category"),
                      ["biological", long_gold], ["meat", "fish"], ["biological", long_guess], ["milk", "fish"])
    assert items.verdicts == ["partly", "wrong"]
    assert items.details[0] == "product-category: predicted 'milk', gold 'meat'"
    assert items.details[1] == ("hazard-category: predicted '%s...', gold '%s...'; product-category right, but not "
                                "counted without the right hazard-category" % ("g" * 77, "h" * 77))
    exactly = row_items("ST1", ["r"], ("hazard-category", "product-category"), ["h" * 80], ["p"], ["g" * 80], ["p"])
    assert exactly.details == ["hazard-category: predicted '%s', gold '%s'; product-category right, but not counted "
                               "without the right hazard-category" % ("g" * 80, "h" * 80)]
