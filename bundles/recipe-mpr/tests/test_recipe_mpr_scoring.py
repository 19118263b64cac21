"""Scoring program of recipe-mpr: hand-computed scores, both submission forms, oracles, bad submissions."""
import json
import os
import sys
import tempfile

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.metrics import accuracy_score, label_ranking_average_precision_score

from conftest import ROOT, public_gold

TASK = "recipe-mpr"
PROGRAM = ROOT / "scoring_programs" / TASK
sys.path.insert(0, str(PROGRAM))

from recipe_mpr_gold import QUERY_TYPES, parse_reference  # noqa: E402
from recipe_mpr_index import index_text  # noqa: E402
from recipe_mpr_metric import Evaluation  # noqa: E402

TYPES = QUERY_TYPES


def gold_query(qid, options, answer, types=(), text=None, with_id=True):
    query = {"query": text or "Could I have recipe number %s?" % qid,
             "query_type": dict((t, int(t in types)) for t in TYPES),
             "options": dict((o, "Dish %s with a distinctive description" % o) for o in options),
             "answer": answer, "correctness_explanation": {"x": "y"}}
    if with_id:
        query = dict(id=qid, **query)
    return query


# The metric card's worked example.
WORKED_GOLD = [
    gold_query("q0", ["a", "b", "v", "w", "z"], "a", ("Specific", "Negated")),
    gold_query("q1", ["c", "d", "v", "w", "z"], "d", ("Commonsense",)),
    gold_query("q2", ["e", "f", "v", "w", "z"], "f", ("Commonsense", "Temporal")),
    gold_query("q3", ["g", "h", "i", "j", "k"], "i", ()),
]
WORKED_SUBMISSION = {"q0": ["a", "b"], "q1": ["c", "d"], "q2": "e", "q3": ["g", "h", "i", "j", "k"]}


def ref_files(gold, indexed=False):
    """The reference folder's files; with ``indexed``, the gold index the builder packs beside the gold too."""
    text = json.dumps(gold, indent=1)
    files = {"gold.json": text}
    if indexed:
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "gold.json")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
            files["gold.json.index"] = index_text(path)
    return files


def res_files(predictions):
    return {"predictions.json": predictions if isinstance(predictions, str) else json.dumps(predictions)}


def test_worked_example_of_the_metric_card(score_submission):
    run = score_submission(TASK, ref_files(WORKED_GOLD), res_files(WORKED_SUBMISSION))
    assert run.returncode == 0, run.stderr
    assert list(run.scores) == ["accuracy", "mrr", "acc_specific", "acc_commonsense", "acc_negated", "acc_temporal"]
    assert run.scores["accuracy"] == pytest.approx(0.25, abs=1e-12)
    assert run.scores["mrr"] == pytest.approx((1 + 0.5 + 0 + 1 / 3.0) / 4, abs=1e-12)
    assert run.scores["acc_specific"] == 1.0
    assert run.scores["acc_commonsense"] == 0.0
    assert run.scores["acc_negated"] == 1.0
    assert run.scores["acc_temporal"] == 0.0
    assert "acc_analogical omitted" in run.stdout
    assert run.scores_txt.splitlines()[:2] == ["accuracy: 0.250000000000000", "mrr: 0.458333333333333"]


FIVE = [gold_query("q%d" % i, ["o%d%d" % (i, k) for k in range(5)], "o%d%d" % (i, i % 5),
                   (TYPES[i % 5],)) for i in range(5)]
# (submission, accuracy, mrr): answers are o00, o11, o22, o33, o44.
EXPECTED = [
    ({"q0": "o00", "q1": "o11", "q2": "o22", "q3": "o33", "q4": "o44"}, 1.0, 1.0),
    ({"q0": "o01", "q1": "o10", "q2": "o20", "q3": "o30", "q4": "o40"}, 0.0, 0.0),
    ({"q0": "o00", "q1": "o10", "q2": "o20", "q3": "o30", "q4": "o44"}, 0.4, 0.4),
    ({"q0": ["o01", "o00"], "q1": ["o10", "o11"], "q2": ["o20", "o21", "o22"], "q3": ["o33"], "q4": ["o40"]},
     0.2, (0.5 + 0.5 + 1 / 3.0 + 1 + 0) / 5),
    ({"q%d" % i: ["o%d%d" % (i, k) for k in (4, 3, 2, 1, 0)] for i in range(5)},
     0.2, (1 / 5.0 + 1 / 4.0 + 1 / 3.0 + 1 / 2.0 + 1) / 5),
]


@pytest.mark.parametrize("indexed", [False, True], ids=["gold", "index"])
@pytest.mark.parametrize("submission,accuracy,mrr", EXPECTED)
def test_expected_values(score_submission, submission, accuracy, mrr, indexed):
    run = score_submission(TASK, ref_files(FIVE, indexed), res_files(submission))
    assert run.returncode == 0, run.stderr
    assert run.scores["accuracy"] == pytest.approx(accuracy, abs=1e-12)
    assert run.scores["mrr"] == pytest.approx(mrr, abs=1e-12)
    # One query per type here, so each per-type accuracy is that query's hit.
    for i, query_type in enumerate(TYPES):
        top = submission["q%d" % i]
        top = top if isinstance(top, str) else top[0]
        assert run.scores["acc_" + query_type.lower()] == (1.0 if top == "o%d%d" % (i, i) else 0.0)


def test_ids_default_to_positions_and_ranks_reach_the_report(score_submission):
    gold = [gold_query("x", ["a", "b", "c"], "b", with_id=False), gold_query("y", ["d", "e"], "d", with_id=False)]
    run = score_submission(TASK, public_gold(ref_files(gold)), res_files({"q000": ["a", "b"], "q001": "d"}))
    assert run.returncode == 0, run.stderr
    assert run.scores["accuracy"] == 0.5 and run.scores["mrr"] == 0.75
    assert "<script" not in run.html and "Rank of the correct option" in run.html
    assert "rank 2: 1" in run.html and "rank 1: 1" in run.html and "not ranked: 0" in run.html


def form2(gold, picks):
    """The dataset's own form: gold objects plus pred = description of the picked option."""
    items = []
    for query, pick in zip(gold, picks):
        item = dict(query)
        item["pred"] = query["options"][pick] if pick in query["options"] else pick
        items.append(item)
    return items


def test_dataset_form_is_matched_by_text_and_pred_compared_exactly(score_submission):
    picks = ["o00", "o10", "o22", "o33", "free text from a language model"]
    items = form2(FIVE, picks)
    items[2]["query"] = "  Could I have   recipe number q2? "  # white space does not matter for matching
    items[3]["pred"] += " "  # but pred must be exact
    items.reverse()  # nor does the order
    run = score_submission(TASK, ref_files(FIVE), res_files(items))
    assert run.returncode == 0, run.stderr
    assert run.scores["accuracy"] == pytest.approx(0.4, abs=1e-12)
    assert run.scores["mrr"] == run.scores["accuracy"]
    assert run.scores["acc_negated"] == 1.0 and run.scores["acc_analogical"] == 0.0
    assert "2 of 5 pred texts match none" in run.stdout


def test_wrapper_folder_is_tolerated(score_submission):
    run = score_submission(TASK, ref_files(FIVE), {"my_team/predictions.json": json.dumps(EXPECTED[0][0])})
    assert run.returncode == 0, run.stderr
    assert run.scores["accuracy"] == 1.0


def test_detailed_results_show_aggregates_only(score_submission):
    run = score_submission(TASK, public_gold(ref_files(WORKED_GOLD)), res_files(WORKED_SUBMISSION))
    html = run.html
    for heading in ("Accuracy by query type", "Accuracy by number of type flags", "Rank of the correct option"):
        assert heading in html
    assert "<script" not in html and "http" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    for query in WORKED_GOLD:
        assert query["query"] not in html
        for description in query["options"].values():
            assert description not in html


ANSWERS = [q["answer"] for q in FIVE]
ANSWER_TEXTS = [q["options"][q["answer"]] for q in FIVE]
GOOD = {"q0": "o01", "q1": "o10", "q2": "o20", "q3": "o30", "q4": "o40"}


def _with(**changes):
    sub = dict(GOOD)
    for key, value in changes.items():
        if value is None:
            del sub[key]
        else:
            sub[key] = value
    return sub


BAD = [
    ({"answers.json": "{}"}, ["no predictions.json in the submission"]),
    ({"predictions.json": '{"q0": "o01",\n "q1" "o10"}'}, ["predictions.json, line 2, column 7: not valid JSON"]),
    ({"predictions.json": "  \n"}, ["predictions.json is empty"]),
    ({"predictions.json": b"\xff\xfe{}"}, ["predictions.json, line 1", "not UTF-8"]),
    (res_files(42), ["must hold a JSON object", "found a number"]),
    (res_files(_with(q3=None)), ['no prediction for query "q3"', "every query"]),
    (res_files(_with(q3=None, q4=None)), ['no prediction for query "q3" (and 1 other query)']),
    ({"predictions.json": json.dumps(GOOD)[:-1] + ', "q2": "o21"}'}, ['query "q2" is given more than once']),
    (res_files(_with(q9="o01")), ['"q9" is not a query id of this phase']),
    (res_files(_with(q1="o01")), ['query "q1": "o01" is not one of this query\'s option ids']),
    (res_files(_with(q1=["o10", "o12", "o10"])), ['query "q1": the option "o10" is ranked twice']),
    (res_files(_with(q1=[])), ['query "q1": the list of option ids is empty']),
    (res_files(_with(q1=3)), ['query "q1": expected an option id (a string)', "found a number"]),
    (res_files(_with(q1=["o10", None])), ['query "q1": item 2 of the list must be an option id', "found null"]),
    (res_files(["not an object"]), ['predictions.json, item 1: expected an object with "query" and "pred"']),
    (res_files([{"pred": "x"}]), ['predictions.json, item 1: the "query" field is missing']),
    (res_files([{"query": "Could I have recipe number q0?"}]), ['item 1 (query "Could I have recipe number q0?"): '
                                                                'the "pred" field is missing']),
    (res_files([{"query": "Could I have recipe number q0?", "pred": ["Dish o01"]}]),
     ['item 1 (query "Could I have recipe number q0?"): "pred" must be', "found a list"]),
    (res_files([{"query": "Could I have recipe number q7?", "pred": "Dish"}]),
     ['item 1: the query "Could I have recipe number q7?" is not a query of this phase']),
    (res_files([{"query": "Could I have recipe number q0?", "pred": "a"},
                {"query": "Could I have recipe number q0? ", "pred": "b"}]),
     ['item 2: the query "Could I have recipe number q0?" appears twice (first in item 1)']),
    (res_files([{"query": "Could I have recipe number q%d?" % i, "pred": "a"} for i in range(4)]),
     ['no prediction for the query "Could I have recipe number q4?"']),
]


@pytest.mark.parametrize("indexed", [False, True], ids=["gold", "index"])
@pytest.mark.parametrize("res,fragments", BAD)
def test_bad_submissions_are_rejected_without_revealing_answers(score_submission, res, fragments, indexed):
    run = score_submission(TASK, ref_files(FIVE, indexed), res)
    message = run.assert_rejected(*fragments)
    assert message.startswith("Submission error: ")
    for answer in ANSWERS + ANSWER_TEXTS:
        assert answer not in message
    assert not (run.output_dir / "scores.txt").exists()


def test_dataset_form_is_refused_when_gold_repeats_a_query_text(score_submission):
    gold = [gold_query("a", ["o1", "o2"], "o1", text="Same words"), gold_query("b", ["o3", "o4"], "o3",
                                                                              text="Same words")]
    run = score_submission(TASK, ref_files(gold), res_files([{"query": "Same words", "pred": "x"}]))
    run.assert_rejected("several queries with the same text", "submit the form query id -> option id")
    assert score_submission(TASK, ref_files(gold), res_files({"a": "o1", "b": "o4"})).scores["accuracy"] == 0.5


@pytest.mark.parametrize("gold,fragment", [
    ([gold_query("a", ["o1"], "o9")], "query 1: the answer is not one of the query's options"),
    ([gold_query("a", ["o1"], ["o1"])], "query 1: the answer is not one of the query's options"),  # was a crash
    ([gold_query("a", ["o1"], "o1"), gold_query("a", ["o2"], "o2")], "the query id a appears twice"),
    ({"not": "a list"}, "must be a non-empty JSON list"),
])
def test_bad_reference_is_the_organizers_problem(score_submission, gold, fragment):
    run = score_submission(TASK, ref_files(gold), res_files({"a": "o1"}))
    message = run.assert_rejected("Reference data error", fragment)
    assert "o9" not in message


def _evaluate(answers, rankings, types):
    gold_data = [{"id": "q%d" % i, "query": "text %d" % i, "options": dict(("o%d" % k, "d%d" % k) for k in range(5)),
                  "answer": "o%d" % a, "query_type": dict((t, int(t in ts)) for t in TYPES)}
                 for i, (a, ts) in enumerate(zip(answers, types))]
    gold = parse_reference(json.dumps(gold_data), "gold.json")
    return Evaluation(gold, dict(("q%d" % i, ["o%d" % k for k in r]) for i, r in enumerate(rankings)))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.permutations(range(5)),
                          st.sets(st.sampled_from(TYPES))), min_size=1, max_size=30))
def test_accuracy_mrr_and_per_type_match_reference_implementations(cases):
    answers, rankings, types = zip(*cases)
    evaluation = _evaluate(answers, rankings, types)
    scores = dict(evaluation.scores())
    top = [r[0] for r in rankings]
    assert scores["accuracy"] == pytest.approx(accuracy_score(answers, top), abs=1e-12)
    # With one relevant option per query, label ranking average precision is the reciprocal rank.
    truth = np.zeros((len(cases), 5))
    truth[np.arange(len(cases)), answers] = 1
    option_scores = np.zeros((len(cases), 5))
    for i, ranking in enumerate(rankings):
        option_scores[i, list(ranking)] = np.arange(5, 0, -1)
    assert scores["mrr"] == pytest.approx(label_ranking_average_precision_score(truth, option_scores), abs=1e-12)
    frame = pd.DataFrame({"hit": [a == t for a, t in zip(answers, top)]})
    for query_type in TYPES:
        flagged = [query_type in ts for ts in types]
        key = "acc_" + query_type.lower()
        if any(flagged):
            assert scores[key] == pytest.approx(frame["hit"][flagged].mean(), abs=1e-12)
        else:
            assert key not in scores


def test_metadata_runs_evaluate_py():
    assert (PROGRAM / "metadata").read_text() == "command: python3 $program/evaluate.py $input $output\n"


@pytest.mark.parametrize("indexed", [False, True], ids=["gold", "index"])
@pytest.mark.parametrize("form", ["ids", "texts"])
def test_the_first_bad_query_ends_the_run_before_the_rest_is_read(score_submission, indexed, form):
    """predictions.json is read member by member: an unknown query is what the participant is told, although
    3 MB further on the file stops being UTF-8 (read whole first, that would be the message)."""
    if form == "ids":
        body = '{"q0": "o01", "q9": "o01", ' + ", ".join('"z%d": "o01"' % i for i in range(200000))
        expected = 'predictions.json: "q9" is not a query id of this phase (the ids are in the public data)'
    else:
        body = ('[{"query": "Could I have recipe number q0?", "pred": "a"}, {"query": "Nothing of this phase", '
                '"pred": "a"}, ' + ", ".join('{"query": "z%d", "pred": "a"}' % i for i in range(100000)))
        expected = 'predictions.json, item 2: the query "Nothing of this phase" is not a query of this phase'
    run = score_submission(TASK, ref_files(FIVE, indexed), {"predictions.json": body.encode("utf-8") + b"\xff"})
    run.assert_rejected()
    assert run.stderr.strip() == "Submission error: " + expected
