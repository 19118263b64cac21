"""Generic kind spans: the same numbers as scoring_programs/toxic-spans on its sample data, configurable files,
hand-computed scores, bad submissions."""
import csv
import random

import pytest

from conftest import ROOT, run_scoring_program
from generic_support import Runner

SAMPLE = ROOT / "reference_data" / "toxic-spans"
CONFIG = {"kind": "spans"}
TOXIC_KEYS = {"spans_F1": "spans_f1", "spans_precision": "spans_precision", "spans_recall": "spans_recall"}


@pytest.fixture
def run(tmp_path):
    return Runner(tmp_path)


def gold_spans(path):
    with open(str(path), newline="", encoding="utf-8") as handle:
        return [[int(x) for x in row["spans"].strip("[]").split(",") if x.strip()] for row in csv.DictReader(handle)]


def lines(spans, ids=None):
    ids = range(len(spans)) if ids is None else ids
    return "".join("%d\t%s\n" % (i, spans[i]) for i in ids)


def perturbed(gold, rng):
    """Predictions of every kind: exact, partial, shifted, empty, and spans where the gold has none."""
    out = []
    for offsets in gold:
        choice = rng.random()
        if choice < 0.2:
            out.append(list(offsets))
        elif choice < 0.4:
            out.append([])
        elif choice < 0.7:
            out.append(sorted(o + rng.randint(-3, 3) for o in offsets if o > 3))
        else:
            start = rng.randint(0, 200)
            out.append(list(range(start, start + rng.randint(0, 12))))
    return out


@pytest.mark.parametrize("split", ["trial", "test"])
@pytest.mark.parametrize("seed", range(3))
def test_same_scores_as_toxic_spans_on_its_sample_data(run, tmp_path, split, seed):
    (gold_csv,) = sorted((SAMPLE / split).glob("*.csv"))
    gold = gold_spans(gold_csv)
    predicted = perturbed(gold, random.Random(seed))
    ids = list(range(len(gold)))
    random.Random(seed).shuffle(ids)
    res = {"spans-pred.txt": lines(predicted, ids)}
    official = run_scoring_program("toxic-spans", SAMPLE / split, res, tmp_path / "toxic")
    assert official.returncode == 0, official.stderr
    expected = dict((TOXIC_KEYS[k], v) for k, v in official.scores.items())
    # the released CSV layout (the id is the row number), and the same gold as <id><TAB>[offsets] lines
    for config, ref in (({"kind": "spans", "reference": "*.csv"}, SAMPLE / split),
                        ({"kind": "spans", "reference": "gold.tsv"}, {"gold.tsv": lines(gold)})):
        result = run(config, ref, res)
        assert result.returncode == 0, result.stderr
        assert result.scores == expected  # bit for bit
        assert result.scores_txt == official.scores_txt.replace("spans_F1", "spans_f1")


def test_worked_example_of_the_metric_card(run):
    """toxic-spans' worked example: F1 (4/7 + 1 + 0)/3, precision 1.5/3, recall (2/3 + 1)/3."""
    gold = {"spans-gold.txt": "0\t[0, 1, 6]\n1\t[]\n2\t[10, 11, 12, 13, 14, 15]\n"}
    result = run(CONFIG, gold, {"spans-pred.txt": "\ufeff2\t[]\r\n0\t[0, 1, 4, 5,]\t\r\n\r\n1\t[ ]\r\n"})
    assert result.returncode == 0, result.stderr
    assert list(result.scores) == ["spans_f1", "spans_precision", "spans_recall"]
    assert result.scores == pytest.approx({"spans_f1": 11 / 21, "spans_precision": 0.5, "spans_recall": 5 / 9},
                                          abs=1e-15)
    assert "Posts by kind" in result.html
    hidden = run(CONFIG, gold, {"spans-pred.txt": "0\t[]\n1\t[]\n2\t[]\n"}, gold_public=False)
    assert "Posts by kind" not in hidden.html and "not public" in hidden.html


def test_csv_files_with_an_id_column(run):
    config = {"kind": "spans", "reference": "gold.csv", "submission": "pred.csv", "id_column": "post",
              "spans_column": "offsets", "keys": ["spans_f1"]}
    gold = {"gold.csv": 'post,offsets,text\nb7,"[1, 2]",hello\na3,[],there\n'}
    result = run(config, gold, {"pred.csv": 'post,offsets\na3,[]\nb7,"[2,3]"\n'})
    assert result.returncode == 0, result.stderr
    assert result.scores == {"spans_f1": (0.5 + 1) / 2}


GOLD = {"spans-gold.txt": "0\t[612, 613]\n1\t[]\n2\t[640]\n"}


@pytest.mark.parametrize("text, fragments", [
    # the same words as toxic-spans: both parse lists with common/char_offsets.py
    ("0\t[1]\n1\t[]\n2\t[1.5]\n", ["spans-pred.txt, line 3", "offset '1.5' is not an integer"]),
    ("0\t[1]\n1\t[-4]\n2\t[]\n", ["line 2", "offset '-4' is negative"]),
    ("0\t[1]\n1\t[a]\n2\t[]\n", ["line 2", "'a' is not an offset"]),
    ("0\t[1,,2]\n1\t[]\n2\t[]\n", ["line 1", "empty item"]),
    ("0\t1, 2\n1\t[]\n2\t[]\n", ["line 1", "square brackets"]),
    ("0\t\n1\t[]\n2\t[]\n", ["line 1", "the list of offsets is missing"]),
    ("0\t[%s]\n1\t[]\n2\t[]\n" % ("9" * 31), ["line 1", "31 digits"]),
    ("0 [1]\n1\t[]\n2\t[]\n", ["line 1", "found no tab"]),
    ("0\t[1]\t[2]\n1\t[]\n2\t[]\n", ["line 1", "found 2 tabs"]),
    ("0\t[1]\n1\t[]\n0\t[]\n2\t[]\n", ["line 3", "id '0' is given twice, on lines 1 and 3"]),
    ("0\t[1]\n1\t[]\n2\t[]\n3\t[]\n", ["line 4", "id '3' is not an id of this phase"]),
    ("0\t[1]\n", ["no prediction for 2 of the 3 ids ('1', '2')", "write [] for a post without spans"]),
    ("", ["spans-pred.txt holds no rows"]),
])
def test_bad_submissions(run, text, fragments):
    result = run(CONFIG, GOLD, {"spans-pred.txt": text})
    result.assert_rejected("Submission error", *fragments)


def test_missing_file_and_malformed_gold(run):
    run(CONFIG, GOLD, {"pred.txt": "0\t[]\n"}).assert_rejected("no spans-pred.txt in the submission")
    message = run(CONFIG, {"spans-gold.txt": "0\t[612, x613]\n"}, {"spans-pred.txt": "0\t[]\n"}).assert_rejected(
        "Reference data error", "line 1: the spans are not a list")
    assert "613" not in message
