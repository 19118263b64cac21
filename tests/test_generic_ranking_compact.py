"""Generic kind ranking, a run's query of more than generic_ranking_trec._BATCH documents: held compactly (scores or
ranks in an array, ids joined in texts, id hashes apart) instead of sorted whole. The tests lower _BATCH so that a
few lines take that path, and check hand-computed ranks (ties broken by the larger id, a relevant document after a
thousand unjudged ones, cutoffs inside a tie), the same errors as the plain path (a document ranked twice, found
through equal hashes and confirmed on the ids; MS MARCO's ranks), and the same scores as the plain path on random
runs and on TREC CAsT 2021's runs. Speed and memory: bench/huge_runs.py ("ranking valid huge query")."""
import math
import random
from collections import Counter

import pytest

from conftest import load_program
from generic_support import InProcess
from test_generic_ranking_qrels import CAST, CAST_QRELS, CAST_RUNS, CONFIG, KEYS, Q1, QRELS, RUN, expected, \
    mirror_file

PROGRAM = load_program("generic")
import generic_ranking_trec as trec  # noqa: E402  (the module the program above imported)
from scoring_runtime import SubmissionError  # noqa: E402

L = math.log2
PLAIN = trec._BATCH


@pytest.fixture
def read(tmp_path, monkeypatch):
    """read(text, gold, batch, strict=False) -> read_run's result, or the SubmissionError's message."""
    count = [0]

    def read_run(text, gold, batch, strict=False):
        monkeypatch.setattr(trec, "_BATCH", batch)
        count[0] += 1
        path = tmp_path / ("run%d.txt" % count[0])
        path.write_text(text, encoding="utf-8")
        try:
            return trec.read_run(str(path), "run.txt", gold, strict)
        except SubmissionError as exc:
            return str(exc)
    return read_run


@pytest.fixture
def score(tmp_path, monkeypatch):
    """score(config, ref, res, batch) -> the generic program's scores, in-process, with ``batch`` as _BATCH."""
    program = InProcess(tmp_path, monkeypatch, PROGRAM)

    def scored(config, ref, res, batch):
        monkeypatch.setattr(trec, "_BATCH", batch)
        return dict(program(config, ref, res).scores)
    return scored


def lines(rows, query="q1"):
    return "".join("%s Q0 %s %d %s t\n" % (query, document, rank, value)
                   for rank, (document, value) in enumerate(rows, 1))


# ---------------------------------------------------------------------------------------------------------------
# Hand-computed ranks


# trec_eval's order: a (3), y (2), then the tie at 1 by id descending: x, c, b; then z. y is 2nd, b 5th; c (grade 0)
# is not a hit.
TIES_GOLD = {"q1": {"b": 1, "y": 2, "c": 0}}
TIES_SUMMARY = {"q1": (6, [(2, 2), (5, 1)])}


@pytest.mark.parametrize("rows", [
    [("a", "3"), ("b", "1"), ("c", "1.0"), ("x", "1e0"), ("y", "2"), ("z", "0.5")],  # not in score order
    [("a", "3"), ("y", "2"), ("b", "1"), ("c", "1"), ("x", "1"), ("z", "0.5")],  # in score order, ties by id ascending
])
@pytest.mark.parametrize("batch", [1, 2, 4, PLAIN])
def test_ties_are_broken_by_the_larger_id(read, rows, batch):
    assert read(lines(rows), TIES_GOLD, batch) == (TIES_SUMMARY, [])


@pytest.mark.parametrize("batch", [1, 3, PLAIN])
def test_minus_zero_ties_with_zero(read, batch):
    # -0.0 == 0.0: a tie, broken by the id: n before m
    assert read(lines([("m", "-0.0"), ("n", "0")]), {"q1": {"m": 1}}, batch) == ({"q1": (2, [(2, 1)])}, [])


def after_a_thousand(order):
    """1000 unjudged documents (scores 1000 down to 1), then a tie at 0.5 of s2, r (grade 2), q, s1, then a
    (grade 1) at 0.25 and an unjudged one at 0.1; ``order``: as written, reversed, or shuffled."""
    rows = [("u%04d" % i, "%d" % (1000 - i)) for i in range(1000)]
    rows += [("s2", "0.5"), ("r", "0.5"), ("q", "0.5"), ("s1", "5e-1"), ("a", "0.25"), ("b", "0.1")]
    if order == "reversed":
        rows.reverse()
    elif order == "shuffled":
        random.Random(41).shuffle(rows)
    return lines(rows)


# r: 1000 before it, then s2 and s1 (larger ids) -> 1003; q (smaller) follows; a -> 1005. R = 3 (gone: not ranked).
FAR_GOLD = "q1 0 r 2\nq1 0 a 1\nq1 0 gone 3\nq1 0 u0007 0\n"
IDCG = 3 / L(2) + 2 / L(3) + 1 / L(4)
FAR = {
    "mrr": 1 / 1003, "mrr_at_1002": 0.0, "mrr_at_1003": 1 / 1003, "hits_at_1002": 0.0, "hits_at_1003": 1.0,
    "p_at_1004": 1 / 1004, "p_at_1005": 2 / 1005, "recall_at_1003": 1 / 3, "recall_at_1005": 2 / 3,
    "map": (1 / 1003 + 2 / 1005) / 3, "ndcg": (2 / L(1004) + 1 / L(1006)) / IDCG, "ndcg_at_1004": 2 / L(1004) / IDCG,
}


@pytest.mark.parametrize("order", ["written", "reversed", "shuffled"])
@pytest.mark.parametrize("batch", [7, 64, PLAIN])
def test_a_relevant_document_after_a_thousand_unjudged_ones(score, order, batch):
    config = dict(CONFIG, keys=sorted(FAR))
    scores = score(config, {"qrels.txt": FAR_GOLD}, {"run.txt": after_a_thousand(order)}, batch)
    assert scores == pytest.approx(FAR, abs=1e-15)


@pytest.mark.parametrize("batch", [1, 2, PLAIN])
def test_cutoffs_inside_a_tie(score, batch):
    # order a, d, c, b: c (relevant) 3rd, b (relevant) 4th
    config = dict(CONFIG, keys=["p_at_3", "recall_at_3", "hits_at_2", "hits_at_3", "mrr_at_3", "ndcg_at_3",
                                "ndcg_at_4"])
    run = lines([("a", "2"), ("b", "1"), ("c", "1"), ("d", "1")])
    scores = score(config, {"qrels.txt": "q1 0 b 1\nq1 0 c 1\n"}, {"run.txt": run}, batch)
    assert scores == pytest.approx({"p_at_3": 1 / 3, "recall_at_3": 1 / 2, "hits_at_2": 0.0, "hits_at_3": 1.0,
                                    "mrr_at_3": 1 / 3, "ndcg_at_3": (1 / L(4)) / (1 + 1 / L(3)),
                                    "ndcg_at_4": (1 / L(4) + 1 / L(5)) / (1 + 1 / L(3))}, abs=1e-15)


@pytest.mark.parametrize("batch", [1, 2, 3])
def test_the_worked_table_and_a_query_in_two_blocks(score, batch):
    """test_generic_ranking_qrels' hand-computed q1, through the compact path; then its lines apart in the file."""
    assert score(CONFIG, {"qrels.txt": QRELS}, {"run.txt": RUN}, batch) == pytest.approx(expected(Q1, 3), abs=1e-15)
    apart = RUN.splitlines(True)
    apart = apart[:2] + apart[5:6] + apart[2:5] + apart[6:]
    assert apart != RUN.splitlines(True)
    assert score(CONFIG, {"qrels.txt": QRELS}, {"run.txt": "".join(apart)}, batch) == \
        pytest.approx(expected(Q1, 3), abs=1e-15)


# ---------------------------------------------------------------------------------------------------------------
# Errors: the same as the plain path's


@pytest.mark.parametrize("text, message", [
    (lines([("d1", 3), ("d2", 2), ("d3", 1), ("d1", 0)]),
     "run.txt, line 4: query 'q1' ranks document 'd1' a second time"),
    # the first document given a second time, in the file's order
    (lines([("d1", 3), ("d2", 2), ("d3", 1), ("d2", 0), ("d1", 0)]), "line 4: query 'q1' ranks document 'd2'"),
    # ids as numbers: 007 is 7
    (lines([("7", 3), ("5", 2), ("6", 1), ("007", 0)]), "line 4: query 'q1' ranks document '7' a second time"),
    # the query's lines apart: read again, whole
    (lines([("d1", 3), ("d2", 2)]) + lines([("x", 1)], "q2") + lines([("d3", 1), ("d2", 0)]),
     "line 5: query 'q1' ranks document 'd2' a second time"),
    ("q1\td1\t1\nq1\td2\t2\nq1\td3\t3\nq1\td1\t4\n", "line 4: query 'q1' ranks document 'd1' a second time"),
    ("q1\td1\t1\nq1\td2\t4\nq1\td3\t3\nq1\td4\t5\n", "run.txt, line 1 (query 'q1'): the ranks must be 1, 2, 3, ... "
                                                     "once each; rank 2 is missing"),
    ("q1\td1\t1\nq1\td2\t2\nq1\td3\t2\nq1\td4\t3\n", "rank 3 is given twice"),
    ("q1\td1\t3\nq1\td2\t1\nq1\td3\t1\nq1\td4\t4\n", "rank 2 is given twice"),
    # MS MARCO: the ranks are checked before the documents
    ("q1\td1\t1\nq1\td1\t1\nq1\td3\t3\n", "rank 2 is given twice"),
])
@pytest.mark.parametrize("batch", [1, 2, PLAIN])
def test_the_same_errors(read, text, message, batch):
    said = read(text, {"q1": {"d1": 1}}, batch)
    assert isinstance(said, str) and message in said, said


def test_equal_hashes_of_different_ids_are_checked_on_the_ids(read, monkeypatch):
    # every id of the same length collides: nothing is repeated, so the ranks are those of the plain path
    monkeypatch.setattr(trec, "hash", len, raising=False)
    assert read(lines([("a", "3"), ("b", "1"), ("c", "1.0"), ("x", "1e0"), ("y", "2"), ("z", "0.5")]),
                TIES_GOLD, 2) == (TIES_SUMMARY, [])
    said = read(lines([("a", 3), ("b", 2), ("c", 1), ("b", 0)]), TIES_GOLD, 2)
    assert said.endswith("line 4: query 'q1' ranks document 'b' a second time"), said


# ---------------------------------------------------------------------------------------------------------------
# The same summaries as the plain path


def random_case(rng):
    width = rng.choice([6, 3])
    pool = ["d%d" % i for i in range(rng.randint(1, 30))] + [rng.choice(["007", "7"]), "+3", "é", "zz", "d10a"]
    gold, rows = {}, []
    for query in ("q0", "q1", "q2"):
        judged = dict((trec._key(d), rng.randint(-1, 3)) for d in rng.sample(pool, rng.randint(0, len(pool))))
        if judged or rng.random() < 0.5:
            gold[query] = judged
        count = rng.randint(0, 40)
        documents = [rng.choice(pool) for _ in range(count)] if rng.random() < 0.05 else \
            rng.sample(pool, min(count, len(pool)))
        ranks = list(range(1, len(documents) + 1))
        if rng.random() < 0.5:
            rng.shuffle(ranks)
        if rng.random() < 0.05 and ranks:
            ranks[rng.randrange(len(ranks))] = rng.randint(1, len(ranks) + 2)
        for document, rank in zip(documents, ranks):
            value = rng.choice(["0.0", "-0.0", "1", "0.5", "2", "-1.5", "1e-300"]) if rng.random() < 0.9 else \
                repr(rng.random())
            rows.append("%s Q0 %s %d %s t" % (query, document, rank, value) if width == 6 else
                        "%s\t%s\t%d" % (query, document, rank))
    if rng.random() < 0.3:
        rng.shuffle(rows)
    return "".join(row + "\n" for row in rows), gold or {"q9": {"a": 1}}, rng.random() < 0.2


def test_random_runs_give_what_the_plain_path_gives(read):
    rng, errors = random.Random(41), 0
    for _ in range(300):
        text, gold, strict = random_case(rng)
        if not text:
            continue
        plain = read(text, gold, PLAIN, strict)
        errors += isinstance(plain, str)
        for batch in (1, 2, 5):
            assert read(text, gold, batch, strict) == plain, (text, gold)
    assert 20 < errors < 150  # both kinds of case are tried


@pytest.mark.parametrize("path", CAST_RUNS)
def test_cast_2021_runs_score_the_same(score, path):
    """TREC CAsT 2021 (about 100 documents a query): the compact path (blocks of 7) gives the plain path's scores,
    which test_generic_ranking_qrels checks against pytrec_eval."""
    qrels, run = mirror_file(CAST, CAST_QRELS), mirror_file(CAST, path)
    config = dict(CONFIG, keys=KEYS + ["ndcg_at_10", "p_at_1000", "recall_at_1000"], relevance_threshold=2)
    plain = score(config, {"qrels.txt": qrels}, {"run.txt": run}, PLAIN)
    assert min(Counter(line.split()[0] for line in run.splitlines()).values()) > 7 and plain["ndcg"] > 0
    assert score(config, {"qrels.txt": qrels}, {"run.txt": run}, 7) == plain
