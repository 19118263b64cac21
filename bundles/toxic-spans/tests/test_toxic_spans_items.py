"""toxic-spans per-item statistics: one item per post, summed and finished into spans_F1 exactly; resamples and
paired tests against an independent oracle (the official per-post F1, averaged by numpy)."""
import ast
import math

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT, load_program, run_scoring_program, score_in_process, shared_path
from items_oracle import check_bootstrap, check_paired
from test_toxic_spans_bundle import prediction_lines, read_gold, run_hooks
from test_toxic_spans_metric import official_f1
from test_toxic_spans_program import perturbed, spans_lines, trial_lexicon_predictions

TASK = "toxic-spans"
SAMPLE = ROOT / "reference_data" / TASK
SAMPLE_FILES = {"trial": "tsd_trial_sample.csv", "test": "tsd_test_sample.csv"}

# Gold ids deliberately out of numeric order: items follow the gold file.
GOLD = [(7, [0, 1, 6]), (3, []), (12, list(range(10, 16))), (0, []), (5, [20, 21]), (9, [30]), (1, [40, 41, 42, 43])]
PRED_LINES = "0\t[7]\n1\t[41, 42]\n3\t[]\n5\t[20, 21, 21]\n7\t[0, 1, 4, 5]\n9\t[31]\n12\t[]\n"
# (id, stats, verdict, detail), worked out by hand.
EXPECTED = [
    ("7", {"posts": 1, "f1": 4 / 7, "precision": 2 / 4, "recall": 2 / 3}, "partly",
     "2 of 3 gold offsets found, 2 offsets not toxic"),
    ("3", {"posts": 1, "f1": 1.0, "precision": 1.0, "recall": 1.0}, "right", ""),
    ("12", {"posts": 1}, "wrong", "nothing predicted, 6 gold offsets"),
    ("0", {"posts": 1}, "wrong", "1 offset predicted, the gold has none"),
    ("5", {"posts": 1, "f1": 1.0, "precision": 1.0, "recall": 1.0}, "right", ""),  # 21 twice counts once
    ("9", {"posts": 1}, "wrong", "0 of 1 gold offset found, 1 offset not toxic"),
    ("1", {"posts": 1, "f1": 2 / 3, "precision": 1.0, "recall": 0.5}, "partly", "2 of 4 gold offsets found"),
]


def score(tmp_path, ref, res):
    return score_in_process(TASK, tmp_path, ref, res)


def official_score(gold, predicted):
    return np.mean([official_f1(p, g) for p, g in zip(predicted, gold)])


def test_hand_made_posts(tmp_path):
    gold = "".join("%d\t%s\n" % (post_id, offsets) for post_id, offsets in GOLD)
    result = score(tmp_path, {"spans-gold.txt": gold}, {"spans-pred.txt": PRED_LINES})
    items = result.items
    assert (items.unit, items.key) == ("post", "spans_F1")
    assert list(zip(items.ids, items.stats, items.verdicts, items.details)) == EXPECTED
    assert items.totals() == {"posts": 7, "f1": math.fsum([4 / 7, 1, 1, 2 / 3]), "precision": 3.5,
                              "recall": math.fsum([2 / 3, 1, 1, 0.5])}
    assert items.score() == dict(result.scores)["spans_F1"] == pytest.approx(68 / 147, abs=1e-15)
    # The statistics are what the metric is made of: precision and recall are their means too.
    assert items.totals()["precision"] / 7 == dict(result.scores)["spans_precision"]


def test_items_are_built_only_when_asked_for(tmp_path, monkeypatch):
    load_program(TASK)  # puts the program's folder on sys.path
    import toxic_spans_metric
    built = []
    monkeypatch.setattr(toxic_spans_metric, "post_items", lambda *args: built.append(args))
    result = score(tmp_path, {"spans-gold.txt": "0\t[1]\n"}, {"spans-pred.txt": "0\t[1]\n"})
    assert built == [] and result.scores[0] == ("spans_F1", 1.0)


def platform_score(tmp_path, ref, res):
    run = run_scoring_program(TASK, ref, res, tmp_path / "platform")
    assert run.returncode == 0, run.stderr
    return run.scores["spans_F1"]


@pytest.mark.parametrize("split", sorted(SAMPLE_FILES))
def test_sample_submission_items_give_the_platform_score(tmp_path, split):
    ctx = run_hooks(tmp_path, SAMPLE / split, split)
    items = score(tmp_path / "in", SAMPLE / split, ctx.submission_dir).items
    assert len(items) == len(read_gold(SAMPLE / split / SAMPLE_FILES[split]))
    assert items.ids == ["%d" % i for i in range(len(items))]
    assert items.score() == platform_score(tmp_path, SAMPLE / split, ctx.submission_dir)
    assert set(items.verdicts) == {"right", "partly", "wrong"}


@pytest.fixture(scope="module")
def real_test():
    path = shared_path("toxic-spans", "tsd_test.csv")
    frame = pd.read_csv(path)
    return path, [ast.literal_eval(s) for s in frame["spans"]], list(frame["text"])


@pytest.mark.parametrize("prediction", ["trial-lexicon", "perturbed-1", "empty"])
def test_real_test_set_items_give_the_platform_score(tmp_path, real_test, prediction):
    path, gold, texts = real_test
    pred = {"trial-lexicon": lambda: trial_lexicon_predictions(texts), "perturbed-1": lambda: perturbed(gold, 1),
            "empty": lambda: [[] for _ in gold]}[prediction]()
    res = {"spans-pred.txt": spans_lines(dict(enumerate(pred)))}
    items = score(tmp_path / "in", {path.name: path}, res).items
    assert len(items) == 2000 and items.ids[:3] == ["0", "1", "2"]
    assert items.score() == platform_score(tmp_path, {path.name: path}, res)
    assert abs(items.score() - official_score(gold, pred)) <= 1e-12
    if prediction == "empty":
        assert items.verdicts.count("right") == 394 and items.score() == 0.197


def sample_runs(tmp_path):
    """The test split's gold, its sample submission (the baseline) and a perturbed gold, with their Items."""
    ctx = run_hooks(tmp_path, SAMPLE / "test", "test")
    gold = [offsets for offsets, _ in read_gold(SAMPLE / "test" / SAMPLE_FILES["test"])]
    baseline = [offsets for _, offsets in prediction_lines(ctx.submission_dir / "spans-pred.txt")]
    noisy = perturbed(gold, 5)
    items_baseline = score(tmp_path / "a", SAMPLE / "test", ctx.submission_dir).items
    items_noisy = score(tmp_path / "b", SAMPLE / "test", {"spans-pred.txt": spans_lines(dict(enumerate(noisy)))}).items
    return gold, baseline, noisy, items_baseline, items_noisy


def test_bootstrap_and_paired_tests_match_the_oracle(tmp_path):
    gold, baseline, noisy, items_baseline, items_noisy = sample_runs(tmp_path)
    assert items_baseline.score() == pytest.approx(official_score(gold, baseline), abs=1e-12)
    low, high = check_bootstrap(items_baseline, official_score, gold, baseline, samples=200, seed=7)
    assert low < items_baseline.score() < high
    check_bootstrap(items_noisy, official_score, gold, noisy, samples=200, seed=11)
    figures = check_paired(items_noisy, items_baseline, official_score, gold, noisy, baseline, samples=200, seed=3)
    assert figures["delta"] > 0.1 and figures["low"] > 0 and figures["p_randomization"] < 0.05
    # Two runs of the same quality: the p-values are counts of many rounds, not their floor.
    other = perturbed(gold, 6)
    items_other = score(tmp_path / "c", SAMPLE / "test", {"spans-pred.txt": spans_lines(dict(enumerate(other)))}).items
    figures = check_paired(items_noisy, items_other, official_score, gold, noisy, other, samples=200, seed=3)
    assert figures["low"] < 0 < figures["high"] and figures["p_randomization"] > 0.5 and figures["p_bootstrap"] > 0.5


def test_paired_tests_on_the_real_test_set_match_the_oracle(tmp_path, real_test):
    path, gold, texts = real_test
    lexicon, noisy = trial_lexicon_predictions(texts), perturbed(gold, 2)
    items = [score(tmp_path / name, {path.name: path}, {"spans-pred.txt": spans_lines(dict(enumerate(pred)))}).items
             for name, pred in (("lexicon", lexicon), ("noisy", noisy))]
    check_paired(items[0], items[1], official_score, gold, lexicon, noisy, samples=100, seed=2)
