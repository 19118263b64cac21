"""Generic kind ranking (multiple choice): accuracy, MRR and hits@k hand-computed, JSON and CSV files, bad
submissions."""
import json

import pytest

from generic_support import Runner

CONFIG = {"kind": "ranking", "keys": ["accuracy", "mrr", "hits_at_3"]}
# recipe-mpr's worked example: ranks 1, 2, none, 3 -> accuracy 1/4, MRR (1 + 1/2 + 0 + 1/3)/4, hits@3 3/4
GOLD = {"q0": "a", "q1": "d", "q2": "f", "q3": "i"}
PRED = {"q0": ["a", "b"], "q1": ["c", "d"], "q2": "e", "q3": ["g", "h", "i", "j", "k"]}
EXPECTED = {"accuracy": 0.25, "mrr": (1 + 0.5 + 1 / 3) / 4, "hits_at_3": 0.75}


@pytest.fixture
def run(tmp_path):
    return Runner(tmp_path)


def test_json_files(run):
    result = run(CONFIG, {"gold.json": json.dumps(GOLD)}, {"predictions.json": json.dumps(PRED)})
    assert result.returncode == 0, result.stderr
    assert list(result.scores) == CONFIG["keys"]
    assert result.scores == pytest.approx(EXPECTED, abs=1e-15)
    assert "Rank of the correct option" in result.html


def test_csv_files_and_integer_options(run):
    config = dict(CONFIG, reference="answers.csv", submission="ranked.csv", id_column="qid",
                  answer_column="correct", ranking_column="options", separator=" ")
    gold = "qid,correct,question\n1,2,who?\n2,0,what?\n3,4,when?\n4,1,why?\n"
    pred = "qid,options\n4,3 0 1 2\n3,04\n1,2 1\n2,1 0\n"  # ranks 3, 1, 1, 2; option 04 is 4
    result = run(config, {"answers.csv": gold}, {"ranked.csv": pred})
    assert result.returncode == 0, result.stderr
    assert result.scores == pytest.approx({"accuracy": 0.5, "mrr": (1 + 0.5 + 1 + 1 / 3) / 4, "hits_at_3": 1.0},
                                          abs=1e-15)


def test_json_gold_with_a_csv_submission(run):
    result = run(dict(CONFIG, submission="predictions.csv"), {"gold.json": json.dumps(GOLD)},
                 {"predictions.csv": "id,ranking\nq0,a|b\nq1,c|d\nq2,e\nq3,g|h|i|j|k\n"})
    assert result.scores == pytest.approx(EXPECTED, abs=1e-15)


def test_hits_beyond_the_ranking(run):
    config = {"kind": "ranking", "keys": ["hits_at_5", "hits_at_10", "mrr"]}
    ranking = ["o%d" % i for i in range(12)]
    gold = {"a": "o4", "b": "o9", "c": "o11"}
    result = run(config, {"gold.json": json.dumps(gold)},
                 {"predictions.json": json.dumps(dict((k, ranking) for k in gold))})
    assert result.scores == pytest.approx({"hits_at_5": 1 / 3, "hits_at_10": 2 / 3,
                                           "mrr": (1 / 5 + 1 / 10 + 1 / 12) / 3}, abs=1e-15)
    assert "rank &gt; 10" in result.html


def gold_files():
    return {"gold.json": json.dumps({"q1": "a", "q2": "b"})}


@pytest.mark.parametrize("text, fragments", [
    (None, ["no predictions.json in the submission"]),
    ("", ["predictions.json", "not valid JSON"]),
    ('{"q1": "a", "q2": "b"', ["predictions.json, line 1", "not valid JSON"]),
    ('["a", "b"]', ["must hold a JSON object"]),
    ('{"q1": "a", "q2": "b", "q1": "c"}', ["query 'q1' is given more than once"]),
    ('{"q1": "a", "q2": "b", "q9": "c"}', ["'q9' is not a query id of this phase"]),
    ('{"q1": "a"}', ["no prediction for 1 of the 2 ids ('q2')"]),
    ('{"q1": "a", "q2": []}', ["query 'q2'", "the list of options is empty"]),
    ('{"q1": "a", "q2": ["b", "a", "b"]}', ["query 'q2'", "the option 'b' is ranked twice"]),
    ('{"q1": "a", "q2": [1.5]}', ["query 'q2'", "item 1 must be an option id", "'1.5'"]),
    ('{"q1": "a", "q2": {"x": 1}}', ["item 1 must be an option id", "an object"]),
    ('{"q1": "a", "q2": [true]}', ["item 1 must be an option id", "'true'"]),
    ('{"q1": "a", "q2": %s}' % ("1" * 40), ["40 digits"]),
])
def test_bad_json_submissions(run, text, fragments):
    res = {} if text is None else {"predictions.json": text}
    run(CONFIG, gold_files(), res).assert_rejected("Submission error", *fragments)


@pytest.mark.parametrize("text, fragments", [
    ("id,ranking\nq1,a\nq2,\n", ["predictions.csv, line 3", "the list of options is empty"]),
    ("id,ranking\nq1,a\nq1,b\n", ["line 3", "id 'q1' is given twice"]),
    ("id,ranking\nq1,a|a\nq2,b\n", ["line 2", "ranked twice"]),
    ("id,choice\nq1,a\n", ["no 'ranking' column"]),
])
def test_bad_csv_submissions(run, text, fragments):
    run(dict(CONFIG, submission="predictions.csv"), gold_files(), {"predictions.csv": text}).assert_rejected(
        "Submission error", *fragments)


def test_bad_gold(run):
    message = run(CONFIG, {"gold.json": '{"q1": ["secret"]}'}, {"predictions.json": '{"q1": "a"}'}).assert_rejected(
        "Reference data error", "reference file gold.json: the answer of query 'q1' must be an option id")
    assert "secret" not in message
    run(CONFIG, {"gold.json": "[]"}, {"predictions.json": "{}"}).assert_rejected(
        "Reference data error", "must hold a JSON object")


def test_a_json_run_is_read_query_by_query_and_refused_at_the_first_bad_one(run):
    """An unknown query near the start of a 3 MB predictions.json is the message, although the file stops being
    UTF-8 at its end (read whole first, that would be the message)."""
    body = '{"q1": "a", "q9": "b", ' + ", ".join('"x%d": "c"' % i for i in range(300000))
    result = run(CONFIG, gold_files(), {"predictions.json": body.encode("utf-8") + b', "\xff": ""}'})
    result.assert_rejected()
    assert result.stderr.strip() == "Submission error: predictions.json: 'q9' is not a query id of this phase"
