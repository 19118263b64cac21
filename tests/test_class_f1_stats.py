"""class_f1's per-item statistics: summed over any items, finished into exactly macro_f1 of those items' labels."""
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.metrics import f1_score

from class_f1 import class_stats, counts_of_stats, macro_f1, macro_f1_of_stats
from scoring_runtime import Items


def items_of(gold, predicted, prefix="x:"):
    items = Items("row", "macro_f1", lambda totals: macro_f1_of_stats(totals, prefix))
    for number, (truth, guess) in enumerate(zip(gold, predicted)):
        items.add(number, class_stats(prefix, truth, guess))
    return items


def test_one_item_by_hand():
    assert class_stats("hazard:", "fraud", "fraud") == {
        "hazard:support:fraud": 1, "hazard:predicted:fraud": 1, "hazard:correct:fraud": 1}
    assert class_stats("", 1, 0) == {"support:1": 1, "predicted:0": 1}


def test_counts_by_hand():
    # a: 2 gold, 1 predicted, 1 right -> 2/3; b: 1 gold, 1 predicted, 1 right -> 1; c: only predicted -> 0.
    totals = items_of(["a", "a", "b"], ["a", "c", "b"]).totals()
    counts = counts_of_stats(totals, "x:")
    assert sorted((k, c.support, c.predicted, c.correct) for k, c in counts.items()) == [
        ("a", 2, 1, 1), ("b", 1, 1, 1), ("c", 0, 1, 0)]
    assert macro_f1_of_stats(totals, "x:") == macro_f1(["a", "a", "b"], ["a", "c", "b"]) == pytest.approx(5 / 9)


def test_prefixes_keep_label_sets_apart_and_labels_may_hold_the_separator():
    stats = dict(class_stats("hazard:", "a: b", "a: b"), **class_stats("product:", "support:x", "y"))
    assert macro_f1_of_stats(stats, "hazard:") == 1.0 and macro_f1_of_stats(stats, "product:") == 0.0
    assert sorted(counts_of_stats(stats, "product:")) == ["support:x", "y"]


def test_no_items_no_classes():
    assert macro_f1_of_stats({}, "x:") == 0.0 and counts_of_stats({"x:support:a": 0.0}, "x:") == {}


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abcd"), st.sampled_from("abcde")), min_size=1, max_size=40),
       st.lists(st.integers(0, 39), min_size=1, max_size=40))
def test_equals_macro_f1_on_the_whole_set_and_on_a_resample(pairs, draws):
    gold, predicted = [g for g, _ in pairs], [p for _, p in pairs]
    items = items_of(gold, predicted)
    assert items.score() == macro_f1(gold, predicted)
    assert items.score() == pytest.approx(f1_score(gold, predicted, average="macro"), abs=1e-12)
    # A resample (rows drawn with repeats, classes missing): scikit-learn's classes are those of the resample.
    index = [d % len(pairs) for d in draws]
    parts = {}
    for i in index:
        for name, value in items.stats[i].items():
            parts[name] = parts.get(name, 0.0) + value
    resampled_gold, resampled_predicted = [gold[i] for i in index], [predicted[i] for i in index]
    assert items.finish(parts) == macro_f1(resampled_gold, resampled_predicted)
    assert items.finish(parts) == pytest.approx(f1_score(resampled_gold, resampled_predicted, average="macro"),
                                                abs=1e-12)
