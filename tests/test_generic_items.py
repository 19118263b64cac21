"""Per-item statistics of the four generic kinds (scoring_runtime.Items, whatever key ranks): hand-computed items;
items.score() equal to the written score on sample and real data; bootstrap and paired tests against an
independent oracle (scikit-learn, numpy, SemEval's per-post F1) on the draws resampling.py documents."""
import csv
import json
import math
import random
import sys
import warnings

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score, jaccard_score, precision_score, recall_score

from conftest import ROOT, load_program, shared_path
from generic_support import GENERIC, run_generic

sys.path.insert(0, str(GENERIC))
from generic_config import AVAILABLE_KEYS  # noqa: E402
import resampling  # noqa: E402

PROGRAM = load_program("generic")
SAMPLES = 200
EPS = 1e-12


def write_files(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8", newline="")
    return folder


@pytest.fixture
def score(tmp_path, monkeypatch):
    """score(config, ref, res) -> the Result of the generic program, in-process; ref and res are folders or
    {name: text}."""
    count = [0]

    def run(config, ref, res):
        count[0] += 1
        folder = tmp_path / ("inproc%d" % count[0])
        ref = ref if not isinstance(ref, dict) else write_files(folder / "ref", ref)
        res = res if not isinstance(res, dict) else write_files(folder / "res", res)
        path = write_files(folder, {"scoring.json": json.dumps(config)}) / "scoring.json"
        monkeypatch.setenv("GENERIC_SCORING_CONFIG", str(path))
        return PROGRAM.score(str(ref), str(res))
    return run


def items_of(result):
    items = result.items
    return items.ids, items.stats, items.verdicts, items.details


# ---------------------------------------------------------------------------------------------------------------
# Hand-computed items

CLASS_GOLD = "id,text,label\n1,x,pos\n2,y,neg\n3,z,pos\n4,w,neu\n5,v,secret\n"
CLASS_PRED = "id,label\n5,neg\n4,neu\n3,pos\n2,pos\n1,pos\n"


def test_classification_items(score):
    """pos: support 2, predicted 3, correct 2 (F1 4/5); neg: 1, 1, 0; neu: 1, 1, 1; secret: 1, 0, 0."""
    result = score({"kind": "classification"}, {"gold.csv": CLASS_GOLD}, {"predictions.csv": CLASS_PRED})
    assert result.program == "generic-classification"
    items = result.items
    assert (items.unit, items.key) == ("row", "macro_f1")
    right = {"rows": 1, "support:pos": 1, "predicted:pos": 1, "correct:pos": 1}
    assert items_of(result) == (
        ["1", "2", "3", "4", "5"],
        [right, {"rows": 1, "support:neg": 1, "predicted:pos": 1}, right,
         {"rows": 1, "support:neu": 1, "predicted:neu": 1, "correct:neu": 1},
         {"rows": 1, "support:secret": 1, "predicted:neg": 1}],
        ["right", "wrong", "right", "right", "wrong"],
        ["", "predicted 'pos', gold 'neg'", "", "", "predicted 'neg', gold 'secret'"])
    assert items.score() == result.scores[0][1] == pytest.approx(0.45, abs=1e-15)
    # A resample (rows 1, 2, 2): pos support 1, predicted 3, correct 1 (F1 1/2); neg support 2 (F1 0); neu and
    # secret are not classes of it, so macro-F1 = 1/4.
    assert items.finish(resample_totals(items, [0, 1, 1])) == 0.25


@pytest.mark.parametrize("key, expected", [
    ("accuracy", 0.6), ("micro_f1", 0.6), ("weighted_f1", 0.52), ("macro_precision", 5 / 12), ("macro_recall", 0.5)])
def test_classification_items_rank_by_any_key(score, key, expected):
    result = score({"kind": "classification", "keys": [key, "macro_f1"]}, {"gold.csv": CLASS_GOLD},
                   {"predictions.csv": CLASS_PRED})
    assert result.items.key == key
    assert result.items.score() == result.scores[0][1] == pytest.approx(expected, abs=1e-15)


def resample_totals(items, indices):
    """The summed statistics of the items at ``indices`` (with repeats)."""
    totals = {}
    for i in indices:
        for name, value in items.stats[i].items():
            totals[name] = totals.get(name, 0) + value
    return totals


ML_GOLD = 'id,labels\n1,"a|b"\n2,""\n3,"c"\n4,"a"\n5,"x|y|z"\n'
ML_PRED = 'id,labels\n4,"b"\n3," c |d|c"\n2,""\n1,"a"\n5,"x|y|z"\n'
ML_VERDICTS = ["partly", "right", "partly", "wrong", "right"]
ML_DETAILS = ["missing 'b'", "", "extra 'd'", "missing 'a'; extra 'b'", ""]


@pytest.mark.parametrize("zero", [0, 1])
def test_multilabel_items_of_the_means(score, zero):
    """Per id F1 / Jaccard: 2/3 / 1/2, z / z, 2/3 / 1/2, 0 / 0, 1 / 1; exact: ids 2 and 5."""
    expected = {"samples_f1": ("f1", [2 / 3, zero, 2 / 3, 0.0, 1.0]),
                "jaccard": ("jaccard", [0.5, zero, 0.5, 0.0, 1.0]),
                "exact_match": ("exact", [0, 1, 0, 0, 1])}
    for key, (name, values) in expected.items():
        result = score({"kind": "multilabel", "zero_division": zero, "keys": [key]}, {"gold.csv": ML_GOLD},
                       {"predictions.csv": ML_PRED})
        assert result.program == "generic-multilabel"
        assert (result.items.unit, result.items.key) == ("row", key)
        assert items_of(result) == (["1", "2", "3", "4", "5"], [{"rows": 1, name: v} for v in values],
                                    ML_VERDICTS, ML_DETAILS)
        assert result.items.score() == result.scores[0][1] == pytest.approx(sum(values) / 5.0, abs=1e-15)


@pytest.mark.parametrize("zero", [0, 1])
def test_multilabel_items_of_micro_and_macro_f1(score, zero):
    """Labels: a (support 2, predicted 1, correct 1: F1 2/3), b (1, 1, 0), c (1, 1, 1), d (0, 1, 0), x, y, z (1, 1,
    1 each): micro 2*5 / (7 + 7) = 5/7, macro (2/3 + 0 + 1 + 0 + 3)/7 = 2/3."""
    for key, expected in (("micro_f1", 5 / 7), ("macro_f1", 2 / 3)):
        result = score({"kind": "multilabel", "zero_division": zero, "keys": [key]}, {"gold.csv": ML_GOLD},
                       {"predictions.csv": ML_PRED})
        assert items_of(result) == (
            ["1", "2", "3", "4", "5"],
            [{"rows": 1, "support:a": 1, "support:b": 1, "predicted:a": 1, "correct:a": 1}, {"rows": 1},
             {"rows": 1, "support:c": 1, "predicted:c": 1, "predicted:d": 1, "correct:c": 1},
             {"rows": 1, "support:a": 1, "predicted:b": 1},
             dict([("rows", 1)] + [(f + ":" + x, 1) for f in ("support", "predicted", "correct") for x in "xyz"])],
            ML_VERDICTS, ML_DETAILS)
        assert result.items.score() == result.scores[0][1] == pytest.approx(expected, abs=1e-15)
        # id 2 alone has no label at all: z, as scikit-learn's zero_division
        assert result.items.finish(resample_totals(result.items, [1, 1])) == zero


SPANS_GOLD = "0\t[0, 1, 6]\n1\t[]\n2\t[10, 11, 12]\n3\t[]\n4\t[7, 8]\n5\t[20, 21, 22, 23]\n"
SPANS_PRED = "0\t[0, 1, 4, 5]\n1\t[]\n2\t[]\n3\t[3, 4]\n4\t[8, 7, 8]\n5\t[21, 22]\n"


@pytest.mark.parametrize("key, name, values, verdicts", [
    # per post (F1, precision, recall): (4/7, 1/2, 2/3), (1, 1, 1), (0, 0, 0), (0, 0, 0), (1, 1, 1), (2/3, 1, 1/2)
    ("spans_f1", "f1", [4 / 7, 1.0, 0.0, 0.0, 1.0, 2 / 3], ["partly", "right", "wrong", "wrong", "right", "partly"]),
    ("spans_precision", "precision", [0.5, 1.0, 0.0, 0.0, 1.0, 1.0],
     ["partly", "right", "wrong", "wrong", "right", "partly"]),
    ("spans_recall", "recall", [2 / 3, 1.0, 0.0, 0.0, 1.0, 0.5],
     ["partly", "right", "wrong", "wrong", "right", "partly"]),
])
def test_spans_items(score, key, name, values, verdicts):
    result = score({"kind": "spans", "keys": [key]}, {"spans-gold.txt": SPANS_GOLD}, {"spans-pred.txt": SPANS_PRED})
    assert result.program == "generic-spans"
    assert (result.items.unit, result.items.key) == ("post", key)
    assert items_of(result) == (
        ["0", "1", "2", "3", "4", "5"], [{"posts": 1, name: v} for v in values], verdicts,
        ["2 of 3 gold offsets found, 2 extra", "", "0 of 3 gold offsets found", "the gold has no offset, 2 predicted",
         "", "2 of 4 gold offsets found"])
    assert result.items.score() == result.scores[0][1] == pytest.approx(sum(values) / 6, abs=1e-15)


RANK_GOLD = {"q0": "a", "q1": "d", "q2": "f", "q3": "i", "q4": "z"}
RANK_PRED = {"q0": ["a", "b"], "q1": ["c", "d"], "q2": "e", "q3": ["g", "h", "i", "j", "k"], "q4": ["x", "y"]}


@pytest.mark.parametrize("key, expected", [
    ("accuracy", 0.2), ("mrr", (1 + 1 / 2 + 1 / 3) / 5), ("hits_at_3", 0.6), ("hits_at_5", 0.6), ("hits_at_10", 0.6)])
def test_ranking_items(score, key, expected):
    """Ranks 1, 2, none (a single wrong choice), 3, none."""
    result = score({"kind": "ranking", "keys": [key]}, {"gold.json": json.dumps(RANK_GOLD)},
                   {"predictions.json": json.dumps(RANK_PRED)})
    assert result.program == "generic-ranking"
    assert (result.items.unit, result.items.key) == ("query", key)
    assert items_of(result) == (
        ["q0", "q1", "q2", "q3", "q4"],
        [{"queries": 1, "rank:1": 1}, {"queries": 1, "rank:2": 1}, {"queries": 1}, {"queries": 1, "rank:3": 1},
         {"queries": 1}],
        ["right", "partly", "wrong", "partly", "wrong"],
        ["", "answer ranked 2nd of 2", "predicted 'e', gold 'f'", "answer ranked 3rd of 5",
         "answer 'z' not among the 2 ranked"])
    assert result.items.score() == result.scores[0][1] == pytest.approx(expected, abs=1e-15)


def test_ranking_mrr_statistics_are_rank_counts(score):
    """Ranks 3, 3, 3, 5, 6, 7, 7, 7: an fsum of one 1/rank per query gives 0.22440476190476188, the written mrr
    (count * 1/rank per distinct rank) 0.2244047619047619; rank counts give the written one exactly."""
    ranks = [3, 3, 3, 5, 6, 7, 7, 7]
    gold = dict(("q%d" % i, "o%d" % rank) for i, rank in enumerate(ranks))
    options = ["o%d" % k for k in range(1, 8)]
    result = score({"kind": "ranking", "keys": ["mrr"]}, {"gold.json": json.dumps(gold)},
                   {"predictions.json": json.dumps(dict((q, options) for q in gold))})
    assert math.fsum(1.0 / rank for rank in ranks) / 8 == 0.22440476190476188  # the trap this test is about
    assert result.items.score() == result.scores[0][1] == 0.2244047619047619
    assert result.items.totals() == {"queries": 8, "rank:3": 3, "rank:5": 1, "rank:6": 1, "rank:7": 3}


def test_items_are_built_only_when_asked_for(score, monkeypatch):
    built = []
    module = sys.modules["generic_classification"]
    original = module.build_items
    monkeypatch.setattr(module, "build_items", lambda *args: built.append(args) or original(*args))
    result = score({"kind": "classification"}, {"gold.csv": CLASS_GOLD}, {"predictions.csv": CLASS_PRED})
    assert built == []
    assert len(result.items) == 5 and len(built) == 1


# ---------------------------------------------------------------------------------------------------------------
# items.score() == the score the platform run writes (scores.json), for every key, on sample and real data

def check_written(tmp_path, score, kind, config, ref, res, items):
    """Runs the program as the platform does (every key), then in-process with each key ranking."""
    platform = run_generic(tmp_path / "platform", dict(config, kind=kind), ref, res)
    assert platform.returncode == 0, platform.stderr
    assert sorted(platform.scores) == sorted(AVAILABLE_KEYS[kind])
    for key in AVAILABLE_KEYS[kind]:
        result = score(dict(config, kind=kind, keys=[key]), ref, res)
        assert (result.items.key, len(result.items)) == (key, items)
        assert result.items.score() == platform.scores[key], key


def csv_text(header, rows):
    lines = [",".join(header)] + [",".join('"%s"' % cell.replace('"', '""') for cell in row) for row in rows]
    return "\n".join(lines) + "\n"


def perturbed_labels(gold, seed, keep=0.6):
    rng = random.Random(seed)
    choices = sorted(set(gold)) + ["not-a-gold-label"]
    return [g if rng.random() < keep else rng.choice(choices) for g in gold]


def read_rows(path):
    with open(str(path), newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


FOOD_SAMPLE = ROOT / "reference_data" / "food-hazard"


@pytest.mark.parametrize("path", ["valid/incidents_valid_sample.csv", "test/incidents_test_sample.csv"])
def test_classification_written_score_on_sample_data(tmp_path, score, path):
    rows = read_rows(FOOD_SAMPLE / path)
    gold = [row["product-category"] for row in rows]
    ids = ["%d" % i for i in range(len(rows))]
    ref = {"gold.csv": csv_text(["id", "label"], zip(ids, gold))}
    res = {"predictions.csv": csv_text(["id", "label"], zip(ids, perturbed_labels(gold, len(rows))))}
    check_written(tmp_path, score, "classification", {}, ref, res, len(rows))


@pytest.mark.parametrize("column", ["hazard-category", "product-category"])
def test_classification_written_score_on_real_data(tmp_path, score, column):
    gold = read_rows(shared_path("food-hazard", "incidents_test.csv"))
    predicted = read_rows(shared_path("food-hazard", "published-predictions", "test_predictions_participant.csv"))
    ids = ["%d" % i for i in range(len(gold))]
    ref = {"gold.csv": csv_text(["id", "label"], zip(ids, [row[column] for row in gold]))}
    res = {"predictions.csv": csv_text(["id", "label"], zip(ids, [row[column] for row in predicted]))}
    check_written(tmp_path, score, "classification", {}, ref, res, 997)


def perturbed_sets(gold, labels, seed, keep=0.4):
    rng = random.Random(seed)
    return [g if rng.random() < keep else rng.sample(labels, rng.randint(0, 3)) for g in gold]


@pytest.mark.parametrize("split", ["train", "val", "test"])
@pytest.mark.parametrize("zero", [0, 1])
def test_multilabel_written_score_on_sample_data(tmp_path, score, split, zero):
    (path,) = (ROOT / "reference_data" / "cheers" / split).glob("sentences_*.csv")
    rows = read_rows(path)
    ids = ["%s-%s" % (row["doc_id"], row["sentence_id"]) for row in rows]
    gold = [["%d" % s for s in json.loads(row["sector_ids"])] for row in rows]
    labels = sorted(set(label for g in gold for label in g))
    predicted = perturbed_sets(gold, labels, len(rows))
    ref = {"gold.csv": csv_text(["id", "labels"], ((i, "|".join(g)) for i, g in zip(ids, gold)))}
    res = {"predictions.csv": csv_text(["id", "labels"], ((i, "|".join(p)) for i, p in zip(ids, predicted)))}
    check_written(tmp_path, score, "multilabel", {"zero_division": zero}, ref, res, len(rows))


def test_multilabel_written_score_on_real_data(tmp_path, score):
    """food-hazard's four labels of an incident as one set (a participant's predictions get some of them)."""
    columns = ["hazard-category", "product-category", "hazard", "product"]
    gold = read_rows(shared_path("food-hazard", "incidents_test.csv"))
    predicted = read_rows(shared_path("food-hazard", "published-predictions", "test_predictions_participant.csv"))

    def labels(row):
        return "|".join("%d:%s" % (k, row[column]) for k, column in enumerate(columns))
    ids = ["%d" % i for i in range(len(gold))]
    ref = {"gold.csv": csv_text(["id", "labels"], zip(ids, map(labels, gold)))}
    res = {"predictions.csv": csv_text(["id", "labels"], zip(ids, map(labels, predicted)))}
    check_written(tmp_path, score, "multilabel", {}, ref, res, 997)


def gold_offsets(path):
    return [sorted(set(json.loads(row["spans"]))) for row in read_rows(path)]


def perturbed_offsets(gold, seed):
    """test_generic_spans' perturbed predictions (exact, partial, shifted, empty, spurious), offsets made unique."""
    from test_generic_spans import perturbed
    return [sorted(set(offsets)) for offsets in perturbed(gold, random.Random(seed))]


def spans_lines(spans):
    return "".join("%d\t%s\n" % (i, offsets) for i, offsets in enumerate(spans))


@pytest.mark.parametrize("split", ["trial", "test"])
def test_spans_written_score_on_sample_data(tmp_path, score, split):
    folder = ROOT / "reference_data" / "toxic-spans" / split
    (path,) = folder.glob("*.csv")
    gold = gold_offsets(path)
    res = {"spans-pred.txt": spans_lines(perturbed_offsets(gold, len(gold)))}
    check_written(tmp_path, score, "spans", {"reference": "*.csv"}, folder, res, len(gold))


def test_spans_written_score_on_real_data(tmp_path, score):
    path = shared_path("toxic-spans", "tsd_test.csv")
    gold = gold_offsets(path)
    res = {"spans-pred.txt": spans_lines(perturbed_offsets(gold, 5))}
    check_written(tmp_path, score, "spans", {"reference": "tsd_test.csv"}, {"tsd_test.csv": path.read_text()}, res,
                  2000)


def seeded_ranking(options, first, rng):
    """``first`` then the other options shuffled, cut at a random length (1: a single choice)."""
    rest = [o for o in options if o != first]
    rng.shuffle(rest)
    return ([first] + rest)[:rng.randint(1, len(options))]


@pytest.mark.parametrize("split", ["dev", "test"])
def test_ranking_written_score_on_sample_data(tmp_path, score, split):
    queries = json.loads((ROOT / "reference_data" / "recipe-mpr" / split / (split + ".json")).read_text())
    rng = random.Random(len(queries))
    gold = dict((q["id"], q["answer"]) for q in queries)
    predicted = dict((q["id"], seeded_ranking(sorted(q["options"]), rng.choice(sorted(q["options"])), rng))
                     for q in queries)
    check_written(tmp_path, score, "ranking", {}, {"gold.json": json.dumps(gold)},
                  {"predictions.json": json.dumps(predicted)}, len(queries))


def recipe_fold(name, seed):
    """(answers, rankings) of the authors' GPT-3 predictions on a test fold: the chosen option first, then (for
    some queries) the others in a seeded order."""
    queries = json.loads(shared_path("recipe-mpr", "published-predictions", name).read_text())
    rng = random.Random(seed)
    answers, rankings = {}, {}
    for number, query in enumerate(queries):
        chosen = [key for key, text in query["options"].items() if text == query["pred"]][0]
        answers["q%d" % number] = query["answer"]
        rankings["q%d" % number] = seeded_ranking(sorted(query["options"]), chosen, rng)
    return answers, rankings


@pytest.mark.parametrize("name", ["gpt3_few_shot_fold0.json", "gpt3_zero_shot_fold0.json"])
def test_ranking_written_score_on_real_data(tmp_path, score, name):
    answers, rankings = recipe_fold(name, 3)
    check_written(tmp_path, score, "ranking", {}, {"gold.json": json.dumps(answers)},
                  {"predictions.json": json.dumps(rankings)}, 100)


# ---------------------------------------------------------------------------------------------------------------
# Bootstrap interval, paired bootstrap and approximate randomization against an independent oracle: the official
# metric (scikit-learn, numpy, SemEval's per-post F1) on each resampled gold and prediction, drawn with numpy as
# resampling.py documents

def objects(values):
    array = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        array[i] = value
    return array


def p_value_bounds(statistics, observed):
    """(1 + #{statistic >= observed}) / (samples + 1), counting a statistic within EPS of ``observed`` as not
    reaching it (low) and as reaching it (high): the oracle's floats and the program's may differ in the last bit."""
    statistics = np.asarray(statistics)
    low = (1 + np.sum(statistics > observed + EPS)) / (len(statistics) + 1.0)
    high = (1 + np.sum(statistics >= observed - EPS)) / (len(statistics) + 1.0)
    return low, high


def check_resampling(items_a, items_b, gold, pred_a, pred_b, metric, seed):
    """``metric(gold, predicted)`` on numpy arrays of items is the oracle."""
    gold, pred_a, pred_b = objects(gold), objects(pred_a), objects(pred_b)
    n = len(gold)
    assert items_a.score() == pytest.approx(metric(gold, pred_a), abs=EPS)
    assert items_b.score() == pytest.approx(metric(gold, pred_b), abs=EPS)
    idx = (np.random.RandomState([seed]).random_sample((SAMPLES, n)) * n).astype(int)
    values_a = np.array([metric(gold[i], pred_a[i]) for i in idx])
    values_b = np.array([metric(gold[i], pred_b[i]) for i in idx])
    interval = resampling.bootstrap(items_a, samples=SAMPLES, seed=seed)
    assert [interval.low, interval.high] == pytest.approx(list(np.percentile(values_a, [2.5, 97.5])), abs=EPS)
    assert interval.low < interval.high  # the resamples differ: the check above compares something

    comparison = resampling.paired(items_a, items_b, samples=SAMPLES, seed=seed)
    observed = metric(gold, pred_a) - metric(gold, pred_b)
    deltas = values_a - values_b
    assert comparison.delta == pytest.approx(observed, abs=EPS)
    assert [comparison.low, comparison.high] == pytest.approx(list(np.percentile(deltas, [2.5, 97.5])), abs=EPS)
    low, high = p_value_bounds(np.abs(deltas - deltas.mean()), abs(observed))
    assert low <= comparison.p_bootstrap <= high
    swaps = np.random.RandomState([seed]).random_sample((SAMPLES, n)) < 0.5
    randomized = [metric(gold, np.where(swap, pred_b, pred_a)) - metric(gold, np.where(swap, pred_a, pred_b))
                  for swap in swaps]
    low, high = p_value_bounds(np.abs(randomized), abs(observed))
    assert low <= comparison.p_randomization <= high
    return comparison


def with_warnings_ignored(function):
    def quiet(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return function(*args)
    return quiet


CLASSIFICATION_ORACLE = {
    "macro_f1": lambda g, p: f1_score(g, p, average="macro", zero_division=0),
    "accuracy": accuracy_score,
    "micro_f1": lambda g, p: f1_score(g, p, average="micro", zero_division=0),
    "weighted_f1": lambda g, p: f1_score(g, p, average="weighted", zero_division=0),
    "macro_precision": lambda g, p: precision_score(g, p, average="macro", zero_division=0),
    "macro_recall": lambda g, p: recall_score(g, p, average="macro", zero_division=0),
}


def classification_run(score, key, ids, gold, predicted):
    return score({"kind": "classification", "keys": [key]}, {"gold.csv": csv_text(["id", "label"], zip(ids, gold))},
                 {"predictions.csv": csv_text(["id", "label"], zip(ids, predicted))}).items


@pytest.mark.parametrize("key", AVAILABLE_KEYS["classification"])
def test_classification_resampling(score, key):
    """Six classes, one rare (absent from many resamples), and a label only run B predicts."""
    rng = random.Random(11)
    classes = ["c0", "c1", "c2", "c3", "c4"] * 4 + ["rare"]
    gold = [rng.choice(classes) for _ in range(60)]
    pred_a = [g if rng.random() < 0.7 else rng.choice(classes) for g in gold]
    pred_b = [g if rng.random() < 0.5 else rng.choice(classes + ["extra"]) for g in gold]
    ids = ["r%d" % i for i in range(60)]
    oracle = with_warnings_ignored(lambda g, p: CLASSIFICATION_ORACLE[key](list(g), list(p)))
    comparison = check_resampling(classification_run(score, key, ids, gold, pred_a),
                                  classification_run(score, key, ids, gold, pred_b), gold, pred_a, pred_b, oracle, 3)
    assert comparison.delta > 0


def multilabel_oracle(key, zero):
    """scikit-learn on the binarized sets, over the labels of the gold and predictions given (as a resample would
    have them)."""
    def metric(gold, predicted):
        labels = sorted(set().union(*gold) | set().union(*predicted))
        assert len(labels) >= 2  # scikit-learn reads a single column as binary; the data avoids it
        y = np.array([[label in g for label in labels] for g in gold], dtype=int)
        p = np.array([[label in s for label in labels] for s in predicted], dtype=int)
        if key == "exact_match":
            return accuracy_score(y, p)
        if key == "jaccard":
            return jaccard_score(y, p, average="samples", zero_division=zero)
        average = {"samples_f1": "samples", "micro_f1": "micro", "macro_f1": "macro"}[key]
        return f1_score(y, p, average=average, zero_division=zero)
    return with_warnings_ignored(metric)


def multilabel_run(score, key, zero, gold, predicted):
    def text(sets):
        return csv_text(["id", "labels"], (("%d" % i, "|".join(sorted(s))) for i, s in enumerate(sets)))
    return score({"kind": "multilabel", "keys": [key], "zero_division": zero}, {"gold.csv": text(gold)},
                 {"predictions.csv": text(predicted)}).items


@pytest.mark.parametrize("zero", [0, 1])
@pytest.mark.parametrize("key", AVAILABLE_KEYS["multilabel"])
def test_multilabel_resampling(score, key, zero):
    """Ids without labels (both empty: z), a rare label, labels only predicted."""
    rng = random.Random(13)
    labels = ["a", "b", "c", "d", "e", "rare"]

    def some(pool):
        return frozenset(rng.sample(pool, rng.choice([0, 1, 1, 2, 2, 3])))
    gold = [some(labels[:5]) for _ in range(50)] + [frozenset(["rare"])]
    pred_a = [g if rng.random() < 0.5 else some(labels) for g in gold]
    pred_b = [g if rng.random() < 0.3 else some(labels + ["x"]) for g in gold]
    assert sum(1 for g, p in zip(gold, pred_a) if not g and not p) >= 3
    check_resampling(multilabel_run(score, key, zero, gold, pred_a), multilabel_run(score, key, zero, gold, pred_b),
                     gold, pred_a, pred_b, multilabel_oracle(key, zero), 5)


def semeval_f1(predictions, gold):
    """SemEval-2021 Task 5's per-post F1 (its evaluation script), with precision and recall by the same rule."""
    if len(gold) == 0 or len(predictions) == 0:
        value = 1.0 if len(gold) == len(predictions) == 0 else 0.0
        return value, value, value
    common = len(set(predictions) & set(gold))
    return (float(2 * common) / float(len(set(predictions)) + len(set(gold))), common / float(len(set(predictions))),
            common / float(len(set(gold))))


@pytest.mark.parametrize("place, key", enumerate(AVAILABLE_KEYS["spans"]))
def test_spans_resampling(score, place, key):
    gold = gold_offsets(ROOT / "reference_data" / "toxic-spans" / "trial" / "tsd_trial_sample.csv")
    pred_a, pred_b = perturbed_offsets(gold, 1), perturbed_offsets(gold, 2)

    def run(predicted):
        return score({"kind": "spans", "keys": [key]}, {"spans-gold.txt": spans_lines(gold)},
                     {"spans-pred.txt": spans_lines(predicted)}).items

    def metric(gold_posts, predicted_posts):
        return np.mean([semeval_f1(p, g)[place] for g, p in zip(gold_posts, predicted_posts)])
    check_resampling(run(pred_a), run(pred_b), gold, pred_a, pred_b, metric, 7)


def ranking_oracle(key):
    def metric(answers, rankings):
        ranks = np.array([list(r).index(a) + 1 if a in r else 0 for a, r in zip(answers, rankings)])
        if key == "mrr":
            return np.mean(np.where(ranks > 0, 1.0 / np.maximum(ranks, 1), 0.0))
        k = 1 if key == "accuracy" else int(key.rsplit("_", 1)[1])
        return np.mean((ranks >= 1) & (ranks <= k))
    return metric


def ranking_run(score, key, answers, rankings):
    return score({"kind": "ranking", "keys": [key]}, {"gold.json": json.dumps(answers)},
                 {"predictions.json": json.dumps(rankings)}).items


@pytest.mark.parametrize("key", AVAILABLE_KEYS["ranking"])
def test_ranking_resampling(score, key):
    rng = random.Random(17)
    options = ["o%d" % k for k in range(12)]
    ids = ["q%d" % i for i in range(60)]
    answers = dict((q, rng.choice(options)) for q in ids)
    rankings = [dict((q, seeded_ranking(options, answers[q] if rng.random() < 0.3 else rng.choice(options), rng))
                     for q in ids) for _ in range(2)]
    check_resampling(ranking_run(score, key, answers, rankings[0]), ranking_run(score, key, answers, rankings[1]),
                     [answers[q] for q in ids], [tuple(rankings[0][q]) for q in ids],
                     [tuple(rankings[1][q]) for q in ids], ranking_oracle(key), 9)


def test_ranking_resampling_on_real_data(score):
    """GPT-3 few-shot against zero-shot on the same Recipe-MPR fold (single choices: mrr = accuracy)."""
    runs = [recipe_fold(name, 3) for name in ("gpt3_few_shot_fold0.json", "gpt3_zero_shot_fold0.json")]
    answers = runs[0][0]
    assert runs[1][0] == answers
    ids = list(answers)
    comparison = check_resampling(
        ranking_run(score, "mrr", answers, runs[0][1]), ranking_run(score, "mrr", answers, runs[1][1]),
        [answers[q] for q in ids], [tuple(runs[0][1][q]) for q in ids], [tuple(runs[1][1][q]) for q in ids],
        ranking_oracle("mrr"), 21)
    assert comparison.items == 100
