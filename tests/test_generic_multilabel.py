"""Generic kind multilabel: hand-computed scores, scikit-learn as oracle (both zero_division), bad submissions."""
import random
import warnings

import pytest
from sklearn.metrics import accuracy_score, f1_score, jaccard_score
from sklearn.preprocessing import MultiLabelBinarizer

from generic_support import Runner

KEYS = ["samples_f1", "jaccard", "micro_f1", "macro_f1", "exact_match"]
CONFIG = {"kind": "multilabel", "keys": KEYS}


@pytest.fixture
def run(tmp_path):
    return Runner(tmp_path)


def table(rows, separator="|", header="id,labels"):
    return header + "\n" + "".join('%s,"%s"\n' % (i, separator.join(labels)) for i, labels in rows)


# id 1: G {a, b}, P {a}     -> F1 2/3, Jaccard 1/2
# id 2: G {},     P {}      -> z (zero_division), exact match
# id 3: G {c},    P {c, d}  -> F1 2/3, Jaccard 1/2
# id 4: G {a},    P {b}     -> 0, 0
# micro: 2*2 / (4 + 4) = 1/2; per label F1: a 2/3 (tp 1, G 2, P 1), b 0, c 1, d 0 -> macro 5/12
GOLD = table([(1, ["a", "b"]), (2, []), (3, ["c"]), (4, ["a"])])
PRED = table([(4, ["b"]), (3, [" c ", "d", "c"]), (2, [""]), (1, ["a"])])


@pytest.mark.parametrize("zero", [0, 1])
def test_hand_computed(run, zero):
    result = run(dict(CONFIG, zero_division=zero), {"gold.csv": GOLD}, {"predictions.csv": PRED})
    assert result.returncode == 0, result.stderr
    assert list(result.scores) == KEYS
    expected = {"samples_f1": (4 / 3 + zero) / 4, "jaccard": (1 + zero) / 4, "micro_f1": 0.5,
                "macro_f1": 5 / 12, "exact_match": 0.25}
    assert result.scores == pytest.approx(expected, abs=1e-15)


def test_separator_and_columns_are_configurable(run):
    config = {"kind": "multilabel", "labels_column": "topics", "separator": ";", "keys": ["exact_match"]}
    result = run(config, {"gold.csv": table([(1, ["x", "y"])], ";", "id,topics")},
                 {"predictions.csv": table([(1, ["y", "x"])], ";", "id,topics")})
    assert result.scores == {"exact_match": 1.0}


def test_nothing_anywhere(run):
    """No label in the gold or the submission: every 0/0 is zero_division."""
    for zero in (0, 1):
        result = run(dict(CONFIG, zero_division=zero), {"gold.csv": table([(1, [])])},
                     {"predictions.csv": table([(1, [])])})
        assert result.scores == {"samples_f1": zero, "jaccard": zero, "micro_f1": zero, "macro_f1": zero,
                                 "exact_match": 1.0}


def test_hidden_gold_page_shows_only_predicted_labels(run):
    gold = table([(1, ["onlygold"]), (2, ["a"])])
    result = run(CONFIG, {"gold.csv": gold}, {"predictions.csv": table([(1, ["a"]), (2, ["a"])])},
                 gold_public=False)
    assert result.returncode == 0
    assert "onlygold" not in result.html and "Labels predicted" in result.html
    result = run(CONFIG, {"gold.csv": gold}, {"predictions.csv": table([(1, ["a"]), (2, ["a"])])})
    assert "onlygold" in result.html and "Per label" in result.html


def sklearn_scores(gold, predicted, zero):
    binarizer = MultiLabelBinarizer().fit(gold + predicted)
    y, p = binarizer.transform(gold), binarizer.transform(predicted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "samples_f1": f1_score(y, p, average="samples", zero_division=zero),
            "jaccard": jaccard_score(y, p, average="samples", zero_division=zero),
            "micro_f1": f1_score(y, p, average="micro", zero_division=zero),
            "macro_f1": f1_score(y, p, average="macro", zero_division=zero),
            "exact_match": accuracy_score(y, p),
        }


@pytest.mark.parametrize("seed", range(12))
def test_scikit_learn_oracle(run, seed):
    rng = random.Random(seed)
    labels = ["l%d" % i for i in range(rng.randint(2, 6))]
    n = rng.randint(1, 40)

    def some():
        return sorted(rng.sample(labels, rng.randint(0, min(3, len(labels)))))
    gold = [some() for _ in range(n)]
    predicted = [g if rng.random() < 0.3 else some() for g in gold]
    if len(set(label for row in gold + predicted for label in row)) < 2:
        gold[0] = labels[:2]  # scikit-learn reads fewer than two label columns as binary, not multilabel
    zero = seed % 2
    order = list(range(n))
    rng.shuffle(order)
    result = run(dict(CONFIG, zero_division=zero), {"gold.csv": table([(i, gold[i]) for i in range(n)])},
                 {"predictions.csv": table([(i, predicted[i]) for i in order])})
    assert result.returncode == 0, result.stderr
    assert result.scores == pytest.approx(sklearn_scores(gold, predicted, zero), abs=1e-12)


GOLD2 = table([(1, ["a"]), (2, [])])


@pytest.mark.parametrize("files, fragments", [
    ({}, ["no predictions.csv in the submission"]),
    ({"predictions.csv": "id,label\n1,a\n2,\n"}, ["no 'labels' column"]),
    ({"predictions.csv": table([(1, ["a"]), (1, ["b"]), (2, [])])}, ["line 3", "id '1' is given twice"]),
    ({"predictions.csv": table([(1, ["a"]), (2, []), (3, [])])}, ["line 4", "id '3' is not an id"]),
    ({"predictions.csv": table([(1, ["a"])])}, ["no prediction for 1 of the 2 ids ('2')", "leave the labels cell"]),
    ({"predictions.csv": "id,labels\n1,a\n2\n"}, ["predictions.csv, line 3", "no 'labels' cell"]),
])
def test_bad_submissions(run, files, fragments):
    run(CONFIG, {"gold.csv": GOLD2}, files).assert_rejected("Submission error", *fragments)
