"""Options of the generic classification and multilabel kinds: a declared label set (``labels``), subset averages
(``subset_labels``: SemEval-2017 4A F1-PN, SemEval-2016 Task 6 stance F1, EmoContext micro-F1 without "others"),
per-class keys, TSV files, multilabel's zero_division warning. Hand-computed tables, scikit-learn as oracle to 1e-9,
and real public data with the official scorers (skipped when absent: tests/data_manifests/classification.json)."""
import csv
import io
import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score, jaccard_score, precision_score, recall_score

from conftest import ROOT, shared_path
from generic_support import GENERIC, Runner
from test_generic_items import check_resampling, score, with_warnings_ignored  # noqa: F401 (score: a fixture)

sys.path.insert(0, str(GENERIC))
from generic_config import check_config, label_key_name, with_defaults  # noqa: E402

MANIFEST = json.loads((ROOT / "tests" / "data_manifests" / "classification.json").read_text(encoding="utf-8"))


@pytest.fixture
def run(tmp_path):
    return Runner(tmp_path)


def table(rows, header=("id", "label"), delimiter=","):
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def files(ids, labels, name):
    return {name: table(zip(ids, labels))}


def quiet(function, *args, **kwargs):
    return with_warnings_ignored(lambda: function(*args, **kwargs))()


# ---------------------------------------------------------------------------------------------------------------
# Hand-computed tables

def test_declared_labels_count_a_class_the_test_set_lacks(run):
    """gold a a b b, predicted a b b b, labels [a, b, c]. a: support 2, predicted 1, TP 1 (P 1, R 1/2, F1 2/3);
    b: 2, 3, 2 (P 2/3, R 1, F1 4/5); c: nothing (0). macro F1 (2/3 + 4/5 + 0)/3 = 22/45 (without labels: 11/15);
    macro P (1 + 2/3 + 0)/3 = 5/9; macro R (1/2 + 1 + 0)/3 = 1/2; weighted (2·2/3 + 2·4/5)/4 = 11/15; accuracy and
    micro F1 3/4."""
    ids, gold, pred = [1, 2, 3, 4], ["a", "a", "b", "b"], ["a", "b", "b", "b"]
    keys = ["macro_f1", "accuracy", "micro_f1", "weighted_f1", "macro_precision", "macro_recall"]
    result = run({"kind": "classification", "labels": ["a", "b", "c"], "keys": keys},
                 files(ids, gold, "gold.csv"), files(ids, pred, "predictions.csv"))
    assert result.returncode == 0, result.stderr
    assert result.scores == pytest.approx({"macro_f1": 22 / 45, "accuracy": 0.75, "micro_f1": 0.75,
                                           "weighted_f1": 11 / 15, "macro_precision": 5 / 9, "macro_recall": 0.5},
                                          abs=1e-15)
    assert "the 3 labels declared for the task" in result.html
    undeclared = run({"kind": "classification", "keys": ["macro_f1"]}, files(ids, gold, "gold.csv"),
                     files(ids, pred, "predictions.csv"))
    assert undeclared.scores["macro_f1"] == pytest.approx(11 / 15, abs=1e-15)


SUBSET_IDS = [1, 2, 3, 4, 5, 6]
SUBSET_GOLD = ["pos", "pos", "neg", "neu", "neu", "neg"]
SUBSET_PRED = ["pos", "pos", "neg", "neu", "pos", "neu"]


def test_subset_averages_and_per_class_keys(run):
    """pos: support 2, predicted 3, TP 2 (P 2/3, R 1, F1 4/5); neg: 2, 1, 1 (P 1, R 1/2, F1 2/3); neu: 2, 2, 1
    (1/2 each). Over {pos, neg}: macro F1 (4/5 + 2/3)/2 = 11/15 (SemEval-2017 4A's F1-PN), micro F1
    2·(2 + 1)/(4 + 4) = 3/4, macro P (2/3 + 1)/2 = 5/6, macro R (1 + 1/2)/2 = 3/4; macro F1 over all 29/45."""
    keys = ["subset_macro_f1", "subset_micro_f1", "subset_macro_precision", "subset_macro_recall", "macro_f1",
            "f1_neu", "precision_pos", "recall_neg"]
    config = {"kind": "classification", "labels": ["pos", "neg", "neu"], "subset_labels": ["pos", "neg"],
              "keys": keys}
    result = run(config, files(SUBSET_IDS, SUBSET_GOLD, "gold.csv"), files(SUBSET_IDS, SUBSET_PRED, "predictions.csv"))
    assert result.returncode == 0, result.stderr
    assert list(result.scores) == keys
    assert result.scores == pytest.approx({
        "subset_macro_f1": 11 / 15, "subset_micro_f1": 0.75, "subset_macro_precision": 5 / 6,
        "subset_macro_recall": 0.75, "macro_f1": (4 / 5 + 2 / 3 + 1 / 2) / 3, "f1_neu": 0.5,
        "precision_pos": 2 / 3, "recall_neg": 0.5}, abs=1e-15)
    assert result.scores_txt.startswith("subset_macro_f1: 0.7333333")


def test_subset_and_per_class_keys_without_declared_labels(run):
    """subset_labels alone (no labels): the classes are the union, as before; the per-class keys name subset
    labels; a subset label nobody uses scores 0 (scikit-learn's labels= with zero_division=0)."""
    config = {"kind": "classification", "subset_labels": ["pos", "neg", "absent"],
              "keys": ["subset_macro_f1", "f1_absent", "accuracy"]}
    result = run(config, files(SUBSET_IDS, SUBSET_GOLD, "gold.csv"), files(SUBSET_IDS, SUBSET_PRED, "predictions.csv"))
    assert result.scores == pytest.approx({"subset_macro_f1": (4 / 5 + 2 / 3 + 0) / 3, "f1_absent": 0.0,
                                           "accuracy": 4 / 6}, abs=1e-15)


def test_per_class_keys_found_among_the_gold_labels_when_nothing_is_declared(run):
    gold = ["Very Negative", "FAVOR", "FAVOR"]
    result = run({"kind": "classification", "keys": ["f1_very_negative", "recall_favor"]},
                 files([1, 2, 3], gold, "gold.csv"), files([1, 2, 3], ["Very Negative", "FAVOR", "x"],
                                                           "predictions.csv"))
    assert result.scores == pytest.approx({"f1_very_negative": 1.0, "recall_favor": 0.5}, abs=1e-15)
    missing = run({"kind": "classification", "keys": ["f1_none_such"]}, files([1, 2, 3], gold, "gold.csv"),
                  files([1, 2, 3], gold, "predictions.csv"))
    missing.assert_rejected("Reference data error", "score key 'f1_none_such' names none of the gold's labels")
    assert "FAVOR" not in missing.stderr


@pytest.mark.parametrize("label, name", [("FAVOR", "favor"), ("Very Negative", "very_negative"), ("1", "1"),
                                         ("food additives and flavourings", "food_additives_and_flavourings"),
                                         ("-- x/y --", "x_y"), ("émotion", "motion"), ("!!", "")])
def test_label_key_names(label, name):
    assert label_key_name(label) == name


def test_a_prediction_outside_the_declared_labels_is_refused_with_its_line(run):
    ids, gold = [1, 2, 3], ["a", "b", "a"]
    result = run({"kind": "classification", "labels": ["a", "b"]}, files(ids, gold, "gold.csv"),
                 files(ids, ["a", "b", "other"], "predictions.csv"))
    result.assert_rejected("predictions.csv, line 4: the label 'other' is not one of the task's labels "
                           "(this task accepts only its labels: 'a', 'b')")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_unknown_labels_warn_counts_them_wrong_without_making_them_classes(run):
    """gold a b, predicted a zzz, labels [a, b], unknown_labels warn: a F1 1, b F1 0 (zzz is no class): macro 1/2;
    micro over the declared labels 2·1/(2 + 1) = 2/3, as scikit-learn's f1_score(labels=[a, b], average='micro');
    accuracy 1/2. Without labels zzz would be a class: macro (1 + 0 + 0)/3."""
    config = {"kind": "classification", "labels": ["a", "b"], "unknown_labels": "warn",
              "keys": ["macro_f1", "micro_f1", "accuracy"]}
    result = run(config, files([1, 2], ["a", "b"], "gold.csv"), files([1, 2], ["a", "zzz"], "predictions.csv"))
    assert result.returncode == 0, result.stderr
    assert result.scores == pytest.approx({"macro_f1": 0.5, "micro_f1": 2 / 3, "accuracy": 0.5}, abs=1e-15)
    assert quiet(f1_score, ["a", "b"], ["a", "zzz"], labels=["a", "b"], average="micro") == pytest.approx(2 / 3)
    assert "1 label(s) outside the task's labels, first on line 3: 'zzz'" in result.stderr
    assert "Warnings" in result.html


def test_a_gold_label_outside_the_declared_labels_is_the_organizers_problem(run):
    result = run({"kind": "classification", "labels": ["a", "b"]}, files([1, 2, 3], ["a", "secretgold", "b"], "gold.csv"),
                 files([1, 2, 3], ["a", "a", "b"], "predictions.csv"))
    result.assert_rejected("Reference data error", "reference file gold.csv, line 3: the label is not one of the 2 "
                           "labels declared in scoring.json (1 gold rows are outside them)")
    assert "secretgold" not in result.stderr


@pytest.mark.parametrize("config, fragment", [
    ({"keys": ["subset_macro_f1"]}, 'keys subset_macro_f1 need "subset_labels"'),
    ({"labels": ["a", "b"], "subset_labels": ["a", "c"]}, 'subset_labels must be among labels; not declared: "c"'),
    ({"labels": []}, '"labels" must be a non-empty list of labels'),
    ({"labels": ["a", " a"]}, '"labels" lists a label twice'),
    ({"labels": ["a", 1]}, '"labels" must be a non-empty list'),
    ({"labels": ["a", "b"], "keys": ["f1_c"]}, 'score key "f1_c" names no declared label (per-class keys: f1_a, f1_b)'),
    ({"labels": ["A b", "a-b"], "keys": ["f1_a_b"]}, 'labels "A b", "a-b" share the per-class key name "a_b"'),
    ({"keys": ["f1_Pos"]}, 'score key "f1_Pos" is not available'),
    ({"keys": ["subset_f1"]}, 'score key "subset_f1" is not available'),
])
def test_option_config_problems(config, fragment):
    problems = check_config(dict(config, kind="classification"))
    assert any(fragment in p for p in problems), problems


def test_declared_labels_refuse_unknown_predictions_by_default_and_keys_stay_as_listed():
    assert with_defaults({"kind": "classification", "labels": ["a"]})["unknown_labels"] == "refuse"
    assert with_defaults({"kind": "classification"})["unknown_labels"] == "warn"
    assert with_defaults({"kind": "classification", "labels": ["a"], "unknown_labels": "warn"})["unknown_labels"] == "warn"
    assert check_config({"kind": "classification", "labels": ["A b", "a-b"]}) == []  # no per-class key asked
    assert check_config({"kind": "multilabel", "labels": ["x", "y"], "reference": "g.tsv"}) == []
    assert any("unknown field \"subset_labels\"" in p for p in check_config({"kind": "multilabel",
                                                                              "subset_labels": ["x"]}))


# ---------------------------------------------------------------------------------------------------------------
# TSV

def test_tsv_gold_and_submission_with_quotes_and_trailing_tabs(run):
    """TSV: tabs, a record per line, no quoting (a quote in a tweet is text); empty cells beyond the header (a
    trailing tab) are ignored; id_column of any name."""
    gold = 'tweet_id\tlabel\ttext\n1\tpos\t"so good\n2\tneg\tit said "no\t\n3\tpos\t""\n'
    pred = "tweet_id\tlabel\n1\tpos\t\n2\tpos\n3\tpos\n"
    config = {"kind": "classification", "reference": "gold.tsv", "submission": "predictions.tsv",
              "id_column": "tweet_id", "keys": ["accuracy", "macro_f1"]}
    result = run(config, {"gold.tsv": gold}, {"predictions.tsv": pred})
    assert result.returncode == 0, result.stderr
    assert result.scores == pytest.approx({"accuracy": 2 / 3, "macro_f1": (0.8 + 0) / 2}, abs=1e-15)


def test_tsv_with_commas_is_named_as_such(run):
    config = {"kind": "classification", "reference": "gold.tsv", "submission": "predictions.tsv"}
    result = run(config, {"gold.tsv": "id\tlabel\n1\ta\n"}, {"predictions.tsv": "id,label\n1,a\n"})
    result.assert_rejected("predictions.tsv: the header line is separated by commas, not tabs (found 'id,label')")
    wrong = run(config, {"gold.tsv": "id\tlabel\n1\ta\n"}, {"predictions.tsv": "id\tlabel\n1\ta\tb\n"})
    wrong.assert_rejected("predictions.tsv, line 2: the row has 3 cells, the header 2 (a tab inside a cell?)")
    csv_run = run({"kind": "classification"}, {"gold.csv": "id,label\n1,a\n"}, {"predictions.csv": "id\tlabel\n1\ta\n"})
    csv_run.assert_rejected("separated by tabs, not commas", "or as TSV (tabs) in a file named .tsv")


def test_multilabel_tsv(run):
    config = {"kind": "multilabel", "reference": "gold.tsv", "submission": "predictions.tsv",
              "keys": ["samples_f1", "exact_match"]}
    result = run(config, {"gold.tsv": "id\tlabels\n1\ta|b\n2\tc\n"}, {"predictions.tsv": "id\tlabels\n1\ta\n2\tc\n"})
    assert result.scores == pytest.approx({"samples_f1": (2 / 3 + 1) / 2, "exact_match": 0.5}, abs=1e-15)


# ---------------------------------------------------------------------------------------------------------------
# Multilabel: declared labels, zero_division

ML_GOLD = "id,labels\n1,a|b\n2,\n3,c\n4,a\n5,\n"
ML_PRED = "id,labels\n1,a\n2,\n3,c|d\n4,b\n5,a\n"


def test_multilabel_declared_labels_and_the_zero_division_warning(run):
    """Labels [a, b, c, d, e]; sets {a,b}/{a}, {}/{}, {c}/{c,d}, {a}/{b}, {}/{a}. Per label F1: a 2·1/(2+2) = 1/2,
    b 0, c 1, d 0, e (nobody) z. macro z=0: 1.5/5 = 0.3; z=1: 2.5/5 = 0.5. Jaccard per id 1/2, z, 1/2, 0, 0: z=0
    1/5, z=1 2/5. samples F1 2/3, z, 2/3, 0, 0: z=0 4/15, z=1 7/15. micro F1 2·2/(4 + 5) = 4/9 whatever z."""
    config = {"kind": "multilabel", "labels": ["a", "b", "c", "d", "e"], "keys": ["jaccard", "macro_f1",
                                                                                   "samples_f1", "micro_f1"]}
    result = run(config, {"gold.csv": ML_GOLD}, {"predictions.csv": ML_PRED})
    assert result.returncode == 0, result.stderr
    assert result.scores == pytest.approx({"jaccard": 0.2, "macro_f1": 0.3, "samples_f1": 4 / 15,
                                           "micro_f1": 2 * 2 / (4 + 5)}, abs=1e-15)
    warning = ("zero_division: 1 of the 5 ids have no label in the gold and none predicted; 1 declared label(s) are "
               "neither in the gold nor predicted; each such 0/0 scores 0 here (zero_division 0); with "
               "zero_division 1 jaccard would be 0.400000 (+0.200000), macro_f1 would be 0.500000 (+0.200000), "
               "samples_f1 would be 0.466667 (+0.200000)")
    assert warning in result.stderr and "Warnings" in result.html
    one = run(dict(config, zero_division=1), {"gold.csv": ML_GOLD}, {"predictions.csv": ML_PRED})
    assert one.scores == pytest.approx({"jaccard": 0.4, "macro_f1": 0.5, "samples_f1": 7 / 15, "micro_f1": 4 / 9},
                                       abs=1e-15)
    assert "with zero_division 0 jaccard would be 0.200000 (-0.200000)" in one.stderr
    quiet_run = run(dict(config, keys=["micro_f1", "exact_match"]), {"gold.csv": ML_GOLD}, {"predictions.csv": ML_PRED})
    assert "zero_division" not in quiet_run.stderr  # neither key has a 0/0 here


def test_multilabel_labels_outside_the_declared_set(run):
    config = {"kind": "multilabel", "labels": ["a", "b", "c"]}
    refused = run(config, {"gold.csv": "id,labels\n1,a\n2,b\n"}, {"predictions.csv": "id,labels\n1,a\n2,b|zz|a\n"})
    refused.assert_rejected("predictions.csv, line 3: the label 'zz' is not one of the task's labels")
    gold = run(config, {"gold.csv": "id,labels\n1,a\n2,b|secretgold\n"}, {"predictions.csv": "id,labels\n1,a\n2,b\n"})
    gold.assert_rejected("Reference data error", "reference file gold.csv, line 3: a label is not one of the 3 labels")
    assert "secretgold" not in gold.stderr


@pytest.mark.parametrize("zero", [0, 1])
@pytest.mark.parametrize("seed", range(4))
def test_multilabel_declared_labels_scikit_learn_oracle(run, seed, zero):
    rng = random.Random(seed)
    labels = ["l%d" % i for i in range(7)]  # l5 and l6 are never used
    used = labels[:5]
    gold = [set(rng.sample(used, rng.randint(0, 3))) for _ in range(40)]
    pred = [set(g) if rng.random() < 0.4 else set(rng.sample(used, rng.randint(0, 2))) for g in gold]

    def text(sets):
        return table([(i, "|".join(sorted(s))) for i, s in enumerate(sets)], ("id", "labels"))
    keys = ["samples_f1", "jaccard", "micro_f1", "macro_f1", "exact_match"]
    result = run({"kind": "multilabel", "labels": labels, "zero_division": zero, "keys": keys},
                 {"gold.csv": text(gold)}, {"predictions.csv": text(pred)})
    assert result.returncode == 0, result.stderr
    y = np.array([[label in s for label in labels] for s in gold], dtype=int)
    p = np.array([[label in s for label in labels] for s in pred], dtype=int)
    expected = {"samples_f1": quiet(f1_score, y, p, average="samples", zero_division=zero),
                "jaccard": quiet(jaccard_score, y, p, average="samples", zero_division=zero),
                "micro_f1": quiet(f1_score, y, p, average="micro", zero_division=zero),
                "macro_f1": quiet(f1_score, y, p, average="macro", zero_division=zero),
                "exact_match": accuracy_score(y, p)}
    assert result.scores == pytest.approx(expected, abs=1e-9)


def jaccard_similarity_score_of_2018(y, p):
    """scikit-learn < 0.23's jaccard_similarity_score on label indicators, which SemEval-2018 Task 1 E-c's official
    evaluate.py calls (its 'accuracy'): an id with no label in the gold and none predicted scores 1."""
    union = np.count_nonzero(y + p, axis=1)
    both = np.count_nonzero(y * p, axis=1)
    return float(np.mean(np.where(union == 0, 1.0, both / np.maximum(union, 1))))


def test_multilabel_zero_division_one_is_semeval_2018_e_c_jaccard(run):
    rng = random.Random(7)
    labels = ["anger", "joy", "fear", "sadness"]
    gold = [set(rng.sample(labels, rng.randint(0, 2))) for _ in range(50)]
    pred = [set(rng.sample(labels, rng.randint(0, 2))) for _ in range(50)]

    def text(sets):
        return table([(i, "|".join(sorted(s))) for i, s in enumerate(sets)], ("id", "labels"))
    y = np.array([[label in s for label in labels] for s in gold], dtype=int)
    p = np.array([[label in s for label in labels] for s in pred], dtype=int)
    both_empty = sum(1 for g, s in zip(gold, pred) if not g and not s)
    assert both_empty  # the data has ids where the conventions differ
    for zero in (0, 1):
        result = run({"kind": "multilabel", "labels": labels, "zero_division": zero, "keys": ["jaccard"]},
                     {"gold.csv": text(gold)}, {"predictions.csv": text(pred)})
        if zero:
            assert result.scores["jaccard"] == pytest.approx(jaccard_similarity_score_of_2018(y, p), abs=1e-12)
        else:
            assert result.scores["jaccard"] == pytest.approx(
                jaccard_similarity_score_of_2018(y, p) - both_empty / 50.0, abs=1e-12)
            assert "%d of the 50 ids have no label" % both_empty in result.stderr


# ---------------------------------------------------------------------------------------------------------------
# scikit-learn oracle and per-item statistics

ALL_KEYS = ["macro_f1", "accuracy", "micro_f1", "weighted_f1", "macro_precision", "macro_recall", "subset_macro_f1",
            "subset_micro_f1", "subset_macro_precision", "subset_macro_recall"]


def oracle(key, labels, subset):
    """scikit-learn's figure of ``key`` with the declared labels and the subset."""
    def metric(gold, pred):
        gold, pred = list(gold), list(pred)
        if key == "accuracy":
            return accuracy_score(gold, pred)
        chosen = subset if key.startswith("subset_") else labels
        name = key.replace("subset_", "")
        average, measure = name.split("_")
        function = {"f1": f1_score, "precision": precision_score, "recall": recall_score}[measure]
        return quiet(function, gold, pred, labels=chosen, average=average, zero_division=0)
    return metric


@pytest.mark.parametrize("seed", range(6))
def test_scikit_learn_oracle_with_declared_and_subset_labels(run, seed):
    rng = random.Random(seed)
    labels = ["c%d" % i for i in range(6)]  # c5 never occurs
    subset = rng.sample(labels, 3)
    gold = [rng.choice(labels[:5]) for _ in range(80)]
    pred = [g if rng.random() < 0.5 else rng.choice(labels[:5]) for g in gold]
    per_class = ["%s_%s" % (m, label) for m in ("f1", "precision", "recall") for label in (labels[0], labels[5])]
    config = {"kind": "classification", "labels": labels, "subset_labels": subset, "keys": ALL_KEYS + per_class}
    ids = list(range(80))
    result = run(config, files(ids, gold, "gold.csv"), files(ids, pred, "predictions.csv"))
    assert result.returncode == 0, result.stderr
    expected = dict((key, oracle(key, labels, subset)(gold, pred)) for key in ALL_KEYS)
    for key in per_class:
        measure, label = key.split("_")
        function = {"f1": f1_score, "precision": precision_score, "recall": recall_score}[measure]
        expected[key] = quiet(function, gold, pred, labels=[label], average="macro", zero_division=0)
    assert result.scores == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("key", ["macro_f1", "micro_f1", "weighted_f1", "macro_recall", "subset_macro_f1",
                                 "subset_micro_f1", "subset_macro_precision", "f1_c1"])
def test_per_item_statistics_give_the_options_on_any_resample(score, key):
    """The bootstrap and the paired tests draw resamples; on each, the key equals scikit-learn with the same
    declared labels and subset (a declared class absent from a resample still counts)."""
    rng = random.Random(5)
    labels, subset = ["c0", "c1", "c2", "c3", "rare"], ["c1", "c2"]
    gold = [rng.choice(labels[:4] * 5 + ["rare"]) for _ in range(60)]
    pred_a = [g if rng.random() < 0.7 else rng.choice(labels) for g in gold]
    pred_b = [g if rng.random() < 0.5 else rng.choice(labels) for g in gold]
    ids = ["r%d" % i for i in range(60)]
    config = {"kind": "classification", "labels": labels, "subset_labels": subset, "keys": [key]}

    def items(pred):
        return score(config, files(ids, gold, "gold.csv"), files(ids, pred, "predictions.csv")).items
    if key == "f1_c1":
        metric = oracle("macro_f1", ["c1"], None)
    else:
        metric = oracle(key, labels, subset)
    check_resampling(items(pred_a), items(pred_b), gold, pred_a, pred_b, metric, 3)


# ---------------------------------------------------------------------------------------------------------------
# Real data: food-hazard (../shared/datasets), SemEval-2017 4A and SemEval-2016 Task 6 with their official scorers

def read_csv_rows(path):
    with open(str(path), encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_food_hazard_declared_labels_on_a_split_that_lacks_a_class(run):
    """SemEval-2025 Task 9's hazard categories (10, all in the test split); scored on the test rows without
    'migration', so one declared class is absent from the gold (the participant never predicts it either)."""
    gold_rows = read_csv_rows(shared_path("food-hazard", "incidents_test.csv"))
    pred_rows = read_csv_rows(shared_path("food-hazard", "published-predictions", "test_predictions_participant.csv"))
    labels = sorted(set(r["hazard-category"] for r in gold_rows))
    assert len(labels) == 10 and "migration" in labels
    kept = [i for i, r in enumerate(gold_rows) if r["hazard-category"] != "migration"]
    gold = [gold_rows[i]["hazard-category"] for i in kept]
    pred = [pred_rows[i]["hazard-category"] for i in kept]
    subset = ["allergens", "biological"]
    keys = ALL_KEYS + ["f1_food_additives_and_flavourings", "recall_migration"]
    config = {"kind": "classification", "labels": labels, "subset_labels": subset, "keys": keys}
    result = run(config, files(kept, gold, "gold.csv"), files(kept, pred, "predictions.csv"))
    assert result.returncode == 0, result.stderr
    expected = dict((key, oracle(key, labels, subset)(gold, pred)) for key in ALL_KEYS)
    expected["f1_food_additives_and_flavourings"] = quiet(f1_score, gold, pred,
                                                          labels=["food additives and flavourings"], average="macro")
    expected["recall_migration"] = 0.0
    assert result.scores == pytest.approx(expected, abs=1e-9)
    union = quiet(f1_score, gold, pred, average="macro")
    assert result.scores["macro_f1"] == pytest.approx(union * 9 / 10, abs=1e-9)  # the absent class counts as 0


def mirror_file(entry, role):
    """The bytes of a manifest entry's file from the fetched mirror (.mirror/<owner>+<name>/repo, a bare git
    directory, beside the repository or above it), or a skip with the reason."""
    name = entry["repo"].replace("/", "+")
    for folder in [ROOT] + list(ROOT.parents):
        repo = folder / ".mirror" / name / "repo"
        if repo.is_dir():
            shown = subprocess.run(["git", "--git-dir", str(repo), "show",
                                    "%s:%s" % (entry["commit"], entry["paths"][role])], capture_output=True)
            if shown.returncode == 0:
                return shown.stdout
    pytest.skip("real data not fetched: %s@%s:%s (see tests/data_manifests/classification.json)"
                % (entry["repo"], entry["commit"][:10], entry["paths"][role]))


def perl_scorer(tmp_path, entry, *names):
    if shutil.which("perl") is None:
        pytest.skip("perl is not installed: the official scorer cannot run")
    script = tmp_path / "scorer.pl"
    script.write_bytes(mirror_file(entry, "scorer"))
    return subprocess.run(["perl", str(script)] + [str(tmp_path / n) for n in names], capture_output=True, text=True,
                          cwd=str(tmp_path), timeout=300)


def made_run(ids, gold, labels, seed):
    """A deterministic system: right on about 60% of the ids, another label elsewhere."""
    rng = random.Random(seed)
    return [g if rng.random() < 0.6 else rng.choice(labels) for g in gold]


def lines_of(data):
    """The lines of a file as perl reads them (at \\n only: a tweet may hold other line breaks)."""
    return [line for line in data.decode("utf-8").split("\n") if line.strip()]


@pytest.mark.parametrize("which", ["published baseline", "made run"])
def test_semeval_2017_task_4a_official_scorer(run, tmp_path, which):
    """AvgF1_2 (F1-PN, the ranking figure) = subset_macro_f1 over {positive, negative}, AvgR_3 = macro_recall,
    Acc = accuracy: the task's all-positive baseline on the twitter-2016 test gold, a made run on the 2017 test
    gold; the perl scorer prints 3 decimals, scikit-learn checks to 1e-9. The 2016 gold gives 76 ids twice (25
    with two labels; the 2017 release notes removing such duplicates): the generic program refuses it as such, so
    both scorers get the files with each id's first line only."""
    entry = MANIFEST["mirrors"][0]
    gold_lines = lines_of(mirror_file(entry, "gold" if which == "published baseline" else "gold2017"))
    first = {}
    for number, line in enumerate(gold_lines):
        first.setdefault(line.split("\t")[0], number)
    if which == "published baseline":
        assert len(gold_lines) - len(first) == 76
        raw = run({"kind": "classification", "reference": "gold.tsv", "submission": "predictions.tsv"},
                  {"gold.tsv": "id\tlabel\ttext\n" + "\n".join(gold_lines) + "\n"},
                  {"predictions.tsv": "id\tlabel\n1\tpositive\n"})
        raw.assert_rejected("Reference data error", "reference file gold.tsv, line 339: id '621576751186096129' is "
                            "given twice, on lines 338 and 339")
    kept = sorted(first.values())
    gold_lines = [gold_lines[i] for i in kept]
    gold_rows = [line.split("\t") for line in gold_lines]
    ids, gold = [r[0] for r in gold_rows], [r[1] for r in gold_rows]
    labels = ["positive", "negative", "neutral"]
    if which == "published baseline":
        released = lines_of(mirror_file(entry, "run"))
        pred_lines = [released[i] for i in kept]
        pred = [line.split("\t")[1] for line in pred_lines]
        assert [line.split("\t")[0] for line in pred_lines] == ids
    else:
        pred = made_run(ids, gold, labels, 17)
        pred_lines = ["%s\t%s\t" % (i, p) for i, p in zip(ids, pred)]
    (tmp_path / "gold.txt").write_text("\n".join(gold_lines) + "\n", encoding="utf-8")
    (tmp_path / "run.txt").write_text("\n".join(pred_lines) + "\n", encoding="utf-8")
    official = perl_scorer(tmp_path, entry, "gold.txt", "run.txt")
    assert official.returncode == 0, official.stderr
    figures = re.search(r"AverageF1: ([0-9.]+)\nAverageR: ([0-9.]+)\nAccuracy: ([0-9.]+)", official.stderr)
    # Our files: the id and label columns under a header (the released gold has none, and a few tweets hold a tab,
    # which a TSV cell cannot: cut -f1,2), the run's lines as they are (trailing tabs).
    config = {"kind": "classification", "reference": "gold.tsv", "submission": "predictions.tsv", "labels": labels,
              "subset_labels": ["positive", "negative"], "keys": ["subset_macro_f1", "macro_recall", "accuracy",
                                                                    "f1_positive", "f1_negative"]}
    result = run(config, {"gold.tsv": "id\tlabel\n" + "".join("%s\t%s\n" % row for row in zip(ids, gold))},
                 {"predictions.tsv": "id\tlabel\n" + "\n".join(pred_lines) + "\n"})
    assert result.returncode == 0, result.stderr
    ours = result.scores
    assert [round(ours[k], 3) for k in ("subset_macro_f1", "macro_recall", "accuracy")] == \
        [float(figures.group(i)) for i in (1, 2, 3)]
    assert ours["subset_macro_f1"] == pytest.approx(
        quiet(f1_score, gold, pred, labels=["positive", "negative"], average="macro"), abs=1e-9)
    assert ours["macro_recall"] == pytest.approx(quiet(recall_score, gold, pred, labels=labels, average="macro"),
                                                 abs=1e-9)
    assert ours["subset_macro_f1"] == pytest.approx((ours["f1_positive"] + ours["f1_negative"]) / 2, abs=1e-15)
    if which == "published baseline":  # all positive: F1 of negative is 0, so F1-PN is half of F1 of positive
        assert ours["f1_negative"] == 0.0 and set(pred) == {"positive"}


def test_semeval_2016_task_6_official_scorer(run, tmp_path):
    """The official eval.pl's 'Macro F' (mean F1 of FAVOR and AGAINST, 4 decimals) on a participant's output for
    the released training set; the files are scored as they are, TSV with their own header (ID, Stance)."""
    entry = MANIFEST["mirrors"][1]
    gold_text, run_text = mirror_file(entry, "gold"), mirror_file(entry, "run")
    (tmp_path / "gold.txt").write_bytes(gold_text)
    (tmp_path / "guess.txt").write_bytes(run_text)
    official = perl_scorer(tmp_path, entry, "gold.txt", "guess.txt")
    assert official.returncode == 0, official.stderr
    macro = float(re.search(r"Macro F: ([0-9.]+)", official.stdout).group(1))
    config = {"kind": "classification", "reference": "gold.tsv", "submission": "predictions.tsv", "id_column": "ID",
              "label_column": "Stance", "labels": ["FAVOR", "AGAINST", "NONE"], "subset_labels": ["FAVOR", "AGAINST"],
              "keys": ["subset_macro_f1", "f1_favor", "f1_against", "macro_f1"]}
    result = run(config, {"gold.tsv": gold_text.decode("utf-8")}, {"predictions.tsv": run_text.decode("utf-8")})
    assert result.returncode == 0, result.stderr
    assert round(result.scores["subset_macro_f1"], 4) == macro
    for cat in ("favor", "against"):
        printed = re.search(r"%s\s+precision: ([0-9.]+) recall: ([0-9.]+) f-score: ([0-9.]+)" % cat.upper(),
                            official.stdout)
        assert round(result.scores["f1_" + cat], 4) == float(printed.group(3))
    rows = [line.split("\t") for line in gold_text.decode("utf-8").splitlines()[1:] if line.strip()]
    guesses = [line.split("\t") for line in run_text.decode("utf-8").splitlines()[1:] if line.strip()]
    gold, pred = [r[3] for r in rows], [r[3] for r in guesses]
    assert result.scores["subset_macro_f1"] == pytest.approx(
        quiet(f1_score, gold, pred, labels=["FAVOR", "AGAINST"], average="macro"), abs=1e-9)
    assert 0.5 < macro < 1 and gold != pred  # a real system: neither trivial nor perfect


def test_emocontext_micro_f1_without_others(run):
    """SemEval-2019 Task 3's figure: micro F1 over happy, sad, angry ('others' left out) = scikit-learn's
    f1_score(labels=[happy, sad, angry], average='micro'). Hand table: happy TP 2 of gold 3, predicted 3; sad TP 1
    of 2, predicted 1; angry TP 0 of 1, predicted 1: micro P 3/5, R 3/6, F1 2·3/(6 + 5) = 6/11."""
    gold = ["happy", "happy", "happy", "sad", "sad", "angry", "others", "others"]
    pred = ["happy", "happy", "others", "sad", "others", "happy", "angry", "others"]
    config = {"kind": "classification", "labels": ["happy", "sad", "angry", "others"],
              "subset_labels": ["happy", "sad", "angry"], "keys": ["subset_micro_f1"]}
    ids = list(range(len(gold)))
    result = run(config, files(ids, gold, "gold.csv"), files(ids, pred, "predictions.csv"))
    assert result.scores["subset_micro_f1"] == pytest.approx(6 / 11, abs=1e-15)
    assert quiet(f1_score, gold, pred, labels=["happy", "sad", "angry"], average="micro") == pytest.approx(6 / 11)


# ---------------------------------------------------------------------------------------------------------------
# new: a TSV gold, a gold of numbers

def build_bundle(repo, *args):
    return subprocess.run([sys.executable, str(ROOT / "build_bundle.py")] + list(args), cwd=str(repo),
                          capture_output=True, text=True, timeout=600)


def test_new_takes_a_tsv_gold_and_its_build_replays(tmp_path):
    gold = tmp_path / "gold"
    gold.mkdir()
    rows = ["id\ttext\tlabel"] + ['%d\tsaid "hi, there\t%s' % (i, ("pos", "neg", "neu")[i % 3]) for i in range(60)]
    (gold / "gold.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    made = build_bundle(ROOT, "new", "tsv-task", "--kind", "classification", "--gold-dir", str(gold),
                        "--dir", str(tmp_path / "comp"))
    assert made.returncode == 0, made.stderr
    config = json.loads((tmp_path / "comp" / "scoring_programs" / "tsv-task" / "scoring.json").read_text())
    assert config["reference"] == "gold.tsv"
    split = [(tmp_path / "comp" / "reference_data" / "tsv-task" / s / "gold.tsv").read_text().splitlines()
             for s in ("dev", "test")]
    assert split[0][0] == split[1][0] == rows[0] and sorted(split[0][1:] + split[1][1:]) == sorted(rows[1:])
    built = build_bundle(tmp_path / "comp", "build", str(tmp_path / "comp"))
    assert built.returncode == 0, built.stdout + built.stderr
    assert built.stdout.count("sample submission on Codabench: Finished") == 2


@pytest.mark.parametrize("values, refused", [
    (["%.2f" % (i / 30.0) for i in range(151)], "holds numbers, not all whole"),
    (["%d" % i for i in range(151)], "holds 151 distinct whole numbers"),
    (["0", "1", "2"] * 20, None),
    (["1.0", "2.0", "3.0"] * 20, None),
])
def test_new_refuses_a_gold_of_numbers_as_classes(tmp_path, values, refused):
    gold = tmp_path / "gold"
    gold.mkdir()
    (gold / "scores.csv").write_text("id,label\n" + "".join("%d,%s\n" % (i, v) for i, v in enumerate(values)))
    made = build_bundle(ROOT, "new", "numbers", "--kind", "classification", "--gold-dir", str(gold),
                        "--dir", str(tmp_path / "comp"))
    if refused:
        assert made.returncode == 2 and refused in made.stderr and "use --kind regression" in made.stderr
        assert "scoring.json" not in made.stderr and "Traceback" not in made.stderr
        assert not (tmp_path / "comp" / "bundles").exists()
    else:
        assert made.returncode == 0, made.stderr


def test_new_speaks_of_the_gold_not_of_scoring_json(tmp_path):
    gold = tmp_path / "gold"
    for split in ("dev", "test"):
        (gold / split).mkdir(parents=True)
        (gold / split / "gold.txt").write_text("EU B-ORG\nrejects O\n\nPeter B-PER\nsaid O\n")
    made = build_bundle(ROOT, "new", "ner", "--kind", "classification", "--gold-dir", str(gold),
                        "--dir", str(tmp_path / "comp"))
    assert made.returncode == 2 and "scoring.json" not in made.stderr
    assert "the gold file gold.txt: a classification gold is a .csv or .tsv file (the gold looks like CoNLL " \
           "columns" in made.stderr and "--kind sequence" in made.stderr
