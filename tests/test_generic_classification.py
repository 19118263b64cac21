"""Generic kind classification: hand-computed scores, scikit-learn as oracle, bad submissions, the hidden-gold page."""
import random

import pytest
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score

from generic_support import Runner

CONFIG = {"kind": "classification", "keys": ["macro_f1", "accuracy", "micro_f1", "weighted_f1",
                                             "macro_precision", "macro_recall"]}
# Gold labels use "secretgold" only in the gold, so a leak on the hidden-gold page is easy to spot.
GOLD = "id,text,label\n1,x,pos\n2,y,neg\n3,z,pos\n4,w,neu\n5,v,secretgold\n"
PRED = "id,label\n5,neg\n4,neu\n3,pos\n2,pos\n1,pos\n"


@pytest.fixture
def run(tmp_path):
    return Runner(tmp_path)


def table(rows, header="id,label"):
    return header + "\n" + "".join("%s,%s\n" % row for row in rows)


def test_hand_computed(run):
    """Classes pos, neg, neu, secretgold (gold) and nothing new predicted.
    pos: gold 2, predicted 3, correct 2 -> P 2/3, R 1, F1 4/5; neg: 1, 1, 0 -> 0; neu: 1, 1, 1 -> 1;
    secretgold: 1, 0, 0 -> 0. macro F1 = 1.8/4 = 0.45; accuracy 3/5; weighted (2*0.8 + 1)/5 = 0.52;
    macro precision (2/3 + 0 + 1 + 0)/4 = 5/12; macro recall (1 + 0 + 1 + 0)/4 = 0.5."""
    result = run(CONFIG, {"gold.csv": GOLD}, {"predictions.csv": PRED})
    assert result.returncode == 0, result.stderr
    assert list(result.scores) == CONFIG["keys"]
    expected = {"macro_f1": 0.45, "accuracy": 0.6, "micro_f1": 0.6, "weighted_f1": 0.52,
                "macro_precision": 5 / 12, "macro_recall": 0.5}
    assert result.scores == pytest.approx(expected, abs=1e-15)
    assert result.scores_txt.startswith("macro_f1: 0.450000000000000\n")
    assert "secretgold" in result.html and "Confusions" in result.html


def test_labels_outside_the_gold_count_as_wrong_and_join_the_macro_average(run):
    """'other' is never in the gold: it is a class with F1 0 (scikit-learn's union of labels)."""
    result = run(dict(CONFIG, keys=["macro_f1", "accuracy"]), {"gold.csv": table([(1, "a"), (2, "b")])},
                 {"predictions.csv": table([(1, "a"), (2, "other")])})
    assert result.scores == pytest.approx({"macro_f1": 1 / 3, "accuracy": 0.5}, abs=1e-15)


def test_only_the_configured_keys_in_their_order(run):
    result = run({"kind": "classification", "keys": ["accuracy", "weighted_f1"]}, {"gold.csv": GOLD},
                 {"predictions.csv": PRED})
    assert result.scores_txt.splitlines()[0].startswith("accuracy: ")
    assert list(result.scores) == ["accuracy", "weighted_f1"]


def test_default_keys_and_configured_columns_and_files(run):
    config = {"kind": "classification", "reference": "*.csv", "submission": "answers.csv",
              "id_column": "doc", "label_column": "class"}
    result = run(config, {"test_gold.csv": "doc,class\n007,x\n8,y\n"},
                 {"answers.csv": "Doc,Class\n7,x\n0008,x\n"})  # integer ids compare as numbers; case-insensitive
    assert result.returncode == 0, result.stderr
    assert list(result.scores) == ["macro_f1", "accuracy", "micro_f1", "weighted_f1", "macro_precision",
                                   "macro_recall"]
    assert result.scores["accuracy"] == 0.5


def test_byte_order_mark_crlf_and_a_wrapper_folder_are_accepted(run):
    result = run(CONFIG, {"gold.csv": GOLD}, {"sub/predictions.csv": "\ufeff" + PRED.replace("\n", "\r\n")})
    assert result.returncode == 0, result.stderr
    assert result.scores["accuracy"] == 0.6


def test_hidden_gold_page_shows_only_predicted_classes(run):
    result = run(CONFIG, {"gold.csv": GOLD}, {"predictions.csv": PRED}, gold_public=False)
    assert result.returncode == 0
    html = result.html
    assert "secretgold" not in html and "Confusions" not in html and "Per class" not in html
    assert "Classes predicted" in html and "not public" in html


@pytest.mark.parametrize("seed", range(12))
def test_scikit_learn_oracle(run, seed):
    rng = random.Random(seed)
    classes = ["c%d" % i for i in range(rng.randint(1, 6))]
    extra = classes + ["only_predicted"] * rng.randint(0, 1)
    n = rng.randint(1, 60)
    gold = [rng.choice(classes) for _ in range(n)]
    predicted = [g if rng.random() < 0.5 else rng.choice(extra) for g in gold]
    order = list(range(n))
    rng.shuffle(order)
    result = run(CONFIG, {"gold.csv": table([(i, gold[i]) for i in range(n)])},
                 {"predictions.csv": table([(i, predicted[i]) for i in order])})
    assert result.returncode == 0, result.stderr
    expected = {
        "accuracy": accuracy_score(gold, predicted),
        "macro_f1": f1_score(gold, predicted, average="macro", zero_division=0),
        "micro_f1": f1_score(gold, predicted, average="micro", zero_division=0),
        "weighted_f1": f1_score(gold, predicted, average="weighted", zero_division=0),
        "macro_precision": precision_score(gold, predicted, average="macro", zero_division=0),
        "macro_recall": recall_score(gold, predicted, average="macro", zero_division=0),
    }
    assert result.scores == pytest.approx(expected, abs=1e-12)


GOLD3 = table([(1, "a"), (2, "b"), (3, "a")])


@pytest.mark.parametrize("files, fragments", [
    ({}, ["no predictions.csv in the submission"]),
    ({"predictions.csv": ""}, ["predictions.csv is empty"]),
    ({"predictions.csv": "id,prediction\n1,a\n"}, ["predictions.csv", "no 'label' column", "id,prediction"]),
    ({"predictions.csv": "label\na\n"}, ["no 'id' column"]),
    ({"predictions.csv": table([(1, "a"), (2, "b"), (1, "b")])}, ["predictions.csv, line 4", "id '1' is given twice",
                                                                  "lines 2 and 4"]),
    ({"predictions.csv": table([(1, "a"), (2, "b"), (3, "a"), (9, "a")])}, ["line 5", "id '9' is not an id"]),
    ({"predictions.csv": table([(1, "a"), (3, "a")])}, ["no prediction for 1 of the 3 ids ('2')"]),
    ({"predictions.csv": table([(1, "a"), (2, ""), (3, "a")])}, ["predictions.csv, line 3: the label is empty"]),
    ({"predictions.csv": "id,label\n1,a\n2\n3,a\n"}, ["line 3", "no 'label' cell"]),
    ({"predictions.csv": b"id,label\n1,\xff\n"}, ["not UTF-8"]),
    ({"predictions.csv": table([(1, "a"), ("", "b")])}, ["line 3: the id is empty"]),
])
def test_bad_submissions(run, files, fragments):
    result = run(CONFIG, {"gold.csv": GOLD3}, files)
    message = result.assert_rejected(*fragments)
    assert message.startswith("Submission error: ")


def test_gold_problems_are_reference_data_errors(run):
    result = run(CONFIG, {"gold.csv": "id,label\n1,a\n2,\n"}, {"predictions.csv": table([(1, "a"), (2, "a")])})
    result.assert_rejected("Reference data error", "reference file gold.csv, line 3: the label is empty")
    result = run(CONFIG, {"other.csv": GOLD3}, {"predictions.csv": GOLD3})
    result.assert_rejected("Reference data error", "no gold.csv in the reference data")
