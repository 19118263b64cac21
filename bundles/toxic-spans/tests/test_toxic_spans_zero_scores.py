"""toxic-spans when posts score 0: a post's F1 of 0 adds nothing but the post to the statistics (zeros are left
out), so a resample of only such posts must still finish to 0, and its interval be [0, 0] when every post is 0."""
import numpy as np
import pytest

from conftest import load_program, score_in_process

import resampling

TASK = "toxic-spans"


def items_of(tmp_path, gold, predicted):
    ref = "".join("%d\t%s\n" % (post_id, offsets) for post_id, offsets in gold)
    res = "".join("%d\t%s\n" % (post_id, offsets) for post_id, offsets in predicted)
    return score_in_process(TASK, tmp_path, {"spans-gold.txt": ref}, {"spans-pred.txt": res}).items


def test_every_post_scoring_0_gives_the_interval_0_0(tmp_path):
    items = items_of(tmp_path, [(1, [0, 1, 2]), (2, [5]), (3, [7, 8])], [(1, [3]), (2, []), (3, [1])])
    assert items.stats == [{"posts": 1}] * 3 and items.score() == 0.0
    interval = resampling.bootstrap(items, samples=200, seed=1)
    assert (interval.score, interval.low, interval.high) == (0.0, 0.0, 0.0)
    comparison = resampling.paired(items, items, samples=50, seed=1)
    assert (comparison.delta, comparison.p_bootstrap, comparison.p_randomization) == (0.0, 1.0, 1.0)


def test_resamples_of_only_zero_posts_score_0(tmp_path):
    # One post right (F1 1), one wrong (F1 0): a quarter of the resamples of two draw the wrong post twice.
    items = items_of(tmp_path, [(1, [0, 1]), (2, [5])], [(1, [0, 1]), (2, [])])
    samples, seed = 400, 3
    rows = (np.random.RandomState([seed]).random_sample((samples, 2)) * 2).astype(int)
    values = [float(np.mean([(1.0, 0.0)[i] for i in row])) for row in rows]
    assert values.count(0.0) > 50
    interval = resampling.bootstrap(items, samples=samples, seed=seed)
    assert (interval.low, interval.high) == tuple(np.percentile(values, [2.5, 97.5])) == (0.0, 1.0)
    assert interval.score == 0.5


def test_the_finish_of_no_post_and_of_zero_posts():
    load_program(TASK)
    import toxic_spans_metric
    finish = toxic_spans_metric.post_items({}, {}).finish
    assert finish({}) == 0.0 and finish({"posts": 3}) == 0.0 and finish({"posts": 4, "f1": 1.0}) == 0.25


@pytest.mark.parametrize("predicted, gold, detail", [
    ([1], [], "1 offset predicted, the gold has none"),
    ([1, 2], [], "2 offsets predicted, the gold has none"),
    ([], [4], "nothing predicted, 1 gold offset"),
    ([4, 9], [4], "1 of 1 gold offset found, 1 offset not toxic"),
    ([4], [4, 5, 6], "1 of 3 gold offsets found"),
])
def test_post_details(predicted, gold, detail):
    load_program(TASK)
    import toxic_spans_metric
    assert toxic_spans_metric.post_detail(predicted, gold) == detail


def test_the_histogram_bin_just_below_1():
    load_program(TASK)
    import math
    import toxic_spans_metric
    below_one = math.nextafter(1.0, 0.0)
    assert toxic_spans_metric.F1_BIN_LABELS[toxic_spans_metric.f1_bin(below_one)] == "0.8\u20131"
    assert toxic_spans_metric.f1_bin(0.8) == 5 and toxic_spans_metric.f1_bin(math.nextafter(0.8, 0.0)) == 4
