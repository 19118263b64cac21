"""Toxic spans: list parsing and the per-post metric, against hand-computed values and reference implementations."""
import random
import sys

import numpy as np
import pytest
from hypothesis import given, strategies as st
from sklearn.metrics import f1_score, precision_score, recall_score

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scoring_programs" / "toxic-spans"))

from toxic_spans_format import parse_offsets, describe_list_problem, split_line  # noqa: E402
from toxic_spans_metric import post_scores, summarize, f1_bin, F1_BIN_LABELS  # noqa: E402


def official_f1(predictions, gold):
    """The per-post F1 of the task organizers' semeval2021.py, re-implemented: python sets, float division."""
    if len(gold) == 0:
        return 1. if len(predictions) == 0 else 0.
    if len(predictions) == 0:
        return 0.
    predictions_set, gold_set = set(predictions), set(gold)
    return float(2 * len(predictions_set & gold_set)) / float(len(predictions_set) + len(gold_set))


# ---------------------------------------------------------------------------------------------------------------
# Parsing lists of offsets

@pytest.mark.parametrize("text, expected", [
    ("[]", set()),
    ("[ ]", set()),
    ("  []  ", set()),
    ("[1, 2]", {1, 2}),
    ("[1,2]", {1, 2}),
    ("[1,2,]", {1, 2}),
    ("[ 3 ,4 , ]", {3, 4}),
    ("[1, 1, 2, 2, 2]", {1, 2}),
    ("[0]", {0}),
    ("[007]", {7}),
    ("[10, 11, 12, 13, 14, 15, 51, 52, 53, 54, 55, 56]", set(range(10, 16)) | set(range(51, 57))),
    ("[123456789012]", {123456789012}),
    ("[5,\t6]", {5, 6}),
])
def test_parse_offsets_accepts(text, expected):
    offsets = parse_offsets(text)
    assert isinstance(offsets, tuple)
    assert len(offsets) == len(expected)  # duplicates count once
    assert set(offsets) == expected


@pytest.mark.parametrize("text, fragment", [
    ("", "the list of offsets is missing"),
    ("   ", "the list of offsets is missing"),
    ("1, 2", "must be a list in square brackets"),
    ("(1, 2)", "must be a list in square brackets"),
    ("{1, 2}", "must be a list in square brackets"),
    ("None", "must be a list in square brackets"),
    ("[1, 2", "must be a list in square brackets"),
    ("[1, -2]", "offset '-2' is negative"),
    ("[- 2]", "offset '- 2' is negative"),
    ("[1.5]", "offset '1.5' is not an integer"),
    ("[3.]", "offset '3.' is not an integer"),
    ("[1e3]", "offset '1e3' is not an integer"),
    ("[+3]", "offset '+3' has a sign"),
    ("[a]", "'a' is not an offset"),
    ("['1']", "''1'' is not an offset"),
    ("[True]", "'True' is not an offset"),
    ("[[1, 2]]", "'[1' is not an offset"),
    ("[1 2]", "'1 2' is not an offset (separate offsets with commas)"),
    ("[1,,2]", "the list has an empty item"),
    ("[,]", "the list has an empty item"),
    ("[,1]", "the list has an empty item"),
    ("[1,2,,]", "the list has an empty item"),
    ("[\u0661]", "is not an offset"),  # an Arabic-Indic digit: int() would accept it, the format does not
    ("[1_000]", "'1_000' is not an offset"),
])
def test_parse_offsets_rejects_with_reason(text, fragment):
    assert parse_offsets(text) is None
    assert fragment in describe_list_problem(text)


def test_long_participant_text_is_shortened_in_messages():
    message = describe_list_problem("x" * 500)
    assert "xxx..." in message and len(message) < 140


@pytest.mark.parametrize("line, expected", [
    ("3\t[1]", (3, "[1]")),
    (" 3 \t [1, 2] \t ", (3, " [1, 2] ")),
    ("3\t[1]\t\t", (3, "[1]")),
    ("3\t", (3, "")),
    ("0\t[]", (0, "[]")),
    ("-1\t[]", (-1, "[]")),  # an integer: rejected later as an unknown id
])
def test_split_line(line, expected):
    assert split_line(line) == expected


@pytest.mark.parametrize("line, fragment", [
    ("3 [1]", "found no tab (the id and the list must be separated by a tab, not spaces)"),
    ("[1, 2]", "found no tab"),
    ("3\t[1]\t[2]", "found 2 tabs"),
    ("x\t[1]", "the id 'x' is not an integer"),
    ("3.0\t[]", "the id '3.0' is not an integer"),
    ("\t[]", "the id '' is not an integer"),
])
def test_split_line_rejects(line, fragment):
    with pytest.raises(ValueError) as info:
        split_line(line)
    assert fragment in str(info.value)


# ---------------------------------------------------------------------------------------------------------------
# Per-post scores: hand-computed table (F1, precision, recall)

@pytest.mark.parametrize("predicted, gold, f1, precision, recall", [
    ([], [], 1.0, 1.0, 1.0),                          # no gold span, nothing predicted: right
    ([4], [], 0.0, 0.0, 0.0),                         # no gold span, something predicted: wrong
    ([], [4, 5], 0.0, 0.0, 0.0),                      # gold spans, nothing predicted
    ([1, 2, 3], [4, 5], 0.0, 0.0, 0.0),               # disjoint
    (list(range(10, 16)), list(range(10, 16)), 1.0, 1.0, 1.0),
    ([0, 1, 4, 5], [0, 1, 6], 4 / 7, 2 / 4, 2 / 3),   # the docstring example of the official f1: 0.5714285714285714
    (list(range(5, 15)), list(range(10, 30)), 10 / 30, 5 / 10, 5 / 20),
    (list(range(0, 20)), list(range(5, 10)), 10 / 25, 5 / 20, 1.0),   # a superset: recall 1, precision 1/4
    ([2, 3], [1, 2, 3, 4, 5, 6, 7, 8], 4 / 10, 1.0, 2 / 8),           # a subset
])
def test_post_scores_table(predicted, gold, f1, precision, recall):
    assert post_scores(tuple(set(predicted)), tuple(set(gold))) == (f1, precision, recall)


def test_official_docstring_value():
    assert post_scores((0, 1, 4, 5), (0, 1, 6))[0] == 0.5714285714285714


def test_summary_means_and_groups_hand_computed():
    gold = {0: (), 1: (), 2: (4, 5), 3: (0, 1, 6), 4: tuple(range(10, 16)), 5: (7,)}
    predicted = {0: (), 1: (9,), 2: (), 3: (0, 1, 4, 5), 4: tuple(range(10, 16)), 5: (7, 8, 9)}
    summary = summarize(gold, predicted)
    # F1 per post: 1, 0, 0, 4/7, 1, 2/4 -> (2 + 4/7 + 1/2) / 6 = 43/84
    # precision:   1, 0, 0, 1/2, 1, 1/3 -> (2 + 1/2 + 1/3) / 6 = 17/36
    # recall:      1, 0, 0, 2/3, 1, 1   -> (3 + 2/3) / 6       = 11/18
    f1, precision, recall = summary.means()
    assert f1 == pytest.approx(43 / 84, abs=1e-15)
    assert precision == pytest.approx(17 / 36, abs=1e-15)
    assert recall == pytest.approx(11 / 18, abs=1e-15)
    assert summary.posts == 6
    counts = dict((key, group.count) for key, group in summary.groups.items())
    assert counts == {(True, True): 1, (True, False): 1, (False, True): 1, (False, False): 3}
    assert summary.groups[(False, False)].means()[0] == pytest.approx((4 / 7 + 1 + 0.5) / 3, abs=1e-15)
    # histogram bins: 0 (three posts), 0.4-0.6 (0.5), 0.4-0.6 (4/7 = 0.571), 1 (two posts)
    assert summary.f1_histogram == [2, 0, 0, 2, 0, 0, 2]
    assert summary.offsets_predicted == 1 + 4 + 6 + 3


@pytest.mark.parametrize("value, label", [
    (0.0, "0"), (1e-9, "0\u20130.2"), (0.2, "0.2\u20130.4"), (0.5, "0.4\u20130.6"), (0.6, "0.6\u20130.8"),
    (0.8, "0.8\u20131"), (0.999999, "0.8\u20131"), (1.0, "1"),
])
def test_f1_bins(value, label):
    assert F1_BIN_LABELS[f1_bin(value)] == label


# ---------------------------------------------------------------------------------------------------------------
# Reference implementations

def _random_post(rng, length=250):
    """A gold and a predicted set of offsets: often empty, else a few contiguous spans, sometimes overlapping."""
    def spans():
        if rng.random() < 0.25:
            return set()
        offsets = set()
        for _ in range(rng.randint(1, 3)):
            start = rng.randrange(length)
            offsets.update(range(start, min(length, start + rng.randint(1, 12))))
        return offsets
    gold = spans()
    predicted = spans() if rng.random() < 0.5 else set(o + rng.choice((-2, 0, 0, 1)) for o in gold if o > 2)
    return predicted, gold


def test_post_scores_equal_sklearn_binary_scores_over_characters():
    rng = random.Random(11)
    checked = 0
    for _ in range(400):
        predicted, gold = _random_post(rng)
        if not predicted or not gold:
            continue
        size = max(predicted | gold) + 1
        y_true = np.zeros(size, dtype=int)
        y_pred = np.zeros(size, dtype=int)
        y_true[list(gold)] = 1
        y_pred[list(predicted)] = 1
        f1, precision, recall = post_scores(tuple(predicted), tuple(gold))
        assert f1 == pytest.approx(f1_score(y_true, y_pred, zero_division=0), abs=1e-12)
        assert precision == pytest.approx(precision_score(y_true, y_pred, zero_division=0), abs=1e-12)
        assert recall == pytest.approx(recall_score(y_true, y_pred, zero_division=0), abs=1e-12)
        checked += 1
    assert checked > 150


def test_summary_equals_official_numpy_mean_on_random_predictions():
    rng = random.Random(5)
    for trial in range(20):
        posts = [_random_post(rng) for _ in range(rng.randint(1, 300))]
        gold = dict((i, tuple(g)) for i, (_, g) in enumerate(posts))
        predicted = dict((i, tuple(p)) for i, (p, _) in enumerate(posts))
        expected = np.mean([official_f1(list(p), list(g)) for p, g in posts])
        f1 = summarize(gold, predicted).means()[0]
        assert abs(f1 - expected) <= 1e-12, trial
        # each post's value is exactly the official one, not only the mean
        for p, g in posts:
            assert post_scores(tuple(p), tuple(g))[0] == official_f1(list(p), list(g))


@given(st.lists(st.integers(min_value=0, max_value=10 ** 6), max_size=40),
       st.lists(st.sampled_from(["", " ", "  ", "\t"]), min_size=4, max_size=4), st.booleans())
def test_parse_offsets_any_spacing(offsets, spaces, trailing_comma):
    before, after_item, after_comma, inside = spaces
    body = (after_item + "," + after_comma).join("%d" % o for o in offsets)
    if offsets and trailing_comma:
        body += ","
    text = "[" + inside + body + before + "]"
    assert parse_offsets(text) is not None and sorted(parse_offsets(text)) == sorted(set(offsets))


def test_readme_worked_example():
    gold = {0: (0, 1, 6), 1: (), 2: tuple(range(10, 16))}
    predicted = {0: (0, 1, 4, 5), 1: (), 2: ()}
    f1, precision, recall = summarize(gold, predicted).means()
    assert (round(f1, 6), precision, round(recall, 6)) == (0.523810, 0.5, 0.555556)
    assert f1 == pytest.approx(11 / 21, abs=1e-15) and recall == pytest.approx(5 / 9, abs=1e-15)
