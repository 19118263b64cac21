"""food-hazard scoring program end to end: alignment, partial submissions, rejected submissions, detailed results."""
import io
import re

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT, public_gold
from test_food_hazard_metric import official_compute_score

TASK = "food-hazard"
GOLD_FILE = ROOT / "reference_data" / TASK / "test" / "incidents_test_sample.csv"
LABELS = ["hazard-category", "product-category", "hazard", "product"]
ST1, ST2 = LABELS[:2], LABELS[2:]
KEYS = ["st1_score", "st1_hazard_f1", "st1_product_f1", "st2_score", "st2_hazard_f1", "st2_product_f1"]


@pytest.fixture(scope="module")
def gold():
    return pd.read_csv(GOLD_FILE, index_col=0, keep_default_na=False)


def ref():
    return {GOLD_FILE.name: GOLD_FILE}


def perturbed(gold, seed=0, rate=0.3):
    """The gold labels with about `rate` of each column replaced by another label of that column."""
    rng = np.random.RandomState(seed)
    out = gold[LABELS].copy()
    for column in LABELS:
        values = sorted(set(out[column]))
        change = rng.rand(len(out)) < rate
        out.loc[change, column] = rng.choice(values, change.sum())
    return out


def expected_scores(gold, predictions):
    scores = {}
    for subtask, (hazard, product) in (("st1", ST1), ("st2", ST2)):
        if hazard in predictions:
            values = official_compute_score(gold[hazard], gold[product], predictions[hazard], predictions[product])
            scores.update(zip([subtask + "_score", subtask + "_hazard_f1", subtask + "_product_f1"], values))
    return scores


def assert_scores(run, expected):
    assert run.returncode == 0, run.stderr
    assert list(run.scores) == [k for k in KEYS if k in expected]
    for key, value in expected.items():
        assert abs(run.scores[key] - value) <= 1e-12, (key, run.scores[key], value)


def test_perfect_submission_scores_one(score_submission, gold):
    run = score_submission(TASK, ref(), {"submission.csv": gold[LABELS].to_csv()})
    assert_scores(run, dict((k, 1.0) for k in KEYS))
    assert run.scores_txt.splitlines()[0] == "st1_score: 1.000000000000000"
    assert "ST1 scored on 100 rows (100 with the right hazard-category)" in run.stdout


def test_scores_equal_official_function(score_submission, gold):
    predictions = perturbed(gold)
    run = score_submission(TASK, ref(), {"submission.csv": predictions.to_csv()})
    expected = expected_scores(gold, predictions)
    assert 0.3 < expected["st1_score"] < 0.95 and 0.2 < expected["st2_score"] < 0.95  # a non-trivial case
    assert_scores(run, expected)


@pytest.mark.parametrize("layout", ["shuffled", "named id", "by position", "crlf and bom", "wrapper folder",
                                    "columns reordered", "padded ids"])
def test_alignment_and_layouts_give_the_same_scores(score_submission, gold, layout):
    predictions = perturbed(gold, seed=1)
    expected = expected_scores(gold, predictions)
    name = "submission.csv"
    if layout == "shuffled":
        text = predictions.sample(frac=1.0, random_state=3).to_csv()
    elif layout == "named id":
        text = predictions.sample(frac=1.0, random_state=4).to_csv(index_label="id")
    elif layout == "by position":
        text = predictions.to_csv(index=False)
    elif layout == "crlf and bom":
        text = "\ufeff" + predictions.to_csv(lineterminator="\r\n")
    elif layout == "wrapper folder":
        name, text = "my_team/submission.csv", predictions.to_csv()
    elif layout == "columns reordered":
        text = predictions[["product", "hazard", "product-category", "hazard-category"]].to_csv()
    else:
        text = predictions.set_axis(["%03d" % i for i in predictions.index]).to_csv()
    assert_scores(score_submission(TASK, ref(), {name: text}), expected)


def test_rows_out_of_order_without_ids_are_scored_by_position(score_submission, gold):
    """Without an index column the i-th row is the i-th incident: a shuffled file scores differently."""
    shuffled = gold[LABELS].sample(frac=1.0, random_state=5).reset_index(drop=True)
    run = score_submission(TASK, ref(), {"submission.csv": shuffled.to_csv(index=False)})
    assert_scores(run, expected_scores(gold, shuffled.set_axis(gold.index)))
    assert run.scores["st2_score"] < 0.5


def test_a_first_column_of_another_name_is_the_index_as_in_the_st1_winners_run(score_submission, gold):
    """The winning ST1 run's layout: csv.writer, header 'stt,hazard-category,product-category', stt the row number
    from 0. The official scorer took the label columns by name (pandas) and the rows by position: same scores."""
    predictions = perturbed(gold, seed=7)[ST1]
    text = predictions.to_csv(index_label="stt")
    assert text.startswith("stt,hazard-category,product-category\n0,")
    run = score_submission(TASK, ref(), {"submission.csv": text})
    official = pd.read_csv(io.StringIO(text), keep_default_na=False)[ST1].set_axis(gold.index)
    expected = expected_scores(gold, official)
    assert 0.3 < expected["st1_score"] < 0.95
    assert_scores(run, expected)
    assert "ST1 scored on 100 rows" in run.stdout
    # read as an index: its values place the rows
    shuffled = predictions.sample(frac=1.0, random_state=8).to_csv(index_label="stt")
    assert_scores(score_submission(TASK, ref(), {"submission.csv": shuffled}), expected)


@pytest.mark.parametrize("columns,scored,skipped", [(ST1, "st1", "ST2"), (ST2, "st2", "ST1")])
def test_one_subtask_only(score_submission, gold, columns, scored, skipped):
    predictions = perturbed(gold, seed=2)[columns]
    run = score_submission(TASK, ref(), {"submission.csv": predictions.to_csv()})
    expected = expected_scores(gold, predictions)
    assert sorted(expected) == sorted(k for k in KEYS if k.startswith(scored))
    assert_scores(run, expected)
    assert "%s not scored: submission.csv has no" % skipped in run.stdout
    assert "%s step 1" % skipped not in run.html and "%s step 1" % scored.upper() in run.html


def test_no_correct_hazard_scores_zero(score_submission, gold):
    """Every product right but no hazard right: the product step has no rows and counts 0 (organizers' rule)."""
    predictions = gold[LABELS].copy()
    predictions["hazard-category"] = "no such hazard category"
    predictions["hazard"] = predictions["hazard"] + "!"
    run = score_submission(TASK, public_gold(ref()), {"submission.csv": predictions.to_csv()})
    assert_scores(run, {"st1_score": 0.0, "st1_hazard_f1": 0.0, "st1_product_f1": 0.0,
                        "st2_score": 0.0, "st2_hazard_f1": 0.0, "st2_product_f1": 0.0})
    assert "No rows to score" in run.html


def test_labels_compare_exactly(score_submission, gold):
    predictions = gold[LABELS].copy()
    predictions["product"] = predictions["product"].str.upper()
    predictions["hazard"] = predictions["hazard"] + " "
    run = score_submission(TASK, ref(), {"submission.csv": predictions.to_csv()})
    assert run.scores["st1_score"] == 1.0 and run.scores["st2_score"] == 0.0


def test_detailed_results_per_class_tables(score_submission, gold):
    predictions = perturbed(gold, seed=6)
    predictions.loc[predictions["hazard-category"] == "fraud", "hazard-category"] = "allergens"  # never predicted
    run = score_submission(TASK, public_gold(ref()), {"submission.csv": predictions.to_csv()})
    html = run.html
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html
    assert "<script" not in html and "src=" not in html and "http" not in html.replace("http://www.w3.org", "")
    # The ST1 hazard table lists every class with its gold support, most frequent first.
    first_table = html[html.index("ST1 step 1"):html.index("ST1 step 2")]
    rows = re.findall(r'<tr><td>([^<]+)</td><td class="n">(\d+)</td><td class="n">(\d+)</td>', first_table)
    support = gold["hazard-category"].value_counts()
    assert [(label, int(n)) for label, n, _ in rows] == sorted(support.items(), key=lambda kv: (-kv[1], kv[0]))
    assert "Never predicted (1 of %d gold classes, each F1 = 0): fraud" % len(support) in first_table
    assert "fraud</td><td class=\"n\">%d</td><td class=\"n\">0</td>" % support["fraud"] in first_table
    # Aggregates only: no title or text of an incident.
    assert all(title not in html for title in gold["title"])


# (files in res, fragments of the one-line message)
BAD_SUBMISSIONS = [
    ("no submission.csv", {"predictions.csv": ",hazard-category,product-category\n0,a,b\n"},
     ["no submission.csv", "found predictions.csv"]),
    ("underscore column", {"submission.csv": ",hazard_category,product-category\n0,a,b\n"},
     ["unknown column 'hazard_category'", "did you mean 'hazard-category'?"]),
    ("extra column", {"submission.csv": ",title,hazard-category,product-category\n0,t,a,b\n"},
     ["unknown column 'title'", "the columns are 'hazard-category', 'product-category', 'hazard', 'product'"]),
    ("index written twice", {"submission.csv": ",Unnamed: 0,hazard,product\n0,0,a,b\n"},
     ["unknown column 'Unnamed: 0'", "read incidents.csv with index_col=0, or write with index=False"]),
    ("no header", {"submission.csv": "0,allergens,confectionery\n1,allergens,seafood\n"},
     ["the first line must be the header"]),
    ("first column a near miss", {"submission.csv": "hazard_category,product-category\na,b\n"},
     ["unknown column 'hazard_category'", "did you mean 'hazard-category'?"]),
    ("first column not the ids", {"submission.csv": "title,hazard-category,product-category\nCake recall,a,b\n"},
     ["submission.csv, line 2: id Cake recall is not an id of the data file (ids run 0 to 99 there); the first "
      "column, 'title', is read as the row ids (an index column): give the data file's ids there, or leave the "
      "column out to match rows by position"]),
    ("pair incomplete", {"submission.csv": ",hazard-category,product-category,hazard\n0,a,b,c\n"},
     ["column 'product' is missing; ST2 needs both 'hazard' and 'product'"]),
    ("duplicate column", {"submission.csv": ",hazard,product,hazard\n0,a,b,c\n"},
     ["column 'hazard' appears twice"]),
    ("no label column", {"submission.csv": "id\n0\n"}, ["no label columns"]),
    ("unnamed column", {"submission.csv": ",hazard,,product\n0,a,b,c\n"},
     ["column 3 of the header has no name"]),
    ("header only", {"submission.csv": ",hazard,product\n"}, ["has a header but no rows", "(100)"]),
    ("empty file", {"submission.csv": ""}, ["submission.csv is empty"]),
    ("not utf-8", {"submission.csv": b",hazard,product\n0,caf\xe9,b\n"}, ["line 2", "not UTF-8"]),
]


@pytest.mark.parametrize("case,res,fragments", BAD_SUBMISSIONS, ids=[c[0] for c in BAD_SUBMISSIONS])
def test_bad_submission_files_are_rejected(score_submission, case, res, fragments):
    run = score_submission(TASK, ref(), res)
    run.assert_rejected(*(["Submission error: "] + fragments))


BAD_ROWS = [
    ("row missing by position", lambda g: g.iloc[:-1].reset_index(drop=True).to_csv(index=False),
     ["submission.csv has 99 rows but the data file has 100 incidents", "matched by position"]),
    ("row extra by position", lambda g: pd.concat([g, g.iloc[:1]]).to_csv(index=False),
     ["submission.csv, line 102: a row beyond the data file's 100 incidents", "matched by position"]),
    ("row numbers from 1", lambda g: g.set_axis(range(1, 101)).to_csv(index_label="stt"),
     ["submission.csv, line 101: id 100 is not an id of the data file (ids run 0 to 99 there); the first column, "
      "'stt', is read as the row ids"]),
    ("unknown id", lambda g: g.rename(index={99: 100}).to_csv(),
     ["submission.csv, line 101: id 100 is not an id of the data file (ids run 0 to 99 there)"]),
    ("duplicate id", lambda g: g.rename(index={5: 3}).to_csv(),
     ["submission.csv, line 7: id 3 appears twice (first on line 5)"]),
    ("missing ids", lambda g: g.drop(index=[7, 40]).to_csv(),
     ["2 of the 100 ids of the data file have no row (7, 40)"]),
    ("empty label", lambda g: g.assign(hazard=g["hazard"].where(g.index != 12, "")).to_csv(),
     ["submission.csv, line 14 (id 12): the 'hazard' cell is empty"]),
    ("blank label", lambda g: g.assign(product=g["product"].where(g.index != 0, "  ")).to_csv(),
     ["line 2 (id 0): the 'product' cell is empty"]),
    ("empty label by position", lambda g: g.assign(hazard=g["hazard"].where(g.index != 12, "")).to_csv(index=False),
     ["submission.csv, line 14: the 'hazard' cell is empty"]),
    ("empty id", lambda g: g.to_csv().replace("\n4,", "\n,", 1), ["line 6: the index column (the first one) is empty"]),
]


@pytest.mark.parametrize("case,make,fragments", BAD_ROWS, ids=[c[0] for c in BAD_ROWS])
def test_bad_rows_are_rejected_without_gold_labels(score_submission, gold, case, make, fragments):
    text = make(gold[LABELS].copy())
    run = score_submission(TASK, ref(), {"submission.csv": text})
    message = run.assert_rejected(*(["Submission error: "] + fragments))
    gold_labels = set(gold[LABELS].values.ravel())
    assert not [label for label in gold_labels if label in message and len(label) > 4], message


def test_ragged_row_names_the_line(score_submission, gold):
    lines = gold[LABELS].to_csv().split("\n")
    lines[9] = lines[9] + ",extra"
    run = score_submission(TASK, ref(), {"submission.csv": "\n".join(lines)})
    run.assert_rejected("submission.csv, line 10: 6 cells where the header has 5 columns")


def test_gold_problems_are_reported_as_reference_errors(score_submission, gold):
    broken = gold.drop(columns=["product"]).to_csv()
    run = score_submission(TASK, {"incidents_test.csv": broken}, {"submission.csv": gold[LABELS].to_csv()})
    run.assert_rejected("Reference data error", "has no column 'product'")


@pytest.mark.parametrize("index", [True, False])
def test_the_first_bad_row_ends_the_run_before_the_rest_is_read(score_submission, gold, index):
    """Rows are checked against the gold as they are read: the row after the last incident (an unknown id, or one
    row too many by position) is the message, although 2 MB further on the file stops being UTF-8."""
    text = gold[LABELS].to_csv(index=index).encode("utf-8")
    row = text.splitlines(True)[1]
    extra = b"".join(b"%d,%s" % (1000 + i, row.split(b",", 1)[1]) if index else row for i in range(30000))
    run = score_submission(TASK, ref(), {"submission.csv": text + extra + b"\xff\xfe\n"})
    run.assert_rejected()
    expected = ("submission.csv, line 102: id 1000 is not an id of the data file (ids run 0 to 99 there)" if index
                else "submission.csv, line 102: a row beyond the data file's 100 incidents; without an index column "
                     "rows are matched by position, so give one row per incident in the file's order")
    assert run.stderr.strip() == "Submission error: " + expected
