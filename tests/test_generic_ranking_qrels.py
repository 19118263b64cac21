"""Generic kind ranking with a TREC qrels gold: graded nDCG, MAP, P/recall/MRR/hits at k hand-computed (ties in a run,
a query without relevant documents, fewer than k ranked, each missing_queries mode), the run formats, bad files,
per-item statistics, and oracle comparisons on TREC CAsT 2021's qrels and runs (pytrec_eval, ir_measures, MS MARCO's
evaluation script as a subprocess). Real data comes from git mirrors listed in tests/data_manifests/ranking.json;
those tests skip when a mirror is absent."""
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, load_program
from generic_support import InProcess, Runner

PROGRAM = load_program("generic")
MANIFEST = json.loads((ROOT / "tests" / "data_manifests" / "ranking.json").read_text(encoding="utf-8"))
L = math.log2

QRELS = "q1 0 d1 3\nq1 0 d2 2\nq1 0 d3 0\nq1 0 d4 1\nq1 0 d5 2\nq2 0 d7 0\nq3 0 d8 1\n"
# trec_eval ignores the rank column: d1 and d9 tie at 4.0, and the larger id (d9) comes first, so q1's order is
# d3 (grade 0), d9 (unjudged), d1 (3), d4 (1), d2 (2); d5 (2) is not ranked. q2 has no relevant document; q3 is
# not in the run.
RUN = ("q1 Q0 d3 1 5.0 t\nq1 Q0 d1 2 4.0 t\nq1 Q0 d9 3 4 t\nq1 Q0 d4 4 2e0 t\nq1 Q0 d2 5 1.0 t\n"
       "q2 Q0 d7 1 3.0 t\nq2 Q0 d1 2 2.0 t\n")
KEYS = ["ndcg", "ndcg_at_3", "map", "mrr", "mrr_at_2", "p_at_5", "p_at_10", "recall_at_3", "hits_at_3", "accuracy"]
# q1 with relevance_threshold 1: relevant d1, d2, d4, d5 (4), ranked at 3, 5, 4 -> relevant ranks 3, 4, 5
Q1 = {
    "ndcg": (3 / L(4) + 1 / L(5) + 2 / L(6)) / (3 / L(2) + 2 / L(3) + 2 / L(4) + 1 / L(5)),
    "ndcg_at_3": (3 / L(4)) / (3 / L(2) + 2 / L(3) + 2 / L(4)),
    "map": (1 / 3 + 2 / 4 + 3 / 5) / 4,
    "mrr": 1 / 3, "mrr_at_2": 0.0,
    "p_at_5": 3 / 5, "p_at_10": 3 / 10,  # P@10 divides by 10 though 5 are ranked (trec_eval)
    "recall_at_3": 1 / 4, "hits_at_3": 1.0, "accuracy": 0.0,
}
# relevance_threshold 2: relevant d1, d2, d5 (3), ranked at 3 and 5; nDCG keeps the grades as gains
Q1_AT_2 = dict(Q1, map=(1 / 3 + 2 / 5) / 3, p_at_5=2 / 5, p_at_10=2 / 10, recall_at_3=1 / 3)
CONFIG = {"kind": "ranking", "reference": "qrels.txt", "submission": "run.txt", "keys": KEYS}


def expected(values, queries):
    """q1's values averaged over ``queries`` counted queries (q2 and, with "zero", q3 score 0)."""
    return dict((key, value / queries) for key, value in values.items())


@pytest.fixture
def run(tmp_path):
    return Runner(tmp_path)


@pytest.fixture
def score(tmp_path, monkeypatch):
    """score(config, ref, res) -> the generic program's Result, in-process ({name: text} folders)."""
    return InProcess(tmp_path, monkeypatch, PROGRAM)


# ---------------------------------------------------------------------------------------------------------------
# Hand-computed tables


@pytest.mark.parametrize("mode, queries", [("zero", 3), ("skip", 2), (None, 3)])
def test_graded_measures_in_each_missing_queries_mode(run, mode, queries):
    config = dict(CONFIG, **({"missing_queries": mode} if mode else {}))  # a qrels gold defaults to "zero"
    result = run(config, {"qrels.txt": QRELS}, {"run.txt": RUN})
    assert result.returncode == 0, result.stderr
    assert list(result.scores) == KEYS
    assert result.scores == pytest.approx(expected(Q1, queries), abs=1e-15)
    assert "no ranking for 1 of the 3 queries of this phase ('q3')" in result.stderr
    assert ("each scores 0" if queries == 3 else "average over the 2 queries it ranks") in result.stderr
    assert "1 query has no relevant document in the gold (grade >= 1)" in result.stdout + result.stderr
    assert "Rank of the first relevant document" in result.html


def test_refuse_mode_wants_every_query_and_no_other(run):
    config = dict(CONFIG, missing_queries="refuse")
    run(config, {"qrels.txt": QRELS}, {"run.txt": RUN}).assert_rejected(
        "Submission error", "run.txt has no prediction for 1 of the 3 ids ('q3')")
    run(config, {"qrels.txt": QRELS}, {"run.txt": RUN + "q9 Q0 d1 1 1 t\n"}).assert_rejected(
        "Submission error", "run.txt, line 8: 'q9' is not a query id of this phase")
    complete = run(config, {"qrels.txt": QRELS}, {"run.txt": RUN + "q3 Q0 d8 1 0.5 t\n"})
    assert complete.returncode == 0, complete.stderr
    assert complete.scores["mrr"] == pytest.approx((1 / 3 + 0 + 1) / 3, abs=1e-15)


def test_relevance_threshold(run):
    result = run(dict(CONFIG, relevance_threshold=2), {"qrels.txt": QRELS}, {"run.txt": RUN})
    assert result.scores == pytest.approx(expected(Q1_AT_2, 3), abs=1e-15)


def test_queries_the_gold_lacks_are_ignored_with_a_warning(run):
    result = run(CONFIG, {"qrels.txt": QRELS}, {"run.txt": "q0 Q0 d1 1 9 t\n" + RUN + "x 0 d1 1 1 t\n"})
    assert result.scores == pytest.approx(expected(Q1, 3), abs=1e-15)
    assert "run.txt ranks 2 queries that this phase does not have ('q0', 'x'): ignored" in result.stderr


@pytest.mark.parametrize("name, text", [
    ("run.txt", RUN),
    # the same order written as MS MARCO's qid docid rank
    ("run.tsv", "q1\td3\t1\nq1\td9\t2\nq1\td1\t3\nq1\td4\t4\nq1\td2\t5\nq2\td7\t1\nq2\td1\t2\n"),
    ("run.json", json.dumps({"q1": ["d3", "d9", "d1", "d4", "d2"], "q2": ["d7", "d1"]})),
    # scores: ties broken as trec_eval does (d9 before d1)
    ("run.json", json.dumps({"q1": {"d1": 4, "d3": 5.0, "d9": 4.0, "d2": 1, "d4": 2}, "q2": {"d1": 2, "d7": 3}})),
    ("run.csv", "id,ranking\nq1,d3|d9|d1|d4|d2\nq2,d7|d1\n"),
    # a query's lines apart: read again, whole
    ("run.txt", "q1 Q0 d3 1 5.0 t\nq1 Q0 d1 2 4.0 t\nq2 Q0 d7 1 3.0 t\nq1 Q0 d9 3 4 t\nq1 Q0 d4 4 2e0 t\n"
                "q2 Q0 d1 2 2.0 t\n\nq1 Q0 d2 5 1.0 t\n"),
])
def test_every_run_format_gives_the_same_scores(run, name, text):
    result = run(dict(CONFIG, submission=name), {"qrels.txt": QRELS}, {name: text})
    assert result.returncode == 0, result.stderr
    assert result.scores == pytest.approx(expected(Q1, 3), abs=1e-15)


def test_ties_go_to_the_larger_document_id(run):
    # all three tie: trec_eval orders them c, b, a; only b is relevant -> rank 2
    config = dict(CONFIG, keys=["mrr", "p_at_1", "ndcg_at_2"], submission="run.json")
    gold = "1 0 a 0\n1 0 b 1\n"
    for submission in ({"1": {"a": 0.5, "b": 0.5, "c": 0.5}}, {"1": {"b": 0.5, "c": 0.5, "a": 0.5}}):
        result = run(config, {"qrels.txt": gold}, {"run.json": json.dumps(submission)})
        assert result.scores == pytest.approx({"mrr": 0.5, "p_at_1": 0.0, "ndcg_at_2": 1 / L(3)}, abs=1e-15)


def test_a_multiple_choice_gold_takes_a_run_too(run):
    """The correct option is relevant with grade 1: the multiple-choice keys are unchanged, the graded ones follow."""
    config = {"kind": "ranking", "submission": "run.txt", "keys": ["accuracy", "mrr", "map", "ndcg", "p_at_2"]}
    gold = json.dumps({"q0": "a", "q1": "d", "q2": "f", "q3": "i"})
    runs = "q0 Q0 a 1 2 x\nq0 Q0 b 2 1 x\nq1 Q0 c 1 2 x\nq1 Q0 d 2 1 x\nq2 Q0 e 1 1 x\nq3 Q0 g 1 3 x\n" \
           "q3 Q0 h 2 2 x\nq3 Q0 i 3 1 x\n"
    result = run(config, {"gold.json": gold}, {"run.txt": runs})
    mrr = (1 + 1 / 2 + 0 + 1 / 3) / 4
    assert result.scores == pytest.approx({"accuracy": 0.25, "mrr": mrr, "map": mrr,
                                           "ndcg": (1 + 1 / L(3) + 0 + 1 / L(4)) / 4,
                                           "p_at_2": (1 / 2 + 1 / 2) / 4}, abs=1e-15)
    # the multiple-choice default stays "refuse"
    run(config, {"gold.json": gold}, {"run.txt": runs.replace("q2 Q0 e 1 1 x\n", "")}).assert_rejected(
        "Submission error", "no prediction for 1 of the 4 ids ('q2')")


def test_lenient_modes_with_a_multiple_choice_json_submission(run):
    config = {"kind": "ranking", "keys": ["accuracy", "mrr"], "missing_queries": "skip"}
    result = run(config, {"gold.json": json.dumps({"q1": "a", "q2": "b", "q3": "c"})},
                 {"predictions.json": json.dumps({"q1": ["a"], "q2": ["x", "b"], "q9": ["z"]})})
    assert result.scores == pytest.approx({"accuracy": 0.5, "mrr": 0.75}, abs=1e-15)
    assert "ranks 1 query that this phase does not have ('q9')" in result.stderr


# ---------------------------------------------------------------------------------------------------------------
# Per-item statistics


@pytest.mark.parametrize("mode", ["zero", "skip"])
def test_items_give_back_every_score_and_any_subset(score, mode):
    config = dict(CONFIG, missing_queries=mode)
    for key in KEYS:
        result = score(dict(config, keys=[key]), {"qrels.txt": QRELS}, {"run.txt": RUN})
        items = result.items
        assert items.unit == "query" and items.score() == dict(result.scores)[key]
        assert items.ids == (["q1", "q2", "q3"] if mode == "zero" else ["q1", "q2"])
        assert items.verdicts[:2] == ["partly", "wrong"]
        # the items of q1 alone give q1's scores: what the metric gives with q1 as the whole gold
        alone = items.finish(dict((name, float(value)) for name, value in items.stats[0].items()))
        assert alone == pytest.approx(Q1[key], abs=1e-15)
    details = score(dict(config, keys=["map"]), {"qrels.txt": QRELS},
                    {"run.txt": RUN}).items.details
    assert details[0] == "first relevant document ranked 3rd of 5; 3 of the 4 relevant ranked"
    assert details[1] == "the gold has no relevant document for this query"
    assert details[2:] == (["not in the run"] if mode == "zero" else [])


# ---------------------------------------------------------------------------------------------------------------
# Bad files: one line naming the file, line and problem; never a gold value


@pytest.mark.parametrize("name, text, fragments", [
    ("run.txt", "q1 Q0 d1 1 1 t\nq1 Q0 d2 2 t\n", ["run.txt, line 2: a run line has 6 columns", "(found 5)"]),
    ("run.txt", "q1 d1 1 1\n", ["run.txt, line 1: a run line has 6 or 3 columns", "(found 4)"]),
    ("run.txt", "q1 Q0 d1 1 high t\n", ["run.txt, line 1: the score (5th column) must be a finite number",
                                        "'high'"]),
    ("run.txt", "q1 Q0 d1 1 nan t\n", ["line 1: the score (5th column) must be a finite number, found 'nan'"]),
    ("run.txt", "q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\nq1 Q0 d1 3 0 t\n",
     ["run.txt, line 3: query 'q1' ranks document 'd1' a second time"]),
    ("run.txt", "q1 Q0 d1 1 2 t\nq2 Q0 d7 1 1 t\nq1 Q0 d1 3 0 t\n",
     ["run.txt, line 3: query 'q1' ranks document 'd1' a second time"]),
    ("run.tsv", "q1\td1\t1\nq1\td2\t3\n", ["run.tsv, line 1 (query 'q1')", "rank 2 is missing"]),
    ("run.tsv", "q1\td1\t1\nq1\td2\t1\n", ["rank 2 is given twice"]),
    ("run.tsv", "q1\td1\t0\n", ["line 1: the rank (3rd column) must be an integer from 1, found '0'"]),
    ("run.tsv", "q1\td1\t\u00b2\n", ["line 1: the rank (3rd column) must be an integer from 1, found"]),
    ("run.txt", "", ["run.txt holds no run lines"]),
    ("run.txt", "q8 Q0 d1 1 1 t\n", ["run.txt ranks none of the 3 queries of this phase (first of its own: 'q8')"]),
    ("run.json", '{"q1": {"d1": "high"}}', ["run.json, query 'q1': the score of document 'd1' must be a finite"]),
    ("run.json", '{"q1": {"d1": 1, "d1": 2}}', ["query 'q1': document 'd1' is given more than once"]),
    ("run.json", '{"q1": [{"d": 1}]}', ["item 1 must be a document id", "an object"]),
    ("run.json", '{"q1": ["d1", "d1"]}', ["the document 'd1' is ranked twice"]),
])
def test_bad_runs(run, name, text, fragments):
    run(dict(CONFIG, submission=name), {"qrels.txt": QRELS}, {name: text}).assert_rejected(
        "Submission error", *fragments)


@pytest.mark.parametrize("text, fragments", [
    ("q1 0 secretdoc 1\nq1 0 d2\n", ["reference file qrels.txt, line 2: a qrels line has 4 columns"]),
    ("q1 0 secretdoc high\n", ["line 1: the grade (4th column) must be an integer"]),
    ("q1 0 secretdoc 1.5\n", ["line 1: the grade (4th column) must be an integer"]),
    ("q1 0 secretdoc \u00b2\n", ["line 1: the grade (4th column) must be an integer"]),
    ("q1 0 secretdoc -\u00b2\n", ["line 1: the grade (4th column) must be an integer"]),
    ("q1 0 secretdoc 1\nq1 0 secretdoc 2\n", ["line 2: query 'q1' judges the same document a second time"]),
    ("\n\n", ["reference file qrels.txt holds no judgments"]),
])
def test_bad_qrels_never_quote_the_gold(run, text, fragments):
    message = run(CONFIG, {"qrels.txt": text}, {"run.txt": "q1 Q0 d1 1 1 t\n"}).assert_rejected(
        "Reference data error", *fragments)
    assert "secretdoc" not in message and "high" not in message


@pytest.mark.parametrize("config, fragment", [
    ({"missing_queries": "drop"}, 'missing_queries must be one of "refuse", "zero", "skip"'),
    ({"relevance_threshold": 0}, "relevance_threshold must be an integer >= 1"),
    ({"relevance_threshold": True}, "relevance_threshold must be an integer >= 1"),
    ({"keys": ["p_at_0"]}, 'score key "p_at_0" is not available'),
    ({"keys": ["ndcg_at_05"]}, 'score key "ndcg_at_05" is not available'),
    ({"keys": ["ndcg@10"]}, "p_at_<k>, recall_at_<k>, mrr_at_<k>, ndcg_at_<k>, hits_at_<k> (k >= 1)"),
])
def test_config_problems(config, fragment):
    from generic_config import check_config
    problems = check_config(dict(CONFIG, **config))
    assert any(fragment in problem for problem in problems), problems


def test_parametric_keys_are_accepted():
    from generic_config import check_config, declared_keys
    config = dict(CONFIG, keys=["ndcg_at_10", "map", "mrr_at_10", "recall_at_1000", "hits_at_1", "p_at_20", "ndcg"],
                  missing_queries="skip", relevance_threshold=2)
    assert check_config(config) == [] and declared_keys(config) == config["keys"]


# ---------------------------------------------------------------------------------------------------------------
# Real data: TREC CAsT 2021 (graded qrels 0-4, official threshold 2) and its organizers' baseline runs


def mirror_file(repo, path):
    """The text of ``path`` in the manifest's commit of ``repo``'s git mirror; skips when it is absent."""
    source = next(s for s in MANIFEST["sources"] if s["repo"] == repo)
    assert path in source["files"], "list %s in tests/data_manifests/ranking.json" % path
    folder = repo.replace("/", "+")
    base = Path(os.environ["MIRRORS_DIR"]) if os.environ.get("MIRRORS_DIR") else ROOT.parent / ".mirror"
    git_dir = base / folder / "repo"
    proc = subprocess.run(["git", "--git-dir", str(git_dir), "show", "%s:%s" % (source["commit"], path)],
                          capture_output=True) if git_dir.is_dir() else None
    if proc is None or proc.returncode != 0:
        pytest.skip("real data not available: %s:%s in %s (set MIRRORS_DIR)" % (repo, path, git_dir))
    return proc.stdout.decode("utf-8")


CAST = "daltonj/treccastweb"
CAST_QRELS = "2021/trec-cast-qrels-docs.2021.qrel"
CAST_RUNS = [p for s in MANIFEST["sources"] if s["repo"] == CAST for p in s["files"] if p.endswith(".run")]
# our key -> trec_eval's measure (pytrec_eval's name)
TREC_EVAL = {"ndcg": "ndcg", "ndcg_at_10": "ndcg_cut_10", "ndcg_at_3": "ndcg_cut_3", "map": "map",
             "mrr": "recip_rank", "p_at_10": "P_10", "p_at_1000": "P_1000", "recall_at_100": "recall_100",
             "recall_at_1000": "recall_1000", "hits_at_1": "success_1", "hits_at_10": "success_10"}


def parse_qrels(text):
    qrels = {}
    for line in text.splitlines():
        qid, _, doc, grade = line.split()
        qrels.setdefault(qid, {})[doc] = int(grade)
    return qrels


def parse_run(text):
    run = {}
    for line in text.splitlines():
        qid, _, doc, _, value, _ = line.split()
        run.setdefault(qid, {})[doc] = float(value)
    return run


def dropped(text, every=7):
    """The run without one judged query in ``every`` (by position): queries missing for the modes to matter."""
    queries = sorted(set(line.split()[0] for line in text.splitlines()))
    gone = set(queries[::every])
    return "".join(line + "\n" for line in text.splitlines() if line.split()[0] not in gone), gone


@pytest.mark.parametrize("path", CAST_RUNS)
@pytest.mark.parametrize("threshold", [2, 1])
def test_cast_2021_against_pytrec_eval(run, path, threshold):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_text, run_text = mirror_file(CAST, CAST_QRELS), mirror_file(CAST, path)
    qrels = parse_qrels(qrels_text)
    partial, gone = dropped(run_text)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(m.split("_")[0] if m.startswith(("P_", "recall_")) else
                                                          m for m in TREC_EVAL.values()) |
                                               {"P.10", "P.1000", "recall.100", "recall.1000", "ndcg_cut.3",
                                                "ndcg_cut.10", "success.1", "success.10"},
                                               relevance_level=threshold)
    per_query = evaluator.evaluate(parse_run(partial))
    assert set(per_query) == set(qrels) - gone  # trec_eval: the judged queries the run has
    keys = sorted(TREC_EVAL)
    for mode, count in (("skip", len(per_query)), ("zero", len(qrels))):  # zero: trec_eval -c
        config = dict(CONFIG, keys=keys, relevance_threshold=threshold, missing_queries=mode)
        result = run(config, {"qrels.txt": qrels_text}, {"run.txt": partial})
        assert result.returncode == 0, result.stderr
        for key in keys:
            oracle = math.fsum(q[TREC_EVAL[key]] for q in per_query.values()) / count
            assert result.scores[key] == pytest.approx(oracle, abs=1e-9), (mode, key)


def test_cast_2021_against_ir_measures(run):
    ir_measures = pytest.importorskip("ir_measures")
    qrels_text, run_text = mirror_file(CAST, CAST_QRELS), mirror_file(CAST, CAST_RUNS[0])
    measures = {"ndcg_at_10": ir_measures.nDCG @ 10, "ndcg": ir_measures.nDCG, "map": ir_measures.AP(rel=2),
                "mrr": ir_measures.RR(rel=2), "p_at_5": ir_measures.P(rel=2) @ 5,
                "recall_at_100": ir_measures.R(rel=2) @ 100, "hits_at_5": ir_measures.Success(rel=2) @ 5}
    qrels = [ir_measures.Qrel(q, d, g) for q, docs in parse_qrels(qrels_text).items() for d, g in docs.items()]
    runs = [ir_measures.ScoredDoc(q, d, s) for q, docs in parse_run(run_text).items() for d, s in docs.items()]
    oracle = ir_measures.calc_aggregate(list(measures.values()), qrels, runs)
    config = dict(CONFIG, keys=sorted(measures), relevance_threshold=2, missing_queries="skip")
    result = run(config, {"qrels.txt": qrels_text}, {"run.txt": run_text})
    for key, measure in measures.items():
        assert result.scores[key] == pytest.approx(oracle[measure], abs=1e-9), key
    assert "ranks 81 queries that this phase does not have" in result.stderr  # 239 run queries, 158 judged


def test_cast_2021_mrr_at_10_against_ms_marco_eval(run, tmp_path):
    """MS MARCO's script counts every qrels line as relevant and divides by the qrels' queries (our "zero"): given
    CAsT's judgments with grade >= 2 and the runs' top 10 in trec_eval's order (ids made integers for it), both
    read the same two files."""
    script = mirror_file("microsoft/MSMARCO-Passage-Ranking", "ms_marco_eval.py")
    qrels, runs = parse_qrels(mirror_file(CAST, CAST_QRELS)), parse_run(mirror_file(CAST, CAST_RUNS[1]))
    numbers = {}

    def number(text):
        return numbers.setdefault(text, len(numbers) + 1)  # ids from 1: the script pads rankings with pid 0
    reference = "".join("%d\t0\t%d\t1\n" % (number(q), number(d)) for q, docs in sorted(qrels.items())
                        for d, g in sorted(docs.items()) if g >= 2)
    judged = set(q for q, docs in qrels.items() if any(g >= 2 for g in docs.values()))
    lines = []
    for q in sorted(runs)[::2]:  # half the queries: the others are missing
        order = sorted(((s, d) for d, s in runs[q].items()), reverse=True)[:10]
        lines.extend("%d\t%d\t%d\n" % (number(q), number(d), rank) for rank, (_, d) in enumerate(order, 1))
    files = {"ref.tsv": reference, "cand.tsv": "".join(lines), "ms_marco_eval.py": script}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    proc = subprocess.run([sys.executable, str(tmp_path / "ms_marco_eval.py"), str(tmp_path / "ref.tsv"),
                           str(tmp_path / "cand.tsv")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    official = float(next(line.split(":")[1] for line in proc.stdout.splitlines() if line.startswith("MRR @10")))
    config = dict(CONFIG, reference="ref.tsv", submission="cand.tsv", keys=["mrr_at_10", "mrr"])
    result = run(config, {"ref.tsv": reference}, {"cand.tsv": files["cand.tsv"]})
    assert result.returncode == 0, result.stderr
    assert len(judged) == len(set(line.split("\t")[0] for line in reference.splitlines()))
    assert result.scores["mrr_at_10"] == pytest.approx(official, abs=1e-9)
    assert 0 < official < result.scores["mrr"] + 1e-12


def test_cast_2021_items_give_back_the_written_scores(score):
    qrels_text, run_text = mirror_file(CAST, CAST_QRELS), mirror_file(CAST, CAST_RUNS[2])
    partial, _ = dropped(run_text, 5)
    for mode in ("zero", "skip"):
        for key in ("ndcg_at_10", "map", "mrr_at_10", "recall_at_100"):
            config = dict(CONFIG, keys=[key], relevance_threshold=2, missing_queries=mode)
            result = score(config, {"qrels.txt": qrels_text}, {"run.txt": partial})
            assert result.items.score() == dict(result.scores)[key]


# ---------------------------------------------------------------------------------------------------------------
# new --kind ranking with a qrels gold: keys, run format, public data, baseline; build and replay


def test_sample_qrels_gold_is_synthetic_and_the_same_at_every_run():
    from codalab_bundles.authoring import generic_kits
    first = generic_kits.sample_gold("ranking", "dev", 7, qrels=True)
    assert first == generic_kits.sample_gold("ranking", "dev", 7, qrels=True)
    assert sorted(first) == ["options.json", "qrels.txt", "topics.tsv"]
    lines = first["qrels.txt"].splitlines()
    assert len(lines) == 4 * generic_kits.SPLIT_SIZES["dev"] and all(len(line.split()) == 4 for line in lines)
    options = json.loads(first["options.json"])
    assert all(line.split()[2] in options[line.split()[0]] for line in lines)


def test_new_with_a_qrels_gold_builds_and_replays(tmp_path_factory):
    from codalab_bundles.authoring import generic_kits
    from test_new_task import _copy_repository, run as build_bundle
    repo = _copy_repository(tmp_path_factory.mktemp("clone"))
    gold = tmp_path_factory.mktemp("gold")
    sample = generic_kits.sample_gold("ranking", "test", 3, qrels=True)
    (gold / "judgments.qrels").write_text(sample["qrels.txt"])
    (gold / "options.json").write_text(sample["options.json"])
    (gold / "topics.tsv").write_text(sample["topics.tsv"])
    made = build_bundle(repo, "new", "passages", "--kind", "ranking", "--gold-dir", str(gold))
    assert made.returncode == 0, made.stderr
    config = json.loads((repo / "scoring_programs" / "passages" / "scoring.json").read_text())
    assert config["keys"] == ["ndcg_at_10", "map", "mrr_at_10", "recall_at_100"]
    assert (config["reference"], config["submission"], config["missing_queries"]) == ("judgments.qrels", "run.txt",
                                                                                        "zero")
    for split in ("dev", "test"):
        assert sorted(p.name for p in (repo / "reference_data" / "passages" / split).iterdir()) == [
            "judgments.qrels", "options.json", "topics.tsv"]
    built = build_bundle(repo, "--task", "passages")
    assert built.returncode == 0, built.stdout + built.stderr
    assert built.stdout.count("sample submission on Codabench: Finished") == 2
    assert build_bundle(repo, "validate", "dist/passages.zip").returncode == 0
    replayed = build_bundle(repo, "replay", "dist/passages.zip", "--phase", "2", "--json")
    report = json.loads(replayed.stdout.strip().splitlines()[-1])
    assert report["status"] == "Finished" and report["columns_without_score"] == []
    assert 0 < report["scores"]["ndcg_at_10"] < 1  # the baseline ranks the shuffled candidates as given
    card = (repo / "scoring_programs" / "passages" / "README.md").read_text()
    assert "`missing_queries` is `zero`" in card
    assert "nDCG@10" in (repo / "bundles" / "passages" / "task.yaml").read_text()
    # the public data: ids and texts, no judgment
    import zipfile
    with zipfile.ZipFile(str(repo / "dist" / "passages.zip")) as bundle:
        names = [n for n in bundle.namelist() if n.endswith(".zip")]
        assert names
    suite = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_every_task.py",
                            "-k", "passages and metric_card"], cwd=str(repo), capture_output=True, text=True,
                           timeout=900)
    assert suite.returncode == 0 and " passed" in suite.stdout, suite.stdout[-3000:]


def test_integer_ids_compare_as_numbers_in_qrels_and_runs(run):
    config = dict(CONFIG, keys=["mrr", "ndcg"])
    result = run(config, {"qrels.txt": "1 0 7 2\n1 0 +8 1\n"}, {"run.txt": "01 Q0 008 1 2 t\n001 Q0 007 2 1 t\n"})
    assert result.scores == pytest.approx({"mrr": 1.0, "ndcg": (1 + 2 / L(3)) / (2 + 1 / L(3))}, abs=1e-15)
    run(config, {"qrels.txt": "1 0 7 2\n"}, {"run.txt": "1 Q0 7 1 2 t\n1 Q0 07 2 1 t\n"}).assert_rejected(
        "Submission error", "run.txt, line 2: query '1' ranks document '7' a second time")
