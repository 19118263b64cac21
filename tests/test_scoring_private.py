"""Public and private items of one gold, and withheld scores (scoring_programs/common/scoring_private.py): what the
builder's marks in the reference data make a scoring run write, with figures computed by hand.

The toy task: four rows a, b, c, d, each with the counts of an F1 (tp, fp, fn), and a second score ("rows") that
covers every row. c and d are private.
    a: tp 1                 public
    b: fp 1, fn 1           public   public F1 = 2*1 / (2*1 + 1 + 1) = 0.5
    c: tp 1, fp 1           private
    d: tp 2                 private  private F1 = 2*3 / (2*3 + 1 + 0) = 6/7 = 0.857142857142857
Over the four rows: F1 = 2*4 / (2*4 + 2 + 1) = 8/11 = 0.727272727272727.
"""
import json
import os

import pytest

import score_files
import scoring_base
import scoring_main

ROWS = {"a": {"tp": 1}, "b": {"fp": 1, "fn": 1}, "c": {"tp": 1, "fp": 1}, "d": {"tp": 2}}
PRIVATE_F1 = "0.857142857142857"


def _f1(totals):
    tp, fp, fn = totals.get("tp", 0), totals.get("fp", 0), totals.get("fn", 0)
    return 2.0 * tp / (2 * tp + fp + fn)


def score(ref_dir, res_dir, with_items=True):
    """Reads gold.txt (one row id per line) to know the rows, and scores them with ROWS's counts."""
    ids = scoring_base.read_text(os.path.join(ref_dir, "gold.txt")).split()
    items = scoring_base.Items("row", "f1", _f1)
    for row in ids:
        items.add(row, ROWS[row], "right" if "tp" in ROWS[row] and len(ROWS[row]) == 1 else "partly", "detail")
    return scoring_base.Result([("f1", items.score()), ("rows", float(len(ids)))],
                               html="<p>whole-set page</p>", notes=["scored %d rows" % len(ids)],
                               hidden_gold_html="<p>whole-set page, gold hidden</p>",
                               warnings=["a warning about the submission"], items=items if with_items else None)


def _run(tmp_path, marks, capsys, program=score):
    ref, res, out = tmp_path / "input" / "ref", tmp_path / "input" / "res", tmp_path / "output"
    ref.mkdir(parents=True)
    res.mkdir(parents=True)
    (ref / "gold.txt").write_text("a\nb\nc\nd\n")
    (res / "pred.txt").write_text("anything\n")
    for name, text in marks.items():
        (ref / name).write_text(text)
    status = scoring_main.main(program, "Toy", [str(tmp_path / "input"), str(out)], program="toy")
    captured = capsys.readouterr()
    read = lambda name: (out / name).read_text() if (out / name).is_file() else None  # noqa: E731
    return status, captured.out, captured.err, read("scores.txt"), read("scores.json"), read("detailed_results.html")


def test_without_marks_the_run_is_the_programs(tmp_path, capsys):
    status, out, err, txt, js, html = _run(tmp_path, {}, capsys)
    assert status == 0
    assert txt == "f1: 0.727272727272727\nrows: 4.000000000000000\n"
    assert "scored 4 rows" in out


def test_private_ids_make_the_ranking_score_public_items_only_and_drop_the_rest(tmp_path, capsys):
    status, out, err, txt, js, html = _run(tmp_path, {"private_ids.txt": "c\n\n# a comment\nd\n"}, capsys)
    assert status == 0
    assert txt == "f1: 0.500000000000000\n"  # public rows a, b only; "rows" covers every row: left out
    assert list(json.loads(js)) == ["f1", "signature"]
    assert "f1: 0.500000000000000" in out and "f1 scored on the 2 public rows of 4" in out
    assert "scored 4 rows" not in out  # the program's notes may count gold items: left out
    assert "a warning about the submission" in err  # warnings are about the submission: kept
    assert "0.5000" in html and "whole-set page" not in html and "0.7273" not in html
    for text in (out, err, html):
        assert "0.8571" not in text and "private_f1" not in text  # never computed here


def test_private_scoring_writes_the_private_figure_into_the_scores_files_only(tmp_path, capsys):
    status, out, err, txt, js, html = _run(tmp_path, {"private_ids.txt": "c\nd\n", "private_scoring.txt": ""},
                                           capsys)
    assert status == 0
    assert txt == "f1: 0.500000000000000\nprivate_f1: %s\n" % PRIVATE_F1
    assert json.loads(js)["private_f1"] == pytest.approx(6 / 7, abs=1e-15)
    for text in (out, err, html):  # what participants read on Codabench
        assert "0.857" not in text and "0.8571" not in text
    assert "f1: 0.500000000000000" in out
    assert "private_f1, on the 2 private ones, is in scores.txt only" in out


def test_the_gold_hash_leaves_the_marks_out(tmp_path, capsys):
    plain = json.loads(_run(tmp_path / "1", {}, capsys)[4])["signature"]["gold_sha256"]
    marked = json.loads(_run(tmp_path / "2", {"private_ids.txt": "c\nd\n", "private_scoring.txt": ""},
                             capsys)[4])["signature"]["gold_sha256"]
    withheld = json.loads(_run(tmp_path / "3", {"scores_withheld.txt": ""}, capsys)[4])["signature"]["gold_sha256"]
    assert plain == marked == withheld and plain is not None


def test_withheld_scores_write_no_figure_anywhere(tmp_path, capsys):
    status, out, err, txt, js, html = _run(tmp_path, {"scores_withheld.txt": "", "private_ids.txt": "c\n"}, capsys)
    assert status == 0
    assert txt == ""
    assert list(json.loads(js)) == ["signature"]  # Codabench stores no score: none is a column
    assert "withholds its scores" in out and "withholds its scores" in html
    for text in (out, err, html):
        assert "0.5" not in text and "0.7272" not in text and "0.857" not in text


def test_a_withheld_phase_still_refuses_a_bad_submission(tmp_path, capsys):
    def bad(ref_dir, res_dir):
        raise scoring_base.SubmissionError("pred.txt, line 3: not a number")
    status, out, err, txt, js, html = _run(tmp_path, {"scores_withheld.txt": ""}, capsys, bad)
    assert status == 1 and txt is None
    assert err == "Submission error: pred.txt, line 3: not a number\n"


@pytest.mark.parametrize("marks, program, message", [
    ({"private_ids.txt": "c\nzz\n"}, score,
     "Reference data error (a problem for the organizers, not your submission): private_ids.txt, line 2: not the id "
     "of a row the program scored"),
    ({"private_ids.txt": "a\nb\nc\nd\n"}, score,
     "Reference data error (a problem for the organizers, not your submission): private_ids.txt makes all of the 4 "
     "rows private: a leaderboard needs both public and private items"),
    ({"private_ids.txt": "c\n", "gold_is_public.txt": ""}, score,
     "Reference data error (a problem for the organizers, not your submission): the reference data holds both "
     "gold_is_public.txt and private_ids.txt: a gold that participants may see has no private items"),
    ({"private_ids.txt": "c\n"}, lambda r, s: score(r, s, with_items=False),
     "Scoring program error (a problem for the organizers, not your submission): this program gives no per-item "
     "figures (Result.items), so it cannot score the public and the private items of the gold apart"),
])
def test_marks_the_run_cannot_follow_get_one_line_and_no_scores(tmp_path, capsys, marks, program, message):
    status, out, err, txt, js, html = _run(tmp_path, marks, capsys, program)
    assert status == 1 and txt is None and js is None
    assert err == message + "\n"


def test_a_subset_the_metric_cannot_score_says_so_without_values(tmp_path, capsys):
    def zero(ref_dir, res_dir):
        items = scoring_base.Items("row", "f1", lambda t: 1.0 / t.get("tp", 0))
        for row in "abcd":
            items.add(row, {"tp": 1} if row in "cd" else {})
        return scoring_base.Result([("f1", 0.5)], items=items)
    status, out, err, txt, js, html = _run(tmp_path, {"private_ids.txt": "c\nd\n"}, capsys, zero)
    assert status == 1 and txt is None
    assert err == ("Reference data error (a problem for the organizers, not your submission): the public rows cannot "
                   "be scored on their own (ZeroDivisionError)\n")


def test_two_files_offline_give_the_organizer_both_figures_and_the_items_of_the_ranking_one(tmp_path, capsys):
    gold, pred = tmp_path / "gold", tmp_path / "pred.txt"
    gold.mkdir()
    (gold / "gold.txt").write_text("a\nb\nc\nd\n")
    (gold / "private_ids.txt").write_text("c\nd\n")
    (gold / "private_scoring.txt").write_text("")
    pred.write_text("x\n")
    status = score_files.main(score, "Toy", "toy", (), ["--gold", str(gold), "--pred", str(pred), "--json",
                                                         "--per-item", "all"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0
    assert report["scores"] == {"f1": 0.5, "private_f1": pytest.approx(6 / 7, abs=1e-15)}
    assert [item["id"] for item in report["items"]] == ["c", "d"]  # the private rows: private_f1's items
