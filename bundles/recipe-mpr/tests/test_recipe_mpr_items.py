"""recipe-mpr per-query statistics (scoring_runtime.Items): hand-computed items on both code paths of score (the gold
index and the gold file), the ranking score they give back on sample and real data, and bootstrap intervals and
paired tests against an independent numpy oracle of accuracy on resampled queries."""
import json
import math
import types

import numpy as np
import pytest

import resampling
from conftest import ROOT, load_program, shared_path
from test_recipe_mpr_data import baseline, derive
from test_recipe_mpr_scoring import gold_query, ref_files, res_files

TASK = "recipe-mpr"
REFERENCE = ROOT / "reference_data" / TASK


@pytest.fixture(scope="module")
def program():
    return load_program(TASK)


def write(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return str(folder)


def score(program, tmp_path, ref, res):
    """score(ref, res) in-process, each side written to a fresh folder."""
    run = tmp_path / ("run%d" % len(list(tmp_path.glob("run*"))))
    return program.score(write(run / "ref", ref), write(run / "res", res))


def table(items):
    return list(zip(items.ids, items.stats, items.verdicts, items.details))


# Five queries of five options; the answer is the first option listed.
GOLD = [gold_query("q%d" % i, [c + str(i) for c in "abcde"], "a%d" % i) for i in range(5)]


def test_hand_made_rankings_on_the_gold_path(program, tmp_path):
    # Partial rankings go through the gold file (the index takes only one id per query or full rankings).
    submission = {"q0": ["a0", "b0"], "q1": ["b1", "a1"], "q2": "c2", "q3": ["b3", "c3"],
                  "q4": ["b4", "c4", "d4", "a4"]}
    result = score(program, tmp_path, ref_files(GOLD, indexed=True), res_files(submission))
    assert table(result.items) == [
        ("q0", {"queries": 1, "hits": 1, "rr": 1.0}, "right", ""),
        ("q1", {"queries": 1, "hits": 0, "rr": 0.5}, "partly", "answer ranked 2nd of 5 options"),
        ("q2", {"queries": 1, "hits": 0, "rr": 0.0}, "wrong", "another of the 5 options chosen"),
        ("q3", {"queries": 1, "hits": 0, "rr": 0.0}, "wrong", "answer not in the ranking (2 of 5 options ranked)"),
        ("q4", {"queries": 1, "hits": 0, "rr": 0.25}, "partly", "answer ranked 4th of 5 options"),
    ]
    items = result.items
    assert (items.unit, items.key) == ("query", "accuracy")
    assert items.totals() == {"queries": 5.0, "hits": 1.0, "rr": 1.75}
    assert items.score() == dict(result.scores)["accuracy"] == 0.2
    assert dict(result.scores)["mrr"] == 1.75 / 5  # rr is the MRR's statistic, though accuracy ranks


def test_texts_form_items(program, tmp_path):
    # Form 2: the pred text of the answer, of another option, and of none of the options.
    gold = GOLD[:3]
    submission = [{"query": q["query"], "pred": pred} for q, pred in
                  zip(gold, [gold[0]["options"]["a0"], gold[1]["options"]["c1"], "a dish nobody offered"])]
    result = score(program, tmp_path, ref_files(gold), res_files(submission))
    assert table(result.items) == [
        ("q0", {"queries": 1, "hits": 1, "rr": 1.0}, "right", ""),
        ("q1", {"queries": 1, "hits": 0, "rr": 0.0}, "wrong", "another of the 5 options chosen"),
        ("q2", {"queries": 1, "hits": 0, "rr": 0.0}, "wrong",
         "no option chosen (the pred text is none of the options)"),
    ]
    assert result.items.score() == dict(result.scores)["accuracy"] == 1 / 3.0


FULL = {"q0": ["a0", "b0", "c0", "d0", "e0"], "q1": ["b1", "a1", "c1", "d1", "e1"],
        "q2": ["e2", "d2", "c2", "b2", "a2"], "q3": ["c3", "b3", "a3", "d3", "e3"], "q4": ["a4", "e4", "d4", "c4", "b4"]}
SINGLE = {"q0": "a0", "q1": "b1", "q2": "a2", "q3": "c3", "q4": "d4"}
EXPECTED = {
    "full": [("q0", {"queries": 1, "hits": 1, "rr": 1.0}, "right", ""),
             ("q1", {"queries": 1, "hits": 0, "rr": 0.5}, "partly", "answer ranked 2nd of 5 options"),
             ("q2", {"queries": 1, "hits": 0, "rr": 0.2}, "partly", "answer ranked 5th of 5 options"),
             ("q3", {"queries": 1, "hits": 0, "rr": 1 / 3.0}, "partly", "answer ranked 3rd of 5 options"),
             ("q4", {"queries": 1, "hits": 1, "rr": 1.0}, "right", "")],
    "single": [("q0", {"queries": 1, "hits": 1, "rr": 1.0}, "right", ""),
               ("q1", {"queries": 1, "hits": 0, "rr": 0.0}, "wrong", "another of the 5 options chosen"),
               ("q2", {"queries": 1, "hits": 1, "rr": 1.0}, "right", ""),
               ("q3", {"queries": 1, "hits": 0, "rr": 0.0}, "wrong", "another of the 5 options chosen"),
               ("q4", {"queries": 1, "hits": 0, "rr": 0.0}, "wrong", "another of the 5 options chosen")],
}


@pytest.mark.parametrize("name, submission, accuracy", [("full", FULL, 0.4), ("single", SINGLE, 0.4)])
@pytest.mark.parametrize("indexed", [True, False])
def test_both_code_paths_give_the_same_items(program, tmp_path, monkeypatch, name, submission, accuracy, indexed):
    taken = []
    by_index = program.ranks_by_index

    def spy(data, index):
        ranks = by_index(data, index)
        taken.append(ranks is not None)
        return ranks
    monkeypatch.setattr(program, "ranks_by_index", spy)
    ref = ref_files(GOLD, indexed=indexed)
    fast = score(program, tmp_path, ref, res_files(submission))
    assert taken == [True]  # the index (packed, or made from the gold's columns) scored it
    assert table(fast.items) == EXPECTED[name]
    # The gold-file path on the same files: the index declines.
    monkeypatch.setattr(program, "ranks_by_index", lambda data, index: None)
    slow = score(program, tmp_path, ref, res_files(submission))
    assert slow.scores == fast.scores
    assert table(slow.items) == EXPECTED[name]
    assert fast.items.score() == slow.items.score() == accuracy == dict(fast.scores)["accuracy"]


def test_one_id_lists_score_like_one_id(program, tmp_path):
    # ["b1"] goes through the gold file, "b1" through the index: the same items.
    lists = dict((qid, [oid]) for qid, oid in SINGLE.items())
    assert table(score(program, tmp_path, ref_files(GOLD, indexed=True), res_files(lists)).items) == EXPECTED["single"]


@pytest.mark.parametrize("rank, text", [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"),
                                        (13, "13th"), (21, "21st"), (22, "22nd"), (23, "23rd"), (101, "101st"),
                                        (111, "111th")])
def test_ordinals(program, rank, text):
    import recipe_mpr_metric
    assert recipe_mpr_metric.ordinal(rank) == text


def test_items_are_built_only_when_asked_for(program, tmp_path, monkeypatch):
    built = []
    monkeypatch.setattr(program, "query_items", lambda rows: built.append(list(rows)) or "items")
    result = score(program, tmp_path, ref_files(GOLD, indexed=True), res_files(FULL))
    assert built == []
    assert result.items == "items" and [row[0] for row in built[0]] == ["q0", "q1", "q2", "q3", "q4"]


# ---------------------------------------------------------------------------------------------------------------
# The ranking score back from the items: sample data with the starting kit's baseline, and real data


def baseline_submission(tmp_path, gold_dir, seed=12345):
    public = tmp_path / "public"
    public.mkdir(parents=True, exist_ok=True)
    derive.public_data(types.SimpleNamespace(task=TASK, split="x", reference_dir=gold_dir, seed=seed, out_dir=public))
    return baseline.predict(json.loads((public / "queries.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize("split", ["dev", "test"])
@pytest.mark.parametrize("indexed", [True, False])
def test_items_give_the_platform_score_on_sample_data(program, tmp_path, score_submission, split, indexed):
    gold = json.loads((REFERENCE / split / (split + ".json")).read_text(encoding="utf-8"))
    predictions = baseline_submission(tmp_path, REFERENCE / split)
    ref, res = ref_files(gold, indexed=indexed), res_files(predictions)
    run = score_submission(TASK, ref, res)
    assert run.returncode == 0, run.stderr
    items = score(program, tmp_path, ref, res).items
    assert items.score() == run.scores["accuracy"]
    assert items.ids == [q["id"] for q in gold]
    assert math.fsum(s["rr"] for s in items.stats) / len(items) == run.scores["mrr"]
    # Full rankings: the answer is always ranked, so no query is wrong.
    assert items.verdicts.count("right") == round(run.scores["accuracy"] * len(gold)) and "wrong" not in items.verdicts


def real_fold(name):
    full = json.loads(shared_path("recipe-mpr", "500QA.json").read_text(encoding="utf-8"))
    predictions = json.loads(shared_path("recipe-mpr", "published-predictions", name).read_text(encoding="utf-8"))
    asked = set(p["query"] for p in predictions)
    named = [dict(q, id="q%03d" % position) for position, q in enumerate(full) if q["query"] in asked]
    return named, predictions


@pytest.mark.parametrize("name, accuracy", [("gpt3_zero_shot_fold0.json", 0.67), ("gpt3_few_shot_fold0.json", 0.57)])
def test_items_give_the_authors_accuracy_on_real_data(program, tmp_path, score_submission, name, accuracy):
    gold, predictions = real_fold(name)
    run = score_submission(TASK, ref_files(gold), res_files(predictions))
    items = score(program, tmp_path, ref_files(gold), res_files(predictions)).items
    assert items.score() == run.scores["accuracy"] == pytest.approx(accuracy, abs=1e-12)
    assert len(items) == 100 and items.verdicts.count("right") == round(accuracy * 100)
    assert set(items.verdicts) == {"right", "wrong"}  # one choice per query: never partly
    # The same choices as option ids, scored from the index, give the same items.
    by_text = dict((q["query"], q) for q in gold)
    ids = {}
    for p in predictions:
        query = by_text[p["query"]]
        ids[query["id"]] = [oid for oid, text in query["options"].items() if text == p["pred"]][0]
    again = score(program, tmp_path, ref_files(gold, indexed=True), res_files(ids)).items
    assert again.ids == items.ids and again.stats == items.stats and again.verdicts == items.verdicts


# ---------------------------------------------------------------------------------------------------------------
# Intervals and paired tests against numpy: accuracy recomputed on resampled queries, not through Items


def draws(seed, rounds, n):
    """resampling.py's documented draws, with numpy."""
    return np.random.RandomState([seed]).random_sample((rounds, n))


def hits_of(gold, predictions):
    """1 where the top-ranked option is the answer, straight from the two files' contents."""
    return np.array([int((predictions[q["id"]] if isinstance(predictions[q["id"]], str)
                          else predictions[q["id"]][0]) == q["answer"]) for q in gold])


def check_against_numpy(items_a, items_b, hits_a, hits_b, samples=200, seed=7):
    n = len(hits_a)
    idx = (draws(seed, samples, n) * n).astype(int)
    values_a, values_b = hits_a[idx].mean(axis=1), hits_b[idx].mean(axis=1)

    interval = resampling.bootstrap(items_a, samples=samples, seed=seed)
    low, high = np.percentile(values_a, [2.5, 97.5])
    assert interval.score == hits_a.mean()
    assert interval.low == pytest.approx(low, abs=1e-12) and interval.high == pytest.approx(high, abs=1e-12)
    assert low < high  # the sets are large enough for a spread: a test that could not fail would not say much

    comparison = resampling.paired(items_a, items_b, samples=samples, seed=seed)
    deltas = values_a - values_b
    observed = hits_a.mean() - hits_b.mean()
    assert comparison.delta == observed
    low, high = np.percentile(deltas, [2.5, 97.5])
    assert comparison.low == pytest.approx(low, abs=1e-12) and comparison.high == pytest.approx(high, abs=1e-12)
    centre = math.fsum(deltas) / samples
    assert comparison.p_bootstrap == (1 + np.sum(np.abs(deltas - centre) >= abs(observed))) / (samples + 1.0)

    swap = draws(seed, samples, n) < 0.5
    side_a, side_b = np.where(swap, hits_b, hits_a), np.where(swap, hits_a, hits_b)
    randomized = side_a.mean(axis=1) - side_b.mean(axis=1)
    p = (1 + np.sum(np.abs(randomized) >= abs(observed))) / (samples + 1.0)
    assert comparison.p_randomization == p
    return comparison


def test_resamples_match_numpy_on_sample_data(program, tmp_path):
    gold = json.loads((REFERENCE / "test" / "test.json").read_text(encoding="utf-8"))
    first = baseline_submission(tmp_path / "a", REFERENCE / "test")
    # Another run: the answer first wherever the baseline ranked it second or third (a better system).
    second = dict((q["id"], ([q["answer"]] + [o for o in first[q["id"]] if o != q["answer"]])
                   if first[q["id"]].index(q["answer"]) in (1, 2) else first[q["id"]]) for q in gold)
    hits_a, hits_b = hits_of(gold, first), hits_of(gold, second)
    assert hits_b.sum() > hits_a.sum()
    items_a = score(program, tmp_path, ref_files(gold, indexed=True), res_files(first)).items
    items_b = score(program, tmp_path, ref_files(gold, indexed=True), res_files(second)).items
    comparison = check_against_numpy(items_a, items_b, hits_a, hits_b)
    assert comparison.delta < 0


def test_resamples_match_numpy_on_real_data(program, tmp_path):
    gold, zero_shot = real_fold("gpt3_zero_shot_fold0.json")
    _, few_shot = real_fold("gpt3_few_shot_fold0.json")
    by_text = dict((q["query"], q) for q in gold)
    runs = []
    for predictions in (zero_shot, few_shot):
        as_ids = dict((by_text[p["query"]]["id"], [o for o, t in by_text[p["query"]]["options"].items()
                                                   if t == p["pred"]][:1] or ["none"]) for p in predictions)
        hits = np.array([int(as_ids[q["id"]][0] == q["answer"]) for q in gold])
        runs.append((score(program, tmp_path, ref_files(gold), res_files(predictions)).items, hits))
    comparison = check_against_numpy(runs[0][0], runs[1][0], runs[0][1], runs[1][1], samples=300, seed=2024)
    assert comparison.delta == pytest.approx(0.10, abs=1e-12)
