"""Generic kind regression: hand-computed tables (ties, constant predictions, one item, perfect predictions),
scipy/scikit-learn as oracles on random and real public data (STS Benchmark test), per-item statistics against an
independent resampling oracle, bad input (one line, file and line, no gold value), TSV files."""
import json
import math
import os
import random
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from scipy.stats import kendalltau, pearsonr, spearmanr
from sklearn.metrics import cohen_kappa_score, mean_absolute_error, mean_squared_error, r2_score

import items_oracle
from conftest import load_program
from generic_support import GENERIC, Runner

sys.path.insert(0, str(GENERIC))
from generic_config import AVAILABLE_KEYS, check_config, declared_keys  # noqa: E402

KEYS = ["pearson", "spearman", "kendall_tau", "mae", "rmse", "r2"]
CONFIG = {"kind": "regression", "keys": KEYS}
MANIFEST = json.loads((Path(__file__).parent / "data_manifests" / "regression.json").read_text())["files"]
MIRRORS = Path(os.environ.get("MIRROR_ROOT", "/work/.mirror"))
TOLERANCE = 1e-9


@pytest.fixture
def run(tmp_path):
    return Runner(tmp_path)


def table(values, header="id,score", sep=","):
    return header + "\n" + "".join("%s%s%s\n" % (i + 1, sep, v) for i, v in enumerate(values))


def oracle(gold, pred, labels=None):
    """Every key by scipy / scikit-learn; nan where they are undefined."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = {"pearson": pearsonr(gold, pred)[0] if len(gold) > 1 else float("nan"),
                  "spearman": spearmanr(gold, pred)[0], "kendall_tau": kendalltau(gold, pred)[0],
                  "mae": mean_absolute_error(gold, pred), "rmse": math.sqrt(mean_squared_error(gold, pred)),
                  "r2": r2_score(gold, pred) if len(gold) > 1 else float("nan")}
        if labels is not None:
            values["qwk"] = cohen_kappa_score(gold, pred, weights="quadratic", labels=list(labels))
    return dict((k, float(v)) for k, v in values.items())


# ---------------------------------------------------------------------------------------------------------------
# Hand-computed tables

def test_worked_example(run):
    """Gold 1, 2, 3, 4; predicted 1.5, 2, 2, 5 (see the card)."""
    result = run(CONFIG, {"gold.csv": table([1, 2, 3, 4])}, {"predictions.csv": table([1.5, 2, 2, 5])})
    assert result.returncode == 0, result.stderr
    assert list(result.scores) == KEYS
    expected = {"pearson": 5.25 / math.sqrt(5 * 7.6875), "spearman": 4.5 / math.sqrt(5 * 4.5),
                "kendall_tau": 5 / math.sqrt(6 * 5), "mae": 0.625, "rmse": 0.75, "r2": 0.55}
    assert result.scores == pytest.approx(expected, abs=1e-15)
    assert result.scores == pytest.approx(oracle([1, 2, 3, 4], [1.5, 2, 2, 5]), abs=1e-15)
    assert result.stderr == ""


def test_ties_on_both_sides(run):
    """Gold 1, 1, 2, 3; predicted 1, 2, 2, 2. Gold ranks 1.5, 1.5, 3, 4; predicted ranks 1, 3, 3, 3 (both means
    2.5): Spearman 2/sqrt(4.5 x 3). Pairs: (1,3) (1,4) concordant, none discordant, 1 tied in the gold, 3 in the
    predictions: tau-b 2/sqrt(5 x 3). QWK over labels 0..3: n sum (x-y)^2 = 4 x 2, sum_ij (x_i - y_j)^2 = 14."""
    config = dict(CONFIG, keys=KEYS + ["qwk"], label_range=[0, 3])
    result = run(config, {"gold.csv": table([1, 1, 2, 3])}, {"predictions.csv": table([1, 2, 2, 2])})
    assert result.returncode == 0, result.stderr
    expected = {"pearson": 0.75 / math.sqrt(2.75 * 0.75), "spearman": 2 / math.sqrt(4.5 * 3),
                "kendall_tau": 2 / math.sqrt(15), "mae": 0.5, "rmse": math.sqrt(0.5), "r2": 1 - 2 / 2.75,
                "qwk": 3 / 7}
    assert result.scores == pytest.approx(expected, abs=1e-15)
    assert result.scores == pytest.approx(oracle([1, 1, 2, 3], [1, 2, 2, 2], range(0, 4)), abs=1e-15)


def test_constant_prediction_scores_the_correlations_0_with_a_warning(run):
    """scipy gives nan (ConstantInputWarning); SemEval-2018's scorer 0; here 0 and a warning per key."""
    result = run(CONFIG, {"gold.csv": table([1, 2, 3, 4])}, {"predictions.csv": table([2, 2, 2, 2])})
    assert result.returncode == 0, result.stderr
    # errors -1, 0, 1, 2: mae 1, rmse sqrt(6/4), r2 1 - 6/5
    assert result.scores == pytest.approx({"pearson": 0, "spearman": 0, "kendall_tau": 0, "mae": 1,
                                           "rmse": math.sqrt(1.5), "r2": -0.2}, abs=1e-15)
    assert all(math.isnan(oracle([1, 2, 3, 4], [2, 2, 2, 2])[k]) for k in ("pearson", "spearman", "kendall_tau"))
    for key in ("pearson", "spearman", "kendall_tau"):
        assert "%s is undefined (the predictions are all equal): scored 0" % key in result.stderr
    page = (result.output_dir / "detailed_results.html").read_text()
    assert "pearson is undefined" in page


def test_constant_gold(run):
    """r2 as scikit-learn's force_finite: 1 when every prediction is exact, else 0 (not scikit-learn's rounding:
    its r2_score([0.1]*3, [0.2]*3) is about -5e31)."""
    result = run(CONFIG, {"gold.csv": table([0.1] * 3)}, {"predictions.csv": table([0.2] * 3)})
    assert result.scores["r2"] == 0.0 and result.scores["pearson"] == 0.0
    assert result.scores["mae"] == pytest.approx(0.1, abs=1e-15)
    assert "the predictions and the gold values are all equal" in result.stderr
    assert "r2 is undefined (the gold values are all equal): scored 0" in result.stderr
    assert r2_score([0.1] * 3, [0.2] * 3) < -1e30
    exact = run(CONFIG, {"gold.csv": table([0.1] * 3)}, {"predictions.csv": table([0.1] * 3)})
    assert exact.scores["r2"] == 1.0 and exact.scores["mae"] == 0.0


def test_a_single_item(run):
    config = dict(CONFIG, keys=KEYS + ["qwk"], label_range=[1, 5])
    result = run(config, {"gold.csv": table([3])}, {"predictions.csv": table([4])})
    assert result.returncode == 0, result.stderr
    # qwk: one gold label 3, one predicted 4: n sum (x - y)^2 = 1, sum_ij (x_i - y_j)^2 = 1: 1 - 1 = 0
    assert result.scores == {"pearson": 0.0, "spearman": 0.0, "kendall_tau": 0.0, "mae": 1.0, "rmse": 1.0,
                             "r2": 0.0, "qwk": 0.0}
    assert "pearson is undefined (there is only one item): scored 0" in result.stderr
    assert cohen_kappa_score([3], [4], weights="quadratic", labels=[1, 2, 3, 4, 5]) == 0.0


def test_perfect_prediction(run):
    config = dict(CONFIG, keys=KEYS + ["qwk"], label_range=[0, 5])
    gold = [0, 5, 3, 3, 1, 4]
    result = run(config, {"gold.csv": table(gold)}, {"predictions.csv": table(gold)})
    assert result.scores == pytest.approx({"pearson": 1.0, "spearman": 1.0, "kendall_tau": 1.0, "mae": 0.0,
                                           "rmse": 0.0, "r2": 1.0, "qwk": 1.0}, abs=1e-15)
    assert result.scores["kendall_tau"] == result.scores["qwk"] == result.scores["r2"] == 1.0
    assert result.stderr == ""
    # every label the same one, gold and predictions: perfect agreement (scikit-learn: nan)
    same = run(dict(config, keys=["qwk"]), {"gold.csv": table([2, 2])}, {"predictions.csv": table([2, 2])})
    assert same.scores == {"qwk": 1.0}


def test_default_keys_and_qwk_first_with_a_label_range():
    assert declared_keys({"kind": "regression"}) == KEYS
    assert declared_keys({"kind": "regression", "label_range": [0, 3]}) == ["qwk"] + KEYS
    assert AVAILABLE_KEYS["regression"] == tuple(KEYS + ["qwk"])
    for config in ({"kind": "regression", "keys": ["qwk", "mae"], "label_range": [-2, 2]},
                   {"kind": "regression", "reference": "gold.tsv", "submission": "*.tsv", "value_column": "y"}):
        assert check_config(config) == []


def test_rows_in_any_order_other_columns_and_names(run):
    config = {"kind": "regression", "keys": ["mae"], "id_column": "pair", "value_column": "similarity"}
    gold = "pair,sentence,similarity\n7,\"a, b\",1.0\n007x,c,2\n"
    pred = "similarity,pair\n2.5,007x\n+1e0,007\n"
    result = run(config, {"gold.csv": gold}, {"predictions.csv": pred})
    assert result.scores == {"mae": 0.25}


# ---------------------------------------------------------------------------------------------------------------
# TSV

def test_tsv_files_have_no_quoting(run):
    """A quote opens nothing in a TSV cell (STS and SemEval-2018 files hold unbalanced quotes)."""
    config = dict(CONFIG, keys=["mae"], reference="gold.tsv", submission="predictions.tsv")
    gold = "id\tsent1\tscore\n1\t\"He said\t2.5\n2\tit's \"odd\t1\n"
    result = run(config, {"gold.tsv": gold}, {"predictions.tsv": "id\tscore\r\n1\t2\r\n\r\n2\t2\r\n"})
    assert result.returncode == 0, result.stderr
    assert result.scores == {"mae": 0.75}


@pytest.mark.parametrize("pred, message", [
    ("id,score\n1,2\n2,2\n", "predictions.tsv: the header line is separated by commas, not tabs (found 'id,score'): "
                             "write the file with tabs"),
    ("id\tscore\n1\t2\t3\n2\t2\n", "predictions.tsv, line 2: the row has 3 cells, the header 2 (a tab inside a cell?)"),
])
def test_tsv_errors(run, pred, message):
    config = dict(CONFIG, keys=["mae"], reference="gold.tsv", submission="predictions.tsv")
    result = run(config, {"gold.tsv": "id\tscore\n1\t1\n2\t2\n"}, {"predictions.tsv": pred})
    assert result.returncode == 1 and result.stderr.strip().splitlines() == ["Submission error: " + message]


# ---------------------------------------------------------------------------------------------------------------
# Bad input: one line, the file and line, never a gold value

GOLD = table([1.25, 2.5, 3.75])


@pytest.mark.parametrize("pred, message", [
    (table([1, "abc", 3]), "predictions.csv, line 3: the 'score' value 'abc' is not a number"),
    (table([1, "nan", 3]), "predictions.csv, line 3: the 'score' value 'nan' is not a finite number"),
    (table([1, "-Infinity", 3]), "predictions.csv, line 3: the 'score' value '-Infinity' is not a finite number"),
    (table([1, "1e999", 3]), "predictions.csv, line 3: the 'score' value '1e999' is not a finite number"),
    (table([1, "1e101", 3]), "predictions.csv, line 3: the 'score' value '1e101' is beyond the magnitude"),
    (table([1, "", 3]), "predictions.csv, line 3: the 'score' cell is empty: give a number"),
    (table([1, "0x10", 3]), "predictions.csv, line 3: the 'score' value '0x10' is not a number"),
    (table([1, "1_000", 3]), "predictions.csv, line 3: the 'score' value '1_000' is not a number"),
    (table([1, 2]), "predictions.csv has no prediction for 1 of the 3 ids ('3')"),
    (table([1, 2, 3]) + "3,4\n", "predictions.csv, line 5: id '3' is given twice, on lines 4 and 5"),
    (table([1, 2, 3]) + "9,4\n", "predictions.csv, line 5: id '9' is not an id of this phase"),
    (table([1, 2, "1e11"]), "predictions.csv: mae would be 3.33333e+10, beyond what the platform stores"),
    ("id,value\n1,2\n", "predictions.csv: no 'score' column in the header line (found 'id,value')"),
])
def test_bad_submissions(run, pred, message):
    result = run(dict(CONFIG, keys=["mae", "pearson"]), {"gold.csv": GOLD}, {"predictions.csv": pred})
    assert result.returncode == 1 and result.scores is None
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Submission error: " + message), lines
    assert "Traceback" not in result.stderr and "1.25" not in result.stderr and "3.75" not in result.stderr


def test_a_score_beyond_what_the_platform_stores_is_refused(run):
    result = run(dict(CONFIG, keys=["r2"]), {"gold.csv": GOLD}, {"predictions.csv": table([1, 2, "1e9"])})
    assert result.returncode == 1 and "r2 would be -" in result.stderr and "less than 1e10" in result.stderr


@pytest.mark.parametrize("pred, message", [
    (table([1, 2.5, 3]), "predictions.csv, line 3: the 'score' value '2.5' is not an integer label: this task's "
                         "labels are the integers 0 to 4 (round your predictions to a label; the scorer does not "
                         "round)"),
    (table([1, 5, 3]), "predictions.csv, line 3: the 'score' value '5' is outside the labels 0 to 4"),
    (table([1, -1, 3]), "predictions.csv, line 3: the 'score' value '-1' is outside the labels 0 to 4"),
])
def test_qwk_takes_integer_labels_in_the_range(run, pred, message):
    config = {"kind": "regression", "keys": ["qwk"], "label_range": [0, 4]}
    result = run(config, {"gold.csv": table([1, 2, 3])}, {"predictions.csv": pred})
    assert result.returncode == 1 and result.stderr.strip() == "Submission error: " + message
    ok = run(config, {"gold.csv": table([1, 2, 3])}, {"predictions.csv": table(["1.0", "2e0", "+3"])})
    assert ok.scores == {"qwk": 1.0}


@pytest.mark.parametrize("gold, config, message", [
    (table([1, "secret-x", 3]), CONFIG, "reference file gold.csv, line 3: the 'score' value is not a number"),
    (table([1, "inf", 3]), CONFIG, "reference file gold.csv, line 3: the 'score' value is not a finite number"),
    (table([1, 2.5, 3]), dict(CONFIG, keys=["qwk"], label_range=[0, 4]),
     "reference file gold.csv, line 3: the 'score' value is not an integer label"),
    (table([1, 9, 3]), dict(CONFIG, keys=["qwk"], label_range=[0, 4]),
     "reference file gold.csv, line 3: the 'score' value is outside the labels 0 to 4"),
])
def test_bad_gold_is_the_organizers_problem_and_never_quoted(run, gold, config, message):
    result = run(config, {"gold.csv": gold}, {"predictions.csv": table([1, 2, 3])})
    assert result.returncode != 0 and message in result.stderr
    assert "secret" not in result.stderr and "inf" not in result.stderr.replace("finite", "") and \
        "2.5" not in result.stderr and "9" not in result.stderr.split("labels")[0]


def test_hidden_gold_page_shows_no_gold_figure(run):
    result = run(CONFIG, {"gold.csv": table([1.125, 2.375, 3.625])}, {"predictions.csv": table([1, 2, 4])},
                 gold_public=False)
    page = (result.output_dir / "detailed_results.html").read_text()
    assert "predictions: mean" in page and "2.333" in page
    assert "gold: mean" not in page and "1.125" not in page and "3.625" not in page and "2.375" not in page
    public = run(CONFIG, {"gold.csv": table([1.125, 2.375, 3.625])}, {"predictions.csv": table([1, 2, 4])})
    page = (public.output_dir / "detailed_results.html").read_text()
    assert "gold: mean" in page and "predicted 4, gold 3.625 (error +0.375)" in page


# ---------------------------------------------------------------------------------------------------------------
# scipy / scikit-learn on random data (ties, negative values, large offsets)

@pytest.mark.parametrize("seed", range(6))
def test_random_data_equals_scipy_and_sklearn(run, seed):
    rng = random.Random(seed)
    n = rng.choice([2, 3, 7, 50, 400])
    offset = rng.choice([0.0, -50.0, 1e6])
    gold = [offset + rng.choice([rng.randint(0, 5), round(rng.uniform(-3, 8), 2)]) for _ in range(n)]
    pred = [offset + rng.choice([rng.randint(0, 5), round(rng.gauss(2, 2), 3)]) for _ in range(n)]
    result = run(CONFIG, {"gold.csv": table(["%r" % v for v in gold])},
                 {"predictions.csv": table(["%r" % v for v in pred])})
    assert result.returncode == 0, result.stderr
    expected = oracle(gold, pred)
    for key in KEYS:
        if math.isnan(expected[key]):
            assert result.scores[key] == 0.0, key
        else:
            assert result.scores[key] == pytest.approx(expected[key], abs=TOLERANCE, rel=TOLERANCE), key


@pytest.mark.parametrize("seed", range(4))
def test_random_labels_equal_cohen_kappa(run, seed):
    rng = random.Random(seed)
    low, high = rng.choice([(0, 3), (1, 10), (-2, 2)])
    n = rng.choice([5, 40, 300])
    gold = [rng.randint(low, high) for _ in range(n)]
    pred = [min(high, max(low, g + rng.choice([-2, -1, 0, 0, 1]))) for g in gold]
    config = {"kind": "regression", "keys": ["qwk"] + KEYS, "label_range": [low, high]}
    result = run(config, {"gold.csv": table(gold)}, {"predictions.csv": table(pred)})
    expected = oracle(gold, pred, range(low, high + 1))
    assert result.scores == pytest.approx(expected, abs=TOLERANCE)


# ---------------------------------------------------------------------------------------------------------------
# Per-item statistics: the written score, resamples, and paired tests against items_oracle

PROGRAM = load_program("generic")


def _score_in_process(tmp_path, monkeypatch, config, gold, pred, name):
    folder = tmp_path / name
    for sub, text in (("ref", table(gold)), ("res", table(pred))):
        (folder / sub).mkdir(parents=True)
        (folder / sub / ("gold.csv" if sub == "ref" else "predictions.csv")).write_text(text)
    (folder / "scoring.json").write_text(json.dumps(config))
    monkeypatch.setenv("GENERIC_SCORING_CONFIG", str(folder / "scoring.json"))
    return PROGRAM.score(str(folder / "ref"), str(folder / "res"))


def _metric(key, labels=None):
    def metric(gold, pred):
        value = oracle(list(gold), list(pred), labels)[key]
        if math.isnan(value):
            return 1.0 if key in ("r2", "qwk") and list(gold) == list(pred) else 0.0
        if key == "r2" and len(set(gold)) < 2:  # force_finite, tested on the values rather than on rounding
            return 1.0 if list(gold) == list(pred) else 0.0
        return value
    return metric


@pytest.mark.parametrize("key", KEYS + ["qwk"])
def test_items_resample_like_the_metric(tmp_path, monkeypatch, key):
    rng = random.Random(7)
    gold = [rng.randint(0, 4) for _ in range(30)]
    pred_a = [min(4, max(0, g + rng.choice([-1, 0, 0, 1, 2]))) for g in gold]
    pred_b = [min(4, max(0, g + rng.choice([-2, -1, 0, 1]))) for g in gold]
    config = {"kind": "regression", "keys": [key], "label_range": [0, 4]}
    result_a = _score_in_process(tmp_path, monkeypatch, config, gold, pred_a, "a")
    result_b = _score_in_process(tmp_path, monkeypatch, config, gold, pred_b, "b")
    items_a, items_b = result_a.items, result_b.items
    assert items_a.score() == result_a.scores[0][1]
    assert items_a.unit == "item" and len(items_a) == 30
    labels = range(0, 5) if key == "qwk" else None
    items_oracle.check_bootstrap(items_a, _metric(key, labels), gold, pred_a, samples=100)
    items_oracle.check_paired(items_a, items_b, _metric(key, labels), gold, pred_a, pred_b, samples=100)


def test_item_statistics_and_verdicts(tmp_path, monkeypatch):
    """Gold 1, 2, 3, 4 (spread 3: partly within 0.3); predicted 1, 2.25, 3.5, 4."""
    result = _score_in_process(tmp_path, monkeypatch, {"kind": "regression", "keys": ["spearman"]},
                               [1, 2, 3, 4], [1, 2.25, 3.5, 4], "v")
    items = result.items
    assert items.stats[1] == {"items": 1, "pair:2.0,2.25": 1}
    assert items.verdicts == ["right", "partly", "wrong", "right"]
    assert items.details[2] == "predicted 3.5, gold 3 (error +0.5)"
    mae = _score_in_process(tmp_path, monkeypatch, {"kind": "regression", "keys": ["mae"]},
                            [1, 2, 3, 4], [1, 2.25, 3.5, 4], "m").items
    assert mae.stats[2] == {"items": 1, "absolute_error": 0.5} and mae.score() == 0.1875


# ---------------------------------------------------------------------------------------------------------------
# Real public data: the STS Benchmark test set (see tests/data_manifests/regression.json)

def mirror_file(name):
    entry = MANIFEST[name]
    repo = MIRRORS / entry["repo"].replace("/", "+") / "repo"
    if not repo.exists():
        pytest.skip("real data not available: fetch github:%s (mirror %s absent)" % (entry["repo"], repo))
    shown = subprocess.run(["git", "--git-dir", str(repo / ".git") if (repo / ".git").exists() else str(repo),
                            "show", "%s:%s" % (entry["commit"], entry["path"])], capture_output=True)
    if shown.returncode != 0:
        pytest.skip("real data not available: %s at %s in %s" % (entry["path"], entry["commit"], repo))
    return shown.stdout.decode("utf-8")


def sts_test():
    """[(id, gold score, sentence 1, sentence 2)] of the STS Benchmark test set."""
    rows = []
    for number, line in enumerate(mirror_file("sts_benchmark_test").splitlines(), 1):
        fields = line.split("\t")
        rows.append(("sts-%04d" % number, float(fields[4]), fields[5], fields[6]))
    return rows


def overlap_system(rows):
    """A real if simple system: 5 x the Jaccard overlap of the two sentences' lower-cased words."""
    predictions = []
    for _, _, first, second in rows:
        a, b = set(first.lower().split()), set(second.lower().split())
        predictions.append(round(5.0 * len(a & b) / max(1, len(a | b)), 4))
    return predictions


def test_sts_benchmark_equals_scipy_sklearn_and_the_sts_scorer(run, tmp_path):
    rows = sts_test()
    assert len(rows) == 1379
    pred = overlap_system(rows)
    gold = [score for _, score, _, _ in rows]
    # gold as the organizer has it, TSV with its texts (quotes unbalanced in places), predictions as CSV
    gold_tsv = "id\tscore\tsentence1\tsentence2\n" + "".join(
        "%s\t%s\t%s\t%s\n" % (item, "%.3f" % score, first, second) for item, score, first, second in rows)
    pred_csv = "id,score\n" + "".join("%s,%r\n" % (row[0], p) for row, p in zip(rows, pred))
    config = dict(CONFIG, reference="gold.tsv")
    result = run(config, {"gold.tsv": gold_tsv}, {"predictions.csv": pred_csv})
    assert result.returncode == 0, result.stderr
    expected = oracle(gold, pred)
    assert result.scores == pytest.approx(expected, abs=TOLERANCE)
    assert 0.5 < result.scores["pearson"] < 0.8  # the overlap baseline's usual range on STS-B
    # ordinal: gold and predictions rounded half up to the labels 0..5, qwk as cohen_kappa_score
    labels_gold = [int(math.floor(g + 0.5)) for g in gold]
    labels_pred = [int(math.floor(p + 0.5)) for p in pred]
    qwk = run({"kind": "regression", "keys": ["qwk", "spearman"], "label_range": [0, 5]},
              {"gold.csv": table(labels_gold)}, {"predictions.csv": table(labels_pred)})
    expected = oracle(labels_gold, labels_pred, range(6))
    assert qwk.scores == pytest.approx({"qwk": expected["qwk"], "spearman": expected["spearman"]}, abs=TOLERANCE)
    # the STS scorer (correlation-noconfidence.pl) prints Pearson with 5 decimals: the same figure
    script = tmp_path / "correlation-noconfidence.pl"
    script.write_text(mirror_file("sts_scorer"))
    (tmp_path / "gs").write_text("".join("%.3f\n" % g for g in gold))
    (tmp_path / "sys").write_text("id score\n" + "".join("%s %r\n" % (r[0], p) for r, p in zip(rows, pred)))
    perl = subprocess.run(["perl", str(script), str(tmp_path / "gs"), str(tmp_path / "sys")], capture_output=True,
                          text=True)
    if perl.returncode != 0 and "perl" in perl.stderr.lower() and "not found" in perl.stderr.lower():
        pytest.skip("perl is not installed")
    assert perl.stdout.strip() == "Pearson: %.5f" % result.scores["pearson"]


def test_sts_items_bootstrap_against_the_oracle(tmp_path, monkeypatch):
    rows = sts_test()[:300]
    gold, pred = [score for _, score, _, _ in rows], overlap_system(rows)
    result = _score_in_process(tmp_path, monkeypatch, {"kind": "regression", "keys": ["kendall_tau"]},
                               gold, pred, "sts")
    assert result.items.score() == result.scores[0][1]
    items_oracle.check_bootstrap(result.items, _metric("kendall_tau"), gold, pred, samples=50)


# ---------------------------------------------------------------------------------------------------------------
# new --kind regression with an organizer's TSV gold: build, lower-is-better columns, replay

def test_new_regression_task_from_a_tsv_gold_builds_sorts_and_replays(tmp_path_factory):
    import zipfile
    from test_new_task import _copy_repository, run as run_tool
    repo = _copy_repository(tmp_path_factory.mktemp("clone"))
    gold = tmp_path_factory.mktemp("gold") / "similarity.tsv"
    rng = random.Random(3)
    gold.write_text("id\tsentence1\tsentence2\tscore\n" + "".join(
        "p%d\tA \"quoted\" text %s\tanother %s\t%.2f\n" % (i, "x" * rng.randint(1, 30), "y" * i, rng.uniform(0, 5))
        for i in range(80)))
    made = run_tool(repo, "new", "similarity", "--kind", "regression", "--gold-dir", str(gold))
    assert made.returncode == 0, made.stderr
    config = json.loads((repo / "scoring_programs" / "similarity" / "scoring.json").read_text())
    assert config["reference"] == "similarity.tsv" and config["keys"] == ["pearson", "spearman", "mae", "rmse"]
    dev = (repo / "reference_data" / "similarity" / "dev" / "similarity.tsv").read_text().splitlines()
    assert dev[0] == "id\tsentence1\tsentence2\tscore" and all(line.count("\t") == 3 for line in dev)
    built = run_tool(repo, "--task", "similarity")
    assert built.returncode == 0, built.stdout + built.stderr
    assert built.stdout.count("sample submission on Codabench: Finished") == 2
    with zipfile.ZipFile(str(repo / "dist" / "similarity.zip")) as bundle:
        competition = bundle.read("competition.yaml").decode()
        evaluation = bundle.read("evaluation.html").decode()
    for key, order in (("pearson", "desc"), ("spearman", "desc"), ("mae", "asc"), ("rmse", "asc")):
        block = competition.split("key: %s\n" % key, 1)[1]
        assert block.split("sorting: ", 1)[1].split("\n", 1)[0] == order, key
    assert "<td>MAE</td><td><code>mae</code></td><td>lower is better</td>" in evaluation
    with zipfile.ZipFile(str(repo / "dist" / "similarity-v1.5.zip")) as bundle:
        legacy = bundle.read("competition.yaml").decode()
    assert legacy.split("    mae:", 1)[1].split("sort: ", 1)[1].startswith("asc")
    replayed = run_tool(repo, "replay", "dist/similarity.zip", "--phase", "2", "--json")
    report = json.loads(replayed.stdout.strip().splitlines()[-1])
    assert report["status"] == "Finished" and sorted(report["scores"]) == ["mae", "pearson", "rmse", "spearman"]
    # the baseline (text length) gives defined correlations: no warning, a non-zero Pearson
    assert report["scores"]["pearson"] != 0
