"""Generic kind ranking, how a run is read: in pieces of generic_ranking_trec._CHUNK characters, a piece of tidy TREC
lines whose queries change line after line (a run of one-line queries) in bulk, every other piece line by line; and
the queries the gold lacks kept as a count and a few ids. The tests lower _CHUNK so that a few lines make several
pieces, and check hand-computed results and errors (the same line and message as line by line), and that bulk and
line by line agree on random runs with faults. Speed: bench/huge_runs.py ("ranking 7 M unknown queries")."""
import random

import pytest

from conftest import load_program
from generic_support import InProcess

PROGRAM = load_program("generic")
import generic_ranking_trec as trec  # noqa: E402  (the module the program above imported)
from scoring_runtime import SubmissionError  # noqa: E402

CHANGING = trec._changing
GOLD = {"q1": {"d1": 1, "d2": 2}, "q2": {"d5": 1}}


@pytest.fixture
def read(tmp_path, monkeypatch):
    """read(text or bytes, chunk, bulk=True, strict=False, gold=GOLD) -> (summaries, unknown ids, unknown count) or
    the SubmissionError's message. ``bulk=False``: every piece line by line."""
    count = [0]

    def read_run(text, chunk, bulk=True, strict=False, gold=GOLD, batch=None):
        monkeypatch.setattr(trec, "_CHUNK", chunk)
        monkeypatch.setattr(trec, "_BATCH", batch or 1 << 16)
        monkeypatch.setattr(trec, "_changing", CHANGING if bulk else lambda chunk: False)
        count[0] += 1
        path = tmp_path / ("run%d.txt" % count[0])
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_bytes(text.encode("utf-8"))
        try:
            summaries, unknown = trec.read_run(str(path), "run.txt", gold, strict)
        except SubmissionError as exc:
            return str(exc)
        return summaries, list(unknown), len(unknown)
    return read_run


def flood(first, count, start=3):
    """``first`` lines, then ``count`` one-line queries q<start>, q<start+1>, ... (not in GOLD)."""
    return first + "".join("q%d Q0 x%d 1 1.0 r\n" % (start + i, i) for i in range(count))


Q1 = "q1 Q0 d9 1 3 r\nq1 Q0 d2 2 2.5 r\nq1 Q0 d1 3 2 r\n"  # d2 at rank 2 (grade 2), d1 at 3 (grade 1)
Q1_SUMMARY = (3, [(2, 2), (3, 1)])


@pytest.mark.parametrize("chunk", [1, 16, 64, 1000, 1 << 20])
def test_a_flood_of_unknown_queries_is_counted_with_its_first_ids(read, chunk, monkeypatch):
    text = flood(Q1, 500) + "q2 Q0 d5 1 7 r\n"
    counted = []
    extend = trec._Unknown.extend
    monkeypatch.setattr(trec._Unknown, "extend", lambda self, ids: counted.append(len(ids)) or extend(self, ids))
    summaries, shown, count = read(text, chunk)
    assert (sum(counted) > 400) == (chunk >= 1000)  # most counted in bulk where a piece holds many lines
    assert summaries == {"q1": Q1_SUMMARY, "q2": (1, [(1, 1)])}
    assert count == 500 and shown == ["q3", "q4", "q5", "q6", "q7", "q8"]


def test_the_warning_counts_every_unknown_query(tmp_path, monkeypatch):
    monkeypatch.setattr(trec, "_CHUNK", 64)
    program = InProcess(tmp_path, monkeypatch, PROGRAM)
    result = program({"kind": "ranking", "reference": "qrels.txt", "submission": "run.txt",
                      "keys": ["ndcg_at_10"]}, {"qrels.txt": "q1 0 d1 1\nq1 0 d2 2\n"}, {"run.txt": flood(Q1, 300)})
    assert "run.txt ranks 300 queries that this phase does not have ('q3', 'q4', 'q5', 'q6', 'q7', ...)" \
        in "\n".join(result.warnings)


@pytest.mark.parametrize("bulk", [True, False])
@pytest.mark.parametrize("chunk", [1, 40, 1 << 20])
def test_errors_inside_a_flood_name_their_line(read, chunk, bulk):
    # line 1 q1; lines 2..61 q3..q62; then the fault on line 62
    base = flood("q1 Q0 d1 1 1 r\n", 60)
    assert read(base + "q63 Q0 a 1 nan r\n", chunk, bulk) == \
        "run.txt, line 62: the score (5th column) must be a finite number, found 'nan'"
    assert read(base + "q63 Q0 a 1 1 r\nq63 Q0 b 2 1 r\nq63 Q0 a 3 0 r\nq64 Q0 a 1 1 r\n", chunk, bulk) == \
        "run.txt, line 64: query 'q63' ranks document 'a' a second time"
    assert read(base + "q63 Q0 a 1 1\n", chunk, bulk) == \
        "run.txt, line 62: a run line has 6 columns: qid Q0 docid rank score tag (a TREC run) (found 5)"
    assert read(base, chunk, bulk, strict=True) == "run.txt, line 2: 'q3' is not a query id of this phase"


@pytest.mark.parametrize("chunk", [1, 40, 1 << 20])
def test_an_unknown_query_that_comes_back_is_read_again_whole(read, chunk):
    # Q1 is lines 1-3, q3..q12 lines 4-13; q7 returns on line 14: the run is read again holding every query, and
    # q7's repeated x4 is found
    text = flood(Q1, 10) + "q7 Q0 x4 2 0.5 r\n"
    assert read(text, chunk) == "run.txt, line 14: query 'q7' ranks document 'x4' a second time"
    summaries, shown, count = read(flood(Q1, 10) + "q7 Q0 y 2 0.5 r\n", chunk)
    assert summaries == {"q1": Q1_SUMMARY} and count == 10 and shown[:2] == ["q3", "q4"]


@pytest.mark.parametrize("chunk", [1, 30, 1 << 20])
def test_ids_with_signs_or_zeros_and_tabs_and_carriage_returns(read, chunk):
    # +1 and 01 are the query 1 (integer ids compare as numbers): its lines are one query, d01 and d1 differ
    text = ("1\tQ0\td1\t1\t2\tr\n+1\tQ0\td01\t2\t1\tr\n01\tQ0\t-0\t3\t0\tr\n"
            "05 Q0 x 1 1 r\r\n06 Q0 x 1 1 r\rq9 Q0 x 1 1 r")
    summaries, shown, count = read(text, chunk, gold={"1": {"d1": 1, "0": 3}})
    assert summaries == {"1": (3, [(1, 1), (3, 3)])} and shown == ["05", "06", "q9"] and count == 3


def test_a_byte_that_is_not_utf8_after_the_first_piece(read):
    text = flood(Q1, 40).encode() + b"q99 Q0 \xff 1 1 r\n"
    assert read(text, 64) == read(text, 64, bulk=False) == read(text, 1 << 20)
    assert "line 44" in read(text, 64)


def test_a_big_query_across_pieces_is_held_compactly_as_line_by_line(read):
    lines = "".join("q1 Q0 d%d %d %s r\n" % (i, i + 1, 1.0 / (i + 1)) for i in range(50))
    text = "q0 Q0 a 1 1 r\n" + lines + "q1b Q0 a 1 1 r\nq1c Q0 d1 1 1 r\n"
    expected = read(text, 1 << 20, bulk=False, batch=8)
    assert expected[0]["q1"] == (50, [(2, 1), (3, 2)])  # d0 first (score 1), d1 (grade 1), d2 (grade 2)
    for chunk in (1, 20, 100, 1 << 20):
        assert read(text, chunk, batch=8) == expected


def test_random_runs_read_in_bulk_as_line_by_line(read):
    rng = random.Random(41)
    faults = ["", "", "", "q%d Q0 dup 1 1 r\nq%d Q0 dup 2 1 r\n", "q%d Q0 z 1 inf r\n", "q%d Q0 z 1\n", "\n",
              "q%d  Q0 z 1 1 r\n", "q%d Q0 z 1 1 r extra\n"]
    for trial in range(60):
        lines = []
        for _ in range(rng.randint(1, 40)):
            query = rng.choice(["q1", "q2", "q%d" % rng.randint(3, 30)])
            for i in range(rng.choice([1, 1, 1, 2, 5])):
                lines.append("%s Q0 d%d %d %s r\n" % (query, rng.randint(1, 9), i + 1, rng.choice(["1", "2", "0.5"])))
        fault = rng.choice(faults)
        if fault:
            lines.insert(rng.randint(0, len(lines)), fault.replace("%d", str(rng.randint(3, 30))))
        text = "".join(lines)
        strict = trial % 7 == 0
        expected = read(text, 1 << 20, bulk=False, strict=strict)
        for chunk in (1, 17, 64, 1 << 20):
            assert read(text, chunk, strict=strict) == expected, (text, chunk)


@pytest.mark.parametrize("chunk, tidy", [
    ("a b c d e f\ng h i j k l\n", True),
    ("a\tb\tc\td\te\tf\n", True),
    ("a b c d e f g\nh i j k l\n", False),  # 7 and 5 columns: 12 tokens on 2 lines, but not 6 a line
    ("a b c d e f\ng\th i j k l\n", False),  # a tab among spaces
    ("a b c d e f\ng h i j k  l\n", False),  # two spaces
    ("a b c d e f\ng h i j k l\x0b\n", False),  # other white space (split() drops it; the line is not tidy)
    ("a b c d e f\r\ng h i j k l\n", False),  # \r ends a line too
    (" a b c d e f\n", False),
    ("a b c d e f\ng h i j k l", False),  # the last line without its end
])
def test_tidy_pieces(chunk, tidy):
    assert trec._table(chunk, 6) == (chunk.split() if tidy else None)
